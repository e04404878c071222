"""Any metric's segment scores as a table: systems × segments per metric, with missing scores kept
explicit (never zeros), from Python mappings, numpy arrays, pandas DataFrames (long or wide) and
Hugging Face datasets columns. The files the scoring tools write are read by
:mod:`bleukit.analysis.score_files`; the analyses of these tables are
:func:`bleukit.analysis.autorank.autorank` and :func:`bleukit.analysis.score_tests.compare_scores`.

A system's score for a metric is the mean of its available segment scores. Which way is better is
declared per metric (``lower_is_better``: MetricX, TER, error counts).

>>> table = SegmentScores.from_mapping({"a": {"COMET": [0.8, 0.6, None]}, "b": {"COMET": [0.7, 0.5, 0.4]}})
>>> table.systems, table.metrics, table.n_segments
(('a', 'b'), ('COMET',), 3)
>>> table.means("COMET").round(2).tolist(), table.missing("COMET").sum().item()
([0.7, 0.53], 1)
"""

from __future__ import annotations

import hashlib
import math
import numbers
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

__all__ = ["SegmentScores", "ScoreInputError", "as_segment_scores", "segment_values"]


class ScoreInputError(ValueError):
    """Segment scores that cannot be read as given: the message names the file (or the Python
    object) and the line, system, metric or segment at fault."""


