"""The pieces of a layout (:mod:`.layout`): one input (a padded 2-D array, a list of sequences)
checked and turned into a part (its sequences, owners and slots), padding squeezed out of rows
with fixed-shape operations; and the parts merged into one :class:`~.batch.Flat` or stacked into
one :class:`~.batch.Padded` batch, ordered by (row, slot).
"""

from __future__ import annotations

import numbers
from itertools import chain
from typing import Any, List, Tuple

import numpy as np

from .._torch import is_torch_tensor
from .batch import Flat, Padded, _is_int_dtype, _is_scalar_int, _Part
from .checks import _is_array, check_id_array

__all__: List[str] = []


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
