"""Ray Data adapter: corpus BLEU (chrF, TER: any metric's options) and sentence-BLEU columns over
datasets of any size, exact.

Each ``map_batches`` task counts its rows' integer statistics with the core and returns only their
column sums (one row per batch, or per batch and group); the driver adds those partial sums in a
:class:`bleukit.StatisticsAccumulator` and scores them with the one formula. Integer sums do not
depend on how the data was split, so the score equals the single-process
``bleukit.corpus_bleu`` to the last bit, with no shuffle and no per-partition BLEU averaging.
With ``n_bootstrap`` the tasks return every row's statistics instead (resampling needs rows, not
sums); the driver puts them in a canonical order, sorted by their statistics, so the bootstrap CI
does not depend on how Ray split or ordered the rows either.
Needs ``pip install 'bleukit[ray]'`` (``ray[data]``), imported only when this module is; the
workers need bleukit installed too.

>>> import ray
>>> _ = ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
>>> ds = ray.data.from_items([
...     {"sys": "A", "hyp": "The cat sat on the mat.", "ref": "The cat sat on the mat."},
...     {"sys": "A", "hyp": "It is raining.", "ref": "It rains."},
...     {"sys": "B", "hyp": "A cat is on a mat.", "ref": "The cat sat on the mat."}])
>>> round(score_ray_dataset(ds, "hyp", "ref").score, 4)
49.9828
>>> {k: round(v.score, 4) for k, v in score_ray_dataset(ds, "hyp", "ref", group_by="sys").groups.items()}
{'A': 74.7188, 'B': 15.6197}
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Dict, Hashable, List, Mapping, Optional, Tuple

import numpy as np
import pyarrow as pa

from bleukit.accumulator import StatisticsAccumulator
from bleukit.analysis.groups import ordered_labels, with_groups
from bleukit.analysis.significance import Seed, with_bootstrap
from bleukit.defaults import DEFAULT_SEED
from bleukit.inputs import check_count, check_seed
from bleukit.metrics import metric_for, resolve_options
from bleukit.metrics.base import MetricOptions, MetricResult, Statistics
from bleukit.pipeline import sentence_scores_from_statistics

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from bleukit.metrics.bleu.options import BleuOptionKeywords

from ._columns import Columns, check_batching, check_column_names, require_columns, statistics_of_columns

__all__ = ["score_ray_dataset", "add_sentence_bleu", "canonical_order"]

#: Columns of the partial-sum tables (private to one computation; prefixed to avoid clashes with
#: group columns).
_PREFIX = "__bleukit_"
_NREFS_MIN, _NREFS_MAX = _PREFIX + "nrefs_min", _PREFIX + "nrefs_max"
DEFAULT_BATCH_SIZE = 4096


def score_ray_dataset(
    dataset: Any,
    hypothesis_column: str,
    reference_columns: Columns,
    group_by: Optional[Columns] = None,
    *,
    batch_size: Optional[int] = DEFAULT_BATCH_SIZE,
    map_batches_kwargs: Optional[Mapping[str, Any]] = None,
    n_bootstrap: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> MetricResult:
    """The corpus score (BLEU) of a ``ray.data.Dataset``, identical to ``bleukit.corpus_bleu`` on its rows; the
    metric of ``options`` (``ChrfOptions()``, ``TerOptions()``) the same way.

    ``reference_columns``: one column name or several; each column is a reference set, and a
    value is a string, a list of strings or ``None`` (missing). ``group_by`` (a column name or
    several, e.g. system, test set, language pair) puts each group's result in ``.groups``, keyed
    by the group value (a tuple of values for several columns), sorted when the keys can be, as
    ``bleukit.corpus_bleu(..., group_by=labels)`` does. The keywords are the core's options
    (``tokenize``, ``lowercase``, ``smooth_method``, ...; corpus defaults).
    ``map_batches_kwargs`` go to ``Dataset.map_batches`` (``concurrency``, ``num_cpus``, ...).

    With ``n_bootstrap`` the corpus result and each group's hold the bootstrap ``mean``/``ci``
    (``seed`` as ``corpus_bleu``'s) of the rows in :func:`canonical_order`: equal to
    ``bleukit.corpus_bleu(..., n_bootstrap=, seed=, group_by=)`` on the rows in that order,
    whatever Ray's blocks and their order. That brings every row's statistics to the driver
    (a few integers a row), where the plain score only sums them.

    >>> import ray
    >>> ds = ray.data.from_items([{"hyp": "a b c d", "r1": "a b c d", "r2": None},
    ...                           {"hyp": "x y z", "r1": "x y q", "r2": "x y z"}])
    >>> result = score_ray_dataset(ds, "hyp", ["r1", "r2"], tokenize="none")
    >>> round(result.score, 4), result.signature.split("|")[0]
    (100.0, 'nrefs:var')
    """
    opts = resolve_options(options, keywords)
    batch_size, _ = check_batching(batch_size)
    hyp, refs, keys = check_column_names(hypothesis_column, reference_columns, group_by)
    if n_bootstrap is not None:  # named before Ray runs anything
        check_count(n_bootstrap, "n_bootstrap")
        check_seed(seed)
    _check_known_columns(dataset, (hyp,) + refs + keys)
    if n_bootstrap is not None:
        rows_of_batch = functools.partial(_row_statistics, hyp, refs, keys, opts)
        mapped = dataset.map_batches(
            rows_of_batch, batch_format="pyarrow", batch_size=batch_size, **dict(map_batches_kwargs or {})
        )
        table, labels = _canonical_table(mapped.iter_batches(batch_format="pyarrow", batch_size=None), keys, opts)
        result = with_bootstrap(metric_for(opts).result(table, opts), table, opts, n_bootstrap, seed)
        return with_groups(result, table, labels, opts, n_bootstrap, seed) if keys else result
    count = functools.partial(_partial_sums, hyp, refs, keys, opts)
    partial = dataset.map_batches(
        count, batch_format="pyarrow", batch_size=batch_size, **dict(map_batches_kwargs or {})
    )
    total = StatisticsAccumulator(opts)
    accumulators: Dict[Hashable, StatisticsAccumulator] = {}
    for table in partial.iter_batches(batch_format="pyarrow", batch_size=None):
        _add_partial_sums(table, keys, opts, total, accumulators)
    if total.n_rows == 0:
        raise ValueError("empty dataset: BLEU needs at least one row")
    if not keys:
        return total.result()
    return total.result().with_groups({key: accumulators[key].result() for key in ordered_labels(accumulators)})


def canonical_order(statistics: Statistics) -> np.ndarray:
    """The row order the Ray bootstrap resamples in: rows sorted by their statistics (first column
    first, the reference count last). Identical rows are interchangeable in a resample, so the
    order, and the CI, depend only on the rows, not on how Ray split or ordered them.

    >>> from bleukit import BleuOptions, corpus_statistics
    >>> canonical_order(corpus_statistics(["a b c", "a", "a b"], ["a b c", "a", "a b"], options=BleuOptions())).tolist()
    [1, 2, 0]
    """
    rows = statistics.rows
    keys = [statistics.nrefs] + [rows[:, k] for k in reversed(range(rows.shape[1]))]
    return np.lexsort(keys) if len(statistics) else np.zeros(0, dtype=np.int64)


def add_sentence_bleu(
    dataset: Any,
    hypothesis_column: str,
    reference_columns: Columns,
    output_column: str = "bleu",
    *,
    batch_size: Optional[int] = DEFAULT_BATCH_SIZE,
    map_batches_kwargs: Optional[Mapping[str, Any]] = None,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> Any:
    """A new ``ray.data.Dataset`` with each row's sentence BLEU (float64) in ``output_column``.

    The scores equal ``bleukit.sentence_bleu`` (sentence defaults: effective order on). Lazy,
    like every Ray Data transform: filter on the new column, write it out, or materialise it.
    ``output_column`` must not exist yet (nothing is overwritten).

    >>> import ray
    >>> ds = ray.data.from_items([{"hyp": "a b c d", "ref": "a b c d"}, {"hyp": "x y", "ref": "x z"}])
    >>> scored = add_sentence_bleu(ds, "hyp", "ref", tokenize="none")
    >>> [round(row["bleu"], 4) for row in scored.take_all()]
    [100.0, 50.0]
    >>> from ray.data.expressions import col
    >>> scored.filter(expr=col("bleu") >= 60).count()
    1
    """
    opts = resolve_options(options, keywords, sentence=True)
    batch_size, _ = check_batching(batch_size)
    hyp, refs, _ = check_column_names(hypothesis_column, reference_columns)
    if not isinstance(output_column, str):
        raise TypeError(f"output_column must be a column name (str), got {type(output_column).__name__}")
    _check_known_columns(dataset, (hyp,) + refs, absent=output_column)
    score = functools.partial(_with_sentence_bleu, hyp, refs, output_column, opts)
    return dataset.map_batches(score, batch_format="pyarrow", batch_size=batch_size, **dict(map_batches_kwargs or {}))


def _labels_of(table: pa.Table, keys: Tuple[str, ...]) -> List[Hashable]:
    """Each row's group value (a tuple of values for several group columns)."""
    if len(keys) == 1:
        return table.column(keys[0]).to_pylist()
    return list(zip(*(table.column(k).to_pylist() for k in keys)))


def _add_partial_sums(
    table: pa.Table,
    keys: Tuple[str, ...],
    options: MetricOptions,
    total: StatisticsAccumulator,
    accumulators: Dict[Hashable, StatisticsAccumulator],
) -> None:
    """Add partial-sum rows (from ``_partial_sums``) to the total and to the accumulator of their group."""
    if table.num_rows == 0:
        return
    empty = metric_for(options).empty(options)
    width = empty.rows.shape[1]
    rows = np.stack([table.column(f"{_PREFIX}{k}").to_numpy() for k in range(width)], axis=1)
    lo, hi = table.column(_NREFS_MIN).to_numpy(), table.column(_NREFS_MAX).to_numpy()
    nrefs = np.where(lo == hi, lo, -1)  # -1: the partial sum's rows had different counts
    total.add(empty.with_rows(rows, nrefs))
    if not keys:
        return
    for i, key in enumerate(_labels_of(table, keys)):
        if key not in accumulators:
            accumulators[key] = StatisticsAccumulator(options)
        accumulators[key].add(empty.with_rows(rows[i : i + 1], nrefs[i : i + 1]))


def _canonical_table(
    tables: Any, keys: Tuple[str, ...], options: MetricOptions
) -> Tuple[Statistics, Optional[List[Hashable]]]:
    """The statistics rows (from ``_row_statistics``) of every table, in :func:`canonical_order`,
    and their group labels (``None`` without group columns)."""
    empty = metric_for(options).empty(options)
    width = empty.rows.shape[1]
    rows: List[np.ndarray] = []
    nrefs: List[np.ndarray] = []
    labels: List[Hashable] = []
    for table in tables:
        if table.num_rows == 0:
            continue
        rows.append(np.stack([table.column(f"{_PREFIX}{k}").to_numpy() for k in range(width)], axis=1))
        nrefs.append(table.column(_NREFS_MIN).to_numpy())
        if keys:
            labels.extend(_labels_of(table, keys))
    if not rows:
        raise ValueError("empty dataset: BLEU needs at least one row")
    stats = empty.with_rows(np.concatenate(rows), np.concatenate(nrefs))
    order = canonical_order(stats)
    return stats[order], ([labels[i] for i in order.tolist()] if keys else None)


def _check_known_columns(dataset: Any, needed: Tuple[str, ...], absent: Optional[str] = None) -> None:
    """Check column names on the driver when the schema is known without running anything.

    Errors raised inside Ray tasks reach the driver wrapped in Ray's own exception types (their
    message kept); a schema at hand gives the plain ``ValueError`` at once.
    """
    columns = dataset.columns(fetch_if_missing=False)
    if columns is None:
        return  # the tasks check each batch
    require_columns(columns, needed)
    if absent is not None and absent in columns:
        raise ValueError(f"column {absent!r} already exists; pass another output_column")


def _batch_statistics(batch: pa.Table, hyp: str, refs: Tuple[str, ...], options: MetricOptions) -> Statistics:
    require_columns(batch.column_names, (hyp,) + refs)
    return statistics_of_columns(
        batch.column(hyp).to_pylist(), [batch.column(r).to_pylist() for r in refs], options
    )


def _partial_sums(
    hyp: str, refs: Tuple[str, ...], keys: Tuple[str, ...], options: MetricOptions, batch: pa.Table
) -> pa.Table:
    """One batch → its column sums and nrefs range (per group value when there are keys)."""
    require_columns(batch.column_names, keys)
    stats = _batch_statistics(batch, hyp, refs, options)
    columns = {f"{_PREFIX}{k}": pa.array(stats.rows[:, k]) for k in range(stats.rows.shape[1])}
    columns[_NREFS_MIN] = columns[_NREFS_MAX] = pa.array(stats.nrefs)
    if not keys:
        sums = stats.rows.sum(axis=0)
        bounds = (stats.nrefs.min(), stats.nrefs.max()) if len(stats) else None
        out = {f"{_PREFIX}{k}": [int(sums[k])] if bounds else [] for k in range(len(sums))}
        out[_NREFS_MIN], out[_NREFS_MAX] = ([int(bounds[0])], [int(bounds[1])]) if bounds else ([], [])
        return pa.table({name: pa.array(values, pa.int64()) for name, values in out.items()})
    table = pa.table({**{k: batch.column(k) for k in keys}, **columns})
    aggregations = [(name, "sum") for name in columns if name not in (_NREFS_MIN, _NREFS_MAX)]
    aggregations += [(_NREFS_MIN, "min"), (_NREFS_MAX, "max")]
    grouped = table.group_by(list(keys), use_threads=False).aggregate(aggregations)
    # Arrow names an aggregate "<column>_<function>"; give the columns their own names back.
    names = {f"{name}_{fn}": name for name, fn in aggregations}
    return grouped.rename_columns([names.get(name, name) for name in grouped.column_names])


def _row_statistics(
    hyp: str, refs: Tuple[str, ...], keys: Tuple[str, ...], options: MetricOptions, batch: pa.Table
) -> pa.Table:
    """One batch → each row's statistics and reference count, beside its group columns."""
    require_columns(batch.column_names, keys)
    stats = _batch_statistics(batch, hyp, refs, options)
    columns = {f"{_PREFIX}{k}": pa.array(stats.rows[:, k], pa.int64()) for k in range(stats.rows.shape[1])}
    columns[_NREFS_MIN] = pa.array(stats.nrefs, pa.int64())
    return pa.table({**{k: batch.column(k) for k in keys}, **columns})


def _with_sentence_bleu(
    hyp: str, refs: Tuple[str, ...], output_column: str, options: MetricOptions, batch: pa.Table
) -> pa.Table:
    if output_column in batch.column_names:
        raise ValueError(f"column {output_column!r} already exists; pass another output_column")
    stats = _batch_statistics(batch, hyp, refs, options)
    scores = sentence_scores_from_statistics(stats, options) if len(stats) else np.zeros(0)
    return batch.append_column(output_column, pa.array(scores, pa.float64()))
