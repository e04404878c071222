"""Statistics rows of a flat batch of ids: one sort per n-gram order, runs of equal n-grams are counts.

Per order, every n-gram start becomes one int64 holding (n-gram key, owner row, slot[, start
within its sequence]); one sort puts equal n-grams of one row side by side, hypothesis first
then each reference. Runs of equal (key, owner, slot) are counts; the hypothesis run of a
(key, owner) group is clipped by the largest reference run of the group. Keys of order n combine
dense codes of two shorter pieces, so ids of any size fit; n-grams whose pieces occur on only
one side of a row are dropped before the next order, since they cannot match.

The steps, in order: :func:`length_columns` (``sys_len``, ``ref_len``, ``nrefs``),
:func:`sequence_tags` (bit fields of owner and slot), then per order :func:`order_keys`,
:func:`sort_runs`, :func:`clipped_matches` and, where a longer order needs it,
:func:`dense_codes`; :func:`host_blocks` runs them on cache-sized blocks of rows. This is the host
counter (numpy); :mod:`bleukit.ids.torch_counting` is the fixed-shape torch one, and
:func:`bleukit.ids.api.count_batch` chooses between them and the compiled kernel.

>>> from bleukit.ids.backends import NumpyOps
>>> from bleukit.ids.layout import gather
>>> ops = NumpyOps()
>>> flat = gather([[1, 2, 3]], [[1, 2, 4]], pad_id=None, hyp_lengths=None, ref_lengths=None, ops=ops)
>>> rows, nrefs = count_rows(flat, 2, ops)
>>> rows.tolist(), nrefs.tolist()
([[3, 3, 2, 1, 3, 2]], [1])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Set, Tuple

import numpy as np

from .backends import NumpyOps
from .keys import orders_needing_codes, split_point
from .layout import Flat

__all__ = ["HOST_BLOCK_IDS", "host_blocks", "count_rows"]

_INT64_MAX = 2**63 - 1

#: On the host, rows are counted in blocks of about this many ids (hypotheses and references):
#: the working arrays of a block stay in the CPU caches, which about halves the time of a large
#: batch. Accelerators get the whole batch at once.
HOST_BLOCK_IDS = 1 << 16


def host_blocks(flat: Flat, max_order: int, ops: NumpyOps) -> Tuple[Any, Any]:
    """:func:`count_rows` on blocks of whole rows of about :data:`HOST_BLOCK_IDS` ids."""
    n_ids = int(flat.tokens.shape[0])
    if n_ids <= HOST_BLOCK_IDS:
        return count_rows(flat, max_order, ops)
    seq_start = np.cumsum(flat.lengths) - flat.lengths
    # Sequences are ordered by row, so a block of rows is a contiguous slice of sequences and ids.
    ids_per_row = np.bincount(flat.owner, weights=flat.lengths, minlength=flat.n_rows)
    ids_before_row = np.concatenate([[0], np.cumsum(ids_per_row)])
    cuts = np.searchsorted(ids_before_row, np.arange(HOST_BLOCK_IDS, n_ids, HOST_BLOCK_IDS), side="right") - 1
    row_cuts = np.unique(np.concatenate([[0], cuts, [flat.n_rows]]))
    seq_cuts = np.searchsorted(flat.owner, row_cuts)
    rows, nrefs = [], []
    for r0, r1, s0, s1 in zip(row_cuts[:-1], row_cuts[1:], seq_cuts[:-1], seq_cuts[1:]):
        t0 = seq_start[s0]
        t1 = seq_start[s1] if s1 < len(seq_start) else n_ids
        block = Flat(flat.tokens[t0:t1], flat.lengths[s0:s1], flat.owner[s0:s1] - r0, flat.slot[s0:s1], int(r1 - r0))
        block_rows, block_nrefs = count_rows(block, max_order, ops)
        rows.append(block_rows)
        nrefs.append(block_nrefs)
    return np.concatenate(rows), np.concatenate(nrefs)


def count_rows(flat: Flat, max_order: int, ops: NumpyOps) -> Tuple[Any, Any]:
    """Statistics rows ``(n_rows, 2 + 2 * max_order)`` int64 and the number of references per row."""
    n_ids = int(flat.tokens.shape[0])
    if n_ids >= 3 * 10**9:
        raise ValueError(f"{n_ids} ids in one call: split the batch (n-gram keys would overflow int64)")
    sys_len, ref_len, nrefs = length_columns(flat, ops)
    matches = [ops.zeros(flat.n_rows)] * max_order
    totals = [(sys_len - k) * (sys_len > k) for k in range(max_order)]
    if n_ids > 0:
        tags = sequence_tags(flat, ops)
        needed = orders_needing_codes(max_order)
        codes: Dict[int, Tuple[Any, int]] = {}  # order -> (dense code per id position, number of codes)
        pruned: Set[int] = set()  # orders whose codes mark unmatchable n-grams with -1
        for n in range(1, max_order + 1):
            if n_ids - n + 1 <= 0:
                break
            keys = order_keys(n, flat.tokens, tags, codes, pruned, ops)
            if keys.code is not None:
                codes[1] = keys.code
            want_code = n in needed and keys.code is None
            runs = sort_runs(keys, tags, want_code, ops)
            if runs is None:
                break
            matches[n - 1], hyp_runs = clipped_matches(runs, tags, flat.n_rows, ops)
            if want_code:
                codes[n] = dense_codes(runs, hyp_runs, tags, n_ids, ops)
                pruned.add(n)
    return ops.stack([sys_len, ref_len] + matches + totals, 1), nrefs


def length_columns(flat: Flat, ops: NumpyOps) -> Tuple[Any, Any, Any]:
    """``sys_len`` and ``ref_len`` (closest reference length, ties to the shorter) of each row, and nrefs."""
    hyp_seq = ops.nonzero(flat.slot == 0)
    ref_seq = ops.nonzero(flat.slot != 0)
    sys_len = flat.lengths[hyp_seq]
    ref_lens = flat.lengths[ref_seq]
    ref_owner = flat.owner[ref_seq]
    # Minimise (distance, length) as one integer.
    span = ops.to_int(ref_lens.max()) + 1
    closeness = abs(ref_lens - sys_len[ref_owner]) * span + ref_lens
    first_ref = ops.nonzero(ops.cat([ops.ones_bool(1), ref_owner[1:] != ref_owner[:-1]]))
    ref_len = ops.segment_min(closeness, first_ref, ref_owner, flat.n_rows) % span
    return sys_len, ref_len, ops.count_per(ref_owner, flat.n_rows)


@dataclass
class Tags:
    """Owner row and slot of every id as bit fields ``(owner << slot_bits) | slot``, in sorting order."""

    tag_of: Any  # (n_ids,) tag of the sequence each id belongs to
    remaining: Any  # (n_ids,) ids from this one to the end of its sequence
    tokens: Any
    lengths: Any
    seq_start: Any  # (n_seqs,) where each sequence starts
    start_of_tag: Any  # seq_start indexed by tag
    slot_bits: int
    tag_bits: int
    pos_bits: int  # bits of a position within a sequence
    max_slot: int

    @property
    def slot_mask(self) -> int:
        return (1 << self.slot_bits) - 1

    @property
    def tag_mask(self) -> int:
        return (1 << self.tag_bits) - 1

    @property
    def owner_mask(self) -> int:
        return (1 << (self.tag_bits - self.slot_bits)) - 1

    tag_pos: Any = None  # (tag, position in sequence) per id, built when an order needs dense codes


def sequence_tags(flat: Flat, ops: NumpyOps) -> Tags:
    """The bit fields every order's sort keys end with."""
    seq_len = flat.lengths
    n_ids = int(flat.tokens.shape[0])
    max_slot = ops.to_int(flat.slot.max())
    slot_bits = max(max_slot.bit_length(), 1)
    seq_tag = (flat.owner << slot_bits) | flat.slot
    tag_bits = max(ops.to_int(seq_tag.max()).bit_length(), 1)
    seq_end = ops.cumsum(seq_len)
    seq_start = seq_end - seq_len
    start_of_tag = ops.zeros(flat.n_rows << slot_bits)
    start_of_tag[seq_tag] = seq_start
    return Tags(
        tag_of=ops.repeat(seq_tag, seq_len),
        remaining=ops.repeat(seq_end, seq_len) - ops.arange(n_ids),
        tokens=flat.tokens,
        lengths=seq_len,
        seq_start=seq_start,
        start_of_tag=start_of_tag,
        slot_bits=slot_bits,
        tag_bits=tag_bits,
        pos_bits=max((ops.to_int(seq_len.max()) - 1).bit_length(), 1),
        max_slot=max_slot,
    )


