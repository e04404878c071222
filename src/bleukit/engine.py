"""The one ``threads`` contract, and counting a corpus in chunks on several threads, for every metric.

``threads=N`` means N threads, ``threads=0`` every core this process may use, everywhere.
A metric whose extractor releases the GIL (a compiled kernel) gains from chunks counted in
parallel; the chunks' tables are concatenated in corpus order, so the table is identical to a
one-thread call by construction.

>>> thread_count(1), thread_count(0) >= 1
(1, True)
"""

from __future__ import annotations

import numbers
import os
from typing import TYPE_CHECKING, Any, Callable, List, TypeVar

from .inputs import check_references

if TYPE_CHECKING:  # a type only: the metrics import this module, and it must not import them back
    from .metrics.base import Statistics

__all__ = ["thread_count", "in_threads", "MIN_CHUNK", "MAX_CHUNK", "CHUNKS_PER_THREAD"]

S = TypeVar("S", bound="Statistics")

#: Fewest sentences per chunk of a threaded call (smaller ones cost more to hand out than to count).
MIN_CHUNK = 1000
#: Most sentences per chunk: some 40 ms of counting, the longest a Ctrl-C waits for running chunks.
MAX_CHUNK = 10000
#: Chunks per thread: enough that the input checks of one chunk (which hold the GIL) overlap the
#: counting of others, and that a Ctrl-C cancels all but a few short chunks.
CHUNKS_PER_THREAD = 8


def thread_count(threads: Any) -> int:
    """The number of threads a ``threads=`` argument asks for (0: every core this process may use).

    A non-int is a ``TypeError``, a negative number a ``ValueError``.

    >>> thread_count(2)
    2
    """
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
        raise TypeError(f"threads must be an int (0 for all cores), got {type(threads).__name__}")
    if threads < 0:
        raise ValueError(f"threads must be >= 0 (0 for all cores), got {threads}")
    if threads == 0:
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # not on Linux
            return max(1, os.cpu_count() or 1)
    return int(threads)


def in_threads(
    count: Callable[[List[str], List[List[str]]], S], hypotheses: List[str], references: Any, n_threads: int
) -> S:
    """``count(hypotheses, checked references)`` on chunks of the corpus in ``n_threads`` threads.

    ``hypotheses`` are checked; ``references`` are the caller's, checked chunk by chunk (under
    the GIL, while other chunks count without it). Anything but a list or tuple of the right
    length is checked whole first, as it may be an iterator or a layout error. An input error is
    reported as the one-thread call reports it (the whole input is checked again to name the
    first bad item by its index in the corpus).

    >>> from bleukit.metrics.bleu import BleuOptions, METRIC
    >>> opts = BleuOptions(max_ngram_order=2)
    >>> stats = in_threads(lambda h, r: METRIC.statistics(h, r, opts), ["a b"] * 3000, ["a b"] * 3000, 2)
    >>> len(stats), stats.summed().rows.tolist()
    (3000, [[6000, 6000, 6000, 3000, 6000, 3000]])
    """
    from concurrent.futures import ThreadPoolExecutor

    n = len(hypotheses)
    raw = isinstance(references, (list, tuple)) and len(references) == n
    refs = references if raw else check_references(references, n)
    size = min(MAX_CHUNK, max(MIN_CHUNK, -(-n // (n_threads * CHUNKS_PER_THREAD))))
    bounds = [(lo, min(n, lo + size)) for lo in range(0, n, size)]

    def one(lo: int, hi: int) -> S:
        chunk = check_references(refs[lo:hi], hi - lo) if raw else refs[lo:hi]
        return count(hypotheses[lo:hi], chunk)

    pool = ThreadPoolExecutor(max_workers=min(n_threads, len(bounds)), thread_name_prefix="bleukit")
    try:
        futures = [pool.submit(one, lo, hi) for lo, hi in bounds]
        try:
            parts = [f.result() for f in futures]
        except (TypeError, ValueError):
            check_references(references, n)  # raises the error with its index in the whole corpus
            raise
    finally:
        # On an error or Ctrl-C the chunks not yet started are dropped; running ones are short.
        pool.shutdown(wait=True, cancel_futures=True)
    return type(parts[0]).concat(parts)
