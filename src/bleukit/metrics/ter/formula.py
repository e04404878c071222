"""TER scores from a statistics table (:data:`.statistics.COLUMNS`), bit for bit sacreBLEU's.

sacreBLEU's per-sentence statistics are ``[fewest edits, average reference length]``, the
average a float (``sum_len / nrefs``). Its corpus score adds the sentences' statistics in order,
starting from the int 0, so the reference length is the float sum ``((0 + a_0) + a_1) + ...``,
and the score is ``100 * (edits / ref_length)``; a zero reference length scores 100 when there
are edits and 0 when there are none. A sentence score is the same formula on one row.

Here a row holds the average in units of ``1 / UNIT``; ``units / UNIT`` is one correctly rounded
division of exact integers, the float sacreBLEU's ``sum_len / nrefs`` gives. A corpus table's
averages are added one after the other (``numpy.add.accumulate``, never numpy's pairwise ``sum``),
as sacreBLEU adds them. A *summed* row (a stream's or a resample's total) is divided once: the
same float whenever sacreBLEU's additions are exact (one, two or four references a sentence), the
correctly rounded total otherwise. An empty table scores 0 (no edits, no reference words).

>>> import numpy as np
>>> from bleukit.metrics.ter.statistics import UNIT
>>> table = np.array([[1, 5 * UNIT // 2], [3, 4 * UNIT], [2, 0]])
>>> corpus_ter(table), sentence_ters(table).tolist()
(92.3076923076923, [40.0, 75.0, 100.0])
"""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from ..._torch import is_torch_tensor
from .statistics import COLUMNS, UNIT

__all__ = [
    "average_lengths",
    "corpus_totals",
    "summed_totals",
    "corpus_ter",
    "sentence_ters",
    "edit_rates",
    "ter_score",
    "float32_sums_scores",
]

_EXACT = 2**53  # integers below it are exact float64s


def _as_table(table: Any) -> np.ndarray:
    if is_torch_tensor(table):
        table = table.detach().cpu().numpy()
    array = np.asarray(table)
    if array.ndim != 2 or array.shape[1] != len(COLUMNS):
        raise ValueError(f"a TER statistics table has shape (n, 2) {COLUMNS}, got {array.shape}")
    if array.dtype.kind not in "iu":
        raise TypeError(f"a TER statistics table holds integers, got dtype {array.dtype}")
    if array.size and array.min() < 0:
        raise ValueError("a TER statistics table has no negative entries")
    return array.astype(np.int64, copy=False)


def average_lengths(table: Any) -> np.ndarray:
    """Each row's average reference length as the float sacreBLEU computes (``sum_len / nrefs``).

    >>> average_lengths([[0, 7 * UNIT // 2]]).tolist()
    [3.5]
    """
    units = _as_table(table)[:, 1]
    exact = units.astype(np.float64) / UNIT
    if units.size and int(units.max()) >= _EXACT:  # beyond 2**53 the int -> float step would round first
        whole, part = np.divmod(units, UNIT)
        exact = np.where(units < _EXACT, exact, whole.astype(np.float64) + part.astype(np.float64) / UNIT)
    return exact


def corpus_totals(table: Any) -> Tuple[int, float]:
    """(total edits, total average reference length) of a table, as sacreBLEU sums them.

    >>> corpus_totals([[1, 3 * UNIT // 2], [2, 4 * UNIT]])
    (3, 5.5)
    """
    rows = _as_table(table)
    return summed_totals(rows[:, 0], average_lengths(rows))


def summed_totals(edits: Any, averages: Any) -> Tuple[int, float]:
    """(total edits, total average reference length) of each sentence's edits and average reference
    length (floats: Self-TER's averages over more references than a table holds), as sacreBLEU sums
    them: in order, from 0.

    >>> summed_totals([1, 2], [1.5, 4.0])
    (3, 5.5)
    """
    averages = np.asarray(averages, dtype=np.float64)
    total = int(np.asarray(edits, dtype=np.int64).sum())
    if len(averages) == 0:
        return total, 0.0
    return total, float(np.add.accumulate(averages)[-1])