@dataclass
class OrderKeys:
    """The n-grams of one order: a key per window start and which windows count."""

    n: int
    key: Any  # (width,) int64, windows starting at 0..width-1
    limit: int  # largest key
    valid: Optional[Any]  # bool mask of windows inside one sequence whose pieces can match; None: all
    code: Optional[Tuple[Any, int]]  # order 1 only: ids that are their own dense codes


def order_keys(
    n: int, tokens: Any, tags: Tags, codes: Dict[int, Tuple[Any, int]], pruned: Set[int], ops: NumpyOps
) -> OrderKeys:
    """Keys of the order-``n`` windows: the ids themselves for n = 1, else two shorter pieces' codes."""
    n_ids = int(tokens.shape[0])
    width = n_ids - n + 1
    if n == 1:
        low, high = ops.to_int(tokens.min()), ops.to_int(tokens.max())
        code = None
        if high - low < n_ids:
            # Ids already span a small range: they are their own code, no densifying needed.
            code = (tokens - low, high - low + 1)
        key = tokens - low if high - low <= _INT64_MAX else tokens
        return OrderKeys(1, key, min(high - low, _INT64_MAX), None, code)
    a = split_point(n)
    code_a, _ = codes[a]
    code_b, size_b = codes[n - a]
    key = code_a[:width] * size_b
    key += code_b[a : a + width]
    valid = tags.remaining[:width] >= n
    # An n-gram can only match if both of its pieces occur in the hypothesis and in a reference
    # of the same row; pieces that did not were given code -1.
    for piece, offset in ((a, 0), (n - a, a)):
        if piece in pruned:
            valid &= codes[piece][0][offset : offset + width] >= 0
    return OrderKeys(n, key, ops.to_int(key.max()), valid, None)


