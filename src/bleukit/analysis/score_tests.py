"""Paired tests, confidence intervals, corrections and significance clusters on any metric's
segment scores (COMET, MetricX, LLM judges, human scores): :func:`compare_scores` gives the same
:class:`~bleukit.analysis.ranking.SystemComparison` as :func:`~bleukit.analysis.ranking.compare_systems`
gives for BLEU, chrF and TER.

A system's statistic is the mean of its segment scores. The draws are bleukit's (sacreBLEU 2.6's):
with the same seed and number of segments, bootstrap resample ``s`` holds the same segments, and
approximate-randomization trial ``s`` the same coin flips, as in bleukit's (and sacreBLEU's) tests
of BLEU, chrF and TER, so lexical and segment-score metrics are reported from the same resamples.
The p-value is sacreBLEU's: the centred absolute differences of the resampled means (bootstrap) or
the absolute differences of the trials' means (randomization) strictly above the observed one,
``+1`` above and below; the CI is its 95% percentile interval (``n // 40``).

**float64, not float32.** sacreBLEU casts the statistics it bootstraps to float32. On scores that
are integers (LLM judges' 0-100, human DA, MQM penalties) with sums below 2**24 that is exact, and
the p-values here equal those of sacreBLEU's own ``PairedTest`` run with a mean-of-segments metric
(tests check it). On real-valued scores (COMET, MetricX) float32 rounds every sum; here the sums
are float64, i.e. sacreBLEU's algorithm computed in float64 (tests check that too), which can give a
slightly different p-value than sacreBLEU's float32 run of the same data.

Segments missing for any system compared are an error (``missing="error"``), or dropped for every
system (``missing="drop"``, so the test stays paired; the signature counts them).

>>> scores = {"a": [70, 80, 90, 85, 75, 95], "b": [60, 70, 80, 75, 65, 85], "c": [61, 79, 80, 74, 66, 84]}
>>> c = compare_scores(scores, n_samples=200)
>>> [(r.name, r.cluster) for r in c.ranking]
[('a', 1), ('c', 2), ('b', 2)]
>>> c.systems[0].score
82.5
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .. import _version
from ..defaults import DEFAULT_SEED
from ..metrics.base import MetricResult
from ..resampling import FLIP_BITS, chunks, estimate_ci
from .ranking import DEFAULT_ALPHA, PairComparison, SystemComparison, _ranking
from .segment_scores import ScoreInputError, SegmentScores, as_segment_scores
from .significance import PairedResult, Progress, Seed, adjust_p_values, check_correction, check_test
from .significance.draws import _CHUNK_FLIPS, _coin_flips, _draw_indices

__all__ = ["SegmentScoreResult", "compare_scores", "score_matrix", "MISSING_POLICIES"]

#: What :func:`compare_scores` does with a segment some system has no score for.
MISSING_POLICIES = ("error", "drop")


@dataclass(frozen=True)
class SegmentScoreResult(MetricResult):
    """A system's score for a segment-score metric: the mean of its segment scores, with the
    bootstrap ``mean`` and ``ci`` when a bootstrap was run."""

    score: float
    signature: str
    options: Any
    mean: Optional[float]
    ci: Optional[float]
    metric: str
    n_segments: int
    higher_is_better: bool

    @property
    def name(self) -> str:
        return self.metric

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.metric, "score": self.score, "mean": self.mean, "ci": self.ci,
                "n_segments": self.n_segments, "higher_is_better": self.higher_is_better,
                "signature": self.signature}


def _table(scores: Any, lower_is_better: Optional[bool], metric: Optional[str]) -> Tuple[SegmentScores, str]:
    if isinstance(scores, Mapping) and scores and not any(isinstance(v, Mapping) for v in scores.values()):
        scores = {s: {metric or "score": v} for s, v in scores.items()}  # system -> scores: one metric
    table = as_segment_scores(scores)
    if metric is None:
        if len(table.metrics) != 1:
            raise ValueError(f"the scores hold {len(table.metrics)} metrics ({', '.join(table.metrics)}); "
                             "choose one with metric=")
        metric = table.metrics[0]
    table.array(metric)  # KeyError naming the metrics there are
    if lower_is_better is not None and lower_is_better == table.higher_is_better(metric):
        arrays = {m: table.array(m) for m in table.metrics}
        lower = set(table.lower_is_better) ^ {metric}
        table = SegmentScores(table.systems, arrays, lower_is_better=lower,
                              info={m: table.info(m) for m in table.metrics})
    return table, metric


def score_matrix(table: SegmentScores, metric: str, systems: Sequence[str], missing: str) -> Tuple[np.ndarray, int]:
    """The (systems, segments) scores of ``metric`` for a paired test, and how many segments were
    dropped: with ``missing="error"`` a missing score is an error naming the system and segment."""
    if missing not in MISSING_POLICIES:
        raise ValueError(f"missing must be one of {', '.join(map(repr, MISSING_POLICIES))}, got {missing!r}")
    rows = np.stack([table.array(metric)[table.systems.index(s)] for s in systems])
    gaps = np.isnan(rows)
    if not gaps.any():
        return rows, 0
    if missing == "error":
        k, i = map(int, np.argwhere(gaps)[0])
        raise ScoreInputError(f"system {systems[k]!r} has no {metric} score for segment {i + 1} "
                              f"({int(gaps.sum())} missing in all); a paired test needs every system's score "
                              "of each segment: pass missing='drop' to leave such segments out for every system")
    keep = ~gaps.any(axis=0)
    if not keep.any():
        raise ScoreInputError(f"no segment has a {metric} score for every system")
    return rows[:, keep], int((~keep).sum())


def _signature(table: SegmentScores, metric: str, n: int, dropped: int, test: Tuple[str, int, Seed]) -> str:
    info = table.info(metric)
    parts = [f"metric:{metric}"]
    for key in ("model", "version", "format"):
        if info.get(key):
            parts.append(f"{key}:{info[key]}")
    parts += [f"segments:{n}", f"dropped:{dropped}", f"hash:{table.scores_hash(metric)}",
              f"higher:{'yes' if table.higher_is_better(metric) else 'no'}",
              f"{test[0]}:{test[1]}", f"seed:{str(test[2]).lower()}", f"version:{_version.__version__}"]
    return "|".join(parts)


def compare_scores(
    scores: Any,
    *,
    metric: Optional[str] = None,
    baseline: Optional[str] = None,
    method: str = "bs",
    n_samples: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
    correction: Optional[str] = "holm",
    alpha: float = DEFAULT_ALPHA,
    lower_is_better: Optional[bool] = None,
    missing: str = "error",
    progress: Progress = None,
) -> SystemComparison:
    """Paired tests of all pairs of systems (or each against ``baseline``) on one metric's segment
    scores, corrected for the number of comparisons, each system's bootstrap mean and CI
    (``method="bs"``) and, with all pairs, a ranking with significance clusters and rank ranges.

    ``scores``: a :class:`~bleukit.analysis.segment_scores.SegmentScores`, a mapping system ->
    metric -> segment scores, or system -> segment scores (one metric). ``metric``: which one (needed
    when there are several). ``method``, ``n_samples``, ``seed``, ``correction``, ``alpha``: as
    :func:`~bleukit.analysis.ranking.compare_systems`. ``lower_is_better``: overrides the table's
    declaration (MetricX, TER: lower is better). ``missing``: ``"error"`` or ``"drop"``.
    """
    n, seed = check_test(method, n_samples, seed)
    check_correction(correction)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be a number between 0 and 1, got {alpha!r}")
    table, metric = _table(scores, lower_is_better, metric)
    names = list(table.systems)
    if len(names) < 2:
        raise ValueError(f"a paired test needs at least 2 systems, got {len(names)}")
    x, dropped = score_matrix(table, metric, names, missing)
    n_seg = x.shape[1]
    higher = table.higher_is_better(metric)
    totals = [math.fsum(row) for row in x.tolist()]
    means = [t / n_seg for t in totals]
    if baseline is None:
        pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    else:
        if baseline not in names:
            raise ValueError(f"baseline {baseline!r} is not one of the systems: {', '.join(map(repr, names))}")
        base = names.index(baseline)
        pairs = [(base, k) for k in range(len(names)) if k != base]
    signature = _signature(table, metric, n_seg, dropped, (method, n, seed))
    if method == "bs":
        resampled = bootstrap_means(x, n, seed, progress)
        p_values = bootstrap_p_values(resampled, means, pairs)
        estimates: List[Tuple[Optional[float], Optional[float]]] = [
            estimate_ci(resampled[:, k].tolist(), paired=False) for k in range(len(names))]
    else:
        p_values = randomization_p_values(x, totals, pairs, n, seed, progress)
        estimates = [(None, None)] * len(names)
    results = [SegmentScoreResult(score=means[k], signature=signature, options=None, mean=estimates[k][0],
                                  ci=estimates[k][1], metric=metric, n_segments=n_seg, higher_is_better=higher)
               for k in range(len(names))]
    adjusted: List[Optional[float]] = list(adjust_p_values(p_values, correction)) if correction else [None] * len(pairs)
    comparisons = []
    for (a, b), p, q in zip(pairs, p_values, adjusted):
        significant = (p if q is None else q) <= alpha
        delta = means[a] - means[b]
        better = None
        if significant and delta != 0:
            better = names[a] if (delta > 0) == higher else names[b]
        comparisons.append(PairComparison(names[a], names[b], delta, p, q, significant, better))
    per_system = tuple(PairedResult(name, r, None, r.mean, r.ci) for name, r in zip(names, results))
    ranking = None if baseline is not None else _ranking(names, list(results), comparisons, higher)
    return SystemComparison(
        metric=metric, name=metric, method=method, n_samples=n, seed=seed, correction=correction, alpha=float(alpha),
        baseline=baseline, higher_is_better=higher, signature=signature, systems=per_system,
        comparisons=tuple(comparisons), ranking=ranking)


def bootstrap_means(x: np.ndarray, n_samples: int, seed: Seed, progress: Progress = None) -> np.ndarray:
    """(n_samples, systems): each system's mean score in each bootstrap resample, the resamples
    being bleukit's (sacreBLEU's) draws for ``seed`` and ``x.shape[1]`` segments; each resample's
    sums are one matrix product (the number of times each segment was drawn × the scores)."""
    n_rows = x.shape[1]
    scores_t = np.ascontiguousarray(x.T)
    out = []
    for idx in _draw_indices(n_rows, n_samples, seed):
        k = idx.shape[0]
        flat = idx + (np.arange(k, dtype=np.int64) * n_rows)[:, None]
        counts = np.bincount(flat.ravel(), minlength=k * n_rows).reshape(k, n_rows).astype(np.float64)
        out.append((counts @ scores_t) / n_rows)
        if progress is not None:
            progress(k)
    return np.concatenate(out) if out else np.zeros((0, x.shape[0]))


def bootstrap_p_values(resampled: np.ndarray, means: Sequence[float], pairs: Sequence[Tuple[int, int]]) -> List[float]:
    """sacreBLEU's paired-bootstrap p-value of each pair, all pairs at once: the absolute resampled
    differences centred on their numpy mean (the same pairwise sum, row by row) against the observed
    absolute difference, strictly greater, ``+1`` above and below."""
    if not pairs:
        return []
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    cols = np.ascontiguousarray(resampled.T)
    out: List[float] = []
    step = max(1, (1 << 22) // max(1, cols.shape[1]))  # pairs per block: a few MB at a time
    for start in range(0, len(pairs), step):
        sa, sb = a[start:start + step], b[start:start + step]
        diffs = np.abs(cols[sb] - cols[sa])
        centred = diffs - diffs.mean(axis=1)[:, None]
        observed = np.array([abs(means[i] - means[j]) for i, j in zip(sa.tolist(), sb.tolist())])
        counts = (centred > observed[:, None]).sum(axis=1)
        out += [(int(c) + 1) / (cols.shape[1] + 1) for c in counts.tolist()]
    return out


def randomization_p_values(x: np.ndarray, totals: Sequence[float], pairs: Sequence[Tuple[int, int]], n: int,
                           seed: Seed, progress: Progress = None) -> List[float]:
    """Approximate randomization of each pair on one stream of coin flips (bleukit's and sacreBLEU's
    for ``seed`` and the number of segments): a trial swaps the two systems' scores of every segment
    whose flip is set; its statistic is the absolute difference of the two means."""
    n_rows = x.shape[1]
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    delta = np.ascontiguousarray((x[a] - x[b]).T)  # (segments, pairs)
    a_total = np.array([totals[i] for i in a])
    b_total = np.array([totals[j] for j in b])
    observed = np.abs(a_total / n_rows - b_total / n_rows)
    exceed = np.zeros(len(pairs), dtype=np.int64)
    rng = np.random.default_rng(seed)
    for k in chunks(n, n_rows, _CHUNK_FLIPS, FLIP_BITS):
        moved = _coin_flips(rng, k, n_rows).astype(np.float64) @ delta
        a_side = b_total + moved  # the flipped segments take a's score, the others b's
        b_side = a_total - moved
        exceed += (np.abs(a_side / n_rows - b_side / n_rows) > observed).sum(axis=0)
        if progress is not None:
            progress(k)
    return [(int(e) + 1) / (n + 1) for e in exceed.tolist()]
