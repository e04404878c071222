"""chrF of float32 sums as sacreBLEU's bootstrap scores them: its formula in float32 arithmetic.

sacreBLEU's bootstrap (``--confidence``, ``--paired-bs``) sums each resample's statistics in
float32 and hands the float32 numbers to ``CHRF._compute_f_score``, where (numpy 2) quotients and
sums are float32 and the scores numpy float32 scalars, except where the formula returns its
Python ``0.0`` or adds its Python ``eps``. :func:`float32_sums_scores` is that arithmetic, row by
row, so bootstrap means and intervals equal sacreBLEU's bit for bit (``CHRF.float32_scores``).
"""

from __future__ import annotations

from typing import Any, Callable, Union

import numpy as np

from .formula import EPS
from .options import ChrfOptions

__all__ = ["float32_sums_scores"]


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
