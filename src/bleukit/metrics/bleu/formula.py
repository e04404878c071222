"""The BLEU formula, from statistics to scores, written once for many rows at a time.

It follows sacreBLEU's ``compute_bleu`` step for step (the same floating-point operations in the
same order), vectorised over rows. Arrays may be numpy or torch (``xp`` is the namespace), so the
token-id path on a GPU runs this very function instead of a copy of it. The exponentials,
logarithms and the sum of logarithms come from :mod:`.libm`: the C library's ``exp``/``log`` (what
``math.exp``/``math.log`` call, not numpy's or torch's SIMD versions, which differ in the last bit)
and the running Python's ``sum``, so every score equals sacreBLEU's bit for bit. CPU tensors are
scored as the numpy arrays they are (no copy). On a GPU the formula runs on the device with its
own ``exp``/``log`` and a running sum (no synchronisation), which may differ from sacreBLEU in
the last bit; :mod:`.libm` says how to score GPU token ids exactly.

:func:`score_float32_sums` scores rows that were summed in float32, as sacreBLEU scores its
bootstrap resamples (it sums them in float32 and, with numpy 2, computes their precisions in
float32 too).

>>> import numpy as np
>>> out = score_rows(np.array([[3.0, 1.0]]), np.array([[4.0, 3.0]]), np.array([4.0]),
...                  np.array([4.0]), BleuOptions(max_ngram_order=2))
>>> round(float(out.score[0]), 4)
50.0
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import math
import os
import re
import sys
from array import array
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, List, Optional, Sequence, Tuple

from ... import _native
from ..._torch import array_namespace
from .options import BleuOptions

if TYPE_CHECKING:
    import numpy as np

    from . import libm
else:

    class _Lazy:
        """A module imported where it is first used: the command line's ``-b`` path and
        :func:`score_row` import no numpy."""

        def __init__(self, name: str) -> None:
            self._name = name

        def __getattr__(self, attr: str) -> Any:
            return getattr(importlib.import_module(self._name), attr)

    np = _Lazy("numpy")
    libm = _Lazy("bleukit.metrics.bleu.libm")

__all__ = ["RowScores", "score_rows", "score_table", "table_scores", "score_float32_sums", "native_float32_scores",
           "native_scores", "score_row", "LOG_ZERO"]

#: sacreBLEU's floor for log(0): makes the geometric mean exactly 0 without a math error.
LOG_ZERO = -9999999999.0

#: BLEU's compiled module (built from csrc/metrics/bleu/): here libm's exp and log, and the float32 scores.
KERNEL = _native.MAIN_KERNEL

#: Whether this Python's ``sum`` of floats is compensated (Neumaier; CPython 3.12 and later).
COMPENSATED_SUM = sum([1.0, 1e100, 1.0, -1e100]) == 2.0

#: Whether numpy computes ``100. * np.float32(x)`` in float32 (NEP 50, numpy 2) rather than float64
#: (numpy 1): how sacreBLEU's float32 bootstrap statistics become precisions.
@functools.lru_cache(maxsize=None)
def _weak_scalars() -> bool:
    """Whether numpy keeps float32 scalars float32 next to Python floats (numpy 2, NEP 50)."""
    return type(np.float32(1.0) * 100.0) is np.float32


def numpy_weak_scalars() -> Optional[bool]:
    """:func:`_weak_scalars` without importing numpy where it is not imported yet (the command
    line's bootstrap runs without it): numpy 2 and later keep float32 scalars float32, numpy 1 does
    not. ``None`` when the installed version cannot be read (then numpy decides, once imported).

    >>> numpy_weak_scalars() == _weak_scalars()
    True
    """
    if "numpy" in sys.modules:
        return _weak_scalars()
    return _installed_numpy_major() >= 2 if _installed_numpy_major() else None


@functools.lru_cache(maxsize=None)
def _installed_numpy_major() -> int:
    """The installed numpy's major version, read from its version.py (0 when unreadable)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("numpy")
        if spec is None or not spec.submodule_search_locations:
            return 0
        folder = list(spec.submodule_search_locations)[0]
        with open(os.path.join(folder, "version.py"), encoding="utf-8") as f:
            found = re.search(r"""^version\b[^=\n]*=\s*["'](\d+)\.""", f.read(), re.MULTILINE)
    except (OSError, ImportError, ValueError):
        return 0
    return int(found.group(1)) if found else 0


#: The smoothing methods' codes in the compiled formula (csrc/metrics/bleu/float32.c).
SMOOTH_CODES = {"none": 0, "floor": 1, "add-k": 2, "exp": 3}


def native_float32_scores(sums: Any, rows: int, options: BleuOptions) -> "Optional[array[float]]":
    """:func:`score_float32_sums` of ``rows`` rows of int64 sums (a flat buffer, each sum in
    [0, 2**24]) in compiled code and without numpy: a float64 ``array``. ``None`` where that code
    does not apply (not built, ``BLEUKIT_ENGINE=python``, custom ``weights``, numpy's version
    unknown); tests compare it with :func:`score_float32_sums`, ``==``, for every option.

    >>> out = native_float32_scores(array("q", [3, 3, 2, 1, 3, 2]), 1, BleuOptions(max_ngram_order=2))
    >>> out is None or out.tolist() == [57.735025817754305]
    True
    """
    kernel = _native.kernel(KERNEL)
    weak = numpy_weak_scalars()
    if kernel is None or options.weights is not None or weak is None:
        return None
    out = array("d", bytes(8 * rows))
    kernel.float32_scores(sums, options.max_ngram_order, SMOOTH_CODES[options.smooth_method],
                          float(options.resolved_smooth_value or 0.0), options.effective_order, weak,
                          COMPENSATED_SUM, out)
    return out


def native_scores(sums: Any, rows: int, options: BleuOptions) -> "Optional[array[float]]":
    """:func:`table_scores` of ``rows`` rows of integer statistics (a flat int64 buffer, each in
    [0, 2**53]) in compiled code and without numpy: a float64 ``array`` (approximate randomization's
    trials on the command line). ``None`` where that code does not apply (not built,
    ``BLEUKIT_ENGINE=python``, custom ``weights``); tests compare it with :func:`table_scores`,
    ``==``, for every option.

    >>> out = native_scores(array("q", [3, 3, 2, 1, 3, 2]), 1, BleuOptions(max_ngram_order=2))
    >>> out is None or out.tolist() == [57.73502691896257]
    True
    """
    kernel = _native.kernel(KERNEL)
    if kernel is None or options.weights is not None:
        return None
    out = array("d", bytes(8 * rows))
    kernel.scores(sums, options.max_ngram_order, SMOOTH_CODES[options.smooth_method],
                  float(options.resolved_smooth_value or 0.0), options.effective_order, COMPENSATED_SUM, out)
    return out


def __getattr__(name: str) -> Any:
    if name == "NUMPY_WEAK_SCALARS":  # computed on first use (numpy imported then)
        return _weak_scalars()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass
class RowScores:
    """Scores and their parts for each row (arrays of the caller's kind, float64)."""

    score: Any  # (R,) BLEU on the 0-100 scale
    precisions: Any  # (R, N) percentages
    bp: Any  # (R,)
    counts: Any  # (R, N) matches as sacreBLEU reports them (add-k adds k for orders >= 2)
    totals: Any  # (R, N)


def score_rows(
    counts: Any, totals: Any, sys_len: Any, ref_len: Any, options: BleuOptions, *, float32: bool = False
) -> RowScores:
    """BLEU of each row from float64 statistics arrays.

    ``counts`` and ``totals`` have shape ``(R, N)``, ``sys_len`` and ``ref_len`` shape ``(R,)``.
    Every step works on all orders at once (a few dozen array operations whatever N is: on a
    GPU each is one kernel launch); sacreBLEU's loop over orders becomes running products and
    sums along the order axis, which give the same floats (doubling by 2 is exact, and the sum
    of logs is Python's ``sum`` in sacreBLEU's order).

    ``float32=True`` (numpy only) takes float32 ``counts`` and ``totals`` and does with them what
    sacreBLEU does with the float32 sums of a bootstrap resample (see :func:`score_float32_sums`).

    >>> import numpy as np
    >>> score_rows(np.array([[2.0, 0.0]]), np.array([[3.0, 2.0]]), np.array([3.0]), np.array([3.0]),
    ...            BleuOptions(max_ngram_order=2, smooth_method="exp")).precisions.round(4).tolist()
    [[66.6667, 25.0]]
    """
    xp = array_namespace(counts)
    if counts.shape[-1] != options.max_ngram_order or totals.shape[-1] != options.max_ngram_order:
        raise ValueError(f"statistics have {counts.shape[-1]} orders, options say {options.max_ngram_order}")
    if xp.__name__ == "torch" and counts.device.type == "cpu":
        # CPU tensors are numpy arrays without a copy: the exact numpy formula, torch results.
        c, t, s, r = (_host_float64(x) for x in (counts, totals, sys_len, ref_len))
        return _as_tensors(score_rows(c, t, s, r, options, float32=float32))
    # Order-major (N, R): numpy reduces along a leading axis fast and along a short last axis
    # row by row (ten times slower); on torch the transpose is a view.
    if xp.__name__ == "torch":
        counts, totals = counts.T, totals.T
    else:
        counts, totals = xp.ascontiguousarray(counts.T), xp.ascontiguousarray(totals.T)
    with _quiet(xp):
        out = _score_orders(xp, counts, totals, sys_len, ref_len, options, float32)
    return RowScores(score=out.score, precisions=out.precisions.T, bp=out.bp, counts=out.counts.T, totals=out.totals.T)


def _score_orders(
    xp: Any, counts: Any, totals: Any, sys_len: Any, ref_len: Any, options: BleuOptions, float32: bool
) -> RowScores:
    """:func:`score_rows` on order-major ``(N, R)`` counts and totals (and so its results)."""
    method = options.smooth_method
    k = options.resolved_smooth_value
    # sacreBLEU's float32 resamples: with numpy 2 every step to the precisions is a float32 one
    # (Python's floats are cast to float32 first); with numpy 1 a float32 scalar times a Python
    # float is a float64, so only the add-k sums are rounded to float32 (they are stored back).
    work = np.float32 if float32 and _weak_scalars() else None

    # Nothing matched at all: sacreBLEU returns 0 before any smoothing (its issue #141).
    any_match = (counts > 0).any(0)
    # sacreBLEU: exp(1 - ref_len / sys_len) when shorter, 0 for an empty hypothesis; here
    # ref_len / 0 = inf makes that exp(-inf) = 0 (the other branch's 0 / 0 is discarded).
    bp = xp.where(sys_len < ref_len, libm.exp(1.0 - ref_len / sys_len), 1.0)

    c, t = counts, totals
    if method == "add-k" and counts.shape[0] > 1:
        c = xp.concatenate([counts[:1], _plus(counts[1:], k, float32)])
        t = xp.concatenate([totals[:1], _plus(totals[1:], k, float32)])
        # sacreBLEU reports the added k only where something matched.
        out_counts, out_totals = xp.where(any_match, c, counts), xp.where(any_match, t, totals)
    else:
        out_counts, out_totals = counts, totals
    if float32:
        c, t = c.astype(work or np.float64), t.astype(work or np.float64)

    has_ngrams = t != 0
    still_open = _running(xp, has_ngrams, "all")  # orders before the first order without n-grams
    safe_t = xp.where(has_ngrams, t, _number(1.0, work))
    hundred = _number(100.0, work)
    unmatched = c == 0
    matched = hundred * c / safe_t
    if method == "exp":
        # mteval's smoothing: the k-th unmatched open order gets 1 / (2**k * total). Running
        # products of 1s and 2s, and 100 / 2**k, are exact in any float type, so the one rounding
        # is that of sacreBLEU's 100 / (2**k * total), also where torch divides by a reciprocal.
        mteval = _running(xp, (still_open & unmatched) + 1.0, "prod")
        mteval = mteval if work is None else mteval.astype(work)
        p = xp.where(unmatched, (hundred / mteval) / safe_t, matched)
    elif method == "floor":
        # torch computes number / tensor as reciprocal(tensor) * number (two roundings): divide a tensor
        floor = xp.full_like(safe_t, _number(100.0 * float(k or 0.0), work))
        p = xp.where(unmatched, floor / safe_t, matched)
    else:
        p = xp.where(unmatched, _number(0.0, work), matched)
    p = xp.where(still_open & any_match, p, _number(0.0, work))
    if work is not None:
        p = p.astype(np.float64)

    if options.effective_order:
        # The open orders; sacreBLEU keeps all orders when even unigrams are missing (score 0).
        in_use = still_open | ~still_open[:1]
        eff = in_use.sum(0)
    else:
        in_use, eff = None, options.max_ngram_order
    log_p = xp.where(p > 0, libm.log(p), LOG_ZERO)
    if options.weights is None:
        # Python's sum of the orders' logs, as sacreBLEU's (orders not in use add 0: no change,
        # compensation included). A LOG_ZERO term makes the score 0 whatever the sum's last bits.
        terms = log_p if in_use is None else xp.where(in_use, log_p, 0.0)
        # (On a GPU, whose exp/log are the device's anyway, a running sum: one launch.)
        total = libm.python_sum(terms) if xp.__name__ == "numpy" else _running(xp, terms, "sum")[-1]
        mean_log = total / eff
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
    score = xp.where(any_match, bp * libm.exp(mean_log), 0.0)
    return RowScores(score=score, precisions=p, bp=bp, counts=out_counts, totals=out_totals)


def _host_float64(x: Any) -> Any:
    """A CPU tensor as a float64 numpy array (its own memory when it is float64 already)."""
    import torch

    return (x if x.dtype == torch.float64 else x.to(torch.float64)).detach().numpy()


def _as_tensors(out: RowScores) -> RowScores:
    """numpy results as CPU tensors (no copy)."""
    import torch

    fields = out.__dataclass_fields__
    return RowScores(**{f: torch.from_numpy(np.asarray(getattr(out, f), dtype=np.float64)) for f in fields})


def _plus(x: Any, k: Any, float32: bool) -> Any:
    """``x + k`` as sacreBLEU's ``correct[n] += k`` computes it (in float32 for float32 resamples)."""
    if not float32:
        return x + k
    if _weak_scalars():
        return x + np.float32(k)
    return (x.astype(np.float64) + k).astype(np.float32)


def _number(value: float, work: Any) -> Any:
    """A constant of the precision arithmetic: a Python float, or a numpy scalar of ``work``."""
    return value if work is None else work(value)


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
    if xp.__name__ == "torch" and rows.device.type == "cpu":
        return _as_tensors(score_table(_host_float64(rows), options))
    rows = rows.to(xp.float64) if xp.__name__ == "torch" else rows.astype(xp.float64)
    n = options.max_ngram_order
    if rows.shape[-1] != 2 + 2 * n:
        raise ValueError(f"statistics rows have {rows.shape[-1]} columns, max_ngram_order={n} needs {2 + 2 * n}")
    return score_rows(rows[:, 2 : 2 + n], rows[:, 2 + n :], rows[:, 0], rows[:, 1], options)


#: Rows at a time of :func:`table_scores` on numpy tables.
ROW_BLOCK = 1 << 15


def table_scores(rows: Any, options: BleuOptions, threads: int = 1) -> Any:
    """``score_table(rows, options).score``, the BLEU of each row alone (sentence scores), with a
    numpy table scored ROW_BLOCK rows at a time, on up to ``threads`` threads.

    Every step's temporaries (a float64 per row and order) then stay in the caches, where a
    million rows' (32 MB a step, the float64 table 80 MB) are mapped and faulted in anew, and no
    other field is joined: a third faster. numpy and :mod:`.libm` release the GIL while they
    work on a block, so blocks score in parallel. Each row is computed alone, so the floats are
    the same whatever the blocks and threads.

    >>> import numpy as np
    >>> table_scores(np.array([[4, 4, 3, 1, 4, 3]]), BleuOptions(max_ngram_order=2)).round(6)
    array([50.])
    """
    if array_namespace(rows).__name__ == "torch" or len(rows) <= ROW_BLOCK:
        return score_table(rows, options).score
    starts = range(0, len(rows), ROW_BLOCK)

    def block(lo: int) -> Any:
        return score_table(rows[lo : lo + ROW_BLOCK], options).score

    if threads < 2:
        return np.concatenate([block(lo) for lo in starts])
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=min(threads, len(starts)), thread_name_prefix="bleukit")
    try:
        return np.concatenate(list(pool.map(block, starts)))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # on Ctrl-C only the running blocks finish


