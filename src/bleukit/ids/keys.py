"""How n-gram keys are built from shorter pieces, shared by the host and torch counters.

An n-gram of order n is keyed by the dense codes of two shorter pieces: its first
``split_point(n)`` ids and the rest. So only about log2(max_order) orders need dense codes.

>>> split_point(4), split_point(5), sorted(orders_needing_codes(5))
(2, 4, [1, 2, 4])
"""

from __future__ import annotations

from typing import Set

__all__ = ["split_point", "orders_needing_codes"]


def orders_needing_codes(max_order: int) -> Set[int]:
    """Orders whose n-grams need dense codes: order n is keyed by two shorter pieces (a, n - a)."""
    needed: Set[int] = set()
    for n in range(2, max_order + 1):
        a = split_point(n)
        needed.update((a, n - a))
    return needed


def split_point(n: int) -> int:
    """Where the key of an order-``n`` n-gram splits it (the largest power of two below ``n``)."""
    # The largest power of two below n: keys of order n combine codes of orders a and n - a <= a,
    # so only about log2(max_order) orders need dense codes.
    return 1 << ((n - 1).bit_length() - 1)
