"""Statistics rows of a padded batch with torch ops of fixed shapes: the host never waits.

The host counter (:mod:`bleukit.ids.counting`) shrinks its arrays as it goes (boolean indexing,
``nonzero``, sizes read back with ``.item()``), which on a GPU means a wait for the device at
each step and hundreds of small launches. Here every array has a size known from the input's
shape, so a call is a fixed sequence of launches with no wait (and can be captured in a CUDA
graph or traced by ``torch.compile`` for fixed shapes). The windows of every order (one per
position of the ``(n_seqs, width)`` matrix of :class:`~bleukit.ids.layout.Padded`, also those
that run past their sequence's end, which weigh 0) lie in one flat order-major array:

1. the key of each window: the id itself for n = 1, else the codes of two shorter pieces
   combined (``code_a * m + code_b``, exact in int64); orders whose keys need only codes of
   shorter orders are sorted together, so four orders take three sorts (orders 1, 2, then 3 and 4);
2. one stable sort per such level: equal n-grams come together, and within them windows keep
   the matrix order, which is (order, row, slot, position), so a row's hypothesis windows come
   before its references' windows; a window's code is the number of distinct keys up to it;
3. one pass over all orders at once: a group is a run of equal (key, order, row), a run one of
   equal (key, sequence); per group the hypothesis count clipped by the largest reference run
   (scatter-add and scatter-amax into buffers of the window count), added to the group's
   (order, row).

So a call is a few dozen launches whatever the batch, about 55 for four orders.

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

from typing import Any, List, Tuple

from .keys import orders_needing_codes, split_point
from .layout import Padded

__all__ = ["padded_rows", "count_padded"]

#: Windows (all orders) up to which orders share sorts and one counting pass; above, one order
#: at a time (memory of one order's arrays).
ONE_PASS_WINDOWS = 2**22

#: Codes of all orders are below max_order * n_windows + 1 = m, keys below m ** 2 (int64).
MAX_WINDOWS = 3 * 10**9


def padded_rows(batch: Padded, max_order: int) -> Tuple[Any, Any]:
    """Statistics rows ``(n_rows, 2 + 2 * max_order)`` int64 and nrefs of a :class:`Padded` batch."""
    n_seqs, width = (int(d) for d in batch.tokens.shape)
    if n_seqs * width * max_order >= MAX_WINDOWS:
        raise ValueError(
            f"{n_seqs} x {width} padded ids at max_ngram_order={max_order} in one call: split the batch "
            "(n-gram keys would overflow int64)"
        )
    return count_padded(batch.tokens, batch.lengths, batch.owner, batch.slot, batch.n_rows, batch.max_slot, max_order)


def count_padded(tokens, lengths, owner, slot, n_rows: int, max_slot: int, max_order: int) -> Tuple[Any, Any]:
    """The counting itself, a function of tensors and Python ints only (what ``torch.compile`` and
    CUDA graphs need): see the module's description for the steps."""
    import torch

    n_seqs, width = tokens.shape
    k = max_slot + 1  # sequences per row at most: the hypothesis and its references
    # Every row has all k sequences (dense inputs): sequence s is slot s % k of row s // k.
    dense = n_seqs == n_rows * k
    sys_len, ref_len, nrefs = _length_columns(lengths, owner, slot, n_rows, k, width, dense)
    orders = torch.arange(max_order, device=tokens.device)
    if n_seqs * width:
        matches = _matches(tokens, lengths, owner, slot, n_rows, k, dense, orders)
    else:
        matches = torch.zeros((n_rows, max_order), dtype=torch.int64, device=tokens.device)
    totals = (sys_len[:, None] - orders).clamp(min=0)
    rows = torch.cat([sys_len[:, None], ref_len[:, None], matches, totals], 1)
    return rows, nrefs


def _length_columns(lengths, owner, slot, n_rows: int, k: int, width: int, dense: bool):
    """``sys_len``, ``ref_len`` (closest reference length, ties to the shorter) and nrefs per row."""
    import torch

    span = width + 1
    if dense:
        per_row = lengths.view(n_rows, k)
        sys_len = per_row[:, 0]
        nrefs = torch.full((n_rows,), k - 1, dtype=torch.int64, device=lengths.device)
        if k == 2:
            return sys_len, per_row[:, 1], nrefs
        refs = per_row[:, 1:]
        # Minimise (distance, length) as one integer.
        closeness = (refs - sys_len[:, None]).abs() * span + refs
        return sys_len, closeness.amin(1) % span, nrefs
    is_hyp = slot == 0
    zeros_b = torch.zeros(n_rows, dtype=torch.int64, device=lengths.device)
    sys_len = zeros_b.scatter_add(0, owner, lengths * is_hyp)
    # Hypotheses get a value above every reference's.
    closeness = ((lengths - sys_len[owner]).abs() * span + lengths).masked_fill(is_hyp, span * span)
    ref_len = zeros_b.scatter_reduce(0, owner, closeness, "amin", include_self=False) % span
    nrefs = zeros_b.scatter_add(0, owner, (~is_hyp).to(torch.int64))
    return sys_len, ref_len, nrefs