@dataclass
class Runs:
    """One order's windows sorted by (key, owner, slot): where runs and (key, owner) groups start."""

    new_run: Any  # bool per sorted window: a run of equal (key, tag) starts here
    new_group: Any  # bool: a group of equal (key, owner) starts here
    packed: Any  # packed path (None on the other path): sorted (key, tag[, position]) integers
    r: Any  # packed path (None on the other path): sorted (key, tag)
    s_pos: Any  # wide path (None on the other path): window start of each sorted window
    s_tag: Any  # wide path (None on the other path): tag of each sorted window
    new_key: Any  # wide path (None on the other path): a new key starts here
    pos_bits: int  # position bits in ``packed`` (0 unless codes are wanted)


def sort_runs(keys: OrderKeys, tags: Tags, want_code: bool, ops: NumpyOps) -> Optional[Runs]:
    """Sort the windows so equal n-grams of a row lie side by side, hypothesis first; None when none are left."""
    width = int(keys.key.shape[0])
    pos_bits = tags.pos_bits if want_code else 0
    low_bits = tags.tag_bits + pos_bits
    if keys.limit.bit_length() + low_bits <= 63:
        if want_code and tags.tag_pos is None:
            n_ids = int(tags.tokens.shape[0])
            within = ops.arange(n_ids) - ops.repeat(tags.seq_start, tags.lengths)
            tags.tag_pos = (tags.tag_of << tags.pos_bits) | within
        packed = keys.key << low_bits
        packed |= (tags.tag_pos if want_code else tags.tag_of)[:width]
        if keys.valid is not None:
            packed = packed[keys.valid]
        packed = ops.sort(packed)
        r = packed >> pos_bits if pos_bits else packed  # (key, tag)
        runs = Runs(_changes(ops, r), _changes(ops, r >> tags.slot_bits), packed, r, None, None, None, pos_bits)
    else:
        # Keys too wide to share an int64 with the tags: a stable index sort keeps ids in
        # (owner, slot, position) order within equal keys, which is the same arrangement.
        starts = ops.arange(width) if keys.valid is None else ops.nonzero(keys.valid)
        order = ops.argsort(keys.key[starts], stable=True)
        s_pos = starts[order]
        s_tag = tags.tag_of[s_pos]
        new_key = _changes(ops, keys.key[s_pos])
        runs = Runs(
            new_key | _changes(ops, s_tag), new_key | _changes(ops, s_tag >> tags.slot_bits),
            None, None, s_pos, s_tag, new_key, pos_bits,
        )
    if int(runs.new_run.shape[0]) == 0:
        return None
    return runs


