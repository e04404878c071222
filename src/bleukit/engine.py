"""Text to statistics: preprocessing (lowercase, strip, tokenize, split) and n-gram counting.

This module is the reference implementation in pure Python; it defines what every faster engine
must reproduce.

>>> from bleukit.options import BleuOptions
>>> text_statistics(["Hello, world!"], [["Hello world!"]], BleuOptions()).rows.tolist()
[[4, 3, 3, 1, 0, 0, 4, 3, 2, 1]]
"""

from __future__ import annotations

from typing import List, Sequence

from ._native import native_text_statistics, uses_native
from .options import BleuOptions
from .statistics import BleuStatistics, count_statistics
from .tokenizers import Tokenizer, get_tokenizer

__all__ = ["preprocess", "text_statistics"]


def preprocess(line: str, tokenizer: Tokenizer, lowercase: bool = False) -> List[str]:
    """Tokens of one segment as sacreBLEU sees them: lowercase, strip the right end, tokenize, split.

    A ``str`` subclass is read as its ``str`` value: its own ``lower()`` or ``split()`` are never
    called (the native kernel reads the characters the same way).

    >>> preprocess("The cat.  ", get_tokenizer("13a"), lowercase=True)
    ['the', 'cat', '.']
    """
    if type(line) is not str:
        line = str.__str__(line)  # the exact str with the same characters
    if lowercase:
        line = line.lower()
    return tokenizer(line.rstrip()).split()


def text_statistics(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    options: BleuOptions,
) -> BleuStatistics:
    """Statistics of checked input (``references[i]`` a non-empty list of strings).

    Works sentence by sentence, so memory stays bounded by the longest sentence plus the table.
    The compiled kernel (``bleukit._native``) produces the same table when it is built and the
    tokenizer is one it implements; this Python code is its reference and fallback.
    """
    if uses_native(options):
        return native_text_statistics(hypotheses, references, options)
    tok = get_tokenizer(options.tokenize)
    lc = options.lowercase
    return count_statistics(
        _Lazy(hypotheses, lambda h: preprocess(h, tok, lc)),
        _Lazy(references, lambda refs: [preprocess(r, tok, lc) for r in refs]),
        options.max_ngram_order,
    )


class _Lazy:
    """A sequence view that preprocesses items on access (no tokenized copy of the corpus)."""

    def __init__(self, items, fn):
        self._items = items
        self._fn = fn

    def __len__(self):
        return len(self._items)

    def __iter__(self):
        return (self._fn(x) for x in self._items)
