"""Tokenizers that turn a detokenized segment into space-separated tokens, exactly as sacreBLEU 2.x.

Each tokenizer is a callable object with a ``signature`` (the ``tok:`` field of a BLEU signature),
in a module of its own. :data:`TOKENIZERS` names them as ``"module:Class"`` strings that are
imported on first use (as sacreBLEU's registry does), so a tokenizer's dependencies (MeCab,
sentencepiece, the ``regex`` tables) load only when it is used, and adding one is a new module
and a new line here. They hold no caches: the compiled kernel is the fast path, and an unbounded
memo of every segment ever seen is memory that never comes back.

>>> get_tokenizer("13a")("Hello, world!")
'Hello , world !'
>>> get_tokenizer("zh")("我喜欢BLEU。")
'我 喜 欢 BLEU 。'
"""

from __future__ import annotations

import functools
import importlib
from types import MappingProxyType
from typing import Mapping, Type

from .base import Tokenizer
from .mteval import CHINESE_RANGES, MtevalRule, Tokenizer13a, TokenizerZh, is_chinese_char

__all__ = [
    "check_tokenizer_name",
    "Tokenizer",
    "Tokenizer13a",
    "TokenizerZh",
    "TOKENIZERS",
    "DEFAULT_TOKENIZER",
    "get_tokenizer",
    "tokenizer_class",
    "is_chinese_char",
    "CHINESE_RANGES",
    "MtevalRule",
]

DEFAULT_TOKENIZER = "13a"

#: Every tokenizer by its option value: ``"module:Class"`` inside this package, imported on demand.
TOKENIZERS: Mapping[str, str] = MappingProxyType({
    "13a": "mteval:Tokenizer13a",
    "intl": "intl:TokenizerIntl",
    "zh": "mteval:TokenizerZh",
    "char": "simple:TokenizerChar",
    "none": "simple:TokenizerNone",
    "ja-mecab": "mecab:TokenizerJaMecab",
    "ko-mecab": "mecab:TokenizerKoMecab",
    "flores101": "spm:TokenizerFlores101",
    "flores200": "spm:TokenizerFlores200",
    "spm": "spm:TokenizerSpm",
    "spBLEU-1K": "spm:TokenizerSpBLEU1K",
})


def check_tokenizer_name(name: object) -> str:
    """The one check of a ``tokenize=`` value: a name in :data:`TOKENIZERS`.

    >>> check_tokenizer_name("intl")
    'intl'
    """
    if not isinstance(name, str):
        raise TypeError(f"tokenize must be a tokenizer name (str), got {type(name).__name__}")
    if name not in TOKENIZERS:
        raise ValueError(f"unknown tokenize={name!r}; choose one of {', '.join(sorted(TOKENIZERS))}")
    return name


@functools.lru_cache(maxsize=None)
def tokenizer_class(name: str) -> Type[Tokenizer]:
    """The class of tokenizer ``name``, imported on first use (building it may load a model).

    >>> tokenizer_class("char").__name__
    'TokenizerChar'
    """
    module, _, cls = TOKENIZERS[check_tokenizer_name(name)].partition(":")
    found: Type[Tokenizer] = getattr(importlib.import_module(f"{__name__}.{module}"), cls)
    return found


def get_tokenizer(name: str) -> Tokenizer:
    """Build the tokenizer called ``name`` (one of :data:`TOKENIZERS`).

    >>> get_tokenizer("char")("abc")
    'a b c'
    """
    return tokenizer_class(name)()


def __getattr__(attr: str) -> object:
    # The other tokenizer classes by name (bleukit.tokenizers.TokenizerIntl), imported on demand.
    for target in TOKENIZERS.values():
        module, _, cls = target.partition(":")
        if cls == attr:
            return getattr(importlib.import_module(f"{__name__}.{module}"), cls)
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
