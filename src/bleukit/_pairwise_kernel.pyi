"""Typed signatures of bleukit's compiled pairwise match loop (``csrc/pairwise.c``).

Call it through :mod:`bleukit.pairwise`, which builds the counted tables. Every array argument is
a C-contiguous, aligned int64 buffer (a numpy ``int64`` array). Both entry points release the GIL
and raise ``KeyboardInterrupt`` on Ctrl-C.
"""

from typing_extensions import Buffer

def pair_matches(
    hyp_ptr: Buffer,
    hyp_gid: Buffer,
    hyp_ord: Buffer,
    hyp_cnt: Buffer,
    post_ptr: Buffer,
    post_ref: Buffer,
    post_cnt: Buffer,
    i0: int,
    i1: int,
    m: int,
    order: int,
    out: Buffer,
    threads: int,
    width: int = -1,
    offset: int = 0,
    /,
) -> None:
    """Zero out ((i1 - i0) x m x width) and write the clipped n-gram matches of hypotheses
    i0..i1-1 against references 0..m-1 into its columns offset..offset+order-1 (width -1 means
    order)."""

def unique_rows(rows: Buffer, width: int, first_out: Buffer, inverse_out: Buffer, /) -> int:
    """Number k of distinct rows of an (R, width) table; first_out[:k] holds their first row
    indices, inverse_out each row's distinct row."""
