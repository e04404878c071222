"""BLEU's text to statistics: preprocessing (lowercase, strip, tokenize, split) and n-gram counting.

The pure-Python path here (:func:`preprocess` and :func:`bleukit.metrics.bleu.statistics.count_statistics`)
is the reference that the compiled kernel (:mod:`bleukit.metrics.bleu.kernel`) must reproduce;
:func:`text_statistics` uses the kernel when it is built and implements the tokenizer.

>>> from bleukit.metrics.bleu.options import BleuOptions
>>> text_statistics(["Hello, world!"], [["Hello world!"]], BleuOptions()).rows.tolist()
[[4, 3, 3, 1, 0, 0, 4, 3, 2, 1]]
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional, Sequence

from ...tokenizers import Tokenizer, get_tokenizer
from .kernel import native_text_statistics, uses_native
from .options import BleuOptions
from .statistics import BleuStatistics, count_statistics

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
    tokenizer: Optional[Tokenizer] = None,
) -> BleuStatistics:
    """Statistics of checked input (``references[i]`` a non-empty list of strings).

    Works sentence by sentence, so memory stays bounded by the longest sentence plus the table.
    The compiled kernel (``bleukit._native``) produces the same table when it is built and the
    tokenizer is one it implements; this Python code is its reference and fallback.
    ``tokenizer`` replaces the registry's ``options.tokenize`` with an instance configured by the
    caller (spBLEU with an explicit SentencePiece model file).
    """
    if tokenizer is None and uses_native(options):
        return native_text_statistics(hypotheses, references, options)
    tok = tokenizer if tokenizer is not None else get_tokenizer(options.tokenize)
    lc = options.lowercase
    return count_statistics(
        _Lazy(hypotheses, lambda h: preprocess(h, tok, lc)),
        _Lazy(references, lambda refs: [preprocess(r, tok, lc) for r in refs]),
        options.max_ngram_order,
    )


class _Lazy:
    """A sequence view that preprocesses items on access (no tokenized copy of the corpus)."""

    def __init__(self, items: Sequence[Any], fn: Callable[[Any], Any]) -> None:
        self._items = items
        self._fn = fn

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Any]:
        return (self._fn(x) for x in self._items)
