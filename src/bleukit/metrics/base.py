"""The metric protocol: what a metric declares so that every part of bleukit works for it.

Every metric here is fully determined by a few integers per sentence. A metric declares

- its **options**: a frozen dataclass deriving from :class:`MetricOptions` (defaults, validation on
  construction, the sentence-level variant, the signature);
- its **statistics table**: a :class:`Statistics` subclass (int64 rows, one per hypothesis, whose
  columns the metric names) and the layout fields that fix the number of columns;
- how **text** (and, where it applies, token ids) becomes a table: :meth:`Metric.statistics`,
  a compiled kernel with the pure-Python implementation as its exact reference and fallback;
- its **formula**: :meth:`Metric.scores` scores every row of a table at once on numpy or torch
  arrays, and :meth:`Metric.result` turns a corpus table into a result with a signature.

The shared machinery only talks to this protocol: the corpus score is the result of the summed
rows (:func:`bleukit.pipeline.score_statistics`), sentence scores are the formula per row,
streaming and distributed evaluation add rows (:class:`bleukit.StatisticsAccumulator`), bootstrap
and paired tests resample rows (:mod:`bleukit.analysis.significance`), pairwise matrices score rows of pairs
(:mod:`bleukit.pairwise`), and reports, the command line, the evaluate modules and the app read
results through it. A metric is a package in :mod:`bleukit.metrics` that exposes ``METRIC``.
Its optional fast paths live beside the protocol, not in it (:mod:`bleukit.metrics.fast`).

>>> from bleukit.metrics import metric_for
>>> from bleukit.metrics.bleu import BleuOptions
>>> metric = metric_for(BleuOptions())
>>> metric.name, metric.columns(BleuOptions(max_ngram_order=1))
('bleu', ('sys_len', 'ref_len', 'counts_1', 'totals_1'))
"""

from __future__ import annotations

import abc
import copy
import dataclasses
import functools
import json
from dataclasses import dataclass, fields
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Dict,
    Generic,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Type,
    TypeVar,
    Union,
)

if TYPE_CHECKING:
    import numpy as np

    from .fast import FastPaths
# numpy is imported where a table is made, not here: a corpus or sentence score that never makes
# a table (the command line's `-b`, a one-sentence call) starts without it.

__all__ = [
    "MetricOptions",
    "Statistics",
    "MetricResult",
    "Metric",
    "NRefs",
    "nrefs_signature",
    "Resampling",
]

#: The ``nrefs:`` signature value: the common number of references, or ``"var"``.
NRefs = Union[int, str]


def nrefs_signature(fewest: int, most: int) -> NRefs:
    """The ``nrefs:`` signature value of sentences with ``fewest`` to ``most`` references: their
    common number, or ``'var'`` (also for a negative count: a summed row's "varies").

    >>> nrefs_signature(1, 1), nrefs_signature(1, 2)
    (1, 'var')
    """
    return fewest if fewest == most and fewest >= 0 else "var"
#: ``(test, n_samples, seed)`` of a bootstrap (``"bs"``) or randomization (``"ar"``) test, which a
#: signature shows right after ``nrefs:`` as sacreBLEU's does (``seed:none`` when unseeded).
Resampling = Tuple[str, int, Optional[int]]

OptionsT = TypeVar("OptionsT", bound="MetricOptions")
StatisticsT = TypeVar("StatisticsT", bound="Statistics")
ResultT = TypeVar("ResultT", bound="MetricResult")

