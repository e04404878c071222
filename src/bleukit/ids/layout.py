"""Input layouts of token ids, checked and normalised to one batch for a counter.

Every accepted layout (padded 2-D arrays or tensors, 3-D references, lists of 2-D reference
arrays, ragged lists with ``None`` for a missing reference) is checked here and becomes one of two
batches, each ordered by (row, slot) with every hypothesis directly followed by its references:

- :class:`Flat` (host counters): all sequences' ids laid end to end, padding removed;
- :class:`Padded` (the torch counter): one row per sequence in a matrix of fixed width, each
  row's ids first. Built with fixed-shape operations only (padding is squeezed out of a row by a
  scatter, not by boolean indexing), so dense tensors never wait for the device here.

Which ids count (``pad_id``, explicit lengths) is applied on the way. What is left must be token
ids: a negative id (``-100``, the ``ignore_index`` of labels) is an error that says how to drop it,
and a padded 2-D array or tensor given without ``pad_id`` (a quarter of its rows or more end in
one id, which some of them repeat) gets a :class:`PaddingWarning` (its padding would be scored as
tokens). Both checks are a pass over the
ids on the host; on an accelerator they cost one transfer of four numbers (one synchronisation).

>>> from bleukit.ids.backends import NumpyOps
>>> flat = gather([[1, 2, 0]], [[[1, 2], [3]]], pad_id=0, hyp_lengths=None, ref_lengths=None, ops=NumpyOps())
>>> flat.tokens.tolist(), flat.lengths.tolist(), flat.owner.tolist(), flat.slot.tolist()
([1, 2, 1, 2, 3], [2, 2, 1], [0, 0, 0], [0, 1, 2])
"""

from __future__ import annotations

from typing import Any, List, Tuple, Union

import numpy as np

from .backends import NumpyOps
from .batch import Flat, Padded, PaddingWarning, PadIds, pad_ids
from .checks import _check_container, _check_ids, _is_array, check_id_array
from .checks import is_host as is_host
from .parts import _dense_part, _is_single_ref, _kept_rows, _merge, _ragged_part, _rows_part, _stack

# The batches, the pad ids and the checks live in .batch and .checks; they are importable from here
# (this module's names), as is_host is.
__all__ = ["PadIds", "Flat", "Padded", "gather", "sequences", "id_tuples", "pad_ids", "check_id_array",
           "PaddingWarning"]


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

    # Inputs that may be padded without a pad_id: (name, 2-D ids) of rectangular ones.
    unpadded: List[Tuple[str, Any]] = []

    # Hypotheses.
    hyp_part, n_rows = _rows_part(ops, hyp_ids, "hyp_ids", hyp_lengths, "hyp_lengths", pads, padded)
    if _is_array(hyp_ids) and pads is None and hyp_lengths is None:
        unpadded.append(("hyp_ids", hyp_part.tokens if padded else hyp_ids))
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
            if pads is None and lengths is None:
                unpadded.append((name, parts[-1].tokens if padded else refs))
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
    batch = _stack(ops, parts, n_rows, pads) if padded else _merge(parts, n_rows)
    _check_ids(batch, [(name, x) for name, x in unpadded if x is not None])
    return batch


def id_tuples(seqs: Any, pad_id: PadIds, what: str) -> List[Tuple[int, ...]]:
    """Each sequence as a tuple of Python ints without padding (hashable: equal ones count once),
    checked as :func:`sequences` checks them (pairwise matrices and Self-BLEU of ids count equal
    ones once)."""
    tokens, lengths = sequences(seqs, pad_id, what, NumpyOps())
    ids = tokens.tolist()
    ends = np.cumsum(lengths).tolist()
    return [tuple(ids[end - n : end]) for end, n in zip(ends, lengths.tolist())]
