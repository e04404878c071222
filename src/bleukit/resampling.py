"""Bootstrap resampling and approximate randomization without numpy: sacreBLEU's draws, resampled sums
and scores in compiled code.

A command such as ``bleukit REF -i SYS... --paired-bs`` spent more time importing numpy than
resampling. Where the compiled modules are built, :func:`bootstrap_columns` resamples statistics
tables with no numpy at all:

- the draws are numpy's ``default_rng(seed).integers(0, n, ...)``, made by
  ``bleukit._resample_kernel.Generator`` (csrc/resample/resample.c: SeedSequence, PCG64 and Lemire's bounded
  draws as numpy makes them; tests compare them draw for draw);
- each resample's sums are exact integers (``Generator.resample_sums`` draws and sums them a block
  at a time), which equal sacreBLEU's float32 sums because every sum stays below 2**24 (checked up
  front: otherwise numpy's path sums in float32);
- the metric scores the sums as sacreBLEU scores its float32 resamples
  (:func:`~bleukit.metrics.fast.native_float32_scores`, BLEU's in C).

A metric without a compiled formula (chrF, TER) still takes the compiled draws and sums of the
bootstrap: :func:`bootstrap_sums` hands them out a chunk at a time, and
:mod:`bleukit.analysis.significance` scores them with the metric's vectorised formula.

:func:`randomization_counts` does the same for approximate randomization (``--paired-ar``): numpy's
bool coin flips (``Generator.randomization_sums`` draws them as the bits of 32-bit words, as numpy
does, and sums each trial's swapped rows from the sums of every subset of four rows) and the
metric's exact formula of integer statistics (:func:`~bleukit.metrics.fast.native_scores`).

:mod:`bleukit.analysis.significance` takes this route whenever it applies and numpy's otherwise; both give
the same numbers (tests check it, ``==``). The estimates taken from the scores are here too, in
plain Python, for both routes: :func:`pairwise_mean` is numpy's ``mean`` digit for digit,
:func:`estimate_ci` and :func:`p_value` are sacreBLEU's.

>>> estimate_ci([3.0, 1.0, 2.0], paired=True)
(2.0, 1.0)
>>> p_value([0.5, -0.5, 2.0], 1.0)
0.5
"""

from __future__ import annotations

import math
from array import array
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

from . import _native

if TYPE_CHECKING:
    from .metrics.base import MetricOptions

__all__ = ["KERNEL", "CHUNK", "CALL_DRAWS", "CALL_FLIPS", "FLIP_BITS", "chunks", "seed_words", "generator",
           "bootstrap_sums", "bootstrap_columns", "randomization_counts", "column_sums",
           "pairwise_mean", "exact_mean", "estimate_ci", "p_value", "paired_p_value"]

#: The compiled module (csrc/resample/resample.c).
KERNEL = "bleukit._resample_kernel"
#: Resampled indices drawn and summed per chunk by numpy's route (a few ms of work, a few MB).
CHUNK = 1 << 18
#: Resampled indices drawn and summed per call of the compiled route (``resample_sums``, which draws
#: and sums them a cache-sized block at a time and packs the tables once per call): a few ms of
#: work between two chances for Ctrl-C and the progress bar.
CALL_DRAWS = 1 << 20
#: Coin flips per call of approximate randomization's compiled route (``randomization_sums``, which
#: sums every subset of each 4 rows once per call and then a trial's flipped rows a group at a time):
#: a few ms of work between two chances for Ctrl-C and the progress bar.
CALL_FLIPS = 1 << 23
#: numpy draws bool coin flips as the bits of 32-bit words and drops a call's unused bits, so each
#: chunk of flips but the last holds whole words (both routes of approximate randomization).
FLIP_BITS = 32
# The largest tables (items) approximate randomization sums in compiled code.
_RANDOMIZATION_ITEMS = 1 << 22
# Integers up to this are exact in float32, sums included: sacreBLEU's float32 sums are then these.
_EXACT_FLOAT32 = 2**24
# numpy's pairwise summation: blocks of this many items are added with 8 running sums.
_PAIRWISE_BLOCK = 128
# numpy's default buffer size: up to this many items every numpy version reduces in one pass.
_NUMPY_BUFFER = 8192


