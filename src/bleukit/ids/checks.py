"""The checks of token ids: an id array must hold integers, a container must be a batch, and
what is left once laid out must be ids (a negative id is an error; rows that look padded without
a ``pad_id``, a :class:`~.batch.PaddingWarning`).
"""

from __future__ import annotations

import warnings
from typing import Any, List, Tuple, Union

import numpy as np

from .._stack import user_stacklevel
from .._torch import array_namespace, is_torch_tensor
from .batch import _INT64_MAX, _INT64_MIN, Flat, Padded, PaddingWarning, _is_int_dtype

__all__ = ["check_id_array", "is_host"]


def _is_array(obj: Any) -> bool:
    return isinstance(obj, np.ndarray) or is_torch_tensor(obj)


def _empty_float(x: Any) -> bool:
    # torch.tensor([]) and np.array([]) are float: an empty sequence has no id to misread.
    if isinstance(x, np.ndarray):
        return x.size == 0 and x.dtype.kind == "f"
    return x.numel() == 0 and x.is_floating_point()


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


def is_host(x: Any) -> bool:
    """Whether ``x`` lives on the host (a numpy array or a CPU tensor)."""
    return not is_torch_tensor(x) or x.device.type == "cpu"


def _host(x: Any) -> Any:
    """A host array as numpy (a CPU tensor's own memory, no copy and no torch operation)."""
    return x.numpy() if is_torch_tensor(x) else np.asarray(x)


def _check_ids(batch: Union[Flat, Padded], unpadded: List[Tuple[str, Any]]) -> None:
    """Negative ids are an error; rows of a rectangle that end in runs of one id, a warning.

    On the host these are numpy passes; on a device the few numbers they need travel in one transfer.
    """
    tokens, lengths = batch.tokens, batch.lengths
    if isinstance(batch, Padded):
        if is_host(tokens):
            tokens, lengths = _host(tokens), _host(lengths)
        xp = array_namespace(tokens)
        width = tokens.shape[1]
        columns = xp.arange(width, device=tokens.device) if xp.__name__ == "torch" else np.arange(width)
        negative = ((tokens < 0) & (columns[None, :] < lengths[:, None])).any()
    else:
        xp = np
        negative = (tokens < 0).any()
    values = [negative]
    for _, x in unpadded:
        x = _host(x) if is_host(x) else x
        values.extend(_trailing_runs(x))
    if xp.__name__ == "torch":
        values = xp.stack([v.to(xp.int64) for v in values]).cpu().tolist()
    else:
        values = [int(v) for v in values]
    if values[0]:
        _raise_negative(batch)
    for k, (name, x) in enumerate(unpadded):
        runs, lo, hi, ending = values[1 + 4 * k : 5 + 4 * k]
        # A quarter of the rows ending in one id, runs of no other: random ids almost never do.
        if runs and lo == hi and ending >= max(2, -(-int(x.shape[0]) // 4)):
            warnings.warn(
                f"{name}: {ending} rows end in the id {lo} ({runs} in a run of it) and no pad_id was given, so "
                f"those ids are scored as tokens (padding lowers the scores). Pass pad_id={lo} (or the rows' "
                "lengths) if it is padding; if it is a real token, filter bleukit.ids.PaddingWarning.",
                PaddingWarning,
                user_stacklevel(),
            )


def _trailing_runs(x: Any) -> List[Any]:
    """Of a 2-D array: the rows whose last two ids are equal (a trailing run), the smallest and
    the largest id such a run is of, and the rows whose last id is the smallest one. Padding shows
    as runs of one id at the ends of rows, and rows ending in it (0-d arrays of ``x``'s library)."""
    xp = array_namespace(x)
    if x.ndim != 2 or x.shape[1] < 2 or x.shape[0] < 2:
        zero = xp.zeros((), dtype=xp.int64) if xp.__name__ == "numpy" else xp.zeros((), dtype=xp.int64, device=x.device)
        return [zero, zero, zero, zero]
    last = x[:, -1]
    run = last == x[:, -2]
    lo = xp.where(run, last, xp.full_like(last, _INT64_MAX)).min()
    hi = xp.where(run, last, xp.full_like(last, _INT64_MIN)).max()
    return [run.sum(), lo, hi, (last == lo).sum()]


def _raise_negative(batch: Union[Flat, Padded]) -> None:
    """The error for a negative id, naming where the first one is (only ever on the error path)."""
    lengths = _host(batch.lengths.cpu() if is_torch_tensor(batch.lengths) else batch.lengths).astype(np.int64)
    tokens = _host(batch.tokens.cpu() if is_torch_tensor(batch.tokens) else batch.tokens)
    if isinstance(batch, Padded):
        valid = np.arange(tokens.shape[1])[None, :] < lengths[:, None]
        seq, col = np.argwhere((tokens < 0) & valid)[0]
        value = int(tokens[seq, col])
        per_row = batch.max_slot + 1
        owner = int(seq // per_row) if batch.owner is None else int(_host(batch.owner.cpu())[seq])
        slot = int(seq % per_row) if batch.slot is None else int(_host(batch.slot.cpu())[seq])
    else:
        first = int(np.flatnonzero(tokens < 0)[0])
        value = int(tokens[first])
        seq = int(np.searchsorted(np.cumsum(lengths), first, side="right"))
        owner, slot = int(np.asarray(batch.owner)[seq]), int(np.asarray(batch.slot)[seq])
    where = f"hyp_ids row {owner}" if slot == 0 else f"ref_ids row {owner} (reference {slot})"
    raise ValueError(
        f"{where} holds the id {value}: negative ids are never token ids (-100 is the ignore_index that "
        f"transformers puts in labels). Drop them with pad_id={value} (or pad_id=(pad, {value}) with your pad "
        "id), or cut the rows with hyp_lengths/ref_lengths."
    )
