"""Type stub of the compiled libm vector functions (csrc/metrics/bleu/libm.c; the glue is libm.py) and of
the BLEU formula without numpy (csrc/metrics/bleu/float32.c; the glue is formula.py)."""

from typing import Any

def exp(x: Any, out: Any) -> None: ...
def log(x: Any, out: Any) -> None: ...
def float32_scores(sums: Any, order: int, smooth_method: int, smooth_value: float, effective_order: bool,
                   weak_scalars: bool, compensated_sum: bool, out: Any) -> None:
    """``out[r]`` = sacreBLEU's BLEU of the float32 bootstrap sums in row ``r`` of ``sums`` (int64, each in
    [0, 2**24])."""
def scores(sums: Any, order: int, smooth_method: int, smooth_value: float, effective_order: bool,
           compensated_sum: bool, out: Any) -> None:
    """``out[r]`` = sacreBLEU's BLEU of the integer statistics in row ``r`` of ``sums`` (int64, each in
    [0, 2**53])."""
