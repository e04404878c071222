"""mteval's rules (WMT's 13a tokenizer) and sacreBLEU's Chinese tokenizer, which builds on them.

The rules are public inside the package: the compiled kernel's character table
(:mod:`bleukit.metrics.bleu.kernel`) reads its classes off these patterns, and the Moses
reproduction (:mod:`bleukit.compat.moses`) applies them without the final whitespace split.

>>> Tokenizer13a()("Hello, world!")
'Hello , world !'
>>> TokenizerZh()("我喜欢BLEU。")
'我 喜 欢 BLEU 。'
"""

from __future__ import annotations

import enum
import re
from typing import Tuple

from .base import Tokenizer

__all__ = [
    "MtevalRule",
    "MTEVAL_RULES",
    "mteval_rules",
    "mteval_split",
    "mteval_unescape",
    "Tokenizer13a",
    "TokenizerZh",
    "CHINESE_RANGES",
    "is_chinese_char",
]


class MtevalRule(enum.IntEnum):
    """Positions of the mteval rules in ``MTEVAL_RULES``; the native kernel's C comments and
    ``bleukit.metrics.bleu.kernel.character_table`` (which reads its 13a classes off these patterns) use the
    same names.

    >>> MTEVAL_RULES[MtevalRule.DASH_AFTER_DIGIT][0].pattern
    '([0-9])(-)'
    """

    PUNCTUATION = 0  #: one character of 13a's punctuation class becomes a token of its own
    DOT_AFTER_NON_DIGIT = 1  #: '.' or ',' after a non-digit
    DOT_BEFORE_NON_DIGIT = 2  #: '.' or ',' before a non-digit
    DASH_AFTER_DIGIT = 3  #: '-' after a digit


# mteval-v13a's language-dependent rules, in MtevalRule order. The patterns are the
# specification (sacreBLEU's tokenizer_re), so they are spelled exactly as there.
MTEVAL_RULES: Tuple[Tuple["re.Pattern[str]", str], ...] = (
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)


def mteval_rules(line: str) -> str:
    """Apply the mteval punctuation rules, leaving whitespace as it falls (Moses' scripts then
    normalise it with Perl's own whitespace class, see ``bleukit.compat.moses``)."""
    for pattern, repl in MTEVAL_RULES:
        line = pattern.sub(repl, line)
    return line


def mteval_split(line: str) -> str:
    """Apply the mteval punctuation rules, then normalise whitespace (shared by 13a and zh)."""
    return " ".join(mteval_rules(line).split())


def mteval_unescape(line: str) -> str:
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
        line = mteval_unescape(line)
        # The padding spaces let the period rule see a sentence-final "." after a digit.
        return mteval_split(f" {line} ")


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
        return mteval_split("".join(parts))
