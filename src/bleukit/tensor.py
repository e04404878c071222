"""BLEU on token ids: per-sentence scores and corpus results for whole batches, on any device.

Reinforcement learning from BLEU rewards and quick in-training evaluation have ids, not text.
This module counts the same statistics the text path counts (one row per hypothesis, sacreBLEU's
column order) straight from the ids, with array operations over the whole batch, and scores them
with :func:`bleukit.scoring.score_table` (the one BLEU formula). The numbers equal sacreBLEU with
``tokenize="none"`` on the ids written as space-separated strings.

Inputs are padded 2-D torch tensors or numpy arrays ``(batch, length)``, or lists of id lists.
References are a 2-D array (one per row), a 3-D array ``(batch, n_refs, length)``, a list of 2-D
arrays (one per reference set), or, for lists, ``refs[i]`` = one id list or a list of id lists
(``None`` marks a missing one). torch is optional: it is imported only when a tensor is given,
and a torch result stays on the device of its input.

How the counting stays linear in the number of ids: one order at a time, every n-gram becomes a
single int64 holding its key (dense codes of two shorter pieces, so ids of any size fit), its
row and its slot (hypothesis or k-th reference); one sort puts equal n-grams of a row side by
side, hypothesis first, and runs in the sorted array are the counts. No batch x vocabulary matrix
is ever built (dense count matrices grow with batch x distinct n-grams). On the host the rows
are processed in cache-sized blocks; n-grams whose pieces occur on only one side of a row are
dropped before the next order, since they cannot match.

>>> import numpy as np
>>> hyps = np.array([[1, 2, 3, 4, 0], [5, 6, 7, 0, 0]])
>>> refs = np.array([[1, 2, 3, 4, 5], [5, 6, 8, 0, 0]])
>>> sentence_bleu_ids(hyps, refs, pad_id=0).round(4).tolist()
[77.8801, 55.0321]
>>> corpus_bleu_ids([[1, 2, 3, 4]], [[[1, 2, 3, 4], [9]]]).signature.split("|")[:4]
['nrefs:2', 'case:mixed', 'eff:no', 'tok:none']
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from itertools import chain
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from .bleu import score_statistics
from .options import DEFAULT_MAX_NGRAM_ORDER, BleuOptions
from .result import BLEUResult
from .scoring import score_table
from .statistics import BleuStatistics

__all__ = ["sentence_bleu_ids", "corpus_bleu_ids", "id_statistics", "id_statistics_rows"]

PadIds = Union[None, int, Sequence[int]]
_INT64_MAX = 2**63 - 1


# --------------------------------------------------------------------------------------------
# Array backends. The counting below is written once; these are the few operations whose
# spelling differs between numpy and torch.


class _NumpyOps:
    kind = "numpy"

    def arange(self, n):
        return np.arange(n, dtype=np.int64)

    def zeros(self, n, dtype=np.int64):
        return np.zeros(n, dtype=dtype)

    def ones_bool(self, n):
        return np.ones(n, dtype=bool)

    def zeros_bool(self, n):
        return np.zeros(n, dtype=bool)

    def diff_append(self, x, last):
        return np.diff(x, append=last)

    def cat(self, parts):
        return np.concatenate(parts)

    def stack(self, parts, axis):
        return np.stack(parts, axis)

    def repeat(self, values, counts):
        return np.repeat(values, counts)

    def sort(self, x):
        return np.sort(x)

    def argsort(self, x, stable=False):
        return np.argsort(x, kind="stable" if stable else None)

    def nonzero(self, mask):
        return np.flatnonzero(mask)

    def cumsum(self, x):
        return np.cumsum(x, dtype=np.int64)

    def isin(self, x, values):
        return np.isin(x, np.asarray(values, dtype=np.int64))

    def count_per(self, index, size, weights=None):
        # float64 bincount is exact here: every sum is a count below 2**53.
        out = np.bincount(index, weights=weights, minlength=size)
        return out.astype(np.int64)

    def segment_max(self, values, seg_first, seg_index, size):
        return np.maximum.reduceat(values, seg_first)

    def segment_min(self, values, seg_first, seg_index, size):
        return np.minimum.reduceat(values, seg_first)

    def to_int(self, x) -> int:
        return int(x)

    def minimum(self, a, b):
        return np.minimum(a, b)

    def maximum(self, a, b):
        return np.maximum(a, b)

    def as_index_array(self, x):
        return np.asarray(x, dtype=np.int64)

    def to_numpy(self, x):
        return x


class _TorchOps:
    kind = "torch"

    def __init__(self, torch, device):
        self.torch = torch
        self.device = device

    def arange(self, n):
        return self.torch.arange(n, dtype=self.torch.int64, device=self.device)

    def zeros(self, n, dtype=None):
        return self.torch.zeros(n, dtype=dtype or self.torch.int64, device=self.device)

    def ones_bool(self, n):
        return self.torch.ones(n, dtype=self.torch.bool, device=self.device)

    def zeros_bool(self, n):
        return self.torch.zeros(n, dtype=self.torch.bool, device=self.device)

    def diff_append(self, x, last):
        return self.torch.diff(x, append=self.as_index_array([last]))

    def cat(self, parts):
        return self.torch.cat(parts)

    def stack(self, parts, axis):
        return self.torch.stack(parts, axis)

    def repeat(self, values, counts):
        return self.torch.repeat_interleave(values, counts)

    def sort(self, x):
        return self.torch.sort(x).values

    def argsort(self, x, stable=False):
        return self.torch.sort(x, stable=stable).indices

    def nonzero(self, mask):
        return self.torch.nonzero(mask).reshape(-1)

    def cumsum(self, x):
        return self.torch.cumsum(x, 0, dtype=self.torch.int64)

    def isin(self, x, values):
        return self.torch.isin(x, self.torch.as_tensor(list(values), dtype=self.torch.int64, device=self.device))

    def count_per(self, index, size, weights=None):
        out = self.zeros(size)
        src = self.torch.ones_like(index) if weights is None else weights.to(self.torch.int64)
        return out.scatter_add_(0, index, src)

    def segment_max(self, values, seg_first, seg_index, size):
        return self.zeros(size).scatter_reduce_(0, seg_index, values, "amax", include_self=False)

    def segment_min(self, values, seg_first, seg_index, size):
        return self.zeros(size).scatter_reduce_(0, seg_index, values, "amin", include_self=False)

    def to_int(self, x) -> int:
        return int(x.item()) if hasattr(x, "item") else int(x)

    def minimum(self, a, b):
        return self.torch.minimum(a, b)

    def maximum(self, a, b):
        return self.torch.maximum(a, b)

    def as_index_array(self, x):
        return self.torch.as_tensor(x, dtype=self.torch.int64, device=self.device)

    def to_numpy(self, x):
        return x.detach().cpu().numpy()


def _is_torch(obj: Any) -> bool:
    return type(obj).__module__.startswith("torch") and hasattr(obj, "dtype")


# --------------------------------------------------------------------------------------------
# Input normalisation: every accepted layout becomes a "flat batch" of sequences.


@dataclass
class _Part:
    """Sequences of one input piece: ids laid end to end, their lengths, owner row and slot."""

    tokens: Any  # (n_ids,) int64
    lengths: Any  # (n_seqs,) int64
    owner: Any  # (n_seqs,) int64: the hypothesis row each sequence belongs to
    slot: Any  # (n_seqs,) int64: 0 for the hypothesis, 1 + k for its k-th reference


@dataclass
class _Flat:
    """All sequences ordered by (owner, slot): each hypothesis directly followed by its references."""

    tokens: Any
    lengths: Any
    owner: Any
    slot: Any
    n_rows: int


def _pad_set(pad_id: PadIds) -> Optional[Tuple[int, ...]]:
    if pad_id is None:
        return None
    values = [pad_id] if isinstance(pad_id, numbers.Integral) or _is_scalar_int(pad_id) else pad_id
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"pad_id must be an int or a collection of ints, got {type(pad_id).__name__}")
    out = []
    for v in values:
        if isinstance(v, bool) or not (isinstance(v, numbers.Integral) or _is_scalar_int(v)):
            raise TypeError(f"pad_id must hold ints, got {type(v).__name__}")
        out.append(int(v))
    if not out:
        raise ValueError("pad_id is an empty collection; use None for no padding")
    return tuple(out)


def _is_scalar_int(value: Any) -> bool:
    dtype = getattr(value, "dtype", None)
    return dtype is not None and getattr(value, "ndim", None) == 0 and _is_int_dtype(dtype)


def _is_int_dtype(dtype: Any) -> bool:
    if isinstance(dtype, np.dtype):
        return dtype.kind in "iu"
    name = str(dtype)
    return name.startswith("torch.") and ("int" in name) and not name.startswith("torch.bool")


def _is_array(obj: Any) -> bool:
    return isinstance(obj, np.ndarray) or _is_torch(obj)


def _check_int_array(x: Any, what: str) -> None:
    if not _is_int_dtype(x.dtype):
        raise TypeError(f"{what} must hold integer token ids, got dtype {x.dtype}")
    if isinstance(x, np.ndarray) and x.dtype == np.uint64 and x.size and int(x.max()) > _INT64_MAX:
        raise ValueError(f"{what} holds ids above 2**63 - 1, which do not fit int64")


def _dense_part(ops, x: Any, what: str, lengths: Any, lengths_name: str, pads, owner, slot) -> _Part:
    """A padded 2-D array: row r is one sequence; ``lengths`` and ``pads`` say which ids count."""
    if x.ndim != 2:
        raise ValueError(f"{what} must be 2-D (batch, length), got shape {tuple(x.shape)}")
    _check_int_array(x, what)
    x = _to_backend(ops, x)
    rows, width = x.shape
    mask = None
    if lengths is not None:
        lengths = _lengths_array(ops, lengths, rows, width, lengths_name)
        mask = ops.arange(width)[None, :] < lengths[:, None]
    if pads is not None:
        keep = ~ops.isin(x, pads)
        mask = keep if mask is None else mask & keep
    if mask is None:
        tokens = x.reshape(-1)
        seq_len = ops.as_index_array(np.full(rows, width))
    else:
        tokens = x[mask]
        seq_len = mask.sum(1)
    return _Part(_int64(ops, tokens), _int64(ops, seq_len), owner, slot)


def _ragged_part(ops, seqs: List[Any], what: str, pads, owner, slot) -> _Part:
    """A list of 1-D id sequences of any lengths."""
    if all(_is_torch(s) for s in seqs) and seqs:
        for i, s in enumerate(seqs):
            if s.ndim != 1:
                raise ValueError(f"{what}[{i}] must be 1-D, got shape {tuple(s.shape)}")
            _check_int_array(s, f"{what}[{i}]")
        tokens = ops.cat([_to_backend(ops, s) for s in seqs])
        lengths = [int(s.shape[0]) for s in seqs]
    else:
        lengths = []
        for i, s in enumerate(seqs):
            if _is_array(s):
                if s.ndim != 1:
                    raise ValueError(f"{what}[{i}] must be 1-D, got shape {tuple(s.shape)}")
            elif isinstance(s, (str, bytes)) or not hasattr(s, "__len__"):
                raise TypeError(f"{what}[{i}] must be a sequence of int ids, got {type(s).__name__}")
            lengths.append(len(s))
        flat = list(chain.from_iterable(s.tolist() if _is_array(s) else s for s in seqs))
        arr = np.array(flat) if flat else np.zeros(0, dtype=np.int64)
        if arr.dtype == object or arr.ndim != 1:
            raise TypeError(f"{what} must hold int ids (or ids that fit int64)")
        _check_int_array(arr, what)
        tokens = _to_backend(ops, arr)
    tokens = _int64(ops, tokens)
    seq_len = ops.as_index_array(lengths)
    if pads is not None:
        keep = ~ops.isin(tokens, pads)
        kept_before = ops.cat([ops.zeros(1), ops.cumsum(keep)])
        ends = ops.cumsum(seq_len)
        seq_len = kept_before[ends] - kept_before[ends - seq_len]
        tokens = tokens[keep]
    return _Part(tokens, seq_len, owner, slot)


def _int64(ops, x):
    if ops.kind == "torch":
        return x.to(ops.torch.int64)
    return np.asarray(x, dtype=np.int64)


def _to_backend(ops, x):
    if ops.kind == "torch":
        if _is_torch(x):
            if x.device != ops.device:
                raise ValueError(
                    f"token ids are on different devices ({x.device} and {ops.device}); move them to one"
                )
            return x
        return ops.torch.as_tensor(np.asarray(x), device=ops.device)
    if _is_torch(x):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def _lengths_array(ops, lengths: Any, rows: int, width: int, name: str):
    if not _is_array(lengths):
        lengths = np.asarray(lengths)
    if not _is_int_dtype(lengths.dtype):
        raise TypeError(f"{name} must hold integer lengths, got dtype {lengths.dtype}")
    if tuple(lengths.shape) != (rows,):
        raise ValueError(f"{name} must have shape ({rows},), got {tuple(lengths.shape)}")
    lengths = _int64(ops, _to_backend(ops, lengths))
    if rows and (ops.to_int(lengths.min()) < 0 or ops.to_int(lengths.max()) > width):
        raise ValueError(f"{name} must lie in [0, {width}] (the padded length), got values outside")
    return lengths


_BACKENDS = ("auto", "numpy", "torch")


def _choose_ops(objs: Sequence[Any], backend: str):
    """The array backend that counts, and the torch device results go back to (None: numpy out)."""
    if backend not in _BACKENDS:
        raise ValueError(f"unknown backend={backend!r}; choose one of {', '.join(_BACKENDS)}")
    devices = []
    for obj in objs:
        stack = [obj]
        while stack:
            o = stack.pop()
            if _is_torch(o):
                devices.append(o.device)
            elif isinstance(o, (list, tuple)) and o and not isinstance(o[0], numbers.Number):
                # Only the first item of each level decides: mixing kinds inside one list is rare
                # and still works (numpy items are moved to the torch device).
                stack.append(o[0])
    if devices and any(d != devices[0] for d in devices):
        raise ValueError(f"token ids are on different devices ({devices[0]} and another); move them to one")
    out_device = devices[0] if devices else None
    use_kernel = False
    if backend == "auto":
        # On the host the compiled kernel counts (numpy's sort, several times faster than torch's
        # CPU sort, where the kernel is not built), CPU tensors included; accelerator tensors stay
        # where they are.
        backend = "torch" if out_device is not None and out_device.type != "cpu" else "numpy"
        use_kernel = backend == "numpy" and _native.engine_name() == "native"
    if backend == "numpy":
        ops = _NumpyOps()
        ops.use_kernel = use_kernel
        return ops, out_device
    import torch

    return _TorchOps(torch, out_device if out_device is not None else torch.device("cpu")), out_device


def _output(ops, out_device, x):
    """Results in the caller's kind: a tensor on the ids' device for tensor input, else numpy."""
    if out_device is None:
        return ops.to_numpy(x)
    if ops.kind == "torch":
        return x
    import torch

    return torch.from_numpy(x).to(out_device)


def _is_single_ref(item: Any) -> bool:
    """Per-hypothesis reference entry: one id sequence (True) or a list of them (False)."""
    if _is_array(item):
        if item.ndim == 1:
            return True
        raise ValueError(f"a reference entry must be a 1-D id sequence or a list of them, got shape {tuple(item.shape)}")
    if len(item) == 0:
        return True  # an empty reference (the ids of an empty string)
    first = item[0]
    return first is not None and (isinstance(first, numbers.Integral) or _is_scalar_int(first))


def _gather(hyp_ids, ref_ids, pad_id, hyp_lengths, ref_lengths, backend) -> Tuple[_Flat, Any, Any]:
    ops, out_device = _choose_ops((hyp_ids, ref_ids), backend)
    pads = _pad_set(pad_id)
    for value, name in ((hyp_ids, "hyp_ids"), (ref_ids, "ref_ids")):
        if value is None or isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__"):
            raise TypeError(f"{name} must be a 2-D array/tensor of ids or a list of id lists, got {type(value).__name__}")

    # Hypotheses.
    if _is_array(hyp_ids):
        if hyp_ids.ndim != 2:
            raise ValueError(
                f"hyp_ids must be 2-D (batch, length), got shape {tuple(hyp_ids.shape)}; for one "
                "sentence pass ids[None] or [ids]"
            )
        n_rows = int(hyp_ids.shape[0])
        owner = ops.arange(n_rows)
        hyp_part = _dense_part(ops, hyp_ids, "hyp_ids", hyp_lengths, "hyp_lengths", pads, owner, ops.zeros(n_rows))
    else:
        if hyp_lengths is not None:
            raise ValueError("hyp_lengths applies to padded 2-D hyp_ids; lists carry their own lengths")
        seqs = list(hyp_ids)
        n_rows = len(seqs)
        owner = ops.arange(n_rows)
        hyp_part = _ragged_part(ops, seqs, "hyp_ids", pads, owner, ops.zeros(n_rows))
    if n_rows == 0:
        raise ValueError("empty batch: hyp_ids has no rows, BLEU needs at least one hypothesis")

    # References.
    parts = [hyp_part]
    if _is_array(ref_ids) or (
        isinstance(ref_ids, (list, tuple)) and ref_ids and all(_is_array(r) and r.ndim == 2 for r in ref_ids)
    ):
        if _is_array(ref_ids):
            if ref_ids.ndim == 2:
                sets, lens = [ref_ids], [ref_lengths]
            elif ref_ids.ndim == 3:
                sets = [ref_ids[:, k] for k in range(ref_ids.shape[1])]
                if ref_lengths is None:
                    lens = [None] * len(sets)
                else:
                    if not _is_array(ref_lengths):
                        ref_lengths = np.asarray(ref_lengths)
                    if ref_lengths.ndim != 2 or tuple(ref_lengths.shape) != tuple(ref_ids.shape[:2]):
                        raise ValueError(
                            f"ref_lengths must have shape {tuple(ref_ids.shape[:2])} for 3-D ref_ids, "
                            f"got {tuple(ref_lengths.shape)}"
                        )
                    lens = [ref_lengths[:, k] for k in range(ref_ids.shape[1])]
            else:
                raise ValueError(
                    f"ref_ids must be 2-D (batch, length) or 3-D (batch, n_refs, length), got shape "
                    f"{tuple(ref_ids.shape)}"
                )
        else:
            sets = list(ref_ids)
            if ref_lengths is None:
                lens = [None] * len(sets)
            else:
                if _is_array(ref_lengths) or len(ref_lengths) != len(sets):
                    raise ValueError("for a list of reference arrays, ref_lengths must be a list with one length array per set")
                lens = list(ref_lengths)
        if not sets:
            raise ValueError("ref_ids holds no reference set")
        for k, (refs, lengths) in enumerate(zip(sets, lens)):
            name = "ref_ids" if len(sets) == 1 and not isinstance(ref_ids, (list, tuple)) else f"ref_ids[{k}]"
            if int(refs.shape[0]) != n_rows:
                raise ValueError(f"{name} has {refs.shape[0]} rows but hyp_ids has {n_rows}: one reference row per hypothesis")
            parts.append(_dense_part(ops, refs, name, lengths, "ref_lengths", pads, owner, ops.zeros(n_rows) + (k + 1)))
    else:
        if ref_lengths is not None:
            raise ValueError("ref_lengths applies to padded reference arrays; lists carry their own lengths")
        entries = list(ref_ids)
        if len(entries) != n_rows:
            raise ValueError(
                f"got {n_rows} hypotheses but {len(entries)} reference entries: ref_ids[i] must hold the "
                "reference(s) of row i (one id list, or a list of id lists)"
            )
        seqs, seq_owner, seq_slot = [], [], []
        for i, item in enumerate(entries):
            if item is None:
                raise ValueError(f"ref_ids[{i}] is None: every hypothesis needs at least one reference")
            if isinstance(item, (str, bytes)) or not hasattr(item, "__len__"):
                raise TypeError(f"ref_ids[{i}] must be an id list or a list of id lists, got {type(item).__name__}")
            refs = [item] if _is_single_ref(item) else [r for r in item if r is not None]
            if not refs:
                raise ValueError(f"ref_ids[{i}] holds no reference: every hypothesis needs at least one")
            seqs.extend(refs)
            seq_owner.extend([i] * len(refs))
            seq_slot.extend(range(1, len(refs) + 1))
        parts.append(
            _ragged_part(ops, seqs, "ref_ids", pads, ops.as_index_array(seq_owner), ops.as_index_array(seq_slot))
        )
    return _merge(ops, parts, n_rows), ops, out_device


def _merge(ops, parts: List[_Part], n_rows: int) -> _Flat:
    """Reorder all sequences by (owner, slot), moving their ids along (linear, no sort of ids)."""
    tokens = ops.cat([p.tokens for p in parts])
    lengths = ops.cat([p.lengths for p in parts])
    owner = ops.cat([p.owner for p in parts])
    slot = ops.cat([p.slot for p in parts])
    n_slots = ops.to_int(slot.max()) + 1
    order = ops.argsort(owner * n_slots + slot, stable=True)
    old_start = ops.cumsum(lengths) - lengths
    lengths = lengths[order]
    new_start = ops.cumsum(lengths) - lengths
    shift = ops.repeat(old_start[order] - new_start, lengths)
    tokens = tokens[ops.arange(tokens.shape[0]) + shift]
    return _Flat(tokens, lengths, owner[order], slot[order], n_rows)


# --------------------------------------------------------------------------------------------
# Counting.


def _changes(ops, a):
    """Boolean array: True where an element differs from the one before (and at the start)."""
    out = ops.ones_bool(int(a.shape[0]))
    out[1:] = a[1:] != a[:-1]
    return out


def _run_lengths(ops, run_first, total: int):
    """Lengths of the runs starting at ``run_first`` in an array of ``total`` elements."""
    return ops.diff_append(run_first, total)


def _codes_needed(max_order: int) -> set:
    """Orders whose n-grams need dense codes: order n is keyed by two shorter pieces (a, n - a)."""
    needed = set()
    for n in range(2, max_order + 1):
        a = _split(n)
        needed.update((a, n - a))
    return needed


def _split(n: int) -> int:
    # The largest power of two below n: keys of order n combine codes of orders a and n - a <= a,
    # so only about log2(max_order) orders need dense codes.
    return 1 << ((n - 1).bit_length() - 1)


#: On the host, rows are counted in blocks of about this many ids (hypotheses and references):
#: the working arrays of a block stay in the CPU caches, which about halves the time of a large
#: batch. Accelerators get the whole batch at once.
HOST_BLOCK_IDS = 1 << 16


def _batch_rows(flat: _Flat, max_order: int, ops):
    """Statistics rows of the whole batch: the compiled kernel for host data with backend "auto"
    (about 3x faster than the array code there), else the array code, in blocks of whole rows on
    the host."""
    if getattr(ops, "use_kernel", False):
        return _native_rows(flat, max_order)
    n_ids = int(flat.tokens.shape[0])
    if ops.kind != "numpy" or n_ids <= HOST_BLOCK_IDS:
        return _count_rows(flat, max_order, ops)
    seq_start = np.cumsum(flat.lengths) - flat.lengths
    # Sequences are ordered by row, so a block of rows is a contiguous slice of sequences and ids.
    ids_before_row = np.concatenate([[0], np.cumsum(np.bincount(flat.owner, weights=flat.lengths, minlength=flat.n_rows))])
    cuts = np.searchsorted(ids_before_row, np.arange(HOST_BLOCK_IDS, n_ids, HOST_BLOCK_IDS), side="right") - 1
    row_cuts = np.unique(np.concatenate([[0], cuts, [flat.n_rows]]))
    seq_cuts = np.searchsorted(flat.owner, row_cuts)
    rows, nrefs = [], []
    for r0, r1, s0, s1 in zip(row_cuts[:-1], row_cuts[1:], seq_cuts[:-1], seq_cuts[1:]):
        t0 = seq_start[s0]
        t1 = seq_start[s1] if s1 < len(seq_start) else n_ids
        block = _Flat(flat.tokens[t0:t1], flat.lengths[s0:s1], flat.owner[s0:s1] - r0, flat.slot[s0:s1], int(r1 - r0))
        block_rows, block_nrefs = _count_rows(block, max_order, ops)
        rows.append(block_rows)
        nrefs.append(block_nrefs)
    return np.concatenate(rows), np.concatenate(nrefs)


def _native_rows(flat: _Flat, max_order: int):
    """The kernel's rows for a host batch (sequences are already ordered by row, hypothesis first)."""
    stats = _native.native_flat_ids_statistics(flat.tokens, flat.lengths, flat.owner, flat.n_rows, max_order)
    return stats.rows, stats.nrefs


