"""Hugging Face ``datasets`` adapter: statistics and sentence-BLEU columns with ``Dataset.map``.

``statistics_function`` returns a function for ``Dataset.map(fn, batched=True, num_proc=N)`` that
adds each row's integer statistics (an int64 list column) and reference count; summing those
columns (``score_dataset_statistics``) gives exactly ``bleukit.corpus_bleu`` of the rows,
however many processes counted them, and after any ``filter`` or ``select``. ``sentence_bleu_function``
adds a float64 sentence-BLEU column, for filtering a parallel corpus. ``score_dataset`` and
``add_sentence_bleu`` do the ``map`` for you. Needs ``datasets`` (the ``[hf]`` extra), imported
only when this module is.

>>> from datasets import Dataset, disable_progress_bars
>>> disable_progress_bars()
>>> ds = Dataset.from_dict({"hyp": ["The cat sat on the mat.", "It is raining."],
...                         "ref": ["The cat sat on the mat.", "It rains."]})
>>> with_stats = ds.map(statistics_function("hyp", "ref"), batched=True)
>>> with_stats[1]["bleu_stats"], with_stats[1]["bleu_nrefs"]
([4, 3, 2, 0, 0, 0, 4, 3, 2, 1], 1)
>>> round(score_dataset_statistics(with_stats).score, 4) == round(score_dataset(ds, "hyp", "ref").score, 4)
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, Hashable, List, Optional

import numpy as np

from bleukit.accumulator import StatisticsAccumulator
from bleukit.analysis.groups import group_rows, ordered_labels, with_groups
from bleukit.analysis.significance import Seed, with_bootstrap
from bleukit.defaults import DEFAULT_SEED
from bleukit.inputs import check_count
from bleukit.metrics import metric_for, resolve_options
from bleukit.metrics.base import MetricOptions, MetricResult
from bleukit.pipeline import sentence_scores_from_statistics

from ._columns import Columns, check_batching, check_column_names, require_columns, statistics_of_columns

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from bleukit.metrics.bleu.options import BleuOptionKeywords

__all__ = [
    "statistics_function",
    "sentence_bleu_function",
    "score_dataset_statistics",
    "score_dataset",
    "add_sentence_bleu",
]

STATISTICS_COLUMN = "bleu_stats"
NREFS_COLUMN = "bleu_nrefs"


class _Statistics:
    """Batch → statistics columns (a class, not a closure: picklable for ``num_proc``)."""

    def __init__(self, hyp: str, refs: tuple, options: MetricOptions, column: str, nrefs_column: str) -> None:
        self.hyp, self.refs, self.options = hyp, refs, options
        self.column, self.nrefs_column = column, nrefs_column

    def __call__(self, batch: Dict[str, List[Any]]) -> Dict[str, np.ndarray]:
        require_columns(list(batch), (self.hyp,) + self.refs)
        stats = statistics_of_columns(batch[self.hyp], [batch[r] for r in self.refs], self.options)
        return {self.column: stats.rows, self.nrefs_column: stats.nrefs}


class _SentenceBleu:
    def __init__(self, hyp: str, refs: tuple, options: MetricOptions, output_column: str) -> None:
        self.hyp, self.refs, self.options, self.output_column = hyp, refs, options, output_column

    def __call__(self, batch: Dict[str, List[Any]]) -> Dict[str, np.ndarray]:
        if self.output_column in batch:
            raise ValueError(f"column {self.output_column!r} already exists; pass another output_column")
        require_columns(list(batch), (self.hyp,) + self.refs)
        stats = statistics_of_columns(batch[self.hyp], [batch[r] for r in self.refs], self.options)
        scores = sentence_scores_from_statistics(stats, self.options) if len(stats) else np.zeros(0)
        return {self.output_column: scores}


def statistics_function(
    hypothesis_column: str,
    reference_columns: Columns,
    *,
    column: str = STATISTICS_COLUMN,
    nrefs_column: str = NREFS_COLUMN,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> Callable[[Dict[str, List[Any]]], Dict[str, np.ndarray]]:
    """A function for ``Dataset.map(fn, batched=True)`` adding each row's statistics.

    ``column`` gets the int64 statistics row (sacreBLEU's column order, ``2 + 2 *
    max_ngram_order`` values), ``nrefs_column`` the number of references. Each reference column
    is a reference set (a string, a list of strings or ``None`` per row). Only
    ``max_ngram_order``, ``tokenize`` and ``lowercase`` change statistics; pass the same options
    to ``score_dataset_statistics``.

    >>> fn = statistics_function("hyp", ["r1", "r2"], tokenize="none", max_ngram_order=2)
    >>> out = fn({"hyp": ["a b"], "r1": ["a c"], "r2": [None]})
    >>> out["bleu_stats"].tolist(), out["bleu_nrefs"].tolist()
    ([[2, 2, 1, 0, 2, 1]], [1])
    """
    opts = resolve_options(options, keywords)
    hyp, refs, _ = check_column_names(hypothesis_column, reference_columns)
    if column == nrefs_column:
        raise ValueError(f"column and nrefs_column are both {column!r}")
    return _Statistics(hyp, refs, opts, column, nrefs_column)


def sentence_bleu_function(
    hypothesis_column: str,
    reference_columns: Columns,
    *,
    output_column: str = "bleu",
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> Callable[[Dict[str, List[Any]]], Dict[str, np.ndarray]]:
    """A function for ``Dataset.map(fn, batched=True)`` adding each row's sentence BLEU (float64).

    Scores equal ``bleukit.sentence_bleu`` (sentence defaults: effective order on).

    >>> fn = sentence_bleu_function("hyp", "ref", tokenize="none")
    >>> fn({"hyp": ["a b c d", "x y"], "ref": ["a b c d", "x z"]})["bleu"].round(4).tolist()
    [100.0, 50.0]
    """
    opts = resolve_options(options, keywords, sentence=True)
    hyp, refs, _ = check_column_names(hypothesis_column, reference_columns)
    return _SentenceBleu(hyp, refs, opts, output_column)


def score_dataset_statistics(
    dataset: Any,
    *,
    column: str = STATISTICS_COLUMN,
    nrefs_column: str = NREFS_COLUMN,
    batch_size: int = 100_000,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> MetricResult:
    """The corpus score (BLEU, or the metric of ``options``) of a dataset's statistics columns: their
    int64 sums, scored by the core.

    Reads ``batch_size`` rows at a time (memory stays flat on any size).

    >>> from datasets import Dataset
    >>> ds = Dataset.from_dict({"bleu_stats": [[2, 2, 1, 0, 2, 1], [3, 3, 3, 2, 3, 2]], "bleu_nrefs": [1, 1]})
    >>> round(score_dataset_statistics(ds, max_ngram_order=2).score, 4)
    73.0297
    """
    opts = resolve_options(options, keywords)
    batch_size = check_count(batch_size, "batch_size")
    require_columns(dataset.column_names, (column, nrefs_column))
    acc = StatisticsAccumulator(opts)
    empty = metric_for(opts).empty(opts)
    width = empty.rows.shape[1]
    for batch in dataset.with_format("numpy", columns=[column, nrefs_column]).iter(batch_size=batch_size):
        rows = np.asarray(batch[column])
        if rows.dtype == object or rows.ndim != 2 or rows.shape[1] != width:
            raise ValueError(
                f"column {column!r} must hold {width} integers per row ("
                f"{', '.join(f'{k}={v}' for k, v in empty.layout().items())}); got an array of shape {rows.shape}"
            )
        acc.add(empty.with_rows(rows, batch[nrefs_column]))
    if acc.n_rows == 0:
        raise ValueError("empty dataset: BLEU needs at least one row")
    return acc.result()


def score_dataset(
    dataset: Any,
    hypothesis_column: str,
    reference_columns: Columns,
    group_by: Optional[Columns] = None,
    *,
    num_proc: Optional[int] = None,
    batch_size: Optional[int] = 1000,
    n_bootstrap: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> MetricResult:
    """The corpus score (BLEU, or the metric of ``options``) of a ``datasets.Dataset``: statistics by
    ``map`` (``num_proc`` processes), summed.

    Equals ``bleukit.corpus_bleu`` of the rows for any ``num_proc``. With ``group_by`` (a column
    name or several) the result also holds each group's result in ``.groups`` (keyed by the
    column's value, a tuple of values for several columns), as ``bleukit.corpus_bleu(...,
    group_by=labels)`` gives it. With ``n_bootstrap`` the corpus result and each group's also hold
    the bootstrap ``mean``/``ci`` (``seed`` as ``corpus_bleu``'s); that reads every row's statistics
    into memory once, where the plain score only sums them.

    >>> from datasets import Dataset
    >>> ds = Dataset.from_dict({"hyp": ["a b c d", "x y z"], "ref": ["a b c d", "x y q"], "dom": ["n", "m"]})
    >>> round(score_dataset(ds, "hyp", "ref", tokenize="none").score, 4)
    82.2267
    >>> {k: round(r.score, 2) for k, r in score_dataset(ds, "hyp", "ref", "dom", tokenize="none").groups.items()}
    {'m': 0.0, 'n': 100.0}
    """
    opts = resolve_options(options, keywords)
    batch_size, num_proc = check_batching(batch_size, num_proc)
    hyp, refs, keys = check_column_names(hypothesis_column, reference_columns, group_by)
    require_columns(dataset.column_names, (hyp,) + refs + keys)
    fn = statistics_function(hyp, refs, options=opts)
    if set(keys) & {STATISTICS_COLUMN, NREFS_COLUMN}:
        raise ValueError(f"group_by cannot name {STATISTICS_COLUMN!r} or {NREFS_COLUMN!r}: bleukit writes them")
    stats = dataset.map(
        fn, batched=True, batch_size=batch_size, num_proc=num_proc,
        remove_columns=[c for c in dataset.column_names if c not in keys], desc="bleukit statistics",
    )
    result = score_dataset_statistics(stats, options=opts)
    if n_bootstrap is not None:
        table, labels = _rows_and_labels(stats, keys, opts)
        result = with_bootstrap(result, table, opts, n_bootstrap, seed)
        return with_groups(result, table, labels, opts, n_bootstrap, seed) if keys else result
    if not keys:
        return result
    accumulators: Dict[Hashable, StatisticsAccumulator] = {}
    empty = metric_for(opts).empty(opts)
    for batch in stats.with_format("numpy").iter(batch_size=100_000):
        values = [batch[k].tolist() for k in keys]
        labels = values[0] if len(keys) == 1 else list(zip(*values))
        for label, rows in group_rows(labels, len(labels)).items():
            if label not in accumulators:
                accumulators[label] = StatisticsAccumulator(opts)
            accumulators[label].add(empty.with_rows(batch[STATISTICS_COLUMN][rows], batch[NREFS_COLUMN][rows]))
    return result.with_groups({k: accumulators[k].result() for k in ordered_labels(accumulators)})


def _rows_and_labels(stats: Any, keys: tuple, options: MetricOptions) -> tuple:
    """The whole statistics table of a mapped dataset and its group labels (``None`` without keys)."""
    rows, nrefs, columns = [], [], [[] for _ in keys]  # type: ignore[var-annotated]
    for batch in stats.with_format("numpy").iter(batch_size=100_000):
        rows.append(batch[STATISTICS_COLUMN])
        nrefs.append(batch[NREFS_COLUMN])
        for column, key in zip(columns, keys):
            column.extend(batch[key].tolist())
    table = metric_for(options).empty(options).with_rows(np.concatenate(rows), np.concatenate(nrefs))
    labels = None if not keys else columns[0] if len(keys) == 1 else list(zip(*columns))
    return table, labels


def add_sentence_bleu(
    dataset: Any,
    hypothesis_column: str,
    reference_columns: Columns,
    output_column: str = "bleu",
    *,
    num_proc: Optional[int] = None,
    batch_size: Optional[int] = 1000,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> Any:
    """A new ``datasets.Dataset`` with each row's sentence BLEU in ``output_column``.

    >>> from datasets import Dataset
    >>> ds = Dataset.from_dict({"hyp": ["a b c d", "x y"], "ref": ["a b c d", "x z"]})
    >>> list(add_sentence_bleu(ds, "hyp", "ref", tokenize="none").filter(lambda r: r["bleu"] > 60)["hyp"])
    ['a b c d']
    """
    opts = resolve_options(options, keywords, sentence=True)
    batch_size, num_proc = check_batching(batch_size, num_proc)
    fn = sentence_bleu_function(hypothesis_column, reference_columns, output_column=output_column, options=opts)
    return dataset.map(fn, batched=True, batch_size=batch_size, num_proc=num_proc, desc="bleukit sentence BLEU")
