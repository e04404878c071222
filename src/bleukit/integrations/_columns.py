"""Tables with a hypothesis column and reference column(s) → the core's inputs (Ray, datasets).

Each reference column is a reference set: a value is a string, a list of strings (several
references of that row, ``None`` for a missing one) or ``None`` (no reference in this set). The
references of a row are those of all its reference columns, in column order.

>>> references_of_rows([["r1", None], [["r2a", "r2b"], "r2"]])
[['r1', 'r2a', 'r2b'], ['r2']]
>>> check_column_names("hyp", ["ref.A", "ref.B"], group_by="system")
('hyp', ('ref.A', 'ref.B'), ('system',))
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from bleukit.inputs import check_count, check_sequence
from bleukit.metrics import metric_for
from bleukit.metrics.base import MetricOptions, Statistics
from bleukit.pipeline import corpus_statistics

__all__ = ["check_batching", "check_column_names", "require_columns", "references_of_rows", "statistics_of_columns"]

Columns = Union[str, Sequence[str]]


def _names(value: Any, what: str, allow_empty: bool = False) -> Tuple[str, ...]:
    if isinstance(value, bytes) or not (isinstance(value, str) or hasattr(value, "__iter__")):
        raise TypeError(f"{what} must be a column name or a list of column names, got {type(value).__name__}")
    names = (value,) if isinstance(value, str) else tuple(check_sequence(value, what, of="column names"))
    if not names and not allow_empty:
        raise ValueError(f"{what} is empty: give at least one column name")
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{what} must hold column names (str), got {type(name).__name__}")
    if len(set(names)) != len(names):
        raise ValueError(f"{what} names a column twice: {list(names)}")
    return names


def check_column_names(
    hypothesis_column: str, reference_columns: Columns, group_by: Optional[Columns] = None
) -> Tuple[str, Tuple[str, ...], Tuple[str, ...]]:
    """(hypothesis column, reference columns, group columns) as checked names."""
    if not isinstance(hypothesis_column, str):
        raise TypeError(f"hypothesis_column must be a column name (str), got {type(hypothesis_column).__name__}")
    refs = _names(reference_columns, "reference_columns")
    if hypothesis_column in refs:
        raise ValueError(f"column {hypothesis_column!r} is both the hypothesis and a reference column")
    keys = () if group_by is None else _names(group_by, "group_by")
    return hypothesis_column, refs, keys


def check_batching(batch_size: Any, num_proc: Any = None) -> Tuple[Optional[int], Optional[int]]:
    """``batch_size`` and ``num_proc`` as the table libraries take them: an int >= 1 or ``None``
    (their default: the whole table, one process). A bool, a float, a string or 0 is named here,
    before the library turns it into "the whole table" or an error that does not say which.

    >>> check_batching(1000, None)
    (1000, None)
    """
    size = None if batch_size is None else check_count(batch_size, "batch_size")
    procs = None if num_proc is None else check_count(num_proc, "num_proc")
    return size, procs


def require_columns(available: Sequence[str], needed: Sequence[str]) -> None:
    """A ``ValueError`` naming the columns that a batch lacks (and the ones it has)."""
    missing = [name for name in needed if name not in available]
    if missing:
        raise ValueError(f"column(s) {missing} not in the dataset; it has {list(available)}")


def references_of_rows(columns: Sequence[Sequence[Any]]) -> List[Any]:
    """Per-row references (the core's layout) from reference columns of equal length."""
    if len(columns) == 1:
        # A single column already is the core's layout (a string, a list or None per row).
        return [list(v) if isinstance(v, (tuple, np.ndarray)) else v for v in columns[0]]
    out = []
    for values in zip(*columns):
        refs: List[Any] = []
        for value in values:
            if value is None:
                continue
            if isinstance(value, str):
                refs.append(value)
            elif isinstance(value, (list, tuple, np.ndarray)):
                refs.extend(value)
            else:
                refs.append(value)  # the core's check names its type
        out.append(refs)
    return out


def statistics_of_columns(
    hypotheses: Sequence[Any], reference_columns: Sequence[Sequence[Any]], options: MetricOptions
) -> Statistics:
    """The statistics table of one batch (empty batches give an empty table)."""
    if len(hypotheses) == 0:
        return metric_for(options).empty(options)
    return corpus_statistics(list(hypotheses), references_of_rows(reference_columns), options=options)
