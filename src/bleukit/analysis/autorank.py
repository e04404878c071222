"""WMT's AutoRank: one ranking of systems from several metrics' segment scores.

``method="wmt25"`` (the WMT25 preliminary ranking, arXiv 2508.14909, section "Automatic Ranking";
wmt-conference/wmt25-general-mt ``preliminary_ranking/``): a system's score for a metric is the
mean of its available segment scores; each metric ``m`` is scaled over the systems as
``z = (x - median) / max(eps, P100 - P25)`` (percentiles with numpy's default linear
interpolation); the scaled metrics are averaged with equal weights (or ``weights``); the averages
are mapped linearly to ``[1, N]``, the best system 1 and the worst ``N``.

``method="wmt24"`` (the WMT24 preliminary ranking and findings, arXiv 2407.19884): each metric's
system scores are mapped linearly to ``[1, N]`` (best 1, worst N) and AutoRank is their (weighted)
average, without a final rescaling.

A metric where lower is better (MetricX as its tools write it, TER) is turned around before scaling
(``lower_is_better=`` or the table's own declaration).

>>> a = autorank({"x": {"COMET": [0.8, 0.7], "MetricX": [2.0, 3.0]},
...               "y": {"COMET": [0.6, 0.6], "MetricX": [5.0, 6.0]},
...               "z": {"COMET": [0.9, None], "MetricX": [1.0, 2.0]}}, lower_is_better=["MetricX"])
>>> [(r.system, round(r.autorank, 3)) for r in a.rows]
[('z', 1.0), ('x', 1.727), ('y', 3.0)]
>>> a.rows[0].means
{'COMET': 0.9, 'MetricX': 1.5}
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

import numpy as np

from ..defaults import DEFAULT_SEED
from .segment_scores import SegmentScores, as_segment_scores

__all__ = ["AutoRank", "AutoRankRow", "autorank", "autorank_system_scores", "AUTORANK_METHODS", "DEFAULT_EPSILON"]

#: The methods :func:`autorank` knows.
AUTORANK_METHODS = ("wmt25", "wmt24")
#: The ``eps`` of WMT25's ``max(eps, P100 - P25)``: only matters when every system scores the same.
DEFAULT_EPSILON = 1e-12


@dataclass(frozen=True)
class AutoRankRow:
    """One system: ``autorank`` (1 is best), ``means`` (metric -> system score, as the tables print
    them before rounding), ``scaled`` (metric -> the scaled value that was averaged) and
    ``position`` (1-based place in rank order); ``cluster`` when significance clusters were asked for."""

    system: str
    autorank: float
    means: Dict[str, float]
    scaled: Dict[str, float]
    position: int
    cluster: Optional[Dict[str, int]] = None

    def to_dict(self) -> Dict[str, Any]:
        return {"system": self.system, "position": self.position, "autorank": self.autorank, "means": self.means,
                "scaled": self.scaled, "cluster": self.cluster}


@dataclass(frozen=True)
class AutoRank:
    """An AutoRank table: ``rows`` in rank order (best first; equal AutoRanks keep the systems'
    order), with the ``metrics``, their ``weights`` and which were ``lower_is_better``."""

    method: str
    metrics: Tuple[str, ...]
    weights: Dict[str, float]
    lower_is_better: Tuple[str, ...]
    rows: Tuple[AutoRankRow, ...]
    missing: Dict[str, int] = field(default_factory=dict)

    def row(self, system: str) -> AutoRankRow:
        for r in self.rows:
            if r.system == system:
                return r
        raise KeyError(f"no system {system!r}")

    def to_dict(self) -> Dict[str, Any]:
        return {"method": self.method, "metrics": list(self.metrics), "weights": self.weights,
                "lower_is_better": list(self.lower_is_better), "missing": self.missing,
                "rows": [r.to_dict() for r in self.rows]}

    def format(self, fmt: str = "text", decimals: Optional[Mapping[str, int]] = None) -> str:
        """The table as WMT prints it: AutoRank with one decimal, each metric's score with
        ``decimals[metric]`` decimals (default 3 for metrics whose scores lie within [-1, 1], else
        1); ``"text"``, ``"latex"`` or ``"json"``."""
        if fmt == "json":
            return json.dumps(self.to_dict(), indent=1, ensure_ascii=False)
        if fmt not in ("text", "latex"):
            raise ValueError(f"unknown format {fmt!r}; choose text, latex or json")
        from tabulate import tabulate

        places = {m: (decimals or {}).get(m, _default_decimals([r.means[m] for r in self.rows])) for m in self.metrics}
        headers = ["Rank", "System", "AutoRank"] + [m + (" ↓" if m in self.lower_is_better else "")
                                                     for m in self.metrics]
        rows = []
        for r in self.rows:
            cells = [str(r.position), r.system, f"{r.autorank:.1f}"]
            for m in self.metrics:
                text = f"{r.means[m]:.{places[m]}f}"
                if r.cluster and m in r.cluster:
                    text += f" [{r.cluster[m]}]"
                cells.append(text)
            rows.append(cells)
        table = tabulate(rows, headers=headers, tablefmt="simple" if fmt == "text" else "latex_booktabs",
                         disable_numparse=True, stralign="right")
        head = f"AutoRank ({self.method}): {len(self.rows)} systems, metrics {', '.join(self.metrics)}"
        return head + "\n\n" + table


def _default_decimals(values: List[float]) -> int:
    finite = [abs(v) for v in values if v == v]
    return 3 if finite and max(finite) <= 1.0 else 1


def autorank(
    scores: Any,
    *,
    metrics: Optional[Iterable[str]] = None,
    method: str = "wmt25",
    weights: Optional[Mapping[str, float]] = None,
    lower_is_better: Iterable[str] = (),
    epsilon: float = DEFAULT_EPSILON,
    clusters: bool = False,
    n_samples: Optional[int] = None,
    seed: Optional[int] = DEFAULT_SEED,
    correction: Optional[str] = "holm",
    alpha: float = 0.05,
) -> AutoRank:
    """AutoRank of the systems of ``scores`` (a :class:`SegmentScores` or a mapping system -> metric
    -> segment scores, ``None`` = missing) over ``metrics`` (default: all of the table's).

    ``weights``: metric -> weight (default equal; normalised to sum 1). ``lower_is_better``: metrics
    where lower is better, besides those the table declares. A system with no score at all for a
    used metric is an error (AutoRank needs every system's mean).

    ``clusters=True`` adds each row's significance cluster per metric (``row.cluster``): all pairs
    of :func:`~bleukit.analysis.score_tests.compare_scores` with ``n_samples``, ``seed``,
    ``correction`` and ``alpha`` (segments missing for some system left out of that metric's test).
    """
    if method not in AUTORANK_METHODS:
        raise ValueError(f"unknown method {method!r}; choose {', '.join(map(repr, AUTORANK_METHODS))}")
    table: SegmentScores = as_segment_scores(scores, lower_is_better=lower_is_better)
    used = list(table.metrics) if metrics is None else list(metrics)
    if not used:
        raise ValueError("autorank needs at least one metric")
    if len(set(used)) != len(used):
        raise ValueError(f"a metric is named twice in metrics={used!r}")
    for m in used:
        if m not in table.metrics:
            raise KeyError(f"no metric {m!r}; the scores have {', '.join(map(repr, table.metrics))}")
    means = np.empty((len(table.systems), len(used)))
    missing: Dict[str, int] = {}
    for j, m in enumerate(used):
        means[:, j] = table.means(m)
        absent = [s for s, v in zip(table.systems, means[:, j]) if v != v]
        if absent:
            raise ValueError(f"metric {m!r} has no score at all for {', '.join(map(repr, absent))}")
        missing[m] = int(table.missing(m).sum())
    result = _autorank(list(table.systems), used, means, [table.higher_is_better(m) for m in used], method,
                       weights, epsilon, missing)
    if not clusters:
        return result
    from .score_tests import compare_scores

    found: Dict[str, Dict[str, int]] = {s: {} for s in table.systems}
    for m in used:
        c = compare_scores(table, metric=m, n_samples=n_samples, seed=seed, correction=correction, alpha=alpha,
                           missing="drop")
        for r in c.ranking or ():
            found[r.name][m] = r.cluster
    rows = tuple(dataclasses.replace(r, cluster=found[r.system]) for r in result.rows)
    return dataclasses.replace(result, rows=rows)


def autorank_system_scores(
    scores: Mapping[str, Mapping[str, float]],
    *,
    method: str = "wmt25",
    weights: Optional[Mapping[str, float]] = None,
    lower_is_better: Iterable[str] = (),
    epsilon: float = DEFAULT_EPSILON,
) -> AutoRank:
    """AutoRank from system-level scores (system -> metric -> score), e.g. corpus BLEU or chrF++
    next to segment-score means: the same scaling and averaging as :func:`autorank`.

    >>> [r.system for r in autorank_system_scores({"a": {"chrF++": 40.0}, "b": {"chrF++": 50.0}}).rows]
    ['b', 'a']
    """
    if method not in AUTORANK_METHODS:
        raise ValueError(f"unknown method {method!r}; choose {', '.join(map(repr, AUTORANK_METHODS))}")
    systems = list(scores)
    used: List[str] = []
    for s in systems:
        used += [m for m in scores[s] if m not in used]
    means = np.full((len(systems), len(used)), np.nan)
    for k, s in enumerate(systems):
        for j, m in enumerate(used):
            v = scores[s].get(m)
            if v is None or not np.isfinite(v):
                raise ValueError(f"system {s!r} has no finite {m!r} score")
            means[k, j] = float(v)
    lower = set(lower_is_better)
    return _autorank(systems, used, means, [m not in lower for m in used], method, weights, epsilon, {})


def _autorank(systems: List[str], used: List[str], means: np.ndarray, higher: List[bool], method: str,
              weights: Optional[Mapping[str, float]], epsilon: float, missing: Dict[str, int]) -> AutoRank:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not epsilon > 0:
        raise ValueError(f"epsilon must be a number > 0, got {epsilon!r}")
    if not systems or not used:
        raise ValueError("autorank needs at least one system and one metric")
    w = _weights(weights, used)
    n = len(systems)
    # higher is better from here on
    oriented = means * np.array([1.0 if h else -1.0 for h in higher])
    if method == "wmt25":
        median = np.median(oriented, axis=0)
        spread = np.maximum(epsilon, np.percentile(oriented, 100, axis=0) - np.percentile(oriented, 25, axis=0))
        scaled = (oriented - median) / spread
        combined = scaled.mean(axis=1) if weights is None else scaled @ w
        ranks = _to_ranks(combined, n)
    else:
        scaled = np.column_stack([_to_ranks(oriented[:, j], n) for j in range(len(used))])
        ranks = scaled.mean(axis=1) if weights is None else scaled @ w
    order = sorted(range(n), key=lambda k: (ranks[k], k))
    rows = tuple(
        AutoRankRow(system=systems[k], autorank=float(ranks[k]),
                    means={m: float(means[k, j]) for j, m in enumerate(used)},
                    scaled={m: float(scaled[k, j]) for j, m in enumerate(used)}, position=p + 1)
        for p, k in enumerate(order))
    return AutoRank(method=method, metrics=tuple(used), weights=dict(zip(used, map(float, w))),
                    lower_is_better=tuple(m for m, h in zip(used, higher) if not h), rows=rows, missing=missing)


def _weights(weights: Optional[Mapping[str, float]], used: List[str]) -> np.ndarray:
    if weights is None:
        return np.full(len(used), 1.0 / len(used))
    unknown = sorted(set(weights) - set(used))
    if unknown:
        raise ValueError(f"weights for metrics not used: {', '.join(map(repr, unknown))}")
    raw = []
    for m in used:
        v = weights.get(m, 0.0)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0 or v != v or v == float("inf"):
            raise ValueError(f"weight of {m!r} must be a finite number >= 0, got {v!r}")
        raw.append(float(v))
    total = sum(raw)
    if total <= 0:
        raise ValueError("the weights must not all be 0")
    return np.array(raw) / total


def _to_ranks(values: np.ndarray, n: int) -> np.ndarray:
    """Linear map of higher-is-better values to [1, n]: the highest 1, the lowest n (all 1 when equal)."""
    top, bottom = float(values.max()), float(values.min())
    if top == bottom:
        return np.ones(len(values))
    result: np.ndarray = 1.0 + (top - values) / (top - bottom) * (n - 1)
    return result