def segment_values(values: Any, where: str) -> np.ndarray:
    """One system's segment scores for one metric as float64, ``None`` (and pandas' ``NA``/``NaT``
    only where they stand for a missing cell, see :meth:`SegmentScores.from_pandas`) as NaN; NaN, inf,
    booleans and non-numbers are errors naming ``where`` and the segment (from 1).

    >>> segment_values([1, None, 2.5], "x").tolist()
    [1.0, nan, 2.5]
    >>> segment_values([1, float("nan")], "system 'a'")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bleukit.analysis.segment_scores.ScoreInputError: system 'a', segment 2: NaN is not a score (write None ...)
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ScoreInputError(f"{where}: segment scores must be a sequence of numbers, got {type(values).__name__}")
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ScoreInputError(f"{where}: segment scores must be 1-d, got shape {values.shape}")
        if values.dtype.kind in "iuf":
            out = values.astype(np.float64)
            bad = ~np.isfinite(out)
            if bad.any():
                k = int(np.argmax(bad))
                raise ScoreInputError(f"{where}, segment {k + 1}: {_describe(out[k])} is not a score "
                                      "(write None for a missing one)")
            return out
        values = values.tolist()
    items = list(values)
    out = np.empty(len(items), dtype=np.float64)
    for k, v in enumerate(items):
        out[k] = _one_value(v, f"{where}, segment {k + 1}")
    return out


def _describe(v: float) -> str:
    return "NaN" if math.isnan(v) else ("inf" if v > 0 else "-inf")


def _one_value(v: Any, where: str) -> float:
    if v is None:
        return math.nan
    if isinstance(v, (bool, np.bool_)):
        raise ScoreInputError(f"{where}: {v!r} is a boolean, not a score")
    if isinstance(v, numbers.Real):
        f = float(v)
        if not math.isfinite(f):
            raise ScoreInputError(f"{where}: {_describe(f)} is not a score (write None for a missing one)")
        return f
    raise ScoreInputError(f"{where}: {v!r} is not a number")


class SegmentScores:
    """Segment scores of systems for one or more metrics: ``array(metric)`` is (systems, segments),
    NaN where a score is missing. Every system has the same segments (the same source sentences or
    paragraphs, in the same order).

    ``lower_is_better``: the metrics where a lower score is better. ``info``: per metric, what its
    source says of it (``model``, ``version``, ``file``), shown in signatures. ``documents``,
    ``domains``, ``language_pairs``: optional per-segment labels.
    """

    def __init__(
        self,
        systems: Sequence[str],
        scores: Mapping[str, Any],
        *,
        lower_is_better: Iterable[str] = (),
        info: Optional[Mapping[str, Mapping[str, Any]]] = None,
        documents: Optional[Sequence[str]] = None,
        domains: Optional[Sequence[str]] = None,
        language_pairs: Optional[Sequence[str]] = None,
        where: str = "segment scores",
    ) -> None:
        names = list(systems)
        if not names:
            raise ScoreInputError(f"{where}: no systems")
        seen: Dict[str, int] = {}
        for k, name in enumerate(names):
            if not isinstance(name, str) or not name:
                raise ScoreInputError(f"{where}: system names must be non-empty strings, got {name!r}")
            if name in seen:
                raise ScoreInputError(f"{where}: duplicate system name {name!r}")
            seen[name] = k
        if not scores:
            raise ScoreInputError(f"{where}: no metrics")
        arrays: Dict[str, np.ndarray] = {}
        n_segments: Optional[int] = None
        first = ""
        for metric, array in scores.items():
            if not isinstance(metric, str) or not metric:
                raise ScoreInputError(f"{where}: metric names must be non-empty strings, got {metric!r}")
            a = np.array(array, dtype=np.float64, copy=True)
            if a.ndim != 2 or a.shape[0] != len(names):
                raise ScoreInputError(f"{where}: metric {metric!r} must be (systems, segments) = "
                                      f"({len(names)}, n), got shape {a.shape}")
            if np.isinf(a).any():
                raise ScoreInputError(f"{where}: metric {metric!r} holds inf")
            if n_segments is None:
                n_segments, first = a.shape[1], metric
            elif a.shape[1] != n_segments:
                raise ScoreInputError(f"{where}: metric {metric!r} has {a.shape[1]} segments but {first!r} has "
                                      f"{n_segments}: every metric must score the same segments")
            a.setflags(write=False)
            arrays[metric] = a
        assert n_segments is not None
        lower = frozenset(lower_is_better)
        unknown = sorted(lower - set(arrays))
        if unknown:
            raise ScoreInputError(f"{where}: lower_is_better names unknown metrics: {', '.join(map(repr, unknown))}")
        self._systems: Tuple[str, ...] = tuple(names)
        self._arrays = arrays
        self._lower = lower
        self._info: Dict[str, Dict[str, Any]] = {m: dict((info or {}).get(m, {})) for m in arrays}
        self._n = n_segments
        self.documents = _labels(documents, n_segments, "documents", where)
        self.domains = _labels(domains, n_segments, "domains", where)
        self.language_pairs = _labels(language_pairs, n_segments, "language_pairs", where)

    # ----------------------------------------------------------------------------------- reading it

    @property
    def systems(self) -> Tuple[str, ...]:
        return self._systems

    @property
    def metrics(self) -> Tuple[str, ...]:
        return tuple(self._arrays)

    @property
    def n_segments(self) -> int:
        return self._n

    @property
    def lower_is_better(self) -> frozenset:
        return self._lower

    def higher_is_better(self, metric: str) -> bool:
        """Whether larger scores of ``metric`` are better."""
        self._check_metric(metric)
        return metric not in self._lower

    def info(self, metric: str) -> Dict[str, Any]:
        """What the source says of ``metric`` (``model``, ``version``, ``file``, ...)."""
        self._check_metric(metric)
        return dict(self._info[metric])

    def array(self, metric: str) -> np.ndarray:
        """The (systems, segments) float64 scores of ``metric``, NaN where missing (read-only)."""
        self._check_metric(metric)
        return self._arrays[metric]

    def missing(self, metric: str) -> np.ndarray:
        """Where ``metric`` has no score: a (systems, segments) boolean array."""
        return np.isnan(self.array(metric))

    def means(self, metric: str) -> np.ndarray:
        """Each system's score: the mean of its available segment scores (NaN with none)."""
        a = self.array(metric)
        out = np.full(len(self._systems), np.nan)
        for k, row in enumerate(a):
            kept = row[~np.isnan(row)]
            if kept.size:
                out[k] = kept.mean()
        return out

    def scores_hash(self, metric: str) -> str:
        """SHA-256 (first 16 hex digits) of the metric's scores: systems, then each score's float64
        bytes (missing scores as NaN), so two runs can show that they used the same numbers."""
        h = hashlib.sha256()
        for name, row in zip(self._systems, self.array(metric)):
            h.update(name.encode("utf-8") + b"\0")
            h.update(np.ascontiguousarray(row, dtype="<f8").tobytes())
        return h.hexdigest()[:16]

    def to_mapping(self) -> Dict[str, Dict[str, List[Optional[float]]]]:
        """system -> metric -> scores, ``None`` for missing ones (the input of :meth:`from_mapping`)."""
        return {s: {m: [None if math.isnan(v) else v for v in a[k].tolist()] for m, a in self._arrays.items()}
                for k, s in enumerate(self._systems)}

    def __repr__(self) -> str:
        return (f"SegmentScores({len(self._systems)} systems × {self._n} segments; metrics: "
                f"{', '.join(self.metrics)})")

    def _check_metric(self, metric: str) -> None:
        if metric not in self._arrays:
            raise KeyError(f"no metric {metric!r}; the table has {', '.join(map(repr, self._arrays))}")

    # ----------------------------------------------------------------------------------- making new ones

    def select(self, *, systems: Optional[Sequence[str]] = None, metrics: Optional[Sequence[str]] = None,
               segments: Optional[Any] = None) -> "SegmentScores":
        """A table of some systems, metrics and segments (a boolean mask or indices), in the order given."""
        names = list(self._systems) if systems is None else list(systems)
        for s in names:
            if s not in self._systems:
                raise KeyError(f"no system {s!r}")
        rows = [self._systems.index(s) for s in names]
        chosen = list(self.metrics) if metrics is None else list(metrics)
        for m in chosen:
            self._check_metric(m)
        cols = np.arange(self._n) if segments is None else np.arange(self._n)[np.asarray(segments)]

        def labels(x: Optional[Tuple[str, ...]]) -> Optional[List[str]]:
            return None if x is None else [x[i] for i in cols.tolist()]

        return SegmentScores(
            names, {m: self._arrays[m][rows][:, cols] for m in chosen},
            lower_is_better=[m for m in chosen if m in self._lower], info={m: self._info[m] for m in chosen},
            documents=labels(self.documents), domains=labels(self.domains),
            language_pairs=labels(self.language_pairs))

    def merge(self, other: "SegmentScores") -> "SegmentScores":
        """One table with the scores of both: systems and metrics are the unions (in order of
        appearance); a (system, metric) in neither table is missing throughout. The same system
        scored by the same metric in both tables is an error (a duplicate system), and so are
        different numbers of segments or a metric declared lower-is-better in one table only."""
        if other.n_segments != self._n:
            raise ScoreInputError(f"cannot merge tables of {self._n} and {other.n_segments} segments: "
                                  "every score file must score the same segments")
        names = list(self._systems) + [s for s in other.systems if s not in self._systems]
        metrics = list(self.metrics) + [m for m in other.metrics if m not in self.metrics]
        arrays: Dict[str, np.ndarray] = {m: np.full((len(names), self._n), np.nan) for m in metrics}
        filled: Dict[Tuple[str, str], bool] = {}
        for table in (self, other):
            for m in table.metrics:
                for k, s in enumerate(table.systems):
                    row = table.array(m)[k]
                    if np.isnan(row).all():
                        continue
                    if filled.get((s, m)):
                        raise ScoreInputError(f"system {s!r} has scores for metric {m!r} twice: duplicate system")
                    filled[(s, m)] = True
                    arrays[m][names.index(s)] = row
        for m in set(self.metrics) & set(other.metrics):
            if (m in self._lower) != (m in other.lower_is_better):
                raise ScoreInputError(f"metric {m!r} is lower-is-better in one table and not in the other")
        info = {m: {**(other.info(m) if m in other.metrics else {}), **(self._info.get(m, {}))} for m in metrics}
        return SegmentScores(names, arrays, lower_is_better=self._lower | other.lower_is_better, info=info,
                             documents=self.documents or other.documents, domains=self.domains or other.domains,
                             language_pairs=self.language_pairs or other.language_pairs)

    @classmethod
    def from_mapping(cls, scores: Mapping[str, Mapping[str, Any]], *, lower_is_better: Iterable[str] = (),
                     where: str = "scores", documents: Optional[Sequence[Any]] = None,
                     domains: Optional[Sequence[Any]] = None,
                     language_pairs: Optional[Sequence[Any]] = None) -> "SegmentScores":
        """From ``system -> metric -> segment scores`` (sequences or 1-d arrays; ``None`` = missing).
        A metric a system lacks is missing for all its segments; ``documents``, ``domains`` and
        ``language_pairs`` label the segments, as on the class."""
        if not isinstance(scores, Mapping):
            raise ScoreInputError(f"{where}: expected a mapping system -> metric -> scores, "
                                  f"got {type(scores).__name__}")
        systems = list(scores)
        metrics: List[str] = []
        for s in systems:
            per = scores[s]
            if not isinstance(per, Mapping):
                raise ScoreInputError(f"{where}: system {s!r} must map metric -> scores, got {type(per).__name__}")
            metrics += [m for m in per if m not in metrics]
        rows: Dict[str, Dict[str, np.ndarray]] = {m: {} for m in metrics}
        length: Optional[Tuple[int, str, str]] = None
        for s in systems:
            for m, values in scores[s].items():
                v = segment_values(values, f"{where}: system {s!r}, metric {m!r}")
                if length is None:
                    length = (len(v), s, m)
                elif len(v) != length[0]:
                    raise ScoreInputError(f"{where}: system {s!r}, metric {m!r} has {len(v)} segment scores but "
                                          f"system {length[1]!r}, metric {length[2]!r} has {length[0]}")
                rows[m][s] = v
        n = 0 if length is None else length[0]
        arrays = {m: np.stack([rows[m].get(s, np.full(n, np.nan)) for s in systems]) if systems else None
                  for m in metrics}
        return cls(systems, arrays, lower_is_better=lower_is_better, where=where, documents=documents,
                   domains=domains, language_pairs=language_pairs)

    @classmethod
    def from_numpy(cls, scores: Mapping[str, Any], systems: Sequence[str], *, lower_is_better: Iterable[str] = (),
                   documents: Optional[Sequence[Any]] = None, domains: Optional[Sequence[Any]] = None,
                   language_pairs: Optional[Sequence[Any]] = None) -> "SegmentScores":
        """From ``metric -> (systems, segments)`` arrays (NaN = missing; a masked array's masked cells
        are missing too) and the system names, in the arrays' row order."""
        arrays = {}
        for m, a in scores.items():
            if np.ma.isMaskedArray(a):
                a = np.ma.filled(np.ma.asarray(a, dtype=np.float64), np.nan)
            arrays[m] = np.asarray(a, dtype=np.float64)
        return cls(systems, arrays, lower_is_better=lower_is_better, where="arrays", documents=documents,
                   domains=domains, language_pairs=language_pairs)

    @classmethod
    def from_pandas(cls, frame: Any, *, system: str = "system", metric: Optional[str] = None,
                    score: str = "score", segment: Optional[str] = None, metrics: Optional[Sequence[str]] = None,
                    lower_is_better: Iterable[str] = ()) -> "SegmentScores":
        """From a pandas DataFrame, long or wide.

        - long (``metric`` given): one row per (system, metric, segment), columns ``system``,
          ``metric``, ``score`` and optionally ``segment`` (its order; without it the rows' order);
        - wide (``metric=None``): one row per (system, segment), one column per metric (``metrics``,
          default: every numeric column but ``system`` and ``segment``).

        Empty cells (NaN/None/NA) are missing scores.
        """
        missing = [c for c in [system, segment] + ([metric, score] if metric else []) if c and c not in frame.columns]
        if missing:
            raise ScoreInputError(f"DataFrame: no column {missing[0]!r}; it has {', '.join(map(str, frame.columns))}")
        if metric is not None:
            keys = [system, metric] + ([segment] if segment else [])
            dup = frame.duplicated(subset=keys) if segment else None
            if dup is not None and dup.any():
                row = frame[dup].iloc[0]
                raise ScoreInputError(f"DataFrame: two rows for {', '.join(f'{k}={row[k]!r}' for k in keys)}")
            out: Dict[str, Dict[str, List[Any]]] = {}
            for (s, m), group in frame.groupby([system, metric], sort=False):
                if segment:
                    group = group.sort_values(segment, kind="stable")
                out.setdefault(str(s), {})[str(m)] = _cells(group[score].tolist())
            return cls.from_mapping(out, lower_is_better=lower_is_better, where="DataFrame")
        columns = list(metrics) if metrics is not None else [
            c for c in frame.columns if c not in (system, segment) and frame[c].dtype.kind in "iuf"]
        out = {}
        for s, group in frame.groupby(system, sort=False):
            if segment:
                group = group.sort_values(segment, kind="stable")
            out[str(s)] = {str(c): _cells(group[c].tolist()) for c in columns}
        return cls.from_mapping(out, lower_is_better=lower_is_better, where="DataFrame")

    @classmethod
    def from_dataset(cls, dataset: Any, *, system: str = "system", metrics: Sequence[str] = (),
                     segment: Optional[str] = None, lower_is_better: Iterable[str] = ()) -> "SegmentScores":
        """From a Hugging Face ``datasets.Dataset`` (or any mapping of column name -> list) in the wide
        layout: a ``system`` column, one column per metric, optionally a ``segment`` column."""
        columns = {name: list(dataset[name]) for name in [system, *metrics] + ([segment] if segment else [])}
        out: Dict[str, Dict[str, List[Any]]] = {}
        order: Dict[str, List[Tuple[Any, int]]] = {}
        for k, s in enumerate(columns[system]):
            order.setdefault(str(s), []).append((columns[segment][k] if segment else k, k))
        for s, rows in order.items():
            rows.sort(key=lambda x: x[0])
            out[s] = {m: [columns[m][k] for _, k in rows] for m in metrics}
        return cls.from_mapping(out, lower_is_better=lower_is_better, where="dataset")


