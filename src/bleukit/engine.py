"""Text to statistics: preprocessing (lowercase, strip, tokenize, split) and n-gram counting.

This module is the reference implementation in pure Python; it defines what every faster engine
must reproduce.

>>> from bleukit.options import BleuOptions
>>> text_statistics(["Hello, world!"], [["Hello world!"]], BleuOptions()).rows.tolist()
[[4, 3, 3, 1, 0, 0, 4, 3, 2, 1]]
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, List, Optional, Sequence

from ._native import native_text_statistics, uses_native
from .inputs import check_hypotheses, check_references
from .options import BleuOptions
from .statistics import BleuStatistics, count_statistics
from .tokenizers import Tokenizer, get_tokenizer

__all__ = ["preprocess", "text_statistics", "checked_text_statistics", "thread_count"]

#: Fewest sentences per chunk of a threaded call (smaller ones cost more to hand out than to count).
MIN_CHUNK = 1000
#: Most sentences per chunk: some 40 ms of counting, the longest a Ctrl-C waits for running chunks.
MAX_CHUNK = 10000
#: Chunks per thread: enough that the input checks of one chunk (which hold the GIL) overlap the
#: counting of others, and that a Ctrl-C cancels all but a few short chunks.
CHUNKS_PER_THREAD = 8


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

    def __init__(self, items, fn):
        self._items = items
        self._fn = fn

    def __len__(self):
        return len(self._items)

    def __iter__(self):
        return (self._fn(x) for x in self._items)


def thread_count(threads: int) -> int:
    """The number of threads a ``threads=`` argument asks for (0: every core this process may use).

    >>> thread_count(1), thread_count(0) >= 1
    (1, True)
    """
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise TypeError(f"threads must be an int (0 for all cores), got {type(threads).__name__}")
    if threads < 0:
        raise ValueError(f"threads must be >= 0 (0 for all cores), got {threads}")
    if threads == 0:
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # not on Linux
            return max(1, os.cpu_count() or 1)
    return threads


def checked_text_statistics(
    hypotheses: Any, references: Any, options: BleuOptions, threads: int = 1
) -> BleuStatistics:
    """Check user input (``bleukit.inputs``) and count it; with ``threads`` > 1, on chunks in parallel.

    The chunks' statistics tables are concatenated in corpus order, so the table is identical to
    a one-thread call by construction. Threads only help the native kernel, which releases the
    GIL while it counts; the Python engine holds the GIL throughout, so it counts in one thread
    whatever ``threads`` says. An input error is reported as the one-thread call reports it (the
    whole input is checked again to name the first bad item by its index in the corpus).

    >>> stats = checked_text_statistics(["a b"] * 3000, ["a b"] * 3000, BleuOptions(max_ngram_order=2), threads=2)
    >>> len(stats), stats.summed().rows.tolist()
    (3000, [[6000, 6000, 6000, 3000, 6000, 3000]])
    """
    n_threads = thread_count(threads)
    hyps = check_hypotheses(hypotheses)
    n = len(hyps)
    if n_threads == 1 or n < 2 * MIN_CHUNK or not uses_native(options):
        return text_statistics(hyps, check_references(references, n), options)
    # The reference checks are the costly half of the checks: each chunk checks its own (under
    # the GIL, while other chunks count without it). Anything but a list or tuple of the right
    # length is checked whole first, as it may be an iterator or a layout error.
    raw = isinstance(references, (list, tuple)) and len(references) == n
    refs = references if raw else check_references(references, n)
    size = min(MAX_CHUNK, max(MIN_CHUNK, -(-n // (n_threads * CHUNKS_PER_THREAD))))
    bounds = [(lo, min(n, lo + size)) for lo in range(0, n, size)]

    def count(lo: int, hi: int) -> BleuStatistics:
        chunk = check_references(refs[lo:hi], hi - lo) if raw else refs[lo:hi]
        return text_statistics(hyps[lo:hi], chunk, options)

    pool = ThreadPoolExecutor(max_workers=min(n_threads, len(bounds)), thread_name_prefix="bleukit")
    try:
        futures = [pool.submit(count, lo, hi) for lo, hi in bounds]
        try:
            parts = [f.result() for f in futures]
        except (TypeError, ValueError):
            check_references(references, n)  # raises the error with its index in the whole corpus
            raise
    finally:
        # On an error or Ctrl-C the chunks not yet started are dropped; running ones are short.
        pool.shutdown(wait=True, cancel_futures=True)
    return BleuStatistics.concat(parts)
