"""The two batches a layout of token ids becomes (:mod:`.layout`): :class:`Flat` for the host
counters, :class:`Padded` for the torch counter; what ``pad_id`` may be; and the warning about
ids that look padded.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

__all__ = ["PadIds", "Flat", "Padded", "pad_ids", "PaddingWarning"]

PadIds = Union[None, int, Sequence[int]]
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class PaddingWarning(UserWarning):
    """Ids given without ``pad_id`` look padded: rows of a rectangular batch end in runs of one id,
    which are then scored as tokens. Filter it (``warnings.filterwarnings("ignore",
    category=PaddingWarning)``) where that id is a real token."""


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
