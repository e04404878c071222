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

import contextlib
import math
from dataclasses import dataclass
from typing import Any, Iterator, List, Sequence, Tuple

from ..._torch import array_namespace
from .options import BleuOptions

__all__ = ["RowScores", "score_rows", "score_table", "score_row", "LOG_ZERO"]

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


def score_rows(counts: Any, totals: Any, sys_len: Any, ref_len: Any, options: BleuOptions) -> RowScores:
    """BLEU of each row from float64 statistics arrays.

    ``counts`` and ``totals`` have shape ``(R, N)``, ``sys_len`` and ``ref_len`` shape ``(R,)``.
    Every step works on all orders at once (a few dozen array operations whatever N is: on a
    GPU each is one kernel launch); sacreBLEU's loop over orders becomes running products and
    sums along the order axis, which give the same floats (doubling by 2 is exact, and the sum
    of logs is accumulated in sacreBLEU's order).

    >>> import numpy as np
    >>> score_rows(np.array([[2.0, 0.0]]), np.array([[3.0, 2.0]]), np.array([3.0]), np.array([3.0]),
    ...            BleuOptions(max_ngram_order=2, smooth_method="exp")).precisions.round(4).tolist()
    [[66.6667, 25.0]]
    """
    xp = array_namespace(counts)
    if counts.shape[-1] != options.max_ngram_order or totals.shape[-1] != options.max_ngram_order:
        raise ValueError(f"statistics have {counts.shape[-1]} orders, options say {options.max_ngram_order}")
    # Order-major (N, R): numpy reduces along a leading axis fast and along a short last axis
    # row by row (ten times slower); on torch the transpose is a view.
    if xp.__name__ == "torch":
        counts, totals = counts.T, totals.T
    else:
        counts, totals = xp.ascontiguousarray(counts.T), xp.ascontiguousarray(totals.T)
    with _quiet(xp):
        out = _score_orders(xp, counts, totals, sys_len, ref_len, options)
    return RowScores(score=out.score, precisions=out.precisions.T, bp=out.bp, counts=out.counts.T, totals=out.totals.T)


def _score_orders(xp: Any, counts: Any, totals: Any, sys_len: Any, ref_len: Any, options: BleuOptions) -> RowScores:
    """:func:`score_rows` on order-major ``(N, R)`` counts and totals (and so its results)."""
    method = options.smooth_method
    k = options.resolved_smooth_value

    # Nothing matched at all: sacreBLEU returns 0 before any smoothing (its issue #141).
    any_match = (counts > 0).any(0)
    # sacreBLEU: exp(1 - ref_len / sys_len) when shorter, 0 for an empty hypothesis; here
    # ref_len / 0 = inf makes that exp(-inf) = 0 (the other branch's 0 / 0 is discarded).
    bp = xp.where(sys_len < ref_len, xp.exp(1.0 - ref_len / sys_len), 1.0)

    c, t = counts, totals
    if method == "add-k" and counts.shape[0] > 1:
        c = xp.concatenate([counts[:1], counts[1:] + k])
        t = xp.concatenate([totals[:1], totals[1:] + k])
        # sacreBLEU reports the added k only where something matched.
        out_counts, out_totals = xp.where(any_match, c, counts), xp.where(any_match, t, totals)
    else:
        out_counts, out_totals = counts, totals

    has_ngrams = t != 0
    still_open = _running(xp, has_ngrams, "all")  # orders before the first order without n-grams
    safe_t = xp.where(has_ngrams, t, 1.0)
    unmatched = c == 0
    matched = 100.0 * c / safe_t
    if method == "exp":
        # mteval's smoothing: the k-th unmatched open order gets 1 / (2**k * total). Running
        # products of 1s and 2s, and 100 / 2**k, are exact in any float type, so the one rounding
        # is that of sacreBLEU's 100 / (2**k * total), also where torch divides by a reciprocal.
        mteval = _running(xp, (still_open & unmatched) + 1.0, "prod")
        p = xp.where(unmatched, (100.0 / mteval) / safe_t, matched)
    elif method == "floor":
        p = xp.where(unmatched, 100.0 * float(k or 0.0) / safe_t, matched)
    else:
        p = xp.where(unmatched, 0.0, matched)
    p = xp.where(still_open & any_match, p, 0.0)

    if options.effective_order:
        # The open orders; sacreBLEU keeps all orders when even unigrams are missing (score 0).
        in_use = still_open | ~still_open[:1]
        eff = in_use.sum(0)
    else:
        in_use, eff = None, options.max_ngram_order
    log_p = xp.where(p > 0, xp.log(p), LOG_ZERO)
    # Running sums add the orders one after another, as sacreBLEU does: the same floats.
    if options.weights is None:
        terms = log_p if in_use is None else xp.where(in_use, log_p, 0.0)
        mean_log = _running(xp, terms, "sum")[-1] / eff
    else:
        w = _column(xp, binary_scaled(options.weights), p)
        used_w = xp.broadcast_to(w, p.shape) if in_use is None else xp.where(in_use, w, 0.0)
        log_sum = _running(xp, used_w * log_p, "sum")[-1]
        weight_sum = _running(xp, used_w, "sum")[-1]
        # Weights are renormalised over the orders in use; no weight on any of them means no
        # evidence, scored 0. A zero precision with any positive weight makes the geometric mean
        # exactly 0: the log(0) floor times a tiny weight would otherwise leave a positive score.
        # (Positive as given: scaling may have rounded a weight 2**1000 times below the largest to 0.)
        positive = _column(xp, [float(v > 0) for v in options.weights], p) > 0
        used_positive = xp.broadcast_to(positive, p.shape) if in_use is None else in_use & positive
        zero_factor = (used_positive & (p <= 0)).any(0)
        has_weight = (weight_sum > 0) & ~zero_factor
        mean_log = xp.where(has_weight, log_sum / xp.where(has_weight, weight_sum, 1.0), LOG_ZERO)
    score = xp.where(any_match, bp * xp.exp(mean_log), 0.0)
    return RowScores(score=score, precisions=p, bp=bp, counts=out_counts, totals=out_totals)