class MetricOptions(abc.ABC):
    """Base of every metric's options: a frozen dataclass whose fields are the option keywords.

    Subclasses are ``@dataclass(frozen=True)`` classes that validate in ``__post_init__`` and set
    ``metric`` (the name of their package in :mod:`bleukit.metrics`). ``SENTENCE_DEFAULTS`` holds
    the defaults that differ for sentence scores (BLEU: effective order on).
    """

    metric: ClassVar[str]
    SENTENCE_DEFAULTS: ClassVar[Mapping[str, Any]] = {}
    #: sacreBLEU's short names of the signature fields (``--short``, ``Signature.format(short=True)``):
    #: those every metric shares, in the order sacreBLEU keeps them; a metric adds its own fields'.
    SIGNATURE_ABBREVIATIONS: ClassVar[Mapping[str, str]] = {
        "version": "v", "nrefs": "#", "bs": "bs", "ar": "ar", "seed": "rs",
        "test": "t", "lang": "l", "origlang": "o", "subset": "S",
    }

    @classmethod
    def option_names(cls) -> Tuple[str, ...]:
        """The option keywords, in declaration order."""
        return tuple(f.name for f in fields(cls) if f.init)  # type: ignore[arg-type]

    @classmethod
    def from_keywords(cls: Type[OptionsT], keywords: Mapping[str, Any], *, sentence: bool = False) -> OptionsT:
        """Options from a mapping of option keywords (an unknown name is a ``TypeError`` that lists
        the known ones); the defaults are the corpus ones, or the sentence ones with ``sentence=True``."""
        names = cls.option_names()
        unknown = sorted(set(keywords) - set(names))
        if unknown:
            import difflib

            close = [m for u in unknown for m in difflib.get_close_matches(u, names, 1, 0.75)]
            hint = f" (did you mean {', '.join(f'{m}=' for m in close)}?)" if close else ""
            raise TypeError(
                f"unknown {cls.metric.upper()} option(s): {', '.join(unknown)}{hint}; known: {', '.join(names)}"
            )
        values = dict(keywords)
        if sentence:
            for name, value in cls.SENTENCE_DEFAULTS.items():
                values.setdefault(name, value)
        return cls(**values)

    def to_dict(self) -> Dict[str, Any]:
        """The option keywords and their values: ``type(opts)(**opts.to_dict()) == opts``."""
        return {name: getattr(self, name) for name in self.option_names()}

    def sentence_level(self: OptionsT) -> OptionsT:
        """The same options for per-sentence scores (the sentence defaults forced on)."""
        changes = {k: v for k, v in self.SENTENCE_DEFAULTS.items() if getattr(self, k) != v}
        return dataclasses.replace(self, **changes) if changes else self  # type: ignore[type-var]

    @abc.abstractmethod
    def signature(self, nrefs: NRefs, resampling: Optional[Resampling] = None) -> str:
        """sacreBLEU's signature string for these options, with this package's name and version."""

    @classmethod
    def short_signature(cls, signature: str) -> str:
        """A signature with sacreBLEU's short field names (bleukit's own fields keep theirs).

        >>> from bleukit.metrics.bleu import BleuOptions
        >>> BleuOptions.short_signature("nrefs:1|bs:10|seed:1|case:mixed|order:3|version:bleukit-1")
        '#:1|bs:10|rs:1|c:mixed|order:3|v:bleukit-1'
        """
        fields = (field.partition(":") for field in signature.split("|"))
        return "|".join(f"{cls.SIGNATURE_ABBREVIATIONS.get(key, key)}:{value}" for key, _, value in fields)