def _count_rows(flat: _Flat, max_order: int, ops):
    """Statistics rows ``(n_rows, 2 + 2 * max_order)`` int64 and the number of references per row.

    Per order, every n-gram start becomes one int64 holding (n-gram key, owner row, slot[, start
    within its sequence]); one sort puts equal n-grams of one row side by side, hypothesis first
    then each reference. Runs of equal (key, owner, slot) are counts; the hypothesis run of a
    (key, owner) group is clipped by the largest reference run of the group.
    """
    tokens, seq_len = flat.tokens, flat.lengths
    n_ids = int(tokens.shape[0])
    b = flat.n_rows
    if n_ids >= 3 * 10**9:
        raise ValueError(f"{n_ids} ids in one call: split the batch (n-gram keys would overflow int64)")

    hyp_seq = ops.nonzero(flat.slot == 0)
    ref_seq = ops.nonzero(flat.slot != 0)
    sys_len = seq_len[hyp_seq]

    # Closest reference length, ties to the shorter: minimise (distance, length) as one integer.
    ref_lens = seq_len[ref_seq]
    ref_owner = flat.owner[ref_seq]
    span = ops.to_int(ref_lens.max()) + 1
    closeness = abs(ref_lens - sys_len[ref_owner]) * span + ref_lens
    first_ref = ops.nonzero(ops.cat([ops.ones_bool(1), ref_owner[1:] != ref_owner[:-1]]))
    ref_len = ops.segment_min(closeness, first_ref, ref_owner, b) % span
    nrefs = ops.count_per(ref_owner, b)

    zeros_b = ops.zeros(b)
    matches = [zeros_b] * max_order
    totals = [(sys_len - k) * (sys_len > k) for k in range(max_order)]
    if n_ids == 0:
        return ops.stack([sys_len, ref_len] + matches + totals, 1), nrefs

    # Tag of a sequence: owner row and slot (0 = hypothesis) as bit fields, in sorting order.
    slot_bits = max(ops.to_int(flat.slot.max()).bit_length(), 1)
    seq_tag = (flat.owner << slot_bits) | flat.slot
    tag_bits = max(ops.to_int(seq_tag.max()).bit_length(), 1)
    seq_end = ops.cumsum(seq_len)
    seq_start = seq_end - seq_len
    tag_of = ops.repeat(seq_tag, seq_len)
    remaining = ops.repeat(seq_end, seq_len) - ops.arange(n_ids)
    pos_bits = max((ops.to_int(seq_len.max()) - 1).bit_length(), 1)
    start_of_tag = ops.zeros(b << slot_bits)
    start_of_tag[seq_tag] = seq_start

    needed = _codes_needed(max_order)
    max_slot = ops.to_int(flat.slot.max())
    slot_mask = (1 << slot_bits) - 1
    tag_mask = (1 << tag_bits) - 1
    owner_mask = (1 << (tag_bits - slot_bits)) - 1
    tag_pos = None  # (tag, position in sequence) per id, built when an order needs dense codes
    codes = {}  # order -> (dense code per id position, number of distinct n-grams)
    pruned = set()  # orders whose codes mark unmatchable n-grams with -1
    for n in range(1, max_order + 1):
        width = n_ids - n + 1  # windows starting at 0..width-1; those crossing a sequence end are dropped
        if width <= 0:
            break
        want_code = n in needed
        if n == 1:
            low, high = ops.to_int(tokens.min()), ops.to_int(tokens.max())
            if high - low < n_ids:
                # Ids already span a small range: they are their own code, no densifying needed.
                codes[1] = (tokens - low, high - low + 1)
                want_code = False
            key = tokens - low if high - low <= _INT64_MAX else tokens
            limit = min(high - low, _INT64_MAX)
            valid = None
        else:
            a = _split(n)
            code_a, _ = codes[a]
            code_b, size_b = codes[n - a]
            key = code_a[:width] * size_b
            key += code_b[a : a + width]
            limit = ops.to_int(key.max())
            valid = remaining[:width] >= n
            # An n-gram can only match if both of its pieces occur in the hypothesis and in a
            # reference of the same row; pieces that did not were given code -1.
            for piece, offset in ((a, 0), (n - a, a)):
                if piece in pruned:
                    valid &= codes[piece][0][offset : offset + width] >= 0
        pos_bits_n = pos_bits if want_code else 0
        low_bits = tag_bits + pos_bits_n
        if limit.bit_length() + low_bits <= 63:
            if want_code and tag_pos is None:
                tag_pos = (tag_of << pos_bits) | (ops.arange(n_ids) - ops.repeat(seq_start, seq_len))
            packed = key << low_bits
            packed |= (tag_pos if want_code else tag_of)[:width]
            if valid is not None:
                packed = packed[valid]
            packed = ops.sort(packed)
            r = packed >> pos_bits_n if pos_bits_n else packed  # (key, tag)
            new_run = _changes(ops, r)
            new_group = _changes(ops, r >> slot_bits)
            s_pos = s_tag = None
        else:
            # Keys too wide to share an int64 with the tags: a stable index sort keeps ids in
            # (owner, slot, position) order within equal keys, which is the same arrangement.
            starts = ops.arange(width) if valid is None else ops.nonzero(valid)
            order = ops.argsort(key[starts], stable=True)
            s_pos = starts[order]
            r = None
            s_tag = tag_of[s_pos]
            s_key = key[s_pos]
            new_key = _changes(ops, s_key)
            new_run = new_key | _changes(ops, s_tag)
            new_group = new_key | _changes(ops, s_tag >> slot_bits)
        m = int(new_run.shape[0])
        if m == 0:
            break
        run_first = ops.nonzero(new_run)
        n_runs = int(run_first.shape[0])
        run_len = _run_lengths(ops, run_first, m)
        run_tag = r[run_first] if r is not None else s_tag[run_first]
        if r is not None:
            run_tag &= tag_mask
        run_new_group = new_group[run_first]
        # Only hypothesis runs directly followed by a run of the same group (a reference run:
        # slots sort after the hypothesis) can match; one group holds one hypothesis run.
        hyp_runs = ops.nonzero(((run_tag[:-1] & slot_mask) == 0) & ~run_new_group[1:])
        if max_slot <= 8:
            ref_max = run_len[hyp_runs + 1]
            same = None
            for k in range(2, max_slot + 1):
                nxt = hyp_runs + k
                inside = nxt < n_runs
                nxt = nxt * inside
                same_k = inside & ~run_new_group[nxt]
                same = same_k if same is None else same & same_k
                ref_max = ops.maximum(ref_max, run_len[nxt] * same)
        else:
            run_group = ops.cumsum(run_new_group) - 1
            group_first_run = ops.nonzero(run_new_group)
            is_ref = (run_tag & slot_mask) != 0
            ref_max = ops.segment_max(run_len * is_ref, group_first_run, run_group, int(group_first_run.shape[0]))
            ref_max = ref_max[run_group[hyp_runs]]
        clipped = ops.minimum(run_len[hyp_runs], ref_max)
        matches[n - 1] = ops.count_per((run_tag[hyp_runs] >> slot_bits) & owner_mask, b, weights=clipped)
        if want_code:
            # Dense code of each n-gram that occurs in a hypothesis and a reference of the same
            # row; the rest keep -1, so longer n-grams containing them are skipped.
            run_group = ops.cumsum(run_new_group) - 1
            group_alive = ops.zeros_bool(ops.to_int(run_group[-1]) + 1)
            group_alive[run_group[hyp_runs]] = True
            alive = ops.nonzero(ops.repeat(group_alive[run_group], run_len))
            if r is not None:
                new_key = _changes(ops, r >> tag_bits)
                s_pos = start_of_tag[r[alive] & tag_mask] + (packed[alive] & ((1 << pos_bits_n) - 1))
            else:
                s_pos = s_pos[alive]
            dense = ops.cumsum(new_key)
            code = ops.zeros(n_ids) - 1
            code[s_pos] = dense[alive] - 1
            codes[n] = (code, ops.to_int(dense[-1]))
            pruned.add(n)
    return ops.stack([sys_len, ref_len] + matches + totals, 1), nrefs


