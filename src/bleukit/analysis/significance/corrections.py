"""Corrections of p-values for multiple comparisons (family-wise error rate): Holm and Bonferroni."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

__all__ = ["CORRECTIONS", "check_correction", "adjust_p_values"]

#: The corrections for multiple comparisons :func:`adjust_p_values` knows.
CORRECTIONS = ("holm", "bonferroni")


def check_correction(correction: Any) -> Optional[str]:
    """``correction`` if it is ``None`` or one of :data:`CORRECTIONS`, else a ``ValueError``."""
    if correction is not None and correction not in CORRECTIONS:
        raise ValueError(f"unknown correction={correction!r}; choose one of {', '.join(CORRECTIONS)} (or None)")
    return correction


def adjust_p_values(p_values: Sequence[float], method: str = "holm") -> List[float]:
    """p-values corrected for testing them all at once (family-wise error rate), in the given order.

    - ``"holm"`` (Holm 1979, step-down Bonferroni): with the p-values sorted ascending
      ``p(1) <= ... <= p(m)``, ``adjusted(k) = max over j <= k of min(1, (m - j + 1) * p(j))``.
      A hypothesis is rejected at level alpha exactly when Holm's procedure rejects it, i.e. when
      its adjusted p-value is at most alpha; never less powerful than Bonferroni.
    - ``"bonferroni"``: ``min(1, m * p)``.

    >>> adjust_p_values([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    >>> adjust_p_values([0.01, 0.04, 0.03], "bonferroni")
    [0.03, 0.12, 0.09]
    """
    check_correction(method)
    values = [float(p) for p in p_values]
    for p in values:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p-values must lie in [0, 1], got {p!r}")
    m = len(values)
    if method == "bonferroni":
        return [min(1.0, m * p) for p in values]
    out = [0.0] * m
    running = 0.0
    # a stable sort: equal p-values keep their order, and the running maximum makes them equal anyway
    for rank, i in enumerate(sorted(range(m), key=values.__getitem__)):
        running = max(running, min(1.0, (m - rank) * values[i]))
        out[i] = running
    return out
