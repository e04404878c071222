"""Many systems at once: paired tests of all pairs (or against a baseline), corrected for the number
of comparisons, and a ranking with significance clusters, for any metric.

sacreBLEU compares N systems with one baseline and leaves the multiple-comparison problem to the
reader. :func:`compare_systems` tests every pair with the same paired test (bootstrap or
approximate randomization, each pair's p-value equal to sacreBLEU's ``--paired-bs``/``--paired-ar``
with one system of the pair as the baseline), corrects the p-values for the number of pairs
(Holm-Bonferroni by default, :func:`bleukit.analysis.significance.adjust_p_values`) and ranks the systems.

**Clusters** (the rule of the WMT findings papers' rankings): systems are ordered by score, best
first; a cluster boundary lies between two neighbours exactly when every system above it is
significantly better than every system below it (corrected p-value at most ``alpha``). So systems
that are not significantly different always share a cluster; a cluster may hold two systems that
differ significantly when a third one, between them, differs from neither. Each system also gets
its **rank range**: from 1 + the number of systems significantly better than it to N - the number
of systems it is significantly better than.

>>> refs = ["the cat sat on the mat", "a dog barked at the postman", "it is raining today",
...         "the train leaves at noon", "she reads a book every night"]
>>> systems = {
...     "good": ["the cat sat on the mat", "a dog barked at the postman", "it is raining today",
...              "the train leaves at noon", "she reads a book every night"],
...     "fair": ["the cat sat on a mat", "a dog barked at a postman", "it is raining now",
...              "the train leaves at twelve", "she reads a book each night"],
...     "poor": ["cat mat", "dog postman", "rain", "train noon", "book night"]}
>>> c = compare_systems(systems, refs, n_samples=200)
>>> [(r.name, r.rank, r.cluster) for r in c.ranking]
[('good', 1, 1), ('fair', 2, 2), ('poor', 3, 3)]
>>> [(p.a, p.b, p.p_value_adjusted) for p in c.comparisons][:1]
[('good', 'fair', 0.014925373134328358)]
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from ..defaults import DEFAULT_SEED
from ..metrics import metric_for, resolve_options
from ..metrics.base import MetricOptions, MetricResult, Statistics
from .significance import (
    PairedResult,
    Progress,
    Seed,
    adjust_p_values,
    bootstrap_matrix,
    bootstrap_p_value,
    check_correction,
    check_test,
    randomization_p_values,
    system_statistics,
)
from .significance.draws import _estimate_ci
from .significance.paired import _signed

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..metrics.bleu.options import BleuOptionKeywords

__all__ = [
    "PairComparison", "RankedSystem", "SystemComparison", "compare_systems", "compare_statistics", "clusters",
    "DEFAULT_ALPHA",
]

#: The significance level of the clusters and of ``significant`` (sacreBLEU's output marks p < 0.05).
DEFAULT_ALPHA = 0.05

_TEST_NAMES = {"bs": "paired bootstrap resampling", "ar": "approximate randomization"}


@dataclass(frozen=True)
class PairComparison:
    """One paired test: systems ``a`` and ``b``, ``delta = score(a) - score(b)``, the p-value and,
    with a correction, the corrected one; ``significant`` says whether the p-value in force (the
    corrected one when there is one) is at most ``alpha``, and ``better`` names the better system
    of a significant pair (``None`` otherwise)."""

    a: str
    b: str
    delta: float
    p_value: float
    p_value_adjusted: Optional[float]
    significant: bool
    better: Optional[str]

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready: every field."""
        return {"a": self.a, "b": self.b, "delta": self.delta, "p_value": self.p_value,
                "p_value_adjusted": self.p_value_adjusted, "significant": self.significant, "better": self.better}