# --------------------------------------------------------------------------------------------
# Public API.


def id_statistics_rows(
    hyp_ids: Any,
    ref_ids: Any,
    *,
    pad_id: PadIds = None,
    hyp_lengths: Any = None,
    ref_lengths: Any = None,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    backend: str = "auto",
) -> Tuple[Any, Any]:
    """Statistics rows of a batch of ids and the number of references of each row.

    Rows are int64 ``(batch, 2 + 2 * max_ngram_order)`` in sacreBLEU's column order
    (``sys_len, ref_len, matches 1..N, totals 1..N``): a torch tensor on the ids' device when
    the ids are tensors, else a numpy array. ``backend`` picks who counts: ``"auto"`` uses torch
    ops for tensors on an accelerator and, on the host, the compiled kernel (the numpy array code
    where the kernel is not built or ``BLEUKIT_ENGINE=python``); ``"torch"`` forces torch ops (the
    GPU code, also on CPU), ``"numpy"`` forces the numpy array code.

    >>> rows, nrefs = id_statistics_rows([[7, 8, 9]], [[[7, 8], [7, 8, 9, 9]]], max_ngram_order=2)
    >>> rows.tolist(), nrefs.tolist()
    ([[3, 2, 3, 2, 3, 2]], [2])
    """
    options = BleuOptions(tokenize="none", max_ngram_order=max_ngram_order)
    flat, ops, out_device = _gather(hyp_ids, ref_ids, pad_id, hyp_lengths, ref_lengths, backend)
    rows, nrefs = _batch_rows(flat, options.max_ngram_order, ops)
    return _output(ops, out_device, rows), _output(ops, out_device, nrefs)


