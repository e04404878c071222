"""Input layouts of token ids, checked and normalised to one batch for a counter.

Every accepted layout (padded 2-D arrays or tensors, 3-D references, lists of 2-D reference
arrays, ragged lists with ``None`` for a missing reference) is checked here and becomes one of two
batches, each ordered by (row, slot) with every hypothesis directly followed by its references:

- :class:`Flat` (host counters): all sequences' ids laid end to end, padding removed;
- :class:`Padded` (the torch counter): one row per sequence in a matrix of fixed width, each
  row's ids first. Built with fixed-shape operations only (padding is squeezed out of a row by a
  scatter, not by boolean indexing), so dense tensors never wait for the device here.

Which ids count (``pad_id``, explicit lengths) is applied on the way.

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

__all__ = ["PadIds", "Flat", "Padded", "gather", "sequences", "pad_ids", "check_id_array"]

PadIds = Union[None, int, Sequence[int]]
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


@dataclass
class _Part:
    """Sequences of one input piece, in the layout being built, and their owner row and slot."""

    tokens: Any  # Flat: (n_ids,) ids end to end; Padded: (n_seqs, width) rows, ids first
    lengths: Any  # (n_seqs,) int64
    owner: np.ndarray  # (n_seqs,) host int64: the hypothesis row each sequence belongs to
    slot: np.ndarray  # (n_seqs,) host int64: 0 for the hypothesis, 1 + k for its k-th reference
    one_per_row: bool  # sequence i belongs to row i (a dense array)


@dataclass
class Flat:
    """All sequences ordered by (owner, slot): each hypothesis directly followed by its references."""

    tokens: Any  # (n_ids,) int64
    lengths: Any  # (n_seqs,) int64
    owner: Any
    slot: Any
    n_rows: int


@dataclass
class Padded:
    """All sequences as rows of one ``(n_seqs, width)`` int64 matrix, ordered by (owner, slot)."""

    tokens: Any  # row s holds its lengths[s] ids first; the rest is filler that never counts
    lengths: Any  # (n_seqs,) int64
    owner: Any  # (n_seqs,) int64, or None when every row has all its slots (s // (max_slot + 1))
    slot: Any  # (n_seqs,) int64, or None as owner (s % (max_slot + 1))
    n_rows: int
    max_slot: int  # the largest slot (number of references of the row with most)


def pad_ids(pad_id: PadIds) -> Optional[Tuple[int, ...]]:
    """The ids ``pad_id`` names (one int or a collection of ints; ``None``: no padding), or a
    ``TypeError``/``ValueError``: a bool, a float, a string or an empty collection is refused.

    >>> pad_ids(0), pad_ids([0, 1]), pad_ids(None)
    ((0,), (0, 1), None)
    """
    if pad_id is None:
        return None
    values: Any = [pad_id] if isinstance(pad_id, numbers.Integral) or _is_scalar_int(pad_id) else pad_id
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"pad_id must be an int or a collection of ints, got {type(pad_id).__name__}")
    out: List[int] = []
    for v in values:
        if isinstance(v, bool) or not (isinstance(v, numbers.Integral) or _is_scalar_int(v)):
            raise TypeError(f"pad_id must hold ints, got {type(v).__name__}")
        out.append(int(v))
    if not out:
        raise ValueError("pad_id is an empty collection; use None for no padding")
    # Ids are int64: a pad id outside that range cannot occur, and comparing with it would overflow.
    return tuple(v for v in out if _INT64_MIN <= v <= _INT64_MAX) or None


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


def check_id_array(x: Any, what: str) -> None:
    """A ``TypeError`` unless the numpy array or torch tensor ``x`` holds integers, a ``ValueError``
    if unsigned ids do not fit int64 (they would wrap to negative ids).

    >>> check_id_array(np.array([2**63], dtype=np.uint64), "hyp_ids")
    Traceback (most recent call last):
    ...
    ValueError: hyp_ids holds ids above 2**63 - 1, which do not fit int64
    """
    if not _is_int_dtype(x.dtype) and not _empty_float(x):
        raise TypeError(f"{what} must hold integer token ids, got dtype {x.dtype}")
    too_big = False
    if isinstance(x, np.ndarray):
        too_big = bool(x.dtype == np.uint64 and x.size and int(x.max()) > _INT64_MAX)
    elif str(x.dtype) == "torch.uint64" and x.numel():
        # torch casts uint64 to int64 by wrapping (2**64 - 1 would become -1); the same bits read
        # as int64 are negative exactly for the ids above 2**63 - 1. One check, one wait.
        import torch

        too_big = bool((x.view(torch.int64) < 0).any())
    if too_big:
        raise ValueError(f"{what} holds ids above 2**63 - 1, which do not fit int64")


def _empty_float(x: Any) -> bool:
    # torch.tensor([]) and np.array([]) are float: an empty sequence has no id to misread.
    if isinstance(x, np.ndarray):
        return x.size == 0 and x.dtype.kind == "f"
    return x.numel() == 0 and x.is_floating_point()


def _ids_in_backend(ops, x: Any, what: str):
    """Integer ids checked and converted to int64 in ``ops``' library (first, so that unsigned
    dtypes never meet torch's type promotion)."""
    check_id_array(x, what)
    if is_torch_tensor(x) and str(x.dtype) == "torch.uint64":
        import torch

        x = x.view(torch.int64)  # every id fits (checked above): the same values
    elif not is_torch_tensor(x):
        x = np.asarray(x, dtype=np.int64)  # on the host, before any unsigned dtype reaches torch
    return ops.int64(_to_backend(ops, x))


