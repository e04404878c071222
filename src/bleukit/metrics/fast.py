"""A metric's optional fast paths, kept out of the protocol: :class:`FastPaths`, and the one
function per path that the shared machinery calls.

:class:`bleukit.metrics.base.Metric` holds what every metric must define (options, columns,
extractor, formula, result). Everything here has a route through the statistics table that works
for any metric (the functions of this module); a metric that can do better (a compiled kernel that
sums as it counts, an inverted index, counts made once for many systems) lists those paths in a
:class:`FastPaths` it exposes as ``Metric.fast``. Each function below looks at ``metric.fast`` once
and takes the metric's path or the table's, so a new metric needs no fast path at first and the
results are the same either way (tests compare them with ``==``).

>>> from bleukit.metrics.bleu import METRIC, BleuOptions
>>> from bleukit.metrics.ter import METRIC as TER
>>> METRIC.fast.summed_row is not None, TER.fast is None
(True, True)
>>> from bleukit.metrics.ter.statistics import UNIT
>>> row, nrefs = summed_row(TER, ["a b c"], [["a b d"]], TER.options_type())  # the table's route
>>> row == [1, 3 * UNIT], nrefs  # one edit; a reference of 3 words, in TER's table units
(True, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Sequence, Tuple

from ..inputs import check_sentence_references

if TYPE_CHECKING:
    import numpy as np

    from .base import Metric, Statistics

__all__ = [
    "FastPaths",
    "reads_reference_entries",
    "chunks_in_threads",
    "summed_row",
    "sentence_row",
    "systems_statistics",
    "systems_rows",
    "native_float32_scores",
    "native_scores",
    "pairwise_scores",
    "pairwise_statistics",
    "self_statistics",
    "aggregate_scores",
]

#: References held at once by the table route of :func:`self_statistics` (a block of texts, each
#: with the list of all the others).
_SELF_BLOCK_REFERENCES = 1 << 20

Row = Tuple[List[int], int]


@dataclass(frozen=True)
class FastPaths:
    """The paths a metric has beyond the table's, each ``None`` where it has none (every field's
    table route is the function of this module of the same name). ``threads`` is always the
    resolved count (:func:`bleukit.engine.thread_count`), passed positionally.

    - ``reads_reference_entries(options) -> bool``: the extractor (``Metric.statistics`` and
      ``summed_row``) reads the caller's reference entries as they are (a str, or a list or tuple
      of str and ``None``, as :func:`bleukit.inputs.reference_entries` passes them) and checks each
      one with :func:`bleukit.inputs.check_reference_entry`'s errors: a corpus then needs no list
      per sentence. Otherwise it gets :func:`bleukit.inputs.check_references`' lists.
    - ``chunks_in_threads(options) -> bool``: counting chunks of a corpus on several threads helps
      (the extractor releases the GIL and takes no ``threads`` of its own):
      :func:`bleukit.engine.in_threads` then does it.
    - ``summed_row(hypotheses, references, options, threads) -> (row, nrefs)``: the column sums of
      the table as Python ints, and the number of references of that summed row (``-1`` when it
      varies), without the table (constant memory where the kernel sums as it counts). Its
      ``Metric.row_result`` must equal ``Metric.result`` of the table: a metric whose corpus score
      is not a function of the summed row (TER adds its sentences' averages in order) has none.
    - ``sentence_row(hypothesis, references, options) -> (row, nrefs)``: one sentence's row in one
      call, ``references`` as the user gave them, checked as
      :func:`bleukit.inputs.check_sentence_references` does.
    - ``systems_statistics(systems, references, options, threads) -> [table]``: the tables of
      several systems against the same references, counting the reference side once (paired tests).
    - ``systems_rows(systems, references, options) -> (rows, nrefs) | None``: those tables as two
      flat int64 buffers, without numpy (``None`` where it does not apply to these options).
    - ``native_float32_scores(sums, rows, options)`` and ``native_scores(sums, rows, options)``:
      ``Metric.float32_scores`` of float32 bootstrap sums and ``Metric.scores`` of integer rows, on
      flat buffers and in compiled code, so that ``--confidence``, ``--paired-bs`` and ``--paired-ar``
      run without numpy (:mod:`bleukit.resampling`); ``None`` where they do not apply.
    - ``pairwise_scores(hypotheses, references, options, threads)`` and
      ``pairwise_statistics(...)``: every hypothesis against every single reference, each sentence
      counted once.
    - ``self_statistics(texts, options, threads)``: each text against all the others, from counts
      made once.
    - ``aggregate_scores(hypotheses, references, ref_weights, options)``: each hypothesis against
      the weighted mean of the references' statistics (reference aggregation, DeNero et al. 2009),
      where the metric's statistics allow it; there is no table route.
    """

    reads_reference_entries: Optional[Callable[[Any], bool]] = None
    chunks_in_threads: Optional[Callable[[Any], bool]] = None
    summed_row: Optional[Callable[[List[str], Sequence[Any], Any, int], Row]] = None
    sentence_row: Optional[Callable[[str, Any, Any], Row]] = None
    systems_statistics: Optional[Callable[[List[List[str]], Sequence[Any], Any, int], List[Any]]] = None
    systems_rows: Optional[Callable[[List[List[str]], Sequence[Any], Any], Optional[Tuple[Any, Any]]]] = None
    native_float32_scores: Optional[Callable[[Any, int, Any], Optional[Any]]] = None
    native_scores: Optional[Callable[[Any, int, Any], Optional[Any]]] = None
    pairwise_scores: Optional[Callable[[List[str], List[str], Any, int], Any]] = None
    pairwise_statistics: Optional[Callable[[List[str], List[str], Any, int], Any]] = None
    self_statistics: Optional[Callable[[List[str], Any, int], Any]] = None
    aggregate_scores: Optional[Callable[[List[str], List[str], Any, Any], Any]] = None


def reads_reference_entries(metric: Metric[Any, Any, Any], /, options: Any) -> bool:
    """Whether the metric's extractor reads the caller's reference entries in place (``False``
    without that path)."""
    fast = metric.fast
    return fast is not None and fast.reads_reference_entries is not None and fast.reads_reference_entries(options)


def chunks_in_threads(metric: Metric[Any, Any, Any], /, options: Any) -> bool:
    """Whether counting chunks of a corpus on several threads helps the metric (``False`` without
    that path)."""
    fast = metric.fast
    return fast is not None and fast.chunks_in_threads is not None and fast.chunks_in_threads(options)


def summed_row(
    metric: Metric[Any, Any, Any], /, hypotheses: List[str], references: Sequence[Any], options: Any, *,
    threads: int = 1,
) -> Row:
    """The column sums of the metric's table of checked input as Python ints, and the number of
    references of that summed row (the common one, ``-1`` when it varies, as ``Statistics.summed``):
    the metric's path, or the summed table."""
    fast = metric.fast
    if fast is not None and fast.summed_row is not None:
        return fast.summed_row(hypotheses, references, options, threads)
    table = metric.statistics(hypotheses, references, options, threads=threads).summed()
    return [int(x) for x in table.rows[0].tolist()], int(table.nrefs[0])


def sentence_row(metric: Metric[Any, Any, Any], /, hypothesis: str, references: Any, options: Any) -> Row:
    """The statistics row of one hypothesis as Python ints, and its number of references;
    ``references`` as the user gave them (a str, or a list of str with ``None`` for a missing one),
    checked as :func:`bleukit.inputs.check_sentence_references` does: the metric's one-call path,
    or a table of one row."""
    fast = metric.fast
    if fast is not None and fast.sentence_row is not None:
        return fast.sentence_row(hypothesis, references, options)
    table = metric.statistics([hypothesis], [check_sentence_references(references)], options)
    return [int(x) for x in table.rows[0].tolist()], int(table.nrefs[0])


def systems_statistics(
    metric: Metric[Any, Any, Any], /, systems: List[List[str]], references: Sequence[Any], options: Any, *,
    threads: int = 1,
) -> List[Statistics]:
    """The table of each system (``systems[j]``: checked hypotheses of the same sentences) against
    the same references, as ``Metric.statistics`` counts them: a paired test's input. The metric's
    path counts the reference side once for every system; the table route counts system by system."""
    fast = metric.fast
    if fast is not None and fast.systems_statistics is not None:
        return fast.systems_statistics(systems, references, options, threads)
    return [metric.statistics(hyps, references, options, threads=threads) for hyps in systems]


def systems_rows(
    metric: Metric[Any, Any, Any], /, systems: List[List[str]], references: Sequence[Any], options: Any
) -> Optional[Tuple[Any, Any]]:
    """:func:`systems_statistics` as two flat int64 buffers without numpy (every system's table,
    one after another, and their ``nrefs`` columns), or ``None`` where the metric has no such path."""
    fast = metric.fast
    if fast is None or fast.systems_rows is None:
        return None
    return fast.systems_rows(systems, references, options)


def native_float32_scores(metric: Metric[Any, Any, Any], /, sums: Any, rows: int, options: Any) -> Optional[Any]:
    """``Metric.float32_scores`` of ``rows`` rows of integer sums (a flat int64 buffer, each sum in
    [0, 2**24]) without numpy, as a float64 buffer; ``None`` where the metric has no such path."""
    fast = metric.fast
    if fast is None or fast.native_float32_scores is None:
        return None
    return fast.native_float32_scores(sums, rows, options)


def native_scores(metric: Metric[Any, Any, Any], /, sums: Any, rows: int, options: Any) -> Optional[Any]:
    """``Metric.scores`` of ``rows`` rows of integer statistics (a flat int64 buffer, each in
    [0, 2**53]) without numpy, as a float64 buffer; ``None`` where the metric has no such path."""
    fast = metric.fast
    if fast is None or fast.native_scores is None:
        return None
    return fast.native_scores(sums, rows, options)


def _all_pairs(metric: Metric[Any, Any, Any], hypotheses: List[str], references: List[str], options: Any,
               threads: int) -> Statistics:
    n, m = len(hypotheses), len(references)
    hyps = [h for h in hypotheses for _ in range(m)]
    refs = [[r] for _ in range(n) for r in references]
    table: Statistics = metric.statistics(hyps, refs, options, threads=threads)
    return table


def pairwise_scores(
    metric: Metric[Any, Any, Any], /, hypotheses: List[str], references: List[str], options: Any, *, threads: int = 1
) -> np.ndarray:
    """The score of every hypothesis against every single reference: a float64 ``(N, M)`` matrix
    (pass sentence-level options for sentence scores). The table route counts all N x M pairs."""
    fast = metric.fast
    if fast is not None and fast.pairwise_scores is not None:
        scores: np.ndarray = fast.pairwise_scores(hypotheses, references, options, threads)
        return scores
    import numpy as np

    stats = _all_pairs(metric, hypotheses, references, options, threads)
    return np.asarray(metric.scores(stats.rows, options), dtype=np.float64).reshape(len(hypotheses), len(references))


def pairwise_statistics(
    metric: Metric[Any, Any, Any], /, hypotheses: List[str], references: List[str], options: Any, *, threads: int = 1
) -> np.ndarray:
    """The statistics row of every hypothesis against every single reference: int64
    ``(N, M, columns)``, ``table[i, j]`` the row of ``statistics([hypotheses[i]], [[references[j]]])``.
    The table route counts all N x M pairs."""
    fast = metric.fast
    if fast is not None and fast.pairwise_statistics is not None:
        table: np.ndarray = fast.pairwise_statistics(hypotheses, references, options, threads)
        return table
    rows: np.ndarray = _all_pairs(metric, hypotheses, references, options, threads).rows
    return rows.reshape(len(hypotheses), len(references), -1)


def self_statistics(
    metric: Metric[Any, Any, Any], /, texts: List[str], options: Any, *, threads: int = 1
) -> Statistics:
    """The table of each text against all the other texts as its references (Self-BLEU's rows):
    row ``i`` is ``statistics([texts[i]], [texts[:i] + texts[i + 1:]])``, every row with
    ``nrefs = len(texts) - 1``. ``texts`` are checked, at least two.

    The table route counts every text against the list of the others, a block of texts at a time:
    quadratic work, for any metric. A metric's path follows from counts made once (BLEU: each
    n-gram's clip is its largest count in the other texts; chrF: the statistics of the best single
    reference)."""
    fast = metric.fast
    if fast is not None and fast.self_statistics is not None:
        own: Statistics = fast.self_statistics(texts, options, threads)
        return own
    n = len(texts)
    step = max(1, _SELF_BLOCK_REFERENCES // max(n - 1, 1))
    parts = [
        metric.statistics(texts[i0 : i0 + step], [texts[:i] + texts[i + 1 :] for i in range(i0, min(n, i0 + step))],
                          options, threads=threads)
        for i0 in range(0, n, step)
    ]
    table: Statistics = metric.statistics_type.concat(parts)
    return table


def aggregate_scores(
    metric: Metric[Any, Any, Any], /, hypotheses: List[str], references: List[str], ref_weights: np.ndarray,
    options: Any,
) -> np.ndarray:
    """The score of each hypothesis against one expected reference: the ``ref_weights``-weighted
    mean of the references' statistics, a float64 ``(N,)`` array; a ``NotImplementedError`` for a
    metric without that path."""
    fast = metric.fast
    if fast is None or fast.aggregate_scores is None:
        raise NotImplementedError(f"reference aggregation is not implemented for {metric.name}")
    scores: np.ndarray = fast.aggregate_scores(hypotheses, references, ref_weights, options)
    return scores