def id_statistics(
    hyp_ids: Any,
    ref_ids: Any,
    *,
    pad_id: PadIds = None,
    hyp_lengths: Any = None,
    ref_lengths: Any = None,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    backend: str = "auto",
) -> BleuStatistics:
    """The core's :class:`~bleukit.BleuStatistics` of a batch of ids (on the host).

    Tables of several batches concatenate (``BleuStatistics.concat``) for a streaming corpus
    score with ``bleukit.score_statistics``.

    >>> id_statistics([[1, 2, 3]], [[1, 2, 4]], max_ngram_order=2).rows.tolist()
    [[3, 3, 2, 1, 3, 2]]
    """
    options = BleuOptions(tokenize="none", max_ngram_order=max_ngram_order)
    flat, ops, _ = _gather(hyp_ids, ref_ids, pad_id, hyp_lengths, ref_lengths, backend)
    rows, nrefs = _batch_rows(flat, options.max_ngram_order, ops)
    return BleuStatistics(ops.to_numpy(rows), ops.to_numpy(nrefs), options.max_ngram_order)


def sentence_bleu_ids(
    hyp_ids: Any,
    ref_ids: Any,
    *,
    pad_id: PadIds = None,
    hyp_lengths: Any = None,
    ref_lengths: Any = None,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    smooth_method: str = "exp",
    smooth_value: Optional[float] = None,
    effective_order: bool = True,
    weights: Optional[Sequence[float]] = None,
    backend: str = "auto",
) -> Any:
    """Sentence BLEU (0-100) of every row: a float64 tensor on the ids' device, or a numpy array.

    Equal to ``sacrebleu.sentence_bleu(" ".join(map(str, hyp)), [" ".join(map(str, ref)), ...],
    tokenize="none")`` for each row. ``pad_id`` (an id or several) is dropped wherever it occurs,
    so left and right padding both work; ``hyp_lengths``/``ref_lengths`` keep the first ``n`` ids
    of each padded row (``ref_lengths`` has shape ``(batch, n_refs)`` for 3-D references).
    ``backend`` as in :func:`id_statistics_rows`.

    >>> import numpy as np
    >>> sentence_bleu_ids(np.array([[5, 6, 7, 8]]), np.array([[[5, 6, 7, 9], [5, 6, 7, 8]]])).round(6).tolist()
    [100.0]
    """
    options = BleuOptions(
        tokenize="none",
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        max_ngram_order=max_ngram_order,
        weights=weights,
        effective_order=effective_order,
    )
    flat, ops, out_device = _gather(hyp_ids, ref_ids, pad_id, hyp_lengths, ref_lengths, backend)
    rows, _ = _batch_rows(flat, options.max_ngram_order, ops)
    scores = score_table(rows, options).score
    return _output(ops, out_device, scores)