def binary_scaled(values: Sequence[float]) -> Tuple[float, ...]:
    """Non-negative weights times the power of two that brings the largest into [0.5, 1).

    The geometric mean divides by the weights' sum, so their scale cancels; a power of two
    changes no bit of a product, sum or quotient (barring overflow), so the scores are those of
    the weights as given, and weights whose sum overflows (``[1e308] * 4``) score as their
    ratios say instead of NaN.

    >>> binary_scaled([3.0, 6.0]), binary_scaled([2.0**1023] * 2) == binary_scaled([1.0] * 2)
    ((0.375, 0.75), True)
    """
    largest = max(values)
    if not largest > 0:
        return tuple(values)
    shift = math.frexp(largest)[1]
    return tuple(math.ldexp(v, -shift) for v in values)


def _running(xp: Any, x: Any, op: str) -> Any:
    """Running "all", "prod" or "sum" along axis 0, element after element."""
    if xp.__name__ == "torch":
        return x.cummin(0).values if op == "all" else x.cumprod(0) if op == "prod" else x.cumsum(0)
    # numpy's accumulate is slow along any axis of a (N, R) array; N row operations are not.
    ufunc = xp.logical_and if op == "all" else xp.multiply if op == "prod" else xp.add
    out = x.copy()
    for n in range(1, x.shape[0]):
        ufunc(out[n - 1], x[n], out=out[n])
    return out


def _column(xp: Any, values: Any, like: Any) -> Any:
    """A float64 column ``(N, 1)`` of ``values`` where ``like`` lives."""
    if xp.__name__ == "torch":
        return xp.tensor(values, dtype=xp.float64, device=like.device)[:, None]
    return xp.asarray(values, dtype=xp.float64)[:, None]


@contextlib.contextmanager
def _quiet(xp: Any) -> Iterator[None]:
    """numpy warns about the inf and nan of the branches ``where`` throws away; torch does not."""
    if xp.__name__ == "torch":
        yield
    else:
        with xp.errstate(divide="ignore", invalid="ignore"):
            yield


