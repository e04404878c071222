"""The BLEU formula, from statistics to scores, written once for many rows at a time.

It follows sacreBLEU's ``compute_bleu`` step for step (the same floating-point operations in the
same order), vectorised over rows. Arrays may be numpy or torch (``xp`` is the namespace), so the
token-id path on a GPU runs this very function instead of a copy of it.

>>> import numpy as np
>>> out = score_rows(np.array([[3.0, 1.0]]), np.array([[4.0, 3.0]]), np.array([4.0]),
...                  np.array([4.0]), BleuOptions(max_ngram_order=2))
>>> round(float(out.score[0]), 4)
50.0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._torch import is_torch_tensor
from .options import BleuOptions

__all__ = ["RowScores", "score_rows", "score_table", "LOG_ZERO"]

#: sacreBLEU's floor for log(0): makes the geometric mean exactly 0 without a math error.
LOG_ZERO = -9999999999.0


@dataclass
class RowScores:
    """Scores and their parts for each row (arrays of the caller's kind, float64)."""

    score: Any  # (R,) BLEU on the 0-100 scale
    precisions: Any  # (R, N) percentages
    bp: Any  # (R,)
    counts: Any  # (R, N) matches as sacreBLEU reports them (add-k adds k for orders >= 2)
    totals: Any  # (R, N)


def _namespace(array: Any):
    if is_torch_tensor(array):
        import torch

        return torch
    import numpy

    return numpy


def score_rows(counts: Any, totals: Any, sys_len: Any, ref_len: Any, options: BleuOptions) -> RowScores:
    """BLEU of each row from float64 statistics arrays.

    ``counts`` and ``totals`` have shape ``(R, N)``, ``sys_len`` and ``ref_len`` shape ``(R,)``.
    """
    xp = _namespace(counts)
    n_orders = options.max_ngram_order
    if counts.shape[-1] != n_orders or totals.shape[-1] != n_orders:
        raise ValueError(f"statistics have {counts.shape[-1]} orders, options say {n_orders}")
    method = options.smooth_method
    k = options.resolved_smooth_value
    zero = sys_len * 0.0
    one = zero + 1.0

    # Nothing matched at all: sacreBLEU returns 0 before any smoothing (its issue #141).
    any_match = (counts > 0).any(-1)

    short = sys_len < ref_len
    safe_sys = xp.where(sys_len > 0, sys_len, one)
    bp = xp.where(short, xp.where(sys_len > 0, xp.exp(1.0 - ref_len / safe_sys), zero), one)

    still_open = zero == 0  # orders before the first order without any n-gram
    mteval = one
    used = zero  # effective order
    precisions, out_counts, out_totals = [], [], []
    for n in range(n_orders):
        c = counts[:, n]
        t = totals[:, n]
        if method == "add-k" and n > 0:
            c = c + k
            t = t + k
        out_counts.append(xp.where(any_match, c, counts[:, n]))
        out_totals.append(xp.where(any_match, t, totals[:, n]))
        still_open = still_open & (t != 0)
        safe_t = xp.where(t != 0, t, one)
        unmatched = c == 0
        if method == "exp":
            mteval = xp.where(still_open & unmatched, mteval * 2.0, mteval)
            smoothed = 100.0 / (mteval * safe_t)
        elif method == "floor":
            smoothed = 100.0 * k / safe_t
        else:
            smoothed = zero
        p = xp.where(unmatched, smoothed, 100.0 * c / safe_t)
        p = xp.where(still_open & any_match, p, zero)
        precisions.append(p)
        used = used + xp.where(still_open, one, zero)

    if options.effective_order:
        # sacreBLEU keeps the full order when even unigrams are missing (score is 0 then anyway).
        eff = xp.where(used > 0, used, zero + n_orders)
    else:
        eff = zero + n_orders

    log_sum = zero
    weight_sum = zero
    zero_factor = zero != 0  # an order in use with positive weight and zero precision
    for n, p in enumerate(precisions):
        log_p = xp.where(p > 0, xp.log(xp.where(p > 0, p, one)), zero + LOG_ZERO)
        in_use = eff > n
        if options.weights is None:
            log_sum = log_sum + xp.where(in_use, log_p, zero)
        else:
            w = options.weights[n]
            log_sum = log_sum + xp.where(in_use, w * log_p, zero)
            weight_sum = weight_sum + xp.where(in_use, zero + w, zero)
            if w > 0:
                zero_factor = zero_factor | (in_use & (p <= 0))
    if options.weights is None:
        mean_log = log_sum / eff
    else:
        # Weights are renormalised over the orders in use; no weight on any of them means no
        # evidence, scored 0. A zero precision with any positive weight makes the geometric mean
        # exactly 0: the log(0) floor times a tiny weight would otherwise leave a positive score.
        has_weight = (weight_sum > 0) & ~zero_factor
        mean_log = xp.where(has_weight, log_sum / xp.where(has_weight, weight_sum, one), zero + LOG_ZERO)
    score = xp.where(any_match, bp * xp.exp(mean_log), zero)
    return RowScores(
        score=score,
        precisions=xp.stack(precisions, -1),
        bp=bp,
        counts=xp.stack(out_counts, -1),
        totals=xp.stack(out_totals, -1),
    )


def score_table(rows: Any, options: BleuOptions) -> RowScores:
    """BLEU of each row of a statistics table (integer or float, numpy or torch, shape (R, 2+2N)).

    The table's column order (sys_len, ref_len, counts 1..N, totals 1..N) is read here only.

    >>> import numpy as np
    >>> score_table(np.array([[4, 4, 3, 1, 4, 3]]), BleuOptions(max_ngram_order=2)).score.round(6)
    array([50.])
    """
    xp = _namespace(rows)
    rows = rows.to(xp.float64) if xp.__name__ == "torch" else rows.astype(xp.float64)
    n = options.max_ngram_order
    if rows.shape[-1] != 2 + 2 * n:
        raise ValueError(f"statistics rows have {rows.shape[-1]} columns, max_ngram_order={n} needs {2 + 2 * n}")
    return score_rows(rows[:, 2 : 2 + n], rows[:, 2 + n :], rows[:, 0], rows[:, 1], options)