def ter_score(edits: float, ref_length: float) -> float:
    """TER in percent of total edits and total average reference length (sacreBLEU's
    ``_compute_score_from_stats``): 100 when there are edits but no reference words.

    >>> ter_score(3, 4.0), ter_score(2, 0.0), ter_score(0, 0.0)
    (75.0, 100.0, 0.0)
    """
    if ref_length > 0:
        return 100 * (edits / ref_length)
    return 100 * (1.0 if edits > 0 else 0.0)


def corpus_ter(table: Any) -> float:
    """Corpus TER (0-100 and beyond; lower is better), equal to ``sacrebleu.metrics.TER().corpus_score(...).score``.

    >>> corpus_ter([[2, 10 * UNIT], [0, 3 * UNIT]])
    15.384615384615385
    """
    edits, ref_length = corpus_totals(table)
    return ter_score(edits, ref_length)


def sentence_ters(table: Any) -> Any:
    """TER of every row, equal to ``TER().sentence_score(hyp, refs).score`` per sentence.

    A numpy array of float64; a torch tensor gives a float64 tensor on its device.

    >>> sentence_ters([[2, 10 * UNIT], [1, 0], [0, 0]]).tolist()
    [20.0, 100.0, 0.0]
    """
    if is_torch_tensor(table):
        return _sentence_ters_torch(table)
    rows = _as_table(table)
    return edit_rates(rows[:, 0], average_lengths(rows))


def edit_rates(edits: Any, averages: Any) -> np.ndarray:
    """Each sentence's TER from its edits and its average reference length (a float), as
    :func:`ter_score` of each, vectorised.

    >>> edit_rates([2, 1, 0], [10.0, 0.0, 0.0]).tolist()
    [20.0, 100.0, 0.0]
    """
    edits = np.asarray(edits).astype(np.float64)
    averages = np.asarray(averages, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = edits / averages
    rates = np.where(averages > 0, rates, np.where(edits > 0, 1.0, 0.0))
    return 100 * rates


def _sentence_ters_torch(table: Any) -> Any:
    import torch

    rows = _as_table(table)  # the same checks (on a host copy)
    if rows.size and int(rows[:, 1].max()) >= _EXACT:
        return torch.as_tensor(sentence_ters(rows), device=table.device)
    values = table.to(torch.float64)
    edits, averages = values[:, 0], values[:, 1] / UNIT
    rates = torch.where(averages > 0, edits / torch.where(averages > 0, averages, 1.0),
                        (edits > 0).to(torch.float64))
    return 100 * rates


def float32_sums_scores(sums: Any) -> np.ndarray:
    """TER of rows ``[edits, reference length]`` summed in float32, as sacreBLEU scores a bootstrap
    resample: ``100 * (edits / length)`` in float32 arithmetic (numpy 2 keeps float32 scalars
    float32), and its Python ``100 * 1.0`` or ``100 * 0.0`` where the length is 0. The result is
    float32, or float64 where some row is one of those Python floats, as ``np.array`` of
    sacreBLEU's scores would be.

    >>> float32_sums_scores(np.array([[1, 3.5], [0, 4]], np.float32)).tolist()
    [28.571430206298828, 0.0]
    >>> float32_sums_scores(np.array([[1, 3.5], [2, 0]], np.float32)).dtype  # sacreBLEU's 100.0 there
    dtype('float64')
    """
    sums = np.asarray(sums, dtype=np.float32)
    if sums.ndim != 2 or sums.shape[1] != len(COLUMNS):
        raise ValueError(f"float32 TER sums have shape (rows, 2) {COLUMNS}, got {sums.shape}")
    edits, length = sums[:, 0], sums[:, 1]
    counted = length > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.float32(100) * (edits / np.where(counted, length, np.float32(1)))
    if counted.all():
        return ratio
    return np.where(counted, ratio.astype(np.float64), np.where(edits > 0, 100.0, 0.0))