def _levels(max_order: int, together: bool = True) -> List[Tuple[int, int]]:
    """Orders sorted together: (1, 1), (2, 2), (3, 4), (5, 8)...: those of one level are keyed by
    codes of orders of earlier levels only (one order per level unless ``together``)."""
    out, first = [], 1
    while first <= max_order:
        last = min(max(first, 2 * split_point(first)) if first > 1 and together else first, max_order)
        out.append((first, last))
        first = last + 1
    return out


def _matches(tokens, lengths, owner, slot, n_rows: int, k: int, dense: bool, orders):
    """Clipped matches ``(n_rows, max_order)``: every order's windows in one flat array of
    ``max_order * n_windows`` slots (order-major), each level sorted in its own range, then one
    counting pass over all of them (big batches: each order sorted and counted on its own)."""
    import torch

    device = tokens.device
    max_order = int(orders.shape[0])
    n_seqs, width = tokens.shape
    n_win = n_seqs * width
    total = max_order * n_win
    # Per window, one int64: the window's sequence code (order, row, slot as
    # (order * n_rows + row) * k + slot) above bit 0, which says whether the window lies inside
    # its sequence. Within an order, matrix order is code order.
    remaining = lengths[:, None] - torch.arange(width, device=device)  # ids left from each position
    if dense:
        seq_code = torch.arange(max_order * n_seqs, device=device).view(max_order, n_seqs, 1)
    else:
        seq_code = (orders * (n_rows * k))[:, None, None] + torch.add(slot, owner, alpha=k)[:, None]
    seq_code = seq_code << 1

    mult = total + 1  # codes are 1..total
    matches = torch.zeros(max_order * n_rows, dtype=torch.int64, device=device)
    # Small batches are launch-bound: orders sorted together where they can be, one counting
    # pass over all orders. Big ones: one order at a time, counted right after its sort, so the
    # temporary arrays are those of one order.
    one_pass = total <= ONE_PASS_WINDOWS
    if one_pass:
        new_key = torch.zeros(total, dtype=torch.bool, device=device)
        new_key[::n_win] = True  # each level's range starts a key
        s_tag = torch.empty(total, dtype=torch.int64, device=device)
    needed = orders_needing_codes(max_order)
    # Codes of the orders that key longer ones (the first max(needed) orders), zeros past the end.
    codes = torch.zeros(max(needed, default=0) * n_win + max_order, dtype=torch.int64, device=device)
    for first, last in _levels(max_order, together=one_pass):
        lo, hi = (first - 1) * n_win, last * n_win
        if one_pass:
            level_new_key, level_tag = new_key[lo:hi], s_tag[lo:hi]
        else:
            level_new_key = torch.ones(hi - lo, dtype=torch.bool, device=device)
            level_tag = torch.empty(hi - lo, dtype=torch.int64, device=device)
        if first == 1:
            keys = tokens.reshape(-1)
        else:
            # Orders first..last: codes of order a at window i, and of order n - a at i + a (for
            # all n of the level, one slice of ``codes``); windows that run past their
            # sequence's end read anything there, they weigh 0.
            a = split_point(first)
            tail = codes[(first - a - 1) * n_win + a : (last - a) * n_win + a].view(last - first + 1, n_win)
            keys = torch.add(tail, codes[(a - 1) * n_win : a * n_win], alpha=mult).view(-1)
        sorted_keys, perm = torch.sort(keys, stable=True)
        torch.ne(sorted_keys[1:], sorted_keys[:-1], out=level_new_key[1:])
        tags = (seq_code[first - 1 : last] | (remaining > orders[first - 1 : last, None, None])).view(-1)
        torch.index_select(tags, 0, perm, out=level_tag)
        del keys, sorted_keys, tags
        if any(first <= n <= last for n in needed):
            # Keys numbered from the start of the flat array: codes differ across orders.
            number = new_key[:hi].cumsum(0)[lo:] if one_pass else level_new_key.cumsum(0) + lo
            codes[lo:hi].scatter_(0, perm, number)
        del perm
        if not one_pass:
            _clip(level_new_key, level_tag, matches, k)
    del codes
    if one_pass:
        _clip(new_key, s_tag, matches, k)
    return matches.view(max_order, n_rows).T


def _clip(new_key, s_tag, matches, k: int) -> None:
    """Add clipped matches per (order, row) to ``matches`` from sorted windows: a group is a run
    of equal (key, order, row), a run one of equal (key, sequence). Per group, the hypothesis
    run's count clipped by the largest reference run's, added to the group's (order, row)."""
    import torch

    seq = s_tag >> 1
    first = new_key[:1]
    run = (torch.cat([first, seq[1:] != seq[:-1]]) | new_key).cumsum(0)
    row = seq // k
    is_hyp = seq % k == 0
    del seq
    new_group = torch.cat([first, row[1:] != row[:-1]]) | new_key
    group = new_group.cumsum(0)
    buffer = torch.zeros(int(s_tag.shape[0]) + 1, dtype=torch.int64, device=s_tag.device)
    run_count = buffer.scatter_add(0, run, s_tag & 1)[run]  # per window: windows inside its run
    del run
    ref_max = buffer.scatter_reduce(0, group, run_count.masked_fill(is_hyp, 0), "amax")[group]
    del buffer, group
    # The hypothesis run comes first in its group; its first window adds the clipped count.
    clipped = torch.minimum(run_count, ref_max, out=ref_max).mul_(new_group & is_hyp)
    matches.scatter_add_(0, row, clipped)