def chunks(total: int, n_rows: int, elements: int, align: int = 1) -> Iterator[int]:
    """Sizes of consecutive chunks of about ``elements`` draws of ``n_rows`` each (``total`` in
    all); each but the last holds a multiple of ``align`` draws.

    >>> list(chunks(10, 3, 9))
    [3, 3, 3, 1]
    """
    rows_align = align // math.gcd(align, max(n_rows, 1))
    step = max(rows_align, (elements // max(n_rows, 1)) // rows_align * rows_align)
    for start in range(0, total, step):
        yield min(step, total - start)


def seed_words(seed: int) -> List[int]:
    """The 32-bit words of a seed >= 0, least significant first: the entropy numpy's
    ``SeedSequence(seed)`` hashes (``[0]`` for 0).

    >>> seed_words(2**32 + 5)
    [5, 1]
    """
    return [(seed >> (32 * i)) & 0xFFFFFFFF for i in range(max(1, -(-seed.bit_length() // 32)))]


def generator(seed: Optional[int]) -> Any:
    """numpy's ``default_rng(seed)`` in compiled code (its ``integers(high, out)`` fills an int64
    buffer), or ``None`` where it does not apply: no seed (fresh entropy is numpy's), the module not
    built or ``BLEUKIT_ENGINE=python``.

    >>> rng = generator(12345)
    >>> draws = array("q", bytes(8 * 3))
    >>> rng is None or rng.integers(3004, draws) or draws.tolist() == [2100, 682, 2369]
    True
    """
    kernel = _native.kernel(KERNEL)
    if seed is None or kernel is None or not kernel.HAVE_UINT128:
        return None
    return kernel.Generator(seed_words(seed))


def _table_width(tables: Any, n_rows: int, n_systems: int) -> int:
    """The width of each row of ``n_systems`` tables of ``n_rows`` rows in one flat buffer."""
    if n_rows < 1 or n_systems < 1 or len(tables) % (n_rows * n_systems):
        raise ValueError(f"tables must hold {n_systems} tables of {n_rows} rows, got {len(tables)} items")
    return len(tables) // (n_rows * n_systems)


def bootstrap_sums(
    tables: Any, n_rows: int, n_systems: int, n: int, seed: Optional[int]
) -> Optional[Iterable[Tuple[int, Any]]]:
    """The sums of ``n`` paired bootstrap resamples drawn in compiled code, a chunk at a time, or
    ``None`` where this route does not apply (no seed, the module not built, 2**32 rows or more,
    or sums that could reach 2**24).

    ``tables`` is a flat int64 buffer holding ``n_systems`` statistics tables of ``n_rows`` rows,
    one after another (:func:`~bleukit.metrics.fast.systems_rows`). Each item is ``(k, sums)``:
    ``sums`` a flat int64 buffer of ``k`` resamples, each the column sums of every system's rows
    (``(k, n_systems, width)``), resample ``s`` drawing the same sentences for every system as
    sacreBLEU's with the same seed. Every sum is below 2**24, so it equals sacreBLEU's float32 sum.
    The buffer is reused: score it before taking the next item.

    >>> rows = array("q", [1, 2,  3, 4,  5, 6])  # 3 sentences, 2 columns
    >>> found = bootstrap_sums(rows, 3, 1, 2, 12345)  # sentences [2, 0, 2] and [0, 0, 2]
    >>> found is None or [(k, sums.tolist()) for k, sums in found] == [(2, [11, 14, 7, 10])]
    True
    """
    width = _table_width(tables, n_rows, n_systems)
    rng = generator(seed) if n_rows < 2**32 else None  # (numpy draws 64-bit integers past 2**32 rows)
    if rng is None:
        return None
    kernel = _native.kernel(KERNEL)
    assert kernel is not None  # the generator came from it
    # Every resample's sums below 2**24, where float32 sums are exact integers (numpy's route
    # reproduces sacreBLEU's rounding above).
    if n_rows * kernel.largest_item(tables) >= _EXACT_FLOAT32:
        return None

    def chunked() -> Iterator[Tuple[int, Any]]:
        buffers = {}  # by chunk size: every chunk but the last has the same (no allocation per chunk)
        for k in chunks(n, n_rows, CALL_DRAWS):
            if k not in buffers:
                buffers[k] = array("q", bytes(8 * k * n_systems * width))
            rng.resample_sums(tables, n_systems, width, buffers[k])
            yield k, buffers[k]

    return chunked()


def bootstrap_columns(
    tables: Any,
    n_rows: int,
    n_systems: int,
    options: MetricOptions,
    n: int,
    seed: Optional[int],
    progress: Optional[Callable[[int], Any]] = None,
) -> Optional[List[List[float]]]:
    """Each system's scores of ``n`` paired bootstrap resamples, without numpy, or ``None``
    where this route does not apply (then numpy's does: the same numbers).

    ``tables`` is as :func:`bootstrap_sums` takes it, which draws and sums the resamples; each
    score is the one sacreBLEU gives that resample's float32 sums, from the metric's compiled
    formula (:func:`~bleukit.metrics.fast.native_float32_scores`; ``None`` without one).

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> rows = array("q", [2, 2, 2, 1, 2, 1,  2, 2, 1, 0, 2, 1,  3, 3, 3, 2, 3, 2])  # 3 sentences, order 2
    >>> out = bootstrap_columns(rows, 3, 1, BleuOptions(max_ngram_order=2), 4, 12345)
    >>> out is None or [round(s, 2) for s in out[0]] == [100.0, 100.0, 83.67, 80.18]
    True
    """
    from .metrics import fast, metric_for

    metric, width = metric_for(options), _table_width(tables, n_rows, n_systems)
    # (a row of zeros asks whether the metric scores sums without numpy)
    if fast.native_float32_scores(metric, array("q", bytes(8 * width)), 1, options) is None:
        return None
    found = bootstrap_sums(tables, n_rows, n_systems, n, seed)
    if found is None:
        return None
    columns: List[List[float]] = [[] for _ in range(n_systems)]
    for k, sums in found:
        scores = fast.native_float32_scores(metric, sums, k * n_systems, options)
        assert scores is not None  # it scored the row of zeros above
        for j, column in enumerate(columns):
            column.extend(scores[j::n_systems])
        if progress is not None:
            progress(k)
    return columns


def randomization_counts(
    tables: Any,
    n_rows: int,
    n_systems: int,
    pairs: Sequence[Tuple[int, int]],
    observed: Sequence[float],
    options: MetricOptions,
    n: int,
    seed: Optional[int],
    progress: Optional[Callable[[int], Any]] = None,
) -> Optional[List[int]]:
    """For each pair ``(a, b)`` of systems, how many of ``n`` approximate-randomization
    trials give a score difference ``|a' - b'|`` above ``observed[q]``, without numpy; ``None``
    where this route does not apply (then numpy's does: the same counts).

    ``tables`` is as :func:`bootstrap_sums` takes it. Each trial swaps the two systems' rows of
    every sentence whose coin flip is set, the flips being sacreBLEU's (numpy's
    ``default_rng(seed).integers(2, size=(n, n_rows), dtype=bool)``, the same for every pair,
    as sacreBLEU re-seeds each comparison), and scores both sides' integer sums exactly
    (:func:`~bleukit.metrics.fast.native_scores`). The p-value is ``(count + 1) / (n + 1)``.

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> rows = array("q", [2, 2, 2, 1, 2, 1,  2, 2, 1, 0, 2, 1,  3, 3, 3, 2, 3, 2,    # system 0
    ...                    2, 2, 1, 0, 2, 1,  2, 2, 1, 0, 2, 1,  3, 3, 1, 0, 3, 2])  # system 1
    >>> counts = randomization_counts(rows, 3, 2, [(0, 1)], [57.0], BleuOptions(max_ngram_order=2), 1000, 12345)
    >>> counts is None or counts == [519]  # (None without the compiled modules)
    True
    """
    from .metrics import fast, metric_for

    metric, width = metric_for(options), _table_width(tables, n_rows, n_systems)
    if fast.native_scores(metric, array("q", bytes(8 * width)), 1, options) is None:
        return None
    rng = generator(seed)
    kernel = _native.kernel(KERNEL)
    # The kernel sums in 32 bits and keeps sums of every subset of 4 rows (8 bytes a column and
    # row): very large tables go to numpy's route.
    if rng is None or kernel is None or len(tables) > _RANDOMIZATION_ITEMS or \
            n_rows * kernel.largest_item(tables) >= 2**31:
        return None
    flat_pairs = array("q", [i for pair in pairs for i in pair])
    counts = [0] * len(pairs)
    buffers = {}  # by chunk size, as in bootstrap_sums
    sides = 2 * len(pairs)
    for k in chunks(n, n_rows, CALL_FLIPS, FLIP_BITS):
        if k not in buffers:
            buffers[k] = array("q", bytes(8 * k * sides * width))
        sums = buffers[k]
        rng.randomization_sums(tables, n_systems, width, flat_pairs, sums)
        scores = fast.native_scores(metric, sums, k * sides, options)
        assert scores is not None  # it scored the row of zeros above
        for q, limit in enumerate(observed):
            a_side, b_side = scores[2 * q :: sides], scores[2 * q + 1 :: sides]
            counts[q] += sum(1 for x, y in zip(a_side, b_side) if abs(x - y) > limit)
        if progress is not None:
            progress(k)
    return counts


def column_sums(tables: Any, n_rows: int, n_systems: int) -> List[List[int]]:
    """Each system's column sums of a flat int64 buffer of ``n_systems`` tables of ``n_rows`` rows
    (as :func:`bootstrap_sums` takes them): the corpus rows the resamples are compared with.

    >>> column_sums(array("q", [1, 2, 3, 4,  5, 6, 7, 8]), 2, 2)
    [[4, 6], [12, 14]]
    """
    width = len(tables) // (n_rows * n_systems) if n_rows * n_systems else 0
    kernel = _native.kernel(KERNEL)
    # One kernel call (all rows drawn once) where 32-bit sums cannot overflow; a Python loop over
    # the columns costs a paired test of 5 systems ~1.5 ms.
    if kernel is not None and width and n_rows * kernel.largest_item(tables) < 2**31:
        sums = array("q", bytes(8 * n_systems * width))
        kernel.gather_sums(tables, n_systems, width, array("q", range(n_rows)), sums)
        return [sums[j * width : (j + 1) * width].tolist() for j in range(n_systems)]
    size = n_rows * width
    return [[sum(tables[j * size + c : (j + 1) * size : width]) for c in range(width)] for j in range(n_systems)]


def _pairwise_sum(values: Sequence[float], start: int, n: int) -> float:
    if n < 8:
        total = 0.0
        for i in range(start, start + n):
            total += values[i]
        return total
    if n <= _PAIRWISE_BLOCK:
        r = list(values[start : start + 8])
        i = 8
        whole = n - n % 8
        while i < whole:
            for j in range(8):
                r[j] += values[start + i + j]
            i += 8
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for i in range(whole, n):
            total += values[start + i]
        return total
    half = n // 2
    half -= half % 8
    return _pairwise_sum(values, start, half) + _pairwise_sum(values, start + half, n - half)


def pairwise_mean(values: Sequence[float]) -> float:
    """numpy's ``mean`` of float64 values, digit for digit: its pairwise summation (eight running
    sums per block of 128, blocks halved down to that), then one division. Above 8192 values
    (more resamples than anyone draws on the command line) numpy computes it.

    >>> pairwise_mean([0.1] * 10) == sum([0.1] * 10) / 10
    False
    >>> pairwise_mean([1.0, 2.0, 4.0])
    2.3333333333333335
    """
    n = len(values)
    if n == 0:
        raise ValueError("the mean of no values is undefined")
    if n > _NUMPY_BUFFER:
        # numpy before 2.x (2.0 still) reduces long arrays a buffer of 8192 items at a time, later
        # ones in one pass: numpy itself then gives the mean of whichever is installed.
        import numpy

        return float(numpy.mean(numpy.asarray(values, dtype=numpy.float64)))
    kernel = _native.kernel(KERNEL)
    if kernel is not None:  # the same additions in C (a Python loop costs a paired test ~3 ms)
        return float(kernel.pairwise_sum(array("d", values))) / n
    return _pairwise_sum(values, 0, n) / n


def estimate_ci(scores: Sequence[float], paired: bool) -> Tuple[float, float]:
    """``(mean, ci)`` of bootstrap scores as sacreBLEU estimates them: ``ci`` is half the distance
    between the sorted scores at ``n // 40`` and ``n - n // 40 - 1`` (a 95% interval); the mean is a
    paired test's numpy ``mean`` of the sorted scores (:func:`pairwise_mean`), or, for one system
    (``--confidence``), ``statistics.mean`` (:func:`exact_mean`).

    >>> estimate_ci([1.0, 2.0, 4.0], paired=False)
    (2.3333333333333335, 1.5)
    """
    ordered = sorted(scores)
    n = len(ordered)
    lower = n // 40
    upper = n - lower - 1
    mean = pairwise_mean(ordered) if paired else exact_mean(ordered)
    return mean, 0.5 * (ordered[upper] - ordered[lower])


def exact_mean(values: Sequence[float]) -> float:
    """``statistics.mean`` of floats: their exact mean, rounded once. Each float is an integer
    over a power of two, so the sum is an exact integer over the largest of them, and Python's
    ``int / int`` rounds the quotient correctly, as ``statistics`` rounds its ``Fraction``.
    (``statistics`` itself costs a process ~9 ms of imports: ``fractions``, ``decimal``, ``random``.)

    >>> exact_mean([0.1, 0.2, 0.4]) == __import__("statistics").mean([0.1, 0.2, 0.4])
    True
    """
    if not values:
        raise ValueError("the mean of no values is undefined")
    ratios = [v.as_integer_ratio() for v in values]  # ValueError/OverflowError for nan and inf, as statistics
    scale = max(d for _, d in ratios)
    return sum(n * (scale // d) for n, d in ratios) / (scale * len(values))


def p_value(samples: Sequence[float], observed: float) -> float:
    """sacreBLEU's (multeval's) p-value: the share of samples strictly above ``observed``, with
    ``+1`` above and below, so a system against itself is never significant and the test never
    rejects more often than its level.

    >>> p_value([0.0, 0.0, 0.0], 0.0)
    0.25
    """
    return (sum(1 for s in samples if s > observed) + 1) / (len(samples) + 1)


def paired_p_value(baseline: Sequence[float], system: Sequence[float], observed: float) -> float:
    """The paired bootstrap p-value of two systems' resampled scores: the absolute differences,
    centred on their (numpy) mean so that they sample the null hypothesis, against the observed
    absolute difference.

    >>> paired_p_value([50.0, 52.0, 51.0], [55.0, 60.0, 54.0], 5.0)
    0.25
    """
    diffs = [abs(b - a) for a, b in zip(baseline, system)]
    centre = pairwise_mean(diffs)
    return p_value([d - centre for d in diffs], observed)
