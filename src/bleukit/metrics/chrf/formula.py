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

from typing import Any, Callable, Tuple, Union

import numpy as np

from ..._torch import array_namespace
from .options import ChrfOptions

__all__ = ["EPS", "beta_factors", "sentence_scores", "corpus_score", "float32_sums_scores"]

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


class _Mixed:
    """A value per row that is a numpy float32 scalar in some rows and a Python float in others,
    as in sacreBLEU's formula on float32 sums: ``n_match / n_hyp`` is float32, its ``eps`` and
    ``0.0`` stand-ins are Python floats, and an operation is float32 as soon as one operand is
    (numpy 2 converts the Python operand to float32 first), float64 otherwise."""

    __slots__ = ("value", "is32")

    def __init__(self, value: np.ndarray, is32: np.ndarray) -> None:
        self.value, self.is32 = value, is32

    def op(self, other: "Operand", f: Callable[[Any, Any], Any], reverse: bool = False) -> "_Mixed":
        b64: Any
        b32: Any
        bis: Any
        if isinstance(other, _Mixed):
            b64, b32, bis = other.value, other.value.astype(np.float32), other.is32
        else:  # a Python int or float: weak, takes the other operand's type
            b64, b32, bis = other, other, False
        a64: Any = self.value
        a32: Any = self.value.astype(np.float32)
        if reverse:
            a64, a32, b64, b32 = b64, b32, a64, a32
        is32 = self.is32 | bis
        with np.errstate(divide="ignore", invalid="ignore"):
            return _Mixed(np.where(is32, f(a32, b32).astype(np.float64), f(a64, b64)), is32)

    def __add__(self, o: "Operand") -> "_Mixed":
        return self.op(o, np.add)

    def __radd__(self, o: "Operand") -> "_Mixed":
        return self.op(o, np.add, True)

    def __mul__(self, o: "Operand") -> "_Mixed":
        return self.op(o, np.multiply)

    def __rmul__(self, o: "Operand") -> "_Mixed":
        return self.op(o, np.multiply, True)

    def __truediv__(self, o: "Operand") -> "_Mixed":
        return self.op(o, np.true_divide)

    def where(self, mask: np.ndarray, other: "_Mixed") -> "_Mixed":
        return _Mixed(np.where(mask, self.value, other.value), np.where(mask, self.is32, other.is32))


Operand = Union[_Mixed, int, float]


def float32_sums_scores(sums: Any, options: ChrfOptions) -> np.ndarray:
    """chrF of statistics rows summed in float32, as sacreBLEU scores a bootstrap resample.

    sacreBLEU's bootstrap (``--confidence``, ``--paired-bs``) sums each resample's rows in float32
    and hands the float32 numbers to its formula, where (numpy 2) every quotient and sum is then
    float32 arithmetic, and the scores are float32. This is that arithmetic, row by row the same
    operations, so bootstrap means and intervals equal sacreBLEU's bit for bit. The result is a
    float32 array, or float64 where some row's score is sacreBLEU's Python ``0.0`` (no order with
    both sides, or zero precision and recall), as ``np.array`` of those scores would be.

    >>> import numpy as np
    >>> float32_sums_scores(np.array([[4, 6, 3, 3, 5, 2]], np.float32), ChrfOptions(char_order=2))
    array([48.54061], dtype=float32)
    """
    sums = np.asarray(sums, dtype=np.float32)
    k = options.order
    if sums.ndim != 2 or sums.shape[-1] != 3 * k:
        raise ValueError(f"float32 chrF sums have shape (rows, {3 * k}), got {tuple(sums.shape)}")
    rows = sums.shape[0]
    factor = options.beta**2  # a Python number, as in sacreBLEU (an int for an int beta)

    def py(value: float) -> _Mixed:
        return _Mixed(np.full(rows, value, dtype=np.float64), np.zeros(rows, dtype=bool))

    def f32(column: np.ndarray) -> _Mixed:
        return _Mixed(column.astype(np.float64), np.ones(rows, dtype=bool))

    score, avg_prec, avg_rec = py(0.0), py(0.0), py(0.0)
    effective = np.zeros(rows, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(k):
            n_hyp, n_ref, n_match = (f32(sums[:, 3 * i + j]) for j in range(3))
            has_hyp, has_ref = n_hyp.value > 0, n_ref.value > 0
            prec = (n_match / n_hyp).where(has_hyp, py(EPS))
            rec = (n_match / n_ref).where(has_ref, py(EPS))
            denom = factor * prec + rec
            score = score + ((1 + factor) * prec * rec / denom).where(denom.value > 0, py(EPS))
            both = has_hyp & has_ref
            avg_prec = (avg_prec + prec).where(both, avg_prec)
            avg_rec = (avg_rec + rec).where(both, avg_rec)
            effective += both
        if options.eps_smoothing:
            out = 100 * score / k
        else:
            counted = effective > 0
            # sacreBLEU divides by its int effective order (a weak Python number).
            safe = _Mixed(np.where(counted, effective, 1).astype(np.float64), np.zeros(rows, dtype=bool))
            avg_prec = (avg_prec / safe).where(counted, py(0.0))
            avg_rec = (avg_rec / safe).where(counted, py(0.0))
            nonzero = (avg_prec + avg_rec).value != 0
            out = (100 * ((1 + factor) * avg_prec * avg_rec / (factor * avg_prec + avg_rec))).where(nonzero, py(0.0))
    if out.is32.all():
        return out.value.astype(np.float32)
    return out.value
