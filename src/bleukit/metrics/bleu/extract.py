"""BLEU's text to statistics: preprocessing (lowercase, strip, tokenize, split) and n-gram counting.

The pure-Python path here (:func:`preprocess` and :func:`bleukit.metrics.bleu.statistics.count_statistics`)
is the reference that the compiled kernel (:mod:`bleukit.metrics.bleu.kernel`) must reproduce;
:func:`text_statistics` uses the kernel when it is built and implements the tokenizer.

>>> from bleukit.metrics.bleu.options import BleuOptions
>>> text_statistics(["Hello, world!"], [["Hello world!"]], BleuOptions()).rows.tolist()
[[4, 3, 3, 1, 0, 0, 4, 3, 2, 1]]
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple

from ...inputs import check_references, check_sentence_references
from ...tokenizers import Tokenizer, get_tokenizer
from .kernel import native_sentence_row, native_summed_row, native_text_statistics, uses_native
from .options import BleuOptions
from .statistics import BleuStatistics, count_statistics, sentence_row

__all__ = ["preprocess", "text_statistics", "summed_row", "one_sentence_row"]


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
    references: Sequence[Any],
    options: BleuOptions,
    tokenizer: Optional[Tokenizer] = None,
    threads: int = 1,
) -> BleuStatistics:
    """Statistics of checked hypotheses; ``references[i]`` is entry ``i`` as the caller gave it
    (a str, or a list of str and ``None``: :func:`bleukit.inputs.check_reference_entry` checks
    it) or an already checked list of strings.

    Works sentence by sentence, so memory stays bounded by the longest sentence plus the table.
    The compiled kernel (``bleukit._native``) produces the same table when it is built and the
    tokenizer is one it implements, on ``threads`` threads; this Python code is its reference
    and fallback. ``tokenizer`` replaces the registry's ``options.tokenize`` with an instance
    configured by the caller (spBLEU with an explicit SentencePiece model file).
    """
    if tokenizer is None and uses_native(options):
        return native_text_statistics(hypotheses, references, options, threads)
    tok = tokenizer if tokenizer is not None else get_tokenizer(options.tokenize)
    lc = options.lowercase
    return count_statistics(
        _Lazy(hypotheses, lambda h: preprocess(h, tok, lc)),
        _Lazy(check_references(references, len(hypotheses)), lambda refs: [preprocess(r, tok, lc) for r in refs]),
        options.max_ngram_order,
    )


def summed_row(
    hypotheses: Sequence[str], references: Sequence[Any], options: BleuOptions, threads: int = 1
) -> Tuple[List[int], int]:
    """The column sums of :func:`text_statistics`' table and the summed row's number of references
    (``-1`` when it varies): the kernel sums as it counts, without the table.

    >>> summed_row(["a b", "c"], ["a b", ["c", None, "d"]], BleuOptions(max_ngram_order=1))
    ([3, 3, 3, 3], -1)
    """
    if uses_native(options):
        return native_summed_row(hypotheses, references, options, threads)
    table = text_statistics(hypotheses, references, options).summed()
    return [int(x) for x in table.rows[0].tolist()], int(table.nrefs[0])


def one_sentence_row(hypothesis: str, references: Any, options: BleuOptions) -> Tuple[List[int], int]:
    """The statistics row of one hypothesis and its number of references (``references`` a str,
    or a list of str and ``None``, checked as :func:`bleukit.inputs.check_sentence_references`).

    >>> one_sentence_row("the cat sat", "the cat sat down", BleuOptions(max_ngram_order=2))
    ([3, 4, 3, 2, 3, 2], 1)
    """
    if uses_native(options):
        return native_sentence_row(hypothesis, references, options)
    refs = check_sentence_references(references)
    tok = get_tokenizer(options.tokenize)
    lc = options.lowercase
    row = sentence_row(preprocess(hypothesis, tok, lc), [preprocess(r, tok, lc) for r in refs], options.max_ngram_order)
    return row, len(refs)


class _Lazy:
    """A sequence view that preprocesses items on access (no tokenized copy of the corpus)."""

    def __init__(self, items: Sequence[Any], fn: Callable[[Any], Any]) -> None:
        self._items = items
        self._fn = fn

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Any]:
        return (self._fn(x) for x in self._items)
