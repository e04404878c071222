"""The draws and sums of the bootstrap and of approximate randomization, with numpy: sacreBLEU's
random draws (the same ``default_rng`` calls), each resample's sums as exact integer products
(float32 sums where sacreBLEU's float32 stops counting exactly) and the metric's scores of them,
vectorised over resamples; the p-value and the interval of resampled scores.

The compiled route (:mod:`bleukit.resampling`) makes the same draws, sums and scores without
numpy where it applies; :func:`bootstrap_scores` and :func:`bootstrap_matrix` take it first.
A metric without a compiled formula (chrF, TER) takes the compiled draws and sums of the
bootstrap (:func:`bleukit.resampling.bootstrap_sums`) and scores them here with its vectorised
formula, wherever those sums are exactly sacreBLEU's float32 sums (:func:`_float32_table`).
Approximate randomization stays here for them: with numpy loaded for their tables anyway, the
float32 product of the coin flips with the tables' differences is faster than the kernel's
subset sums (WMT17, 5 systems, 10,000 trials: 98 ms against 137 ms for chrF, 29 against 41 for
TER); the kernel's route pays off where it spares the command line numpy (BLEU's).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

from ... import resampling
from ...defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from ...inputs import check_count, check_seed
from ...metrics import metric_for
from ...metrics.base import MetricOptions, MetricResult, Statistics
from ...resampling import CHUNK as _CHUNK
from ...resampling import FLIP_BITS as _BOOL_BITS
from ...resampling import chunks as _chunks

if TYPE_CHECKING:
    import numpy as np


class _LazyNumpy:
    """numpy, imported where first used: a bootstrap on the compiled route (the command line's
    ``--confidence`` and ``--paired-bs``, :mod:`bleukit.resampling`) never imports it."""

    def __getattr__(self, attr: str) -> Any:
        import numpy

        return getattr(numpy, attr)


if not TYPE_CHECKING:
    np = _LazyNumpy()

__all__ = ["Seed", "Progress", "BootstrapCI", "bootstrap_scores", "resampled_scores", "bootstrap_matrix",
           "bootstrap_p_value", "randomization_p_values"]

# Random draws are made and summed _CHUNK row elements at a time, so memory stays a few MB
# whatever the number of samples. numpy's generators continue their stream across calls, so the
# chunked draws equal sacreBLEU's single call element for element (tests check it); coin flips
# are the bits of 32-bit words whose unused bits a call drops, so their chunks hold whole words.
_CHUNK_FLIPS = 1 << 20  # coin flips (bool, then float32) per chunk
# Integers below these magnitudes are exact in float32 / float64, products and sums included.
_EXACT_FLOAT32 = 2**24
_EXACT_FLOAT64 = 2**53

Seed = Optional[int]
#: Called with the number of resamples or trials just finished (e.g. ``tqdm(total=n).update``).
Progress = Optional[Callable[[int], Any]]


class BootstrapCI(NamedTuple):
    """Bootstrap estimate of a corpus score: mean of the resampled scores and the half-width of
    their 2.5–97.5 percentile interval (sacreBLEU's ``μ = mean ± ci``)."""

    mean: float
    ci: float


def _estimate_ci(scores: np.ndarray, paired: bool) -> BootstrapCI:
    """Mean and half-width of the 95% interval, with sacreBLEU's percentile indices (n // 40).

    sacreBLEU takes the mean two ways: a paired test's is numpy's (pairwise summation of the
    sorted scores, then a division), a single system's (``--confidence``) is ``statistics.mean``
    (the exact mean, rounded once to the scores' type). Each is taken here as it does, so the
    digits are the same; float32 scores (chrF's) give float32 means and intervals, as there.
    float64 scores go through :func:`bleukit.resampling.estimate_ci`, which the route without
    numpy uses too."""
    if scores.dtype != np.float32:
        return BootstrapCI(*resampling.estimate_ci(scores.tolist(), paired))
    ordered = np.sort(scores)
    n = len(ordered)
    lower = n // 40
    upper = n - lower - 1
    if paired:
        mean = float(ordered.mean())
    else:
        # statistics.mean gives the scores' own type: numpy float32 for chrF's float32 scores.
        # (Imported here: with decimal and fractions it costs the paired tests' processes ~5 ms.)
        from statistics import mean as exact_mean  # module 'statistics' would be shadowed by arguments

        mean = float(exact_mean(list(ordered)))
    return BootstrapCI(mean, float(0.5 * (ordered[upper] - ordered[lower])))


class _ExactProduct:
    """``left @ right`` for integer matrices, exactly, as int64, for a fixed ``right``.

    ``bound`` bounds every product and partial sum. Below 2**24 (any corpus of up to millions of
    tokens) float32 BLAS is exact, below 2**53 float64 BLAS; both are an order of magnitude faster
    than numpy's integer matmul, used above that.
    """

    def __init__(self, right: np.ndarray, bound: int) -> None:
        self.dtype: Any = np.int64
        for limit, dtype in ((_EXACT_FLOAT32, np.float32), (_EXACT_FLOAT64, np.float64)):
            if bound < limit:
                self.dtype = dtype
                break
        self.right = right.astype(self.dtype)

    def __call__(self, left: np.ndarray) -> np.ndarray:
        return (left.astype(self.dtype, copy=False) @ self.right).astype(np.int64)


@functools.lru_cache(maxsize=None)
def _byte_bits() -> np.ndarray:
    """A coin flip's 0/1 for each bit of a byte, lowest bit first."""
    return ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.float32)


