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
   scatter-amax into buffers of the window count), summed per row;
5. the group number is the code of the n-gram within its row, used by longer orders.

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

from typing import Any, Dict, List, Tuple

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
    sys_len, ref_len, nrefs = _length_columns(lengths, owner, slot, n_rows, width)
    slot_bits = max(max_slot.bit_length(), 1)
    tag = (owner << slot_bits) | slot  # in matrix order: sorted by (owner, slot)
    zeros_b = torch.zeros(n_rows, dtype=torch.int64, device=tokens.device)
    first = torch.ones(1, dtype=torch.bool, device=tokens.device)
    mult = n_seqs * width + 1
    needed = _codes_needed(max_order)
    codes: Dict[int, Any] = {}
    matches: List[Any] = []
    for n in range(1, max_order + 1):
        n_win = width - n + 1
        if n_win <= 0:
            matches.append(zeros_b)
            continue
        if n == 1:
            key = tokens
        else:
            a = _split(n)
            key = codes[a][:, :n_win] * mult + codes[n - a][:, a : a + n_win]
        inside = torch.arange(n, n_win + n, device=tokens.device) <= lengths[:, None]  # window ends in its sequence
        sorted_key, perm = torch.sort(key.reshape(-1), stable=True)
        s_tag = tag[perm // n_win]
        s_weight = inside.reshape(-1)[perm]
        row_matches, group = _clipped_matches(sorted_key, s_tag, s_weight, slot_bits, zeros_b, first)
        matches.append(row_matches)
        if n in needed:
            codes[n] = torch.empty_like(group).scatter_(0, perm, group).reshape(n_seqs, n_win)
    totals = [(sys_len - k).clamp(min=0) for k in range(max_order)]
    return torch.stack([sys_len, ref_len] + matches + totals, 1), nrefs


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


def _clipped_matches(sorted_key, s_tag, s_weight, slot_bits: int, zeros_b, first):
    """Matches per row of one order from the sorted windows, and each window's group number."""
    import torch

    key_change = sorted_key[1:] != sorted_key[:-1]
    tag_change = s_tag[1:] != s_tag[:-1]
    owner_change = (s_tag[1:] ^ s_tag[:-1]) >> slot_bits != 0
    new_group = torch.cat([first, key_change | owner_change])
    new_run = torch.cat([first, key_change | tag_change])
    group = new_group.cumsum(0) - 1
    run = new_run.cumsum(0) - 1
    is_ref = (s_tag & ((1 << slot_bits) - 1)) != 0
    weight = s_weight.to(torch.int64)
    buffer = torch.zeros_like(group)
    hyp_count = buffer.scatter_add(0, group, weight * ~is_ref)
    run_count = buffer.scatter_add(0, run, weight)
    ref_max = buffer.scatter_reduce(0, group, run_count[run] * is_ref, "amax")
    clipped = torch.minimum(hyp_count, ref_max)
    # Each group's clipped count goes to its row once, from the group's first window.
    row_matches = zeros_b.scatter_add(0, s_tag >> slot_bits, clipped[group] * new_group)
    return row_matches, group