def corpus_bleu_ids(
    hyp_ids: Any,
    ref_ids: Any,
    *,
    pad_id: PadIds = None,
    hyp_lengths: Any = None,
    ref_lengths: Any = None,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    smooth_method: str = "exp",
    smooth_value: Optional[float] = None,
    effective_order: bool = False,
    weights: Optional[Sequence[float]] = None,
    backend: str = "auto",
) -> BLEUResult:
    """Corpus BLEU of a batch of ids: the core's :class:`~bleukit.BLEUResult` (signature ``tok:none``).

    Equal to ``sacrebleu.corpus_bleu`` with ``tokenize="none"`` on the ids as space-separated
    strings (sacreBLEU's corpus defaults: ``exp`` smoothing, no effective order).

    >>> r = corpus_bleu_ids([[1, 2, 3, 4], [5, 6]], [[1, 2, 3, 4], [5, 7]])
    >>> round(r.score, 4), r.counts
    (88.914, [5, 3, 2, 1])
    """
    options = BleuOptions(
        tokenize="none",
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        max_ngram_order=max_ngram_order,
        weights=weights,
        effective_order=effective_order,
    )
    stats = id_statistics(
        hyp_ids, ref_ids, pad_id=pad_id, hyp_lengths=hyp_lengths, ref_lengths=ref_lengths,
        max_ngram_order=options.max_ngram_order, backend=backend,
    )
    return score_statistics(stats, options)
