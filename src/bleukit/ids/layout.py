"""Input layouts of token ids, normalised to one flat batch.

Every accepted layout (padded 2-D arrays or tensors, 3-D references, lists of 2-D reference
arrays, ragged lists with ``None`` for a missing reference) is checked here and becomes a
:class:`Flat` batch: all sequences' ids laid end to end, ordered by (row, slot), each
hypothesis directly followed by its references. Padding and explicit lengths are applied on the
way, so counters only ever see the ids that count.

>>> from bleukit.ids.backends import NumpyOps
>>> flat = gather([[1, 2, 0]], [[[1, 2], [3]]], pad_id=0, hyp_lengths=None, ref_lengths=None, ops=NumpyOps())
>>> flat.tokens.tolist(), flat.lengths.tolist(), flat.owner.tolist(), flat.slot.tolist()
([1, 2, 1, 2, 3], [2, 2, 1], [0, 0, 0], [0, 1, 2])
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from itertools import chain
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from .._torch import is_torch_tensor

__all__ = ["PadIds", "Flat", "gather"]

PadIds = Union[None, int, Sequence[int]]
_INT64_MAX = 2**63 - 1


@dataclass
class _Part:
    """Sequences of one input piece: ids laid end to end, their lengths, owner row and slot."""

    tokens: Any  # (n_ids,) int64
    lengths: Any  # (n_seqs,) int64
    owner: Any  # (n_seqs,) int64: the hypothesis row each sequence belongs to
    slot: Any  # (n_seqs,) int64: 0 for the hypothesis, 1 + k for its k-th reference


@dataclass
class Flat:
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
    return isinstance(obj, np.ndarray) or is_torch_tensor(obj)


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
    return _Part(ops.int64(tokens), ops.int64(seq_len), owner, slot)


def _ragged_part(ops, seqs: List[Any], what: str, pads, owner, slot) -> _Part:
    """A list of 1-D id sequences of any lengths."""
    if all(is_torch_tensor(s) for s in seqs) and seqs:
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
    tokens = ops.int64(tokens)
    seq_len = ops.as_index_array(lengths)
    if pads is not None:
        keep = ~ops.isin(tokens, pads)
        kept_before = ops.cat([ops.zeros(1), ops.cumsum(keep)])
        ends = ops.cumsum(seq_len)
        seq_len = kept_before[ends] - kept_before[ends - seq_len]
        tokens = tokens[keep]
    return _Part(tokens, seq_len, owner, slot)


def _to_backend(ops, x):
    if ops.kind == "torch":
        if is_torch_tensor(x):
            if x.device != ops.device:
                raise ValueError(
                    f"token ids are on different devices ({x.device} and {ops.device}); move them to one"
                )
            return x
        return ops.torch.as_tensor(np.asarray(x), device=ops.device)
    if is_torch_tensor(x):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def _lengths_array(ops, lengths: Any, rows: int, width: int, name: str):
    if not _is_array(lengths):
        lengths = np.asarray(lengths)
    if not _is_int_dtype(lengths.dtype):
        raise TypeError(f"{name} must hold integer lengths, got dtype {lengths.dtype}")
    if tuple(lengths.shape) != (rows,):
        raise ValueError(f"{name} must have shape ({rows},), got {tuple(lengths.shape)}")
    lengths = ops.int64(_to_backend(ops, lengths))
    if rows and (ops.to_int(lengths.min()) < 0 or ops.to_int(lengths.max()) > width):
        raise ValueError(f"{name} must lie in [0, {width}] (the padded length), got values outside")
    return lengths


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


def gather(hyp_ids: Any, ref_ids: Any, pad_id: PadIds, hyp_lengths: Any, ref_lengths: Any, ops) -> Flat:
    """Check the inputs and lay them out as one :class:`Flat` batch in ``ops``' array library."""
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
    return _merge(ops, parts, n_rows)


def _merge(ops, parts: List[_Part], n_rows: int) -> Flat:
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
    return Flat(tokens, lengths, owner[order], slot[order], n_rows)
