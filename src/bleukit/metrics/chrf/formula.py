"""The chrF formula, from a statistics table to scores, written once for many rows at a time.

It follows sacreBLEU 2.6's ``CHRF._compute_f_score`` operation for operation (the same float64
operations in the same order, the orders accumulated one after another), vectorised over rows,
so every score equals sacreBLEU's with ``==``. Arrays may be numpy or torch (``xp`` is the
namespace); a torch table is scored on its device.

A table has 3 columns per order, character orders first, then word orders: (hypothesis
n-grams, reference n-grams, matches). Counts are read as float64, exact below 2**53.

>>> import numpy as np
>>> from bleukit.metrics.chrf.options import ChrfOptions
>>> table = np.array([[4, 6, 3, 3, 5, 2]])
>>> sentence_scores(table, ChrfOptions(char_order=2)).round(4).tolist()
[48.5406]
>>> round(corpus_score(table, ChrfOptions(char_order=2)), 4)
48.5406
"""

from __future__ import annotations

from typing import Any, Sequence, Tuple

from ..._torch import array_namespace
from .options import ChrfOptions

__all__ = ["EPS", "beta_factors", "sentence_scores", "corpus_score", "score_row"]

#: sacreBLEU's stand-in for a precision, recall or F-score that has nothing to divide by.
EPS = 1e-16


def beta_factors(options: ChrfOptions) -> Tuple[float, float]:
    """``(beta ** 2, 1 + beta ** 2)`` as the floats sacreBLEU's formula multiplies by.

    Computed with Python's own arithmetic, as sacreBLEU does: for an int beta both are exact
    integers rounded once to float where they meet a float; for a float beta they are float
    operations. The native kernel takes the same two floats.

    >>> beta_factors(ChrfOptions(beta=2)), beta_factors(ChrfOptions(beta=0.5))
    ((4.0, 5.0), (0.25, 1.25))
    """
    factor = options.beta**2
    return float(factor), float(1 + factor)


def sentence_scores(table: Any, options: ChrfOptions) -> Any:
    """chrF of each row of a statistics table (integer or float, numpy or torch): float64 ``(R,)``.

    >>> import numpy as np
    >>> sentence_scores(np.array([[2, 2, 2], [2, 1, 0], [0, 0, 0]]), ChrfOptions(char_order=1)).tolist()
    [100.0, 0.0, 0.0]
    """
    xp = array_namespace(table)
    k = options.order
    if table.ndim != 2 or table.shape[-1] != 3 * k:
        raise ValueError(
            f"a chrF statistics table with char_order={options.char_order} and word_order="
            f"{options.word_order} has shape (rows, {3 * k}), got {tuple(table.shape)}"
        )
    stats = table.to(xp.float64) if xp.__name__ == "torch" else table.astype(xp.float64)
    factor, one_plus = beta_factors(options)
    # Column by column: each order's values are contiguous, and the loop runs k times over rows.
    columns = stats.T if xp.__name__ == "torch" else xp.ascontiguousarray(stats.T)
    rows = stats.shape[0]
    score = xp.zeros(rows, dtype=xp.float64) if xp.__name__ != "torch" else xp.zeros(
        rows, dtype=xp.float64, device=stats.device)
    avg_prec = score + 0.0
    avg_rec = score + 0.0
    effective = score + 0.0
    for i in range(k):
        n_hyp, n_ref, n_match = columns[3 * i], columns[3 * i + 1], columns[3 * i + 2]
        has_hyp, has_ref = n_hyp > 0, n_ref > 0
        # Each quotient is taken where sacreBLEU takes it; the other branch divides by 1.
        prec = xp.where(has_hyp, n_match / xp.where(has_hyp, n_hyp, 1.0), EPS)
        rec = xp.where(has_ref, n_match / xp.where(has_ref, n_ref, 1.0), EPS)
        denom = factor * prec + rec
        positive = denom > 0
        score = score + xp.where(positive, one_plus * prec * rec / xp.where(positive, denom, 1.0), EPS)
        both = has_hyp & has_ref
        # adding 0.0 leaves a float as it is: the same sums as sacreBLEU's conditional adds
        avg_prec = avg_prec + xp.where(both, prec, 0.0)
        avg_rec = avg_rec + xp.where(both, rec, 0.0)
        effective = effective + xp.where(both, 1.0, 0.0)
    if options.eps_smoothing:
        return 100 * score / k
    counted = effective > 0
    safe = xp.where(counted, effective, 1.0)
    avg_prec = xp.where(counted, avg_prec / safe, 0.0)
    avg_rec = xp.where(counted, avg_rec / safe, 0.0)
    nonzero = (avg_prec + avg_rec) != 0
    denom = xp.where(nonzero, factor * avg_prec + avg_rec, 1.0)
    return xp.where(nonzero, 100 * (one_plus * avg_prec * avg_rec / denom), 0.0)


def corpus_score(table: Any, options: ChrfOptions) -> float:
    """chrF of a corpus: the formula on the column sums of its statistics table.

    >>> import numpy as np
    >>> corpus_score(np.array([[2, 2, 2], [2, 1, 0]]), ChrfOptions(char_order=1))
    62.5
    """
    xp = array_namespace(table)
    if table.ndim != 2 or table.shape[0] == 0:
        raise ValueError(f"a corpus score needs a 2-D table with at least one row, got shape {tuple(table.shape)}")
    totals = table.sum(0, keepdim=True) if xp.__name__ == "torch" else table.sum(0, keepdims=True)
    return float(sentence_scores(totals, options)[0])


def score_row(row: Sequence[int], options: ChrfOptions) -> float:
    """chrF of one statistics row in plain Python floats: the same operations in the same order as
    :func:`sentence_scores` (sacreBLEU's), without arrays, for one sentence or a corpus's sums.

    >>> score_row([2, 2, 2], ChrfOptions(char_order=1)), score_row([4, 6, 3, 3, 5, 2], ChrfOptions(char_order=2))
    (100.0, 48.54063429137999)
    """
    k = options.order
    if len(row) != 3 * k:
        raise ValueError(
            f"a chrF statistics row with char_order={options.char_order} and word_order={options.word_order} "
            f"has {3 * k} values, got {len(row)}"
        )
    factor, one_plus = beta_factors(options)
    score = avg_prec = avg_rec = effective = 0.0
    for i in range(0, 3 * k, 3):
        n_hyp, n_ref, n_match = float(row[i]), float(row[i + 1]), float(row[i + 2])
        prec = n_match / n_hyp if n_hyp > 0 else EPS
        rec = n_match / n_ref if n_ref > 0 else EPS
        denom = factor * prec + rec
        score = score + (one_plus * prec * rec / denom if denom > 0 else EPS)
        if n_hyp > 0 and n_ref > 0:
            avg_prec, avg_rec, effective = avg_prec + prec, avg_rec + rec, effective + 1.0
    if options.eps_smoothing:
        return 100 * score / k
    if effective > 0:
        avg_prec, avg_rec = avg_prec / effective, avg_rec / effective
    if avg_prec + avg_rec != 0:
        return 100 * (one_plus * avg_prec * avg_rec / (factor * avg_prec + avg_rec))
    return 0.0