@dataclass(frozen=True)
class Statistics:
    """A metric's per-sentence integer statistics: int64 ``rows`` (one per hypothesis) and ``nrefs``.

    ``nrefs[i]`` is the number of references of row ``i`` (``-1`` for an aggregated row whose
    sentences had different numbers), from which the ``nrefs:`` signature field is derived.
    Subclasses add the layout fields that fix the number of columns (BLEU's ``max_ngram_order``)
    and implement :meth:`expected_width`; every table operation keeps them.
    """

    rows: np.ndarray
    nrefs: np.ndarray

    def __post_init__(self) -> None:
        import numpy as np

        rows = np.asarray(self.rows, dtype=np.int64)
        width = self.expected_width()
        if rows.ndim != 2 or rows.shape[1] != width:
            layout = ", ".join(f"{k}={v}" for k, v in self.layout().items())
            raise ValueError(f"statistics rows must have shape (n, {width}) for {layout}, got {rows.shape}")
        nrefs = np.asarray(self.nrefs, dtype=np.int64).reshape(-1)
        if nrefs.shape[0] != rows.shape[0]:
            raise ValueError("nrefs must have one entry per statistics row")
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "nrefs", nrefs)

    def expected_width(self) -> int:
        """The number of columns the layout fields call for."""
        raise NotImplementedError

    def layout(self) -> Dict[str, Any]:
        """The fields besides ``rows`` and ``nrefs`` (what two tables must share to be added up)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("rows", "nrefs")}

    def with_rows(self: StatisticsT, rows: Any, nrefs: Any) -> StatisticsT:
        """A table of the same type and layout holding other rows."""
        return type(self)(rows, nrefs, **self.layout())

    def __len__(self) -> int:
        return int(self.rows.shape[0])

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Statistics)
        import numpy as np

        return (
            self.layout() == other.layout()
            and np.array_equal(self.rows, other.rows)
            and np.array_equal(self.nrefs, other.nrefs)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable arrays inside

    def __getitem__(self: StatisticsT, index: Any) -> StatisticsT:
        """Rows selected by a slice, index array or boolean mask (used for resampling)."""
        import numpy as np

        if isinstance(index, (int, np.integer)):
            index = [index]
        return self.with_rows(self.rows[index], self.nrefs[index])

    @property
    def nrefs_signature(self) -> NRefs:
        """``nrefs:`` signature value: the common number of references, or ``'var'``."""
        # min/max rather than np.unique: no sort
        if self.nrefs.size:
            return nrefs_signature(int(self.nrefs.min()), int(self.nrefs.max()))
        return "var"

    def summed(self: StatisticsT) -> StatisticsT:
        """One row holding the column sums (the statistics of the whole corpus)."""
        if len(self) == 0:
            raise ValueError("cannot sum statistics of an empty corpus")
        sig = self.nrefs_signature
        return self.with_rows(self.rows.sum(axis=0, keepdims=True), [sig if isinstance(sig, int) else -1])

    @classmethod
    def concat(cls: Type[StatisticsT], parts: Sequence[StatisticsT]) -> StatisticsT:
        """Stack the rows of several tables of one layout (e.g. batches of a streaming evaluation)."""
        parts = list(parts)
        if not parts:
            raise ValueError("nothing to concatenate")
        first = parts[0]
        for p in parts[1:]:
            if type(p) is not type(first) or p.layout() != first.layout():
                raise ValueError(
                    f"cannot concatenate statistics of different layouts ({first.layout()} and {p.layout()})"
                )
        import numpy as np

        return first.with_rows(np.concatenate([p.rows for p in parts]), np.concatenate([p.nrefs for p in parts]))


class MetricResult:
    """What every result has: ``score``, ``signature``, ``options`` and, with a bootstrap, ``mean``
    and ``ci``; ``name``, ``format()`` and ``to_dict()`` are the metric's. Results are frozen
    dataclasses; this base gives them the shared behaviour."""

    score: float
    signature: str
    options: Any
    mean: Optional[float]
    ci: Optional[float]

    @property
    def name(self) -> str:  # pragma: no cover - every result names itself
        raise NotImplementedError

    def score_text(self, width: int = 2) -> str:
        """The score with ``width`` decimals and, with a bootstrap estimate, ``(μ = mean ± ci)``,
        exactly as sacreBLEU prints it (only when the mean is positive, as its ``Score.format``)."""
        if isinstance(width, bool) or not isinstance(width, int) or width < 0:
            raise ValueError(f"width must be an int >= 0, got {width!r}")
        text = f"{self.score:.{width}f}"
        if self.mean is not None and self.ci is not None and self.mean > 0:
            text += f" (μ = {self.mean:.{width}f} ± {self.ci:.{width}f})"
        return text

    def verbose_text(self) -> str:
        """What sacreBLEU prints after the score (BLEU: its precisions, BP and lengths; "" for none)."""
        return ""

    def format(self, width: int = 2, score_only: bool = False, signature: bool = True) -> str:
        """sacreBLEU's one-line summary, ``NAME|SIGNATURE = SCORE VERBOSE`` (``score_only``: the
        score alone, with the bootstrap estimate when there is one)."""
        score = self.score_text(width)
        if score_only:
            return score
        head = f"{self.name}|{self.signature}" if signature else self.name
        verbose = self.verbose_text()
        return f"{head} = {score} {verbose}" if verbose else f"{head} = {score}"

    def to_dict(self) -> Dict[str, Any]:
        """Plain JSON-ready dictionary of every field."""
        raise NotImplementedError  # pragma: no cover

    def to_json(self, **kwargs: Any) -> str:
        """``to_dict()`` as a JSON string."""
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)

    @property
    def groups(self) -> Optional[Dict[Any, "MetricResult"]]:
        """Each group's result by label when the corpus was scored with ``group_by=``
        (:mod:`bleukit.analysis.groups`), else ``None``; ``to_dict()`` then lists them under ``"groups"``."""
        groups: Optional[Dict[Any, MetricResult]] = self.__dict__.get("_groups")
        return groups

    def with_groups(self: ResultT, groups: Mapping[Any, "MetricResult"]) -> ResultT:
        """The same result carrying each group's result (``groups``, label -> result)."""
        new = copy.copy(self)
        # not a dataclass field: every metric's result gets it without declaring it
        object.__setattr__(new, "_groups", dict(groups))
        return new

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("to_dict")
        if own is not None:
            # Whichever metric writes to_dict, a grouped result's dict lists its groups.
            @functools.wraps(own)
            def to_dict(self: MetricResult) -> Dict[str, Any]:
                out: Dict[str, Any] = own(self)
                if self.groups is not None:
                    out["groups"] = [{"group": _json_label(label), **r.to_dict()} for label, r in self.groups.items()]
                return out

            cls.to_dict = to_dict  # type: ignore[method-assign]

    def with_estimate(self: ResultT, mean: float, ci: float, signature: str) -> ResultT:
        """The same result with a bootstrap estimate and the signature that says how it was drawn."""
        return dataclasses.replace(self, mean=mean, ci=ci, signature=signature)  # type: ignore[type-var]

    def __str__(self) -> str:
        return self.format()

    def __float__(self) -> float:
        return float(self.score)