def _coin_flips(rng: np.random.Generator, k: int, n_rows: int) -> np.ndarray:
    """``rng.integers(2, size=(k, n_rows), dtype=bool)``'s flips as float32 0/1, ready for BLAS.

    numpy draws bool flips as the bits of 32-bit words, lowest bit first, starting a fresh word
    each call (the last word's unused bits are dropped); drawing those words and spreading their
    bytes through a table gives the very same flips and stream position several times faster
    than drawing bools and casting them (tests compare the two, chunk after chunk)."""
    count = k * n_rows
    words = rng.integers(0, 2**32, size=-(-count // _BOOL_BITS), dtype=np.uint32)
    flips = np.take(_byte_bits(), words.astype("<u4", copy=False).view(np.uint8), axis=0)
    return flips.reshape(-1)[:count].reshape(k, n_rows)


def resampled_scores(statistics: Statistics, indices: np.ndarray, options: MetricOptions) -> np.ndarray:
    """Corpus score of each resample: ``indices[s]`` lists the sentences (rows) of resample ``s``.

    Element ``s`` equals the corpus score of the corpus made of those sentences.

    >>> from bleukit import BleuOptions, corpus_statistics
    >>> opts = BleuOptions()
    >>> stats = corpus_statistics(["a b c d", "x y"], ["a b c d", "x z"], options=opts)
    >>> resampled_scores(stats, np.array([[0, 0], [0, 1]]), opts).round(4).tolist()
    [100.0, 88.914]
    """
    metric_for(options).check_statistics(statistics, options)
    rows = statistics.rows
    indices = np.asarray(indices)
    if indices.ndim != 2 or not np.issubdtype(indices.dtype, np.integer):
        raise ValueError("indices must be a 2-d integer array (resamples x sentences)")
    n_rows = len(statistics)
    if indices.size and (indices.min() < 0 or indices.max() >= n_rows):
        raise ValueError(f"indices must lie in [0, {n_rows})")
    return _bootstrap_sums_scores(rows, iter([indices]), options, float32=False)[:, 0]


def _bootstrap_sums_scores(
    rows: np.ndarray,
    index_chunks: Any,
    options: MetricOptions,
    n_systems: int = 1,
    progress: Progress = None,
    float32: bool = True,
) -> np.ndarray:
    """Scores (resamples, n_systems) of resampled sums; ``rows`` is (sentences, n_systems * columns).

    ``float32``: score each resample as sacreBLEU's bootstrap does (float32 sums, the metric's
    ``float32_scores``); otherwise exactly, as the corpus of the resampled sentences."""
    n_rows, width = rows.shape
    metric = metric_for(options)
    bound = n_rows * int(rows.max(initial=0))
    # The float32 rows sacreBLEU resamples: the integer rows cast, or the metric's own (TER's
    # float average lengths), which are summed in float32 as it sums them.
    w = width // n_systems
    own = [metric.float32_rows(rows[:, j * w : (j + 1) * w], options) for j in range(n_systems)] if float32 else []
    blocks32 = None if all(b is None for b in own) else [
        np.asarray(rows[:, j * w : (j + 1) * w], dtype=np.float32) if b is None else b for j, b in enumerate(own)]
    product = _ExactProduct(rows, bound)
    out = []
    for idx in index_chunks:
        k = idx.shape[0]
        if float32 and (blocks32 is not None or bound >= _EXACT_FLOAT32):
            sums32 = _float32_sums(rows, idx, n_systems, blocks32)
            scores = metric.float32_scores(sums32.reshape(k * n_systems, width // n_systems), options)
        else:
            # How often each sentence is drawn in each resample: one bincount over offset indices.
            flat = idx + (np.arange(k, dtype=np.int64) * n_rows)[:, None]
            counts = np.bincount(flat.ravel(), minlength=k * n_rows).reshape(k, n_rows)
            del flat
            sums = product(counts).reshape(k * n_systems, width // n_systems)
            # Below 2**24 the float32 sums sacreBLEU makes are these exact integers.
            if float32:
                scores = metric.float32_scores(sums.astype(np.float32), options)
            else:
                scores = metric.scores(sums, options)
        out.append(_score_block(scores, k, n_systems))
        if progress is not None:
            progress(k)
    return np.concatenate(out) if out else np.zeros((0, n_systems))


def _score_block(scores: Any, k: int, n_systems: int) -> np.ndarray:
    """A chunk's scores as a ``(k, n_systems)`` block: float32 stays float32 (chrF's bootstrap
    scores are float32 in sacreBLEU, and so are their mean and interval), anything else is float64;
    a chunk of float64 scores makes the concatenated array float64, whatever the chunk sizes."""
    scores = np.asarray(scores)
    return scores.reshape(k, n_systems) if scores.dtype == np.float32 else \
        scores.astype(np.float64).reshape(k, n_systems)


def _float32_sums(
    rows: np.ndarray, idx: np.ndarray, n_systems: int, blocks32: Optional[List[np.ndarray]] = None
) -> np.ndarray:
    """sacreBLEU's float32 sums of the resamples ``idx`` (k, n_systems, columns): each system's rows
    as a float32 array (``blocks32[j]`` where the metric gives its own), summed as its
    ``stats[idx[s]].sum(0)`` sums each resample, where float32 rounds partial sums above 2**24
    (and every sum of fractions).

    All resamples of a chunk are gathered at once and reduced over the sentence axis: each
    ``(k, n, columns)[s]`` is laid out as sacreBLEU's ``(n, columns)`` gather, so numpy adds it in
    the same order (row by row; pairwise for a single column), without a Python loop per resample
    (tests compare with that loop and with sacreBLEU, ``==``)."""
    width = rows.shape[1] // n_systems
    out = np.empty((idx.shape[0], n_systems, width), dtype=np.float32)
    for j in range(n_systems):
        block = rows[:, j * width : (j + 1) * width] if blocks32 is None else blocks32[j]
        stats = np.ascontiguousarray(block, dtype=np.float32)
        out[:, j] = stats[idx].sum(axis=1)
    return out


def _draw_indices(n_rows: int, n: int, seed: Seed) -> Iterator[np.ndarray]:
    """sacreBLEU's ``default_rng(seed).choice(n_rows, size=(n, n_rows))``, in chunks of resamples."""
    rng = np.random.default_rng(seed)
    for k in _chunks(n, n_rows, _CHUNK):
        yield rng.integers(0, n_rows, size=(k, n_rows), dtype=np.int64)


def bootstrap_scores(
    statistics: Statistics, options: MetricOptions, n_bootstrap: int = DEFAULT_SAMPLES["bs"], seed: Seed = DEFAULT_SEED
) -> np.ndarray:
    """The score of ``n_bootstrap`` bootstrap resamples of a statistics table, each as sacreBLEU's
    bootstrap scores it: from its float32 sums (for BLEU with numpy 2, float32 precisions; chrF's
    formula is float32 throughout, so its scores are a float32 array, BLEU's float64), which can
    differ from the exact corpus score of the resample in the last digits
    (:func:`resampled_scores` gives those).

    Resample ``s`` draws the same sentences as sacreBLEU's with the same seed; ``seed=None``
    draws from fresh OS entropy. Several tables of the same corpus resampled with one seed share
    their resamples, which is what a paired comparison or a plot of score distributions needs.

    >>> from bleukit import BleuOptions, corpus_statistics
    >>> stats = corpus_statistics(["a b c d", "a b c e"], ["a b c d", "a b c d"], options=BleuOptions())
    >>> bootstrap_scores(stats, BleuOptions(), n_bootstrap=3, seed=1).round(2).tolist()
    [72.31, 50.0, 100.0]
    """
    n_bootstrap = check_count(n_bootstrap, "n_bootstrap")
    seed = check_seed(seed)
    metric_for(options).check_statistics(statistics, options)
    if len(statistics) == 0:
        raise ValueError("cannot resample an empty corpus")
    compiled = _compiled_matrix([statistics], options, n_bootstrap, seed)
    if compiled is not None:
        return compiled[:, 0]
    return _bootstrap_sums_scores(statistics.rows, _draw_indices(len(statistics), n_bootstrap, seed), options)[:, 0]


def _compiled_matrix(
    stats: Sequence[Statistics], options: MetricOptions, n: int, seed: Seed, progress: Progress = None
) -> Optional[np.ndarray]:
    """:func:`bootstrap_matrix` on the compiled route (:mod:`bleukit.resampling`: the same draws,
    sums and scores), or ``None`` where it does not apply."""
    flat = np.concatenate([s.rows for s in stats]).reshape(-1)  # one table after another
    columns = resampling.bootstrap_columns(flat, len(stats[0]), len(stats), options, n, seed, progress)
    if columns is not None:
        return np.array(columns, dtype=np.float64).T.reshape(n, len(stats))
    # No compiled formula (chrF, TER; BLEU with weights of its own): the compiled draws and sums,
    # scored by the metric's vectorised formula.
    exact = _float32_table(stats, options)
    if exact is None:
        return None
    table, scale = exact
    n_rows, n_systems = len(stats[0]), len(stats)
    found = resampling.bootstrap_sums(table, n_rows, n_systems, n, seed)
    if found is None:
        return None
    metric, width = metric_for(options), len(table) // (n_rows * n_systems)
    out = []
    for k, sums in found:
        sums32 = np.frombuffer(sums, dtype=np.int64).reshape(k * n_systems, width).astype(np.float32)
        if scale is not None:
            sums32 *= scale  # powers of two, and the products representable: exact
        out.append(_score_block(metric.float32_scores(sums32, options), k, n_systems))
        if progress is not None:
            progress(k)
    return np.concatenate(out) if out else np.zeros((0, n_systems))


def _float32_table(stats: Sequence[Statistics], options: MetricOptions) -> Optional[Tuple[np.ndarray, Any]]:
    """The tables of :func:`_compiled_matrix` as one flat int64 buffer whose exact integer sums,
    times ``scale`` (one power of two per column, or ``None`` for ones), are the float32 sums
    sacreBLEU makes of its float32 rows; ``None`` where no such integers exist below 2**24.

    sacreBLEU sums the float32 rows the metric gives (:meth:`~bleukit.metrics.base.Metric.float32_rows`:
    the integer rows, or TER's average reference lengths). A column whose values are all
    multiples of ``2**-e`` and whose sums stay below ``2**(24 - e)`` is summed exactly in float32,
    in any order: its values times ``2**e`` are then such integers. TER's averages are whole
    numbers with one reference per sentence and halves or quarters with two or four; with three
    references they are rounded thirds, with no small power of two that makes them whole
    (numpy's route then sums them in float32, rounding as sacreBLEU does).

    >>> from bleukit.metrics.ter import TerOptions
    >>> from bleukit.metrics.ter.statistics import UNIT, TerStatistics
    >>> two = TerStatistics(np.array([[1, 7 * UNIT // 2], [0, 4 * UNIT]]), np.array([2, 2]))
    >>> table, scale = _float32_table([two], TerOptions())
    >>> table.tolist(), scale.tolist()  # the lengths in half words
    ([1, 7, 0, 8], [1.0, 0.5])
    >>> three = TerStatistics(np.array([[1, 10 * UNIT // 3]] * 4), np.array([3] * 4))  # float32 thirds: 2**-22
    >>> _float32_table([three], TerOptions()) is None
    True
    """
    metric, n_rows = metric_for(options), len(stats[0])
    own = [metric.float32_rows(each.rows, options) for each in stats]
    if all(block is None for block in own):
        # The integer rows themselves (chrF's, BLEU's): no power of two to find, no float copy.
        # (Rows past 2**24 would round in float32, but their sums fail the bound anyway.)
        table = np.concatenate([each.rows for each in stats]).reshape(-1)
        if table.size and (int(table.min()) < 0 or n_rows * int(table.max()) >= _EXACT_FLOAT32):
            return None  # (the kernel sums non-negative tables)
        return table, None
    values = np.concatenate([np.asarray(each.rows if block is None else block, dtype=np.float64)
                             for each, block in zip(stats, own)])
    if values.size and values.min() < 0:
        return None
    exponents = []
    for column in values.T:
        top, e = float(column.max(initial=0)), 0
        while True:
            if n_rows * top * 2.0**e >= _EXACT_FLOAT32:
                return None
            scaled = column * 2.0**e  # exact: a power of two
            if np.array_equal(scaled, np.floor(scaled)):
                break
            e += 1
        exponents.append(e)
    table = (values * np.exp2(exponents)).astype(np.int64).reshape(-1)
    scale = np.exp2(-np.array(exponents)).astype(np.float32) if any(exponents) else None
    return table, scale


def bootstrap_matrix(
    stats: Sequence[Statistics], options: MetricOptions, n: int, seed: Seed, progress: Progress = None
) -> np.ndarray:
    """The corpus score of every system in each of ``n`` paired bootstrap resamples: ``(n, systems)``.

    Every system is resampled with the same draws (sacreBLEU re-seeds each comparison with the same
    seed), so all of them are summed in one product over the side-by-side tables.
    """
    compiled = _compiled_matrix(stats, options, n, seed, progress)
    if compiled is not None:
        return compiled
    rows = np.concatenate([s.rows for s in stats], axis=1)
    return _bootstrap_sums_scores(rows, _draw_indices(rows.shape[0], n, seed), options, len(stats), progress)


def bootstrap_p_value(scores: np.ndarray, results: Sequence[MetricResult], a: int, b: int) -> float:
    """The paired bootstrap p-value of systems ``a`` and ``b`` from :func:`bootstrap_matrix` scores."""
    observed = abs(results[a].score - results[b].score)
    if scores.dtype != np.float32:
        return resampling.paired_p_value(scores[:, a].tolist(), scores[:, b].tolist(), observed)
    diffs = np.abs(scores[:, b] - scores[:, a])
    # Centring makes the resampled differences a sample under the null hypothesis.
    return _p_value(diffs - diffs.mean(), observed)


def randomization_p_values(
    stats: Sequence[Statistics],
    results: Sequence[MetricResult],
    pairs: Sequence[Tuple[int, int]],
    options: MetricOptions,
    n: int,
    seed: Seed,
    progress: Progress = None,
) -> List[float]:
    """Approximate-randomization p-values of the system pairs ``(a, b)``, one trial stream for all:
    sacreBLEU re-seeds each comparison, so every pair sees the same coin flips."""
    metric = metric_for(options)
    n_rows, width = stats[0].rows.shape
    # Trial statistics: a' = pos @ a + ~pos @ b = b_total + pos @ (a - b), b' = the rest.
    delta = np.concatenate([stats[a].rows - stats[b].rows for a, b in pairs], axis=1)
    b_total = np.concatenate([stats[b].rows.sum(axis=0) for _, b in pairs])
    both_total = b_total + np.concatenate([stats[a].rows.sum(axis=0) for a, _ in pairs])
    product = _ExactProduct(delta, n_rows * int(np.abs(delta).max(initial=0)))
    rng = np.random.default_rng(seed)
    k_pairs = len(pairs)
    exceed = np.zeros(k_pairs, dtype=np.int64)
    observed = np.array([abs(results[a].score - results[b].score) for a, b in pairs])
    for k in _chunks(n, n_rows, _CHUNK_FLIPS, _BOOL_BITS):
        moved = product(_coin_flips(rng, k, n_rows))
        a_side = b_total + moved
        b_side = both_total - a_side
        score_a = np.asarray(metric.scores(a_side.reshape(k * k_pairs, width), options)).reshape(k, k_pairs)
        score_b = np.asarray(metric.scores(b_side.reshape(k * k_pairs, width), options)).reshape(k, k_pairs)
        exceed += (np.abs(score_a - score_b) > observed).sum(axis=0)
        if progress is not None:
            progress(k)
    return [(int(e) + 1) / (n + 1) for e in exceed.tolist()]


def _p_value(samples: np.ndarray, observed: float) -> float:
    """sacreBLEU's (multeval's) p-value: strict ``>``, so a system against itself is never
    significant, and ``+1`` so the test never rejects more often than its level."""
    return (int(np.sum(samples > observed)) + 1) / (len(samples) + 1)