def score_float32_sums(sums: Any, options: BleuOptions) -> RowScores:
    """BLEU of statistics rows that were summed in float32, as sacreBLEU scores a bootstrap resample.

    sacreBLEU's bootstrap (``--confidence``, ``--paired-bs``) sums each resample's rows in float32
    and computes BLEU from those float32 numbers: the lengths become ints again, but with numpy 2
    the precisions are float32 arithmetic (``100. * correct / total`` on float32 scalars), so a
    resample's score differs from the exact BLEU of its sentences in the last few digits. This
    gives sacreBLEU's numbers, so bootstrap means and intervals equal its own.

    >>> import numpy as np
    >>> score_float32_sums(np.array([[3, 3, 2, 1, 3, 2]], np.float32), BleuOptions(max_ngram_order=2)).score.tolist()
    [57.735025817754305]
    """
    sums = np.asarray(sums, dtype=np.float32)
    n = options.max_ngram_order
    if sums.ndim != 2 or sums.shape[-1] != 2 + 2 * n:
        raise ValueError(f"statistics rows must have shape (R, {2 + 2 * n}) for max_ngram_order={n}, got {sums.shape}")
    lengths = sums[:, :2].astype(np.float64)  # sacreBLEU: int(stats[0]), int(stats[1])
    return score_rows(sums[:, 2 : 2 + n], sums[:, 2 + n :], lengths[:, 0], lengths[:, 1], options, float32=True)


def score_row(row: Sequence[int], options: BleuOptions) -> Tuple[float, List[float], float, List[float], List[float]]:
    """BLEU of one statistics row in plain Python floats: ``(score, precisions, bp, counts, totals)``.

    The same floating-point operations in the same order as :func:`score_rows` (``math.exp``,
    ``math.log`` and ``sum``: sacreBLEU's own), without arrays: a sentence, or a corpus's summed
    row, is scored in microseconds. Tests check it against :func:`score_table` and sacreBLEU
    with ``==``.

    >>> score_row([4, 4, 3, 1, 4, 3], BleuOptions(max_ngram_order=2))[0]  # sacreBLEU's too
    49.99999999999999
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