def _json_label(label: Any) -> Any:
    """A group label as JSON can hold it: str, int, float, bool and None as they are, tuples as
    lists, anything else as its ``str``."""
    if label is None or isinstance(label, (str, bool, int, float)):
        return label
    if isinstance(label, tuple):
        return [_json_label(x) for x in label]
    return str(label)


class Metric(abc.ABC, Generic[OptionsT, StatisticsT, ResultT]):
    """One metric: its options and table types, the text → table extractor and the formula.

    Instances hold no state (one per metric, ``METRIC`` in the metric's package); every method
    takes the options. :func:`bleukit.metrics.metric_for` finds the metric of an options object.

    This is what every metric defines: five abstract methods (:meth:`columns`, :meth:`layout`,
    :meth:`statistics`, :meth:`scores`, :meth:`result`) and seven with a default that works
    through the table. The paths that make some calls faster (a compiled kernel that sums as it
    counts, counts made once for many systems or pairs) are not methods here: a metric that has
    them lists them in ``fast``, a :class:`bleukit.metrics.fast.FastPaths`, and the shared
    machinery reaches them through :mod:`bleukit.metrics.fast`'s functions.
    """

    #: The metric's package name in :mod:`bleukit.metrics` (``"bleu"``), also its CLI name.
    name: ClassVar[str]
    options_type: ClassVar[Type[MetricOptions]]
    statistics_type: ClassVar[Type[Statistics]]
    #: Whether a larger score is better (TER: fewer edits are better); paired tests and rankings say so.
    higher_is_better: ClassVar[bool] = True
    #: The metric's fast paths (:class:`bleukit.metrics.fast.FastPaths`), or ``None`` for none: the
    #: table's route then serves every call, with the same results.
    fast: ClassVar[Optional[FastPaths]] = None

    @abc.abstractmethod
    def columns(self, options: OptionsT) -> Tuple[str, ...]:
        """The names of the table's columns for these options, in order."""

    @abc.abstractmethod
    def layout(self, options: OptionsT) -> Dict[str, Any]:
        """The layout fields of the table these options produce (compared with ``Statistics.layout()``)."""

    def score_name(self, options: OptionsT) -> str:
        """The name results of these options carry (sacreBLEU's score name: ``BLEU``, ``chrF2++``),
        known before anything is scored (the command line's log lines name the metric with it)."""
        return self.name.upper()

    def empty(self, options: OptionsT) -> StatisticsT:
        """A table with no rows and the layout of these options."""
        import numpy as np

        width = len(self.columns(options))
        table = self.statistics_type(np.zeros((0, width), np.int64), np.zeros(0, np.int64), **self.layout(options))
        return table  # type: ignore[return-value]

    def check_statistics(self, statistics: Any, options: OptionsT) -> StatisticsT:
        """``statistics`` if it is this metric's table with the layout of ``options``, else a clear error."""
        if not isinstance(statistics, self.statistics_type):
            raise TypeError(
                f"statistics must be a {self.statistics_type.__name__} for {self.name} options, "
                f"got {type(statistics).__name__}"
            )
        expected = self.layout(options)
        if statistics.layout() != expected:
            got = ", ".join(f"{k}={v}" for k, v in statistics.layout().items())
            want = ", ".join(f"{k}={v}" for k, v in expected.items())
            raise ValueError(f"statistics were counted with {got}, options say {want}")
        return statistics  # type: ignore[return-value]

    @abc.abstractmethod
    def statistics(
        self, hypotheses: List[str], references: Sequence[Any], options: OptionsT, *, threads: int = 1
    ) -> StatisticsT:
        """The table of checked input: ``references[i]`` is the non-empty list of reference strings of
        ``hypotheses[i]`` (:mod:`bleukit.inputs` checks user input into this form), or the caller's
        entry when the metric's fast paths say it ``reads_reference_entries``. ``threads`` as
        :func:`bleukit.engine.thread_count`; the table is the same whatever it is."""

    def row_result(self, row: Sequence[int], nrefs: int, options: OptionsT) -> ResultT:
        """The result of one statistics row (a sentence's, or a corpus's column sums) whose
        sentences had ``nrefs`` references (``-1``: not all the same). Metrics override it with
        their formula on plain floats, the same floats as :meth:`scores` (tests compare them with
        ``==``), so that a sentence or a corpus score needs no array; this default scores a
        table of one row."""
        import numpy as np

        table = self.statistics_type(np.asarray([row], dtype=np.int64), np.asarray([nrefs], dtype=np.int64),
                                     **self.layout(options))
        return self.result(table, options)  # type: ignore[arg-type]  # the metric's own table type

    @abc.abstractmethod
    def scores(self, rows: Any, options: OptionsT) -> Any:
        """The score of every row of a table (numpy or torch, integer or float): a float64 array.

        Corpus scores are the score of a summed row; this is the one place the formula lives."""

    def float32_rows(self, rows: np.ndarray, options: OptionsT) -> Optional[np.ndarray]:
        """The table as the reference implementation's bootstrap holds it (float32), where that is
        not the integer rows cast to float32; ``None`` (this default) where it is.

        sacreBLEU resamples ``np.array(stats, dtype="float32")`` of its own per-sentence statistics;
        a metric whose table stores them in other units (TER's average reference lengths, floats
        there, exact fractions here) gives the float32 numbers sacreBLEU's array holds, and its
        bootstrap then sums those in float32 as sacreBLEU does."""
        return None

    def float32_scores(self, sums: np.ndarray, options: OptionsT) -> Any:
        """The score of every row of float32 column sums, as the reference implementation scores them.

        sacreBLEU's bootstrap (``--confidence``, ``--paired-bs``) sums each resample's rows in
        float32 and computes the score from those float32 numbers. This default scores the sums as
        the integers they hold (right for a formula that works in float64 from there); a metric
        whose reference goes on in float32 overrides it (BLEU's precisions with numpy 2), so that
        bootstrap means and intervals equal the reference's bit for bit."""
        import numpy as np

        return self.scores(np.asarray(sums, dtype=np.float32).astype(np.int64), options)

    @abc.abstractmethod
    def result(self, statistics: StatisticsT, options: OptionsT) -> ResultT:
        """The result (score, its parts, signature) of a table, scored as one corpus."""

    def sentence_results(self, statistics: StatisticsT, options: OptionsT) -> List[ResultT]:
        """One result per row (each row scored as its own corpus, with its own ``nrefs``)."""
        return [self.result(statistics[i], options) for i in range(len(statistics))]