@dataclass(frozen=True)
class RankedSystem:
    """One system of a ranking: position by score (``rank``, from 1), ``cluster`` (from 1, the
    best), ``rank_range`` (best and worst rank the tests allow) and its scored result."""

    name: str
    rank: int
    cluster: int
    rank_range: Tuple[int, int]
    result: MetricResult

    @property
    def score(self) -> float:
        return self.result.score

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready: name, rank, cluster, rank_range, score, mean and ci (bootstrap only)."""
        return {"name": self.name, "rank": self.rank, "cluster": self.cluster, "rank_range": list(self.rank_range),
                "score": self.score, "mean": self.result.mean, "ci": self.result.ci}


@dataclass(frozen=True)
class SystemComparison:
    """Systems compared with one metric: each system's result (``systems``, with the bootstrap
    ``mean``/``ci`` for ``method="bs"``), the paired tests (``comparisons``) and, when all pairs
    were tested, the ``ranking`` with clusters (``None`` against a baseline)."""

    metric: str
    name: str
    method: str
    n_samples: int
    seed: Seed
    correction: Optional[str]
    alpha: float
    baseline: Optional[str]
    higher_is_better: bool
    signature: str
    systems: Tuple[PairedResult, ...]
    comparisons: Tuple[PairComparison, ...]
    ranking: Optional[Tuple[RankedSystem, ...]] = field(default=None)

    def comparison(self, a: str, b: str) -> PairComparison:
        """The test of systems ``a`` and ``b`` (in either order)."""
        for c in self.comparisons:
            if {c.a, c.b} == {a, b}:
                return c
        raise KeyError(f"no comparison of {a!r} and {b!r}")

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready form (``bleukit/schemas/cli-rank.schema.json`` describes it).

        >>> c = compare_systems({"a": ["x y z w"], "b": ["x y"]}, ["x y z w"], n_samples=10)
        >>> sorted(c.to_dict())  # doctest: +NORMALIZE_WHITESPACE
        ['alpha', 'baseline', 'comparisons', 'correction', 'higher_is_better', 'method', 'metric', 'n_samples',
         'name', 'ranking', 'seed', 'signature', 'systems']
        """
        return {
            "metric": self.metric,
            "name": self.name,
            "method": self.method,
            "n_samples": self.n_samples,
            "seed": self.seed,
            "correction": self.correction,
            "alpha": self.alpha,
            "baseline": self.baseline,
            "higher_is_better": self.higher_is_better,
            "signature": self.signature,
            "systems": [{"name": s.name, "score": s.score, "mean": s.mean, "ci": s.ci} for s in self.systems],
            "comparisons": [c.to_dict() for c in self.comparisons],
            "ranking": None if self.ranking is None else [r.to_dict() for r in self.ranking],
        }

    def format(self, fmt: str = "text", width: int = 1) -> str:
        """The comparison as text tables (``"text"``), LaTeX (``"latex"``) or JSON (``"json"``).

        >>> c = compare_systems({"a": ["x y z w"], "b": ["x y"]}, ["x y z w"], n_samples=10)
        >>> c.format().splitlines()[0].split(", ")[:3]
        ['BLEU: 2 systems', 'all pairs', 'paired bootstrap resampling (10 resamples']
        """
        if fmt == "json":
            return json.dumps(self.to_dict(), indent=1, ensure_ascii=False)
        if fmt not in ("text", "latex"):
            raise ValueError(f"unknown format {fmt!r}; choose text, latex or json")
        from tabulate import tabulate

        tablefmt = "fancy_grid" if fmt == "text" else "latex_booktabs"
        lines = [self._headline()]
        ci = self.method == "bs"
        score_head = f"{self.name} (μ ± 95% CI)" if ci else self.name

        def score_cell(result: Any) -> str:
            text = f"{result.score:.{width}f}"
            return text + (f" ({result.mean:.{width}f} ± {result.ci:.{width}f})" if ci else "")

        if self.ranking is not None:
            rows = [[r.rank, r.cluster, f"{r.rank_range[0]}-{r.rank_range[1]}", r.name, score_cell(r.result)]
                    for r in self.ranking]
            lines += ["", tabulate(rows, headers=["Rank", "Cluster", "Rank range", "System", score_head],
                                   tablefmt=tablefmt, stralign="center", numalign="center", disable_numparse=True)]
        else:
            rows = [[s.name + (" (baseline)" if s.name == self.baseline else ""), score_cell(s.result)]
                    for s in self.systems]
            lines += ["", tabulate(rows, headers=["System", score_head], tablefmt=tablefmt, stralign="center",
                                   disable_numparse=True)]
        adjusted = f"p ({self.correction.capitalize()})" if self.correction else None
        headers = ["System A", "System B", "Δ (A - B)", "p-value"] + ([adjusted] if adjusted else []) + ["Significant"]
        tests: List[List[str]] = []
        for c in self.comparisons:
            row = [c.a, c.b, f"{c.delta:+.{width}f}", f"{c.p_value:.4f}"]
            if adjusted:
                row.append(f"{c.p_value_adjusted:.4f}")
            row.append(f"yes: {c.better}" if c.significant else "no")
            tests.append(row)
        lines += ["", tabulate(tests, headers=headers, tablefmt=tablefmt, stralign="center", disable_numparse=True)]
        if self.ranking is not None:
            lines += ["", "Clusters: systems are ordered by score; a new cluster starts where every system above is "
                          f"significantly {'better' if self.higher_is_better else 'better (lower)'} than every system "
                          "below (WMT's rule), so systems that do not differ significantly share a cluster."]
        lines += ["", f"Signature: {self.signature}"]
        return "\n".join(lines)

    def _headline(self) -> str:
        test = _TEST_NAMES[self.method]
        unit = "resamples" if self.method == "bs" else "trials"
        seed = "none" if self.seed is None else self.seed
        which = "all pairs" if self.baseline is None else f"each against {self.baseline}"
        corrected = f"{self.correction.capitalize()}-corrected p-values" if self.correction else "uncorrected p-values"
        return (f"{self.name}: {len(self.systems)} systems, {which}, {test} ({self.n_samples} {unit}, seed {seed}), "
                f"{corrected}, alpha {self.alpha}")