def _dense_part(ops, x: Any, what: str, lengths: Any, lengths_name: str, pads, slot: int, padded: bool) -> _Part:
    """A padded 2-D array: row r is one sequence; ``lengths`` and ``pads`` say which ids count."""
    if x.ndim != 2:
        raise ValueError(f"{what} must be 2-D (batch, length), got shape {tuple(x.shape)}")
    x = _ids_in_backend(ops, x, what)
    rows, width = x.shape
    owner, slots = np.arange(rows, dtype=np.int64), np.full(rows, slot, dtype=np.int64)
    if lengths is not None:
        lengths = _lengths_array(ops, lengths, rows, width, lengths_name)
    if padded:
        # Padding is squeezed out once the parts are stacked (one pass for all of them).
        return _Part(x, lengths, owner, slots, True)
    prefix = keep = None
    if lengths is not None:
        prefix = ops.arange(width)[None, :] < lengths[:, None]
    if pads is not None:
        keep = ops.not_in(x, pads)
    mask = keep if prefix is None else prefix if keep is None else keep & prefix
    if mask is None:
        tokens = x.reshape(-1)
        seq_len = ops.as_index_array(np.full(rows, width))
    else:
        tokens = x[mask]
        seq_len = ops.int64(mask.sum(1))
    return _Part(tokens, seq_len, owner, slots, True)


def _kept_rows(ops, x, lengths, pads):
    """Rows of a padded matrix that keep their first ``lengths`` ids (all where None) other than
    ``pads``: the matrix (squeezed when pads are dropped) and the lengths."""
    rows, width = x.shape
    if pads is None:
        return x, ops.torch.full((rows,), width, dtype=ops.torch.int64, device=x.device) if lengths is None else lengths
    keep = ops.not_in(x, pads)
    if lengths is not None:
        keep &= ops.arange(width)[None, :] < lengths[:, None]
    return _squeeze_rows(ops, x, keep)


def _squeeze_rows(ops, x, keep):
    """Kept ids moved to the front of their row, in order, with fixed shapes (a scatter, no
    boolean indexing): the new rows (one column wider: dropped ids land in the last) and their
    lengths."""
    rows, width = x.shape
    kept = keep.cumsum(1)
    dest = ops.torch.where(keep, kept - 1, width)
    out = ops.torch.zeros((rows, width + 1), dtype=ops.torch.int64, device=x.device).scatter_(1, dest, x)
    return out, kept[:, -1] if width else ops.zeros(rows)


