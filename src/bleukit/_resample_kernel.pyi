"""Typed signatures of bleukit's compiled resampling (``csrc/resample/resample.c``).

Call it through :mod:`bleukit.resampling`. Array arguments are C-contiguous, aligned buffers (a
numpy array or an ``array.array``): int64 (``"q"``) unless said otherwise.
"""

from typing import Final, Sequence

from typing_extensions import Buffer

#: Whether this build has 128-bit integers (PCG64); without them ``Generator`` refuses to start.
HAVE_UINT128: Final[int]

class Generator:
    """numpy's ``default_rng(seed)`` for the seed whose 32-bit words, least significant first, are
    ``entropy`` (:func:`bleukit.resampling.seed_words`)."""

    def __init__(self, entropy: Sequence[int]) -> None: ...
    def integers(self, high: int, out: Buffer, /) -> None:
        """Fill ``out`` with numpy's ``rng.integers(0, high, size=len(out), dtype=np.int64)``, 1 <= high < 2**32."""
    def resample_sums(self, table: Buffer, systems: int, width: int, out: Buffer, /) -> None:
        """``gather_sums(table, systems, width, indices, out)`` of the ``k * rows`` draws that
        ``integers(rows, indices)`` would make next (``out`` holds ``k * systems * width`` items:
        ``k`` resamples), drawn and summed a block of ~32k draws at a time, the table packed once.
        Releases the GIL while it sums; refuses what ``gather_sums`` refuses, before any draw."""
    def randomization_sums(self, table: Buffer, systems: int, width: int, pairs: Buffer, out: Buffer, /) -> None:
        """Approximate randomization's trial statistics: ``out`` (k, P, 2, width) holds, for trial
        ``s`` and pair ``q`` of ``pairs`` (``[a0, b0, a1, b1, ...]``, systems of ``table``), the
        corpus sums of ``a`` and ``b`` after swapping their rows whose coin flip is set, the
        ``k * rows`` flips being the next that numpy's ``integers(2, size=k * rows, dtype=bool)``
        would draw (the bits of 32-bit words; a call's unused bits are dropped, as numpy does).
        Releases the GIL while it sums; refuses what ``gather_sums`` refuses, before any draw."""

def gather_sums(table: Buffer, systems: int, width: int, indices: Buffer, out: Buffer, /) -> None:
    """``out[s, j, :]`` = the sum over ``i`` of ``table[j, indices[s, i], :]``: ``table`` is
    (systems, rows, width), ``indices`` (k, n), ``out`` (k, systems, width). Releases the GIL;
    refuses (``ValueError``) a table whose sums might reach 2**31."""

def largest_item(table: Buffer, /) -> int:
    """The largest item of ``table`` (0 when empty); ``ValueError`` for a negative one."""

def pairwise_sum(values: Buffer, /) -> float:
    """numpy's sum of a float64 buffer: its pairwise summation (8 running sums per block of 128)."""
