"""Which tokenizer a target language calls for: the one table every entry point reads.

sacreBLEU picks ``zh``, ``ja-mecab`` or ``ko-mecab`` when it knows the target language
(``BLEU(trg_lang=...)``, ``-l SRC-TRG``) and no tokenizer is given, and warns when a given one does
not suit those languages. Thai, Khmer, Lao and Burmese are written without spaces between words
and have no rule of their own there, so BLEU with a whitespace tokenizer counts whole phrases as
tokens: bleukit warns and names the tokenizers that segment them (``flores200``, ``char``).

>>> tokenizer_for_language(None, language_pair="en-zh")
'zh'
>>> tokenizer_for_language(None, trg_lang="de")
'13a'
>>> tokenizer_for_language("13a", trg_lang="ja", warn=print)
Consider using the 'ja-mecab' or 'spm' tokenizer for Japanese.
'13a'
"""

from __future__ import annotations

import warnings
from typing import Callable, Mapping, Optional

from . import DEFAULT_TOKENIZER, check_tokenizer_name

__all__ = ["TARGET_TOKENIZERS", "UNSEGMENTED_LANGUAGES", "target_language", "tokenizer_for_language"]

#: The tokenizer a target language picks when none is given, as sacreBLEU's ``trg_lang`` and ``-l``.
TARGET_TOKENIZERS: Mapping[str, str] = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
#: Languages written without spaces between words that no tokenizer rule covers: code -> name.
UNSEGMENTED_LANGUAGES: Mapping[str, str] = {"th": "Thai", "km": "Khmer", "lo": "Lao", "my": "Burmese"}
#: The tokenizers that split text without spaces into units BLEU can count.
SEGMENTING_TOKENIZERS = ("flores200", "flores101", "spBLEU-1K", "spm", "char")
_NAMES = {"zh": "Chinese", "ja": "Japanese", "ko": "Korean"}


def target_language(language_pair: str) -> str:
    """The target of a ``SRC-TRG`` language pair (``"en-zh"`` -> ``"zh"``), or a ``ValueError``.

    >>> target_language("de-en")
    'en'
    """
    if not isinstance(language_pair, str):
        raise TypeError(f"language_pair must be a str like 'en-de', got {type(language_pair).__name__}")
    parts = language_pair.split("-")
    if len(parts) < 2 or not parts[1]:
        raise ValueError(f"a language pair must look like SRC-TRG (e.g. en-de), got {language_pair!r}")
    return parts[1]


def _warn(message: str) -> None:
    # stacklevel 4: past this helper and the resolver, the caller of the public function that resolved
    warnings.warn(message, UserWarning, stacklevel=4)


def tokenizer_for_language(
    tokenize: Optional[str],
    trg_lang: Optional[str] = None,
    language_pair: Optional[str] = None,
    warn: Optional[Callable[[str], object]] = None,
) -> str:
    """The tokenizer to score with: ``tokenize`` if given, else the target language's (sacreBLEU's
    choice), else ``13a``; ``warn`` (default: a ``UserWarning``) gets sacreBLEU's advice when a
    given tokenizer does not suit Chinese, Japanese or Korean, and bleukit's when the target is
    Thai, Khmer, Lao or Burmese and the tokenizer splits on whitespace only.

    The target language is ``trg_lang`` or the target of ``language_pair`` (``"en-th"``); giving
    both with different targets is a ``ValueError``.

    >>> tokenizer_for_language(None, trg_lang="th", warn=print)  # doctest: +ELLIPSIS
    Thai is written without spaces between words: ...
    '13a'
    """
    if language_pair is not None:
        target = target_language(language_pair)
        if trg_lang and trg_lang != target:
            raise ValueError(f"trg_lang={trg_lang!r} contradicts language_pair={language_pair!r}: give one of them")
        trg_lang = target
    if trg_lang is not None and not isinstance(trg_lang, str):
        raise TypeError(f"trg_lang must be a language code (str) like 'zh', got {type(trg_lang).__name__}")
    say = warn if warn is not None else _warn
    if tokenize is None:
        chosen = TARGET_TOKENIZERS.get(trg_lang or "", DEFAULT_TOKENIZER)
    else:
        chosen = check_tokenizer_name(tokenize)
        suited = TARGET_TOKENIZERS.get(trg_lang or "")
        if suited is not None and chosen != suited:
            say(f"Consider using the '{suited}' or 'spm' tokenizer for {_NAMES[trg_lang or '']}.")
    name = UNSEGMENTED_LANGUAGES.get(trg_lang or "")
    if name is not None and chosen not in SEGMENTING_TOKENIZERS:
        say(
            f"{name} is written without spaces between words: BLEU with the '{chosen}' tokenizer counts "
            f"whole space-separated phrases as tokens. Use the 'flores200' (SentencePiece) or 'char' tokenizer."
        )
    return chosen