def _ragged_part(ops, seqs: List[Any], what: str, pads, owner: np.ndarray, slot: np.ndarray, padded: bool) -> _Part:
    """A list of 1-D id sequences of any lengths."""
    if all(is_torch_tensor(s) for s in seqs) and seqs:
        for i, s in enumerate(seqs):
            if s.ndim != 1:
                raise ValueError(f"{what}[{i}] must be 1-D, got shape {tuple(s.shape)}")
        tokens = ops.cat([_ids_in_backend(ops, s, f"{what}[{i}]") for i, s in enumerate(seqs)])
        lengths = np.array([int(s.shape[0]) for s in seqs], dtype=np.int64)
        on_host = ops.kind == "numpy"
    else:
        counted: List[int] = []
        for i, s in enumerate(seqs):
            if _is_array(s):
                if s.ndim != 1:
                    raise ValueError(f"{what}[{i}] must be 1-D, got shape {tuple(s.shape)}")
            elif isinstance(s, (str, bytes, dict, set, frozenset)) or not hasattr(s, "__len__"):
                # (a set has no order, a dict iterates over its keys)
                raise TypeError(f"{what}[{i}] must be a sequence of int ids, got {type(s).__name__}")
            counted.append(len(s))
        flat = list(chain.from_iterable(s.tolist() if _is_array(s) else s for s in seqs))
        kinds = set(map(type, flat))
        if not kinds.isdisjoint(_BOOL_TYPES):
            # numpy would read True and False as the ids 1 and 0.
            raise TypeError(f"{what} holds a bool where an int id belongs")
        odd = next((k for k in kinds if not issubclass(k, (numbers.Integral, np.integer))), None)
        if odd is not None:
            if not issubclass(odd, (str, bytes)) and hasattr(odd, "__iter__"):
                raise ValueError(f"{what} must hold 1-D id sequences, got a {odd.__name__} inside one")
            raise TypeError(f"{what} must hold integer token ids, got a {odd.__name__}")
        try:
            tokens = np.array(flat, dtype=np.int64)
        except OverflowError:
            raise ValueError(f"{what} holds ids outside [-2**63, 2**63 - 1], which do not fit int64") from None
        lengths = np.array(counted, dtype=np.int64)
        on_host = True
    if on_host:
        # Padding leaves host lists here, before any device sees them.
        if pads is not None:
            keep = ~np.isin(tokens, np.array(pads, dtype=np.int64))
            kept_before = np.concatenate([[0], np.cumsum(keep)])
            ends = np.cumsum(lengths)
            lengths = kept_before[ends] - kept_before[ends - lengths]
            tokens = tokens[keep]
        if not padded:
            return _Part(tokens, lengths, owner, slot, False)
        matrix = np.zeros((len(lengths), int(lengths.max(initial=0))), dtype=np.int64)
        matrix[_row_and_column(lengths)] = tokens
        return _Part(ops.as_index_array(matrix), ops.as_index_array(lengths), owner, slot, False)
    # Tensors on a device: laid into rows there (the positions come from the host).
    width = int(lengths.max(initial=0))
    row, col = _row_and_column(lengths)
    matrix = ops.zeros(len(lengths) * width).index_copy_(0, ops.as_index_array(row * width + col), tokens)
    matrix = matrix.reshape(len(lengths), width)
    device_lengths = ops.as_index_array(lengths)
    if pads is not None:
        keep = ops.not_in(matrix, pads) & (ops.arange(width)[None, :] < device_lengths[:, None])
        matrix, device_lengths = _squeeze_rows(ops, matrix, keep)
    return _Part(matrix, device_lengths, owner, slot, False)


_BOOL_TYPES = (bool, np.bool_)