@dataclass
class HypRuns:
    """Run-level view of one order, kept for :func:`dense_codes`."""

    index: Any  # runs of hypothesis n-grams that a reference of the same row also has
    run_first: Any
    run_len: Any
    run_new_group: Any


def clipped_matches(runs: Runs, tags: Tags, n_rows: int, ops: NumpyOps) -> Tuple[Any, HypRuns]:
    """Matches of one order per row: each hypothesis run clipped by its group's longest reference run."""
    m = int(runs.new_run.shape[0])
    run_first = ops.nonzero(runs.new_run)
    n_runs = int(run_first.shape[0])
    run_len = ops.diff_append(run_first, m)
    if runs.r is not None:
        run_tag = runs.r[run_first] & tags.tag_mask
    else:
        run_tag = runs.s_tag[run_first]
    run_new_group = runs.new_group[run_first]
    # Only hypothesis runs directly followed by a run of the same group (a reference run: slots
    # sort after the hypothesis) can match; one group holds one hypothesis run.
    hyp_runs = ops.nonzero(((run_tag[:-1] & tags.slot_mask) == 0) & ~run_new_group[1:])
    if tags.max_slot <= 8:
        ref_max = run_len[hyp_runs + 1]
        same = None
        for k in range(2, tags.max_slot + 1):
            nxt = hyp_runs + k
            inside = nxt < n_runs
            nxt = nxt * inside
            same_k = inside & ~run_new_group[nxt]
            same = same_k if same is None else same & same_k
            ref_max = ops.maximum(ref_max, run_len[nxt] * same)
    else:
        run_group = ops.cumsum(run_new_group) - 1
        group_first_run = ops.nonzero(run_new_group)
        is_ref = (run_tag & tags.slot_mask) != 0
        ref_max = ops.segment_max(run_len * is_ref, group_first_run, run_group, int(group_first_run.shape[0]))
        ref_max = ref_max[run_group[hyp_runs]]
    clipped = ops.minimum(run_len[hyp_runs], ref_max)
    matches = ops.count_per((run_tag[hyp_runs] >> tags.slot_bits) & tags.owner_mask, n_rows, weights=clipped)
    return matches, HypRuns(hyp_runs, run_first, run_len, run_new_group)


def dense_codes(runs: Runs, hyp: HypRuns, tags: Tags, n_ids: int, ops: NumpyOps) -> Tuple[Any, int]:
    """Dense code of each n-gram that occurs in a hypothesis and a reference of the same row, per
    window start; the rest keep -1, so longer n-grams containing them are skipped."""
    run_group = ops.cumsum(hyp.run_new_group) - 1
    group_alive = ops.zeros_bool(ops.to_int(run_group[-1]) + 1)
    group_alive[run_group[hyp.index]] = True
    alive = ops.nonzero(ops.repeat(group_alive[run_group], hyp.run_len))
    if runs.r is not None:
        new_key = _changes(ops, runs.r >> tags.tag_bits)
        s_pos = tags.start_of_tag[runs.r[alive] & tags.tag_mask] + (runs.packed[alive] & ((1 << runs.pos_bits) - 1))
    else:
        new_key = runs.new_key
        s_pos = runs.s_pos[alive]
    dense = ops.cumsum(new_key)
    code = ops.zeros(n_ids) - 1
    code[s_pos] = dense[alive] - 1
    return code, ops.to_int(dense[-1])


def _changes(ops: NumpyOps, a: Any) -> Any:
    """Boolean array: True where an element differs from the one before (and at the start)."""
    out = ops.ones_bool(int(a.shape[0]))
    out[1:] = a[1:] != a[:-1]
    return out