def score_table(rows: Any, options: BleuOptions) -> RowScores:
    """BLEU of each row of a statistics table (integer or float, numpy or torch, shape (R, 2+2N)).

    The table's column order (sys_len, ref_len, counts 1..N, totals 1..N) is read here only.

    >>> import numpy as np
    >>> score_table(np.array([[4, 4, 3, 1, 4, 3]]), BleuOptions(max_ngram_order=2)).score.round(6)
    array([50.])
    """
    xp = array_namespace(rows)
    rows = rows.to(xp.float64) if xp.__name__ == "torch" else rows.astype(xp.float64)
    n = options.max_ngram_order
    if rows.shape[-1] != 2 + 2 * n:
        raise ValueError(f"statistics rows have {rows.shape[-1]} columns, max_ngram_order={n} needs {2 + 2 * n}")
    return score_rows(rows[:, 2 : 2 + n], rows[:, 2 + n :], rows[:, 0], rows[:, 1], options)


def score_row(row: Sequence[int], options: BleuOptions) -> Tuple[float, List[float], float, List[float], List[float]]:
    """BLEU of one statistics row in plain Python floats: ``(score, precisions, bp, counts, totals)``.

    The same floating-point operations in the same order as :func:`score_rows` (``math.exp``,
    ``math.log`` and ``sum``: sacreBLEU's own), without arrays: a sentence, or a corpus's summed
    row, is scored in microseconds. Tests check it against :func:`score_table` and sacreBLEU
    with ``==``.

    >>> score_row([4, 4, 3, 1, 4, 3], BleuOptions(max_ngram_order=2))[0]
    50.0
    """
    n = options.max_ngram_order
    if len(row) != 2 + 2 * n:
        raise ValueError(f"statistics rows have {len(row)} columns, max_ngram_order={n} needs {2 + 2 * n}")
    sys_len, ref_len = float(row[0]), float(row[1])
    counts = [float(x) for x in row[2 : 2 + n]]
    totals = [float(x) for x in row[2 + n :]]
    method = options.smooth_method
    any_match = any(x > 0 for x in counts)
    # sys_len == 0 < ref_len: the vectorised formula's exp(-inf)
    bp = (math.exp(1.0 - ref_len / sys_len) if sys_len > 0 else 0.0) if sys_len < ref_len else 1.0
    c, t = counts, totals
    if method == "add-k" and n > 1:
        k = options.resolved_smooth_value or 0.0  # add-k always has one
        c = counts[:1] + [x + k for x in counts[1:]]
        t = totals[:1] + [x + k for x in totals[1:]]
        if any_match:
            counts, totals = c, t  # sacreBLEU reports the added k only where something matched

    precisions = [0.0] * n
    used = n  # orders in the mean: all, or with effective order the open ones (all if none is);
    # without a match the score is 0 whatever the mean
    if any_match:
        mteval = 1.0
        floor = 100.0 * float(options.resolved_smooth_value or 0.0) if method == "floor" else 0.0
        for i in range(n):
            tn = t[i]
            if tn == 0:  # this order and the later ones are closed
                if options.effective_order and i > 0:
                    used = i
                break
            cn = c[i]
            if cn != 0:
                precisions[i] = 100.0 * cn / tn
            elif method == "exp":
                mteval *= 2.0
                precisions[i] = (100.0 / mteval) / tn
            elif method == "floor":
                precisions[i] = floor / tn
    log_p = [math.log(p) if p > 0 else LOG_ZERO for p in precisions]
    if options.weights is None:
        # sacreBLEU's sum of the logs of the orders in use: Python's sum (compensated from 3.12 on)
        mean_log = sum(log_p[:used]) / used
    else:
        # the vectorised formula's scaled weights (binary_scaled) and running sums, one order
        # after another; a zero precision counts where the weight as given is positive
        used_w = [w if i < used else 0.0 for i, w in enumerate(binary_scaled(options.weights))]
        log_sum = _sum([w * term for w, term in zip(used_w, log_p)])
        weight_sum = _sum(used_w)
        zero_factor = any(w > 0 and p <= 0 for w, p in zip(options.weights[:used], precisions))
        mean_log = log_sum / weight_sum if weight_sum > 0 and not zero_factor else LOG_ZERO
    score = bp * math.exp(mean_log) if any_match else 0.0
    return score, precisions, bp, counts, totals


def _sum(values: List[float]) -> float:
    total = values[0]
    for x in values[1:]:
        total = total + x
    return total