def compare_systems(
    systems: Union[Mapping[str, Sequence[str]], Sequence[Tuple[str, Sequence[str]]]],
    references: Sequence[Any],
    *,
    baseline: Optional[str] = None,
    method: str = "bs",
    n_samples: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
    correction: Optional[str] = "holm",
    alpha: float = DEFAULT_ALPHA,
    progress: Progress = None,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> SystemComparison:
    """Paired tests of all pairs of ``systems`` (or of each against ``baseline``), corrected for the
    number of comparisons, and a ranking with significance clusters (all pairs only).

    Inputs and ``method``/``n_samples``/``seed``/``options``/``keywords`` as
    :func:`bleukit.paired_test`; the p-value of a pair equals that of ``paired_test`` with one of
    the two as the baseline. ``correction``: ``"holm"`` (default), ``"bonferroni"`` or ``None``,
    over all the comparisons made. A pair is significant when its p-value in force is at most
    ``alpha``. Whether larger scores are better is the metric's (``Metric.higher_is_better``).

    >>> c = compare_systems({"a": ["x y z w", "p q"], "b": ["x y", "p q"], "c": ["x y z", "p"]},
    ...                     ["x y z w", "p q"], baseline="b", method="ar", n_samples=50)
    >>> [(p.a, p.b) for p in c.comparisons], c.ranking is None
    ([('b', 'a'), ('b', 'c')], True)
    """
    n, seed = check_test(method, n_samples, seed)
    check_correction(correction)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be a number between 0 and 1, got {alpha!r}")
    opts = resolve_options(options, keywords)
    names, stats, _ = system_statistics(systems, references, opts)
    return compare_statistics(
        names, stats, opts, baseline=baseline, method=method, n_samples=n, seed=seed, correction=correction,
        alpha=alpha, progress=progress,
    )


def compare_statistics(
    names: Sequence[str],
    stats: Sequence[Statistics],
    options: MetricOptions,
    *,
    baseline: Optional[str] = None,
    method: str = "bs",
    n_samples: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
    correction: Optional[str] = "holm",
    alpha: float = DEFAULT_ALPHA,
    progress: Progress = None,
    scores: Optional[np.ndarray] = None,
) -> SystemComparison:
    """:func:`compare_systems` from the systems' statistics tables
    (:func:`bleukit.analysis.significance.system_statistics`), so that several analyses of the same systems
    tokenize and count each one once; ``scores`` (``method="bs"``): their
    :func:`bleukit.analysis.significance.bootstrap_matrix` with the same ``n_samples`` and ``seed``, reused.

    >>> from bleukit.analysis.significance import system_statistics
    >>> options = resolve_options(None, {})
    >>> names, stats, _ = system_statistics({"a": ["x y z w", "p q"], "b": ["x y", "p q"]}, ["x y z w", "p q"],
    ...                                     options)
    >>> [r.name for r in compare_statistics(names, stats, options, method="ar", n_samples=50).ranking]
    ['a', 'b']
    """
    n, seed = check_test(method, n_samples, seed)
    check_correction(correction)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be a number between 0 and 1, got {alpha!r}")
    opts = options
    metric = metric_for(opts)
    results = [metric.result(s, opts) for s in stats]
    if baseline is None:
        pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    else:
        if baseline not in names:
            raise ValueError(f"baseline {baseline!r} is not one of the systems: {', '.join(map(repr, names))}")
        base = names.index(baseline)
        pairs = [(base, k) for k in range(len(names)) if k != base]
    if method == "bs":
        if scores is None:
            scores = bootstrap_matrix(stats, opts, n, seed, progress)
        elif scores.shape != (n, len(stats)):
            raise ValueError(f"scores must be bootstrap_matrix of the {len(stats)} tables with {n} samples, "
                             f"got shape {scores.shape}")
        p_values = [bootstrap_p_value(scores, results, a, b) for a, b in pairs]
        signed: List[MetricResult] = []
        for k, result in enumerate(results):
            mean, ci = _estimate_ci(scores[:, k], paired=False)  # as corpus_score(n_bootstrap) gives it
            signed.append(result.with_estimate(mean, ci, opts.signature(stats[k].nrefs_signature, ("bs", n, seed))))
    else:
        p_values = randomization_p_values(stats, results, pairs, opts, n, seed, progress)
        signed = [_signed(r, s.nrefs_signature, opts, ("ar", n, seed)) for r, s in zip(results, stats)]
    adjusted: List[Optional[float]] = list(adjust_p_values(p_values, correction)) if correction else [None] * len(pairs)
    comparisons = []
    for (a, b), p, q in zip(pairs, p_values, adjusted):
        in_force = p if q is None else q
        significant = in_force <= alpha
        delta = results[a].score - results[b].score
        better = None
        if significant and delta != 0:
            better = names[a] if (delta > 0) == metric.higher_is_better else names[b]
        comparisons.append(PairComparison(names[a], names[b], delta, p, q, significant, better))
    per_system = tuple(PairedResult(name, r, None, r.mean, r.ci) for name, r in zip(names, signed))
    ranking = None if baseline is not None else _ranking(list(names), signed, comparisons, metric.higher_is_better)
    return SystemComparison(
        metric=metric.name, name=results[0].name, method=method, n_samples=n, seed=seed, correction=correction,
        alpha=float(alpha), baseline=baseline, higher_is_better=metric.higher_is_better,
        signature=signed[0].signature, systems=per_system, comparisons=tuple(comparisons), ranking=ranking,
    )


def clusters(order: Sequence[str], better: Mapping[Tuple[str, str], bool]) -> List[int]:
    """Cluster numbers (from 1) of systems listed best first, where ``better[(x, y)]`` says that
    ``x`` is significantly better than ``y``: a boundary after position ``k`` exactly when every
    system up to ``k`` is significantly better than every system after it.

    >>> clusters(["a", "b", "c"], {("a", "b"): True, ("a", "c"): True, ("b", "c"): False})
    [1, 2, 2]
    >>> clusters(["a", "b", "c"], {("a", "b"): False, ("a", "c"): True, ("b", "c"): False})
    [1, 1, 1]
    """
    out, cluster = [], 1
    for k in range(len(order)):
        out.append(cluster)
        above, below = order[: k + 1], order[k + 1 :]
        if below and all(better.get((x, y), False) for x in above for y in below):
            cluster += 1
    return out


def _ranking(
    names: List[str], results: List[MetricResult], comparisons: List[PairComparison], higher_is_better: bool
) -> Tuple[RankedSystem, ...]:
    sign = -1.0 if higher_is_better else 1.0
    # best first; equal scores keep the order the systems were given in
    order = sorted(range(len(names)), key=lambda k: sign * results[k].score)
    ordered = [names[k] for k in order]
    better: Dict[Tuple[str, str], bool] = {}
    for c in comparisons:
        if c.better is not None:
            worse = c.b if c.better == c.a else c.a
            better[(c.better, worse)] = True
    numbers = clusters(ordered, better)
    n = len(names)
    out = []
    for position, (k, cluster) in enumerate(zip(order, numbers)):
        name = names[k]
        above = sum(1 for other in names if better.get((other, name)))
        below = sum(1 for other in names if better.get((name, other)))
        out.append(RankedSystem(name, position + 1, cluster, (1 + above, n - below), results[k]))
    return tuple(out)