def _row_and_column(lengths: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Row and column of every id of sequences laid end to end, once laid out as padded rows."""
    row = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    col = np.arange(len(row), dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return row, col


def _to_backend(ops, x):
    if ops.kind == "torch":
        if is_torch_tensor(x):
            if x.device != ops.device:
                raise ValueError(
                    f"token ids are on different devices ({x.device} and {ops.device}); move them to one"
                )
            return x
        # torch cannot view an array with negative strides (a reversed slice): copy it first.
        return ops.torch.as_tensor(np.ascontiguousarray(x), device=ops.device)
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
    if rows and bool(((lengths < 0) | (lengths > width)).any()):  # one wait for a device, not two
        raise ValueError(f"{name} must lie in [0, {width}] (the padded length), got values outside")
    return lengths


def _is_single_ref(item: Any) -> bool:
    """Per-hypothesis reference entry: one id sequence (True) or a list of them (False)."""
    if _is_array(item):
        if item.ndim == 1:
            return True
        raise ValueError(
            "a reference entry must be a 1-D id sequence or a list of them, got shape "
            f"{tuple(item.shape)}"
        )
    if len(item) == 0:
        return True  # an empty reference (the ids of an empty string)
    first = item[0]
    return first is not None and (isinstance(first, numbers.Integral) or _is_scalar_int(first))


def _check_container(value: Any, name: str) -> None:
    if (
        value is None
        or isinstance(value, (str, bytes, dict, set, frozenset))
        or not hasattr(value, "__len__")
        or (hasattr(value, "columns") and hasattr(value, "iloc"))
    ):
        # A set has no order; a DataFrame or a dict iterates over its keys.
        raise TypeError(
            f"{name} must be a 2-D array/tensor of ids or a list of id lists, got {type(value).__name__}"
        )


def _rows_part(ops, ids: Any, what: str, lengths: Any, lengths_name: str, pads, padded: bool) -> Tuple[_Part, int]:
    """One sequence per row of ``ids`` (a 2-D array/tensor or a list of id sequences) and the
    number of rows."""
    if _is_array(ids):
        if ids.ndim != 2:
            raise ValueError(
                f"{what} must be 2-D (batch, length), got shape {tuple(ids.shape)}; for one "
                "sentence pass ids[None] or [ids]"
            )
        return _dense_part(ops, ids, what, lengths, lengths_name, pads, 0, padded), int(ids.shape[0])
    if lengths is not None:
        raise ValueError(f"{lengths_name} applies to padded 2-D {what}; lists carry their own lengths")
    seqs = list(ids)
    n_rows = len(seqs)
    owner = np.arange(n_rows, dtype=np.int64)
    return _ragged_part(ops, seqs, what, pads, owner, np.zeros(n_rows, dtype=np.int64), padded), n_rows


def sequences(ids: Any, pad_id: PadIds, what: str, ops, padded: bool = False) -> Tuple[Any, Any]:
    """The id sequences of one side alone (a pairwise matrix's hypotheses or references), checked
    as :func:`gather` checks hypotheses, ``pad_id`` dropped: all ids end to end and each
    sequence's length, or with ``padded`` (torch ops) one row per sequence, its ids first.

    >>> from bleukit.ids.backends import NumpyOps
    >>> tokens, lengths = sequences([[5, 0, 6], [7]], 0, "hyp_ids", NumpyOps())
    >>> tokens.tolist(), lengths.tolist()
    ([5, 6, 7], [2, 1])
    """
    pads = pad_ids(pad_id)
    _check_container(ids, what)
    part, n_rows = _rows_part(ops, ids, what, None, "lengths", pads, padded)
    if n_rows == 0:
        raise ValueError(f"{what} is empty: at least one id sequence is needed")
    if padded and part.one_per_row:
        return _kept_rows(ops, part.tokens, part.lengths, pads)
    return part.tokens, part.lengths


def gather(
    hyp_ids: Any, ref_ids: Any, pad_id: PadIds, hyp_lengths: Any, ref_lengths: Any, ops, padded: bool = False
) -> Union[Flat, Padded]:
    """Check the inputs and lay them out in ``ops``' array library: a :class:`Flat` batch, or a
    :class:`Padded` one (torch ops only) when ``padded``."""
    pads = pad_ids(pad_id)
    for value, name in ((hyp_ids, "hyp_ids"), (ref_ids, "ref_ids")):
        _check_container(value, name)

    # Hypotheses.
    hyp_part, n_rows = _rows_part(ops, hyp_ids, "hyp_ids", hyp_lengths, "hyp_lengths", pads, padded)
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
                    raise ValueError(
                        "for a list of reference arrays, ref_lengths must be a list with one length "
                        "array per set"
                    )
                lens = list(ref_lengths)
        if not sets:
            raise ValueError("ref_ids holds no reference set")
        for k, (refs, lengths) in enumerate(zip(sets, lens)):
            name = "ref_ids" if len(sets) == 1 and not isinstance(ref_ids, (list, tuple)) else f"ref_ids[{k}]"
            if int(refs.shape[0]) != n_rows:
                raise ValueError(
                    f"{name} has {refs.shape[0]} rows but hyp_ids has {n_rows}: one reference row "
                    "per hypothesis"
                )
            parts.append(_dense_part(ops, refs, name, lengths, "ref_lengths", pads, k + 1, padded))
    else:
        if ref_lengths is not None:
            raise ValueError("ref_lengths applies to padded reference arrays; lists carry their own lengths")
        entries = list(ref_ids)
        if len(entries) != n_rows:
            raise ValueError(
                f"got {n_rows} hypotheses but {len(entries)} reference entries: ref_ids[i] must hold the "
                "reference(s) of row i (one id list, or a list of id lists)"
            )
        ref_seqs: List[Any] = []
        seq_owner: List[int] = []
        seq_slot: List[int] = []
        for i, item in enumerate(entries):
            if item is None:
                raise ValueError(f"ref_ids[{i}] is None: every hypothesis needs at least one reference")
            if isinstance(item, (str, bytes)) or not hasattr(item, "__len__"):
                raise TypeError(f"ref_ids[{i}] must be an id list or a list of id lists, got {type(item).__name__}")
            refs = [item] if _is_single_ref(item) else [r for r in item if r is not None]
            if not refs:
                raise ValueError(f"ref_ids[{i}] holds no reference: every hypothesis needs at least one")
            ref_seqs.extend(refs)
            seq_owner.extend([i] * len(refs))
            seq_slot.extend(range(1, len(refs) + 1))
        parts.append(
            _ragged_part(ops, ref_seqs, "ref_ids", pads, np.array(seq_owner, dtype=np.int64),
                         np.array(seq_slot, dtype=np.int64), padded)
        )
    return _stack(ops, parts, n_rows, pads) if padded else _merge(parts, n_rows)


def _merge(parts: List[_Part], n_rows: int) -> Flat:
    """Reorder all sequences by (owner, slot), moving their ids along (linear, no sort of ids)."""
    tokens = np.concatenate([p.tokens for p in parts])
    lengths = np.concatenate([p.lengths for p in parts])
    owner = np.concatenate([p.owner for p in parts])
    slot = np.concatenate([p.slot for p in parts])
    order = np.lexsort((slot, owner))
    old_start = np.cumsum(lengths) - lengths
    lengths = lengths[order]
    new_start = np.cumsum(lengths) - lengths
    shift = np.repeat(old_start[order] - new_start, lengths)
    tokens = tokens[np.arange(tokens.shape[0]) + shift]
    return Flat(tokens, lengths, owner[order], slot[order], n_rows)


def _stack(ops, parts: List[_Part], n_rows: int, pads) -> Padded:
    """All parts' rows in one matrix of the widest part's width, ordered by (owner, slot)."""
    torch = ops.torch
    width = max(int(p.tokens.shape[1]) for p in parts)

    def widened(x, fill):
        return x if int(x.shape[1]) == width else torch.nn.functional.pad(x, (0, width - int(x.shape[1])), value=fill)

    if all(p.one_per_row for p in parts):
        # Dense arrays only: interleaving them is a stack, then padding is dropped in one pass;
        # owner and slot follow from the position (sequence s is slot s % k of row s // k).
        k = len(parts)
        tokens = torch.stack([widened(p.tokens, 0) for p in parts], 1).reshape(n_rows * k, width)
        lengths = None
        if any(p.lengths is not None or int(p.tokens.shape[1]) != width for p in parts):
            lengths = torch.stack(
                [p.lengths if p.lengths is not None else ops.zeros(n_rows) + int(p.tokens.shape[1]) for p in parts], 1
            ).reshape(-1)
        tokens, lengths = _kept_rows(ops, tokens, lengths, pads)
        return Padded(tokens, lengths, None, None, n_rows, k - 1)
    for p in parts:
        if p.one_per_row:
            p.tokens, p.lengths = _kept_rows(ops, p.tokens, p.lengths, pads)
    width = max(int(p.tokens.shape[1]) for p in parts)
    owner = np.concatenate([p.owner for p in parts])
    slot = np.concatenate([p.slot for p in parts])
    order = np.lexsort((slot, owner))
    index = ops.as_index_array(order)
    tokens = torch.cat([widened(p.tokens, 0) for p in parts])[index]
    lengths = torch.cat([p.lengths for p in parts])[index]
    return Padded(tokens, lengths, ops.as_index_array(owner[order]), ops.as_index_array(slot[order]), n_rows,
                  int(slot.max()))
