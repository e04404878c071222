"""Statistics rows of a padded batch with torch ops of fixed shapes: the host never waits.

The host counter (:mod:`bleukit.ids.counting`) shrinks its arrays as it goes (boolean indexing,
``nonzero``, sizes read back with ``.item()``), which on a GPU means a wait for the device at
each step and hundreds of small launches. Here every array has a size known from the input's
shape, so a call is a fixed sequence of launches with no wait (and can be captured in a CUDA
graph or traced by ``torch.compile`` for fixed shapes). Per order n, on the ``(n_seqs, width)``
matrix of :class:`~bleukit.ids.layout.Padded`:

1. the key of the window starting at each position: the id itself for n = 1, else the codes of
   two shorter pieces combined (``code_a * (n_windows + 1) + code_b``, exact in int64);
2. one stable sort of all keys: equal n-grams come together, and within them windows keep the
   matrix order, which is (row, slot, position), so a row's hypothesis windows come before its
   references' windows;
3. a group is a run of equal (key, row), a run is a run of equal (key, row, slot); windows that
   run past their sequence's end (padding) stay in the arrays and weigh 0;
4. per group, the hypothesis count clipped by the largest reference run (scatter-add and
   scatter-amax into buffers of the window count), added to the group's row;
5. the group number is the code of the (n-gram, row) pair, used by longer orders.

Memory is a fixed number of int64 arrays the size of the padded input.

>>> import torch
>>> from bleukit.ids.layout import Padded
>>> batch = Padded(torch.tensor([[1, 2, 3], [1, 2, 4]]), torch.tensor([3, 3]), torch.tensor([0, 0]),
...                torch.tensor([0, 1]), n_rows=1, max_slot=1)
>>> rows, nrefs = padded_rows(batch, 2)
>>> rows.tolist(), nrefs.tolist()
([[3, 3, 2, 1, 3, 2]], [1])
"""

from __future__ import annotations

from typing import Any, Dict, Tuple

from .counting import _codes_needed, _split
from .layout import Padded

__all__ = ["padded_rows", "count_padded"]

#: Keys of order n >= 2 are below (n_windows + 1) ** 2, which must fit int64.
MAX_WINDOWS = 3 * 10**9


def padded_rows(batch: Padded, max_order: int) -> Tuple[Any, Any]:
    """Statistics rows ``(n_rows, 2 + 2 * max_order)`` int64 and nrefs of a :class:`Padded` batch."""
    n_seqs, width = (int(d) for d in batch.tokens.shape)
    if n_seqs * width >= MAX_WINDOWS:
        raise ValueError(f"{n_seqs} x {width} padded ids in one call: split the batch (n-gram keys would overflow int64)")
    return count_padded(batch.tokens, batch.lengths, batch.owner, batch.slot, batch.n_rows, batch.max_slot, max_order)


def count_padded(tokens, lengths, owner, slot, n_rows: int, max_slot: int, max_order: int) -> Tuple[Any, Any]:
    """The counting itself, a function of tensors and Python ints only (what ``torch.compile`` and
    CUDA graphs need): see the module's description for the steps."""
    import torch

    n_seqs, width = tokens.shape
    device = tokens.device
    sys_len, ref_len, nrefs = _length_columns(lengths, owner, slot, n_rows, width)
    slot_bits = max(max_slot.bit_length(), 1)
    # Per window, one int64 carries (owner, slot, counts?): bit 0 says whether the window lies
    # inside its sequence; above it the slot, above that the owner. Matrix order is tag order.
    tag = ((owner << slot_bits) | slot) << 1
    remaining = lengths[:, None] - torch.arange(width, device=device)  # ids left in the sequence
    first = torch.ones(1, dtype=torch.bool, device=device)
    matches = torch.zeros((n_rows, max_order), dtype=torch.int64, device=device)
    mult = n_seqs * width + 1  # group numbers are 1..n_windows
    needed = _codes_needed(max_order)
    codes: Dict[int, Any] = {}
    for n in range(1, max_order + 1):
        n_win = width - n + 1
        if n_win <= 0:
            continue
        if n == 1:
            key = tokens
        else:
            a = _split(n)
            key = torch.add(codes[n - a][:, a : a + n_win], codes[a][:, :n_win], alpha=mult)
        window_tag = tag[:, None] | (remaining[:, :n_win] >= n)
        sorted_key, perm = torch.sort(key.reshape(-1), stable=True)
        group = _count_order(sorted_key, window_tag.reshape(-1)[perm], slot_bits, n == 1, first, matches[:, n - 1])
        if n in needed:
            codes[n] = torch.empty_like(group).scatter_(0, perm, group).reshape(n_seqs, n_win)
    totals = (sys_len[:, None] - torch.arange(max_order, device=device)).clamp(min=0)
    rows = torch.cat([sys_len[:, None], ref_len[:, None], matches, totals], 1)
    return rows, nrefs


def _length_columns(lengths, owner, slot, n_rows: int, width: int):
    """``sys_len``, ``ref_len`` (closest reference length, ties to the shorter) and nrefs per row."""
    import torch

    is_hyp = slot == 0
    zeros_b = torch.zeros(n_rows, dtype=torch.int64, device=lengths.device)
    sys_len = zeros_b.scatter_add(0, owner, lengths * is_hyp)
    # Minimise (distance, length) as one integer; hypotheses get a value above every reference's.
    span = width + 1
    closeness = ((lengths - sys_len[owner]).abs() * span + lengths).masked_fill(is_hyp, span * span)
    ref_len = zeros_b.scatter_reduce(0, owner, closeness, "amin", include_self=False) % span
    nrefs = zeros_b.scatter_add(0, owner, (~is_hyp).to(torch.int64))
    return sys_len, ref_len, nrefs


def _count_order(sorted_key, s_tag, slot_bits: int, key_lacks_owner: bool, first, row_matches):
    """Add one order's clipped matches to ``row_matches`` (a column of the matches table) from the
    sorted keys and their windows' tags; returns each window's group number (1, 2, ...)."""
    import torch

    new_key = sorted_key[1:] != sorted_key[:-1]
    change = s_tag[1:] ^ s_tag[:-1]
    # Longer orders' keys hold codes of (n-gram, row) pairs, so a new key already means a new
    # group; order 1's keys are the ids themselves, the owner bits tell.
    new_group = new_key | (change >> (slot_bits + 1) != 0) if key_lacks_owner else new_key
    group = torch.cat([first, new_group]).cumsum(0)
    run = torch.cat([first, new_key | (change > 1)]).cumsum(0)  # bit 0 (inside or not) splits no run
    buffer = torch.zeros(int(sorted_key.shape[0]) + 1, dtype=torch.int64, device=sorted_key.device)
    run_count = buffer.scatter_add(0, run, s_tag & 1)[run]  # per window: windows inside its run
    slot_of = s_tag & (((1 << slot_bits) - 1) << 1)
    ref_max = buffer.scatter_reduce(0, group, run_count * (slot_of != 0), "amax")
    # The hypothesis run comes first in its group; its first window adds the clipped count.
    first_hyp = torch.cat([first, new_group]) & (slot_of == 0)
    clipped = torch.where(first_hyp, torch.minimum(run_count, ref_max[group]), 0)
    row_matches.scatter_add_(0, s_tag >> (slot_bits + 1), clipped)
    return group
