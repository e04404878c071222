"""The bootstrap and approximate randomization of whole systems on the compiled route, without
numpy (:mod:`bleukit.resampling`): the systems counted once into one flat buffer
(``FastPaths.systems_rows``), their corpus results, and the resampled scores or p-values; where the
route does not apply, the systems' statistics tables for numpy's route (:mod:`.draws`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Sequence, Tuple, Union

from ... import resampling
from ...metrics import fast
from ...metrics.base import Metric, MetricOptions, MetricResult, Statistics, nrefs_signature
from ...pipeline import route
from .draws import Progress, Seed

if TYPE_CHECKING:
    import numpy as np
else:
    from .draws import np

__all__: List[str] = []


class _Resampled:
    """The compiled route's bootstrap of some systems: their corpus results, ``nrefs:`` signature
    values and resampled scores (one list per system). (A plain class: a NamedTuple costs the
    command line's start-up a millisecond.)"""

    __slots__ = ("names", "results", "nrefs", "columns")

    def __init__(self, names: List[str], results: List[MetricResult], nrefs: List[Any],
                 columns: List[List[float]]) -> None:
        self.names, self.results, self.nrefs, self.columns = names, results, nrefs, columns


class _Counted:
    """Systems' statistics tables counted without numpy (``FastPaths.systems_rows``): every table, one
    after another, in one flat int64 buffer, their ``nrefs`` columns likewise, and their corpus
    results and ``nrefs:`` signature values."""

    __slots__ = ("names", "rows", "nrefs", "n_rows", "metric", "results", "signatures")

    def __init__(self, names: List[str], rows: Any, nrefs: Any, n_rows: int, options: MetricOptions,
                 metric: Metric[Any, Any, Any]) -> None:
        self.names, self.rows, self.nrefs, self.n_rows, self.metric = names, rows, nrefs, n_rows, metric
        self.results: List[MetricResult] = []
        self.signatures: List[Any] = []
        for j, sums in enumerate(resampling.column_sums(rows, n_rows, len(names))):
            sig = nrefs_signature(min(nrefs[j * n_rows : (j + 1) * n_rows]), max(nrefs[j * n_rows : (j + 1) * n_rows]))
            self.results.append(metric.row_result(sums, sig if isinstance(sig, int) else -1, options))
            self.signatures.append(sig)

    def statistics(self, options: MetricOptions) -> Tuple[List[str], List[Statistics]]:
        """The names and the numpy statistics tables, for numpy's route."""
        metric = self.metric  # resolved once, by _counted's route
        count = len(self.names)
        table = np.frombuffer(self.rows, dtype=np.int64).reshape(count, self.n_rows, -1)
        counts = np.frombuffer(self.nrefs, dtype=np.int64).reshape(count, self.n_rows)
        return self.names, [metric.statistics_type(table[j], counts[j], **metric.layout(options)) for j in range(count)]


def _counted(
    named: List[Tuple[str, List[str]]], references: Sequence[Any], options: MetricOptions, seed: Seed
) -> Union[_Counted, Tuple[List[str], List[Statistics]]]:
    """Checked ``(name, hypotheses)`` systems counted for the compiled route (:class:`_Counted`), or,
    where it cannot apply (no seed, no such path for the metric), their names and statistics tables
    for numpy's route. The references are counted once for all systems either way."""
    way = route(options)
    names, hyps = [name for name, _ in named], [h for _, h in named]
    refs = way.checked_references(references, len(hyps[0]))
    found = fast.systems_rows(way.metric, hyps, refs, options) if seed is not None and refs else None
    if found is None:
        return names, fast.systems_statistics(way.metric, hyps, refs, options)
    return _Counted(names, found[0], found[1], len(refs), options, way.metric)


def _compiled_bootstrap(
    named: List[Tuple[str, List[str]]], references: Sequence[Any], options: MetricOptions, n: int, seed: Seed,
    progress: Progress,
) -> Union[_Resampled, Tuple[List[str], List[Statistics]]]:
    """The bootstrap of checked ``(name, hypotheses)`` systems on the compiled route, without numpy
    (:mod:`bleukit.resampling`), or, where it does not apply, their names and statistics tables for
    numpy's route (counted once)."""
    found = _counted(named, references, options, seed)
    if not isinstance(found, _Counted):
        return found
    columns = resampling.bootstrap_columns(found.rows, found.n_rows, len(found.names), options, n, seed, progress)
    if columns is None:
        return found.statistics(options)
    return _Resampled(found.names, found.results, found.signatures, columns)


class _Randomized:
    """The compiled route's approximate randomization: the counted systems and the p-value of each
    against the first."""

    __slots__ = ("counted", "p_values")

    def __init__(self, counted: _Counted, p_values: List[float]) -> None:
        self.counted, self.p_values = counted, p_values


def _compiled_randomization(
    named: List[Tuple[str, List[str]]], references: Sequence[Any], options: MetricOptions, n: int, seed: Seed,
    progress: Progress,
) -> Union[_Randomized, Tuple[List[str], List[Statistics]]]:
    """Approximate randomization of checked ``(name, hypotheses)`` systems against the first on the
    compiled route, without numpy (:func:`bleukit.resampling.randomization_counts`): the counted
    systems and their p-values; or, where it does not apply, their names and statistics tables for
    numpy's route (counted once)."""
    found = _counted(named, references, options, seed)
    if not isinstance(found, _Counted):
        return found
    base = found.results[0].score
    pairs = [(0, k) for k in range(1, len(found.names))]
    observed = [abs(base - r.score) for r in found.results[1:]]
    counts = resampling.randomization_counts(found.rows, found.n_rows, len(found.names), pairs, observed, options,
                                             n, seed, progress) if pairs else []
    if counts is None:
        return found.statistics(options)
    return _Randomized(found, [(c + 1) / (n + 1) for c in counts])
