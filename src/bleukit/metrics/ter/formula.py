"""TER scores from a statistics table (columns :data:`.reference.COLUMNS`), bit for bit sacreBLEU's.

sacreBLEU's per-sentence statistics are ``[fewest edits, average reference length]``, the
average a float (``sum_len / nrefs``). Its corpus score adds the sentences' statistics in order,
starting from the int 0, so the reference length is the float sum ``((0 + a_0) + a_1) + ...``,
and the score is ``100 * (edits / ref_length)``; a zero reference length scores 100 when there
are edits and 0 when there are none. A sentence score is the same formula on one row.

Here the averages are the same IEEE divisions of the integer columns and their sum is a
sequential accumulation (``numpy.add.accumulate``, never numpy's pairwise ``sum``), so every
float is the one sacreBLEU gets. An empty table scores 0 (no edits, no reference words).

>>> import numpy as np
>>> table = np.array([[1, 5, 2], [3, 4, 1], [2, 0, 1]])
>>> corpus_ter(table), sentence_ters(table).tolist()
(92.3076923076923, [40.0, 75.0, 100.0])
"""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from ..._torch import is_torch_tensor

__all__ = ["corpus_totals", "corpus_ter", "sentence_ters"]


def _as_table(table: Any) -> np.ndarray:
    if is_torch_tensor(table):
        table = table.detach().cpu().numpy()
    array = np.asarray(table)
    if array.ndim != 2 or array.shape[1] != 3:
        raise ValueError(f"a TER statistics table has shape (n, 3) (edits, ref_length_sum, nrefs), got {array.shape}")
    if array.dtype.kind not in "iu":
        raise TypeError(f"a TER statistics table holds integers, got dtype {array.dtype}")
    if array.size and (array.min() < 0 or array[:, 2].min() < 1):
        raise ValueError("a TER statistics table has no negative entries and at least one reference per row")
    return array.astype(np.int64, copy=False)


def corpus_totals(table: Any) -> Tuple[int, float]:
    """(total edits, total average reference length) of a table, as sacreBLEU sums them.

    >>> corpus_totals([[1, 3, 2], [2, 4, 1]])
    (3, 5.5)
    """
    rows = _as_table(table)
    edits = int(rows[:, 0].sum())
    if len(rows) == 0:
        return edits, 0.0
    averages = rows[:, 1].astype(np.float64) / rows[:, 2].astype(np.float64)
    return edits, float(np.add.accumulate(averages)[-1])


def _score(edits: float, ref_length: float) -> float:
    if ref_length > 0:
        return 100 * (edits / ref_length)
    return 100 * (1.0 if edits > 0 else 0.0)


def corpus_ter(table: Any) -> float:
    """Corpus TER (0-100 and beyond; lower is better), equal to ``sacrebleu.metrics.TER().corpus_score(...).score``.

    >>> corpus_ter([[2, 10, 1], [0, 3, 1]])
    15.384615384615385
    """
    edits, ref_length = corpus_totals(table)
    return _score(edits, ref_length)


def sentence_ters(table: Any) -> Any:
    """TER of every row, equal to ``TER().sentence_score(hyp, refs).score`` per sentence.

    A numpy array of float64; a torch tensor gives a float64 tensor on its device.

    >>> sentence_ters([[2, 10, 1], [1, 0, 1], [0, 0, 2]]).tolist()
    [20.0, 100.0, 0.0]
    """
    if is_torch_tensor(table):
        return _sentence_ters_torch(table)
    rows = _as_table(table)
    edits = rows[:, 0].astype(np.float64)
    averages = rows[:, 1].astype(np.float64) / rows[:, 2].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = edits / averages
    rates = np.where(averages > 0, rates, np.where(edits > 0, 1.0, 0.0))
    return 100 * rates


def _sentence_ters_torch(table: Any) -> Any:
    import torch

    _as_table(table)  # the same checks (on a host copy)
    rows = table.to(torch.float64)
    edits, averages = rows[:, 0], rows[:, 1] / rows[:, 2]
    rates = torch.where(averages > 0, edits / torch.where(averages > 0, averages, 1.0),
                        (edits > 0).to(torch.float64))
    return 100 * rates