def _cells(values: List[Any]) -> List[Any]:
    """pandas cells: NaN/None/NA are missing scores (a DataFrame cannot tell NaN from empty)."""
    out: List[Any] = []
    for v in values:
        if v is None or (isinstance(v, float) and math.isnan(v)) or type(v).__name__ in ("NAType", "NaTType"):
            out.append(None)
        else:
            out.append(v)
    return out


def _labels(values: Optional[Sequence[Any]], n: int, what: str, where: str) -> Optional[Tuple[str, ...]]:
    if values is None:
        return None
    out = tuple(str(v) for v in values)
    if len(out) != n:
        raise ScoreInputError(f"{where}: {what} has {len(out)} labels for {n} segments")
    return out


def as_segment_scores(scores: Any, *, lower_is_better: Iterable[str] = ()) -> SegmentScores:
    """``scores`` as a :class:`SegmentScores`: a table as it is (with ``lower_is_better`` added), a
    mapping ``system -> metric -> segment scores``, or ``system -> segment scores`` (one metric,
    called ``score``)."""
    if isinstance(scores, SegmentScores):
        extra = frozenset(lower_is_better) - scores.lower_is_better
        if not extra:
            return scores
        arrays = {m: scores.array(m) for m in scores.metrics}
        return SegmentScores(scores.systems, arrays, lower_is_better=scores.lower_is_better | extra,
                             info={m: scores.info(m) for m in scores.metrics}, documents=scores.documents,
                             domains=scores.domains, language_pairs=scores.language_pairs)
    if isinstance(scores, Mapping) and scores and not any(isinstance(v, Mapping) for v in scores.values()):
        scores = {s: {"score": v} for s, v in scores.items()}
    return SegmentScores.from_mapping(scores, lower_is_better=lower_is_better)
