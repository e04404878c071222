"""Checks and normalisation of user input, shared by every entry point.

References are laid out per hypothesis: ``references[i]`` is a string or a list of strings
(``None`` marks a missing reference) for ``hypotheses[i]``. Nothing is truncated, nothing mutated.

>>> check_references(["r1", ["r2a", None, "r2b"]], n_hypotheses=2)
[['r1'], ['r2a', 'r2b']]
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import Any, List, Optional, Sequence, Union

__all__ = [
    "check_texts",
    "check_hypotheses",
    "check_references",
    "check_sentence_references",
    "references_from_streams",
]

References = Sequence[Union[str, Sequence[Optional[str]], None]]

_LAYOUT_HINT = (
    "references[i] must hold the reference(s) of hypotheses[i]: a string, or a list of strings "
    "when there are several. sacreBLEU-style reference streams (streams[k][i] = k-th reference of "
    "sentence i) convert with bleukit.references_from_streams(streams)."
)


def _is_sequence(obj: Any) -> bool:
    return not isinstance(obj, (str, bytes, dict)) and hasattr(obj, "__len__") and hasattr(
        obj, "__getitem__"
    )


def _as_list(obj: Any, what: str) -> List[Any]:
    if isinstance(obj, (str, bytes)):
        raise TypeError(
            f"{what} must be a list of strings, got a single {type(obj).__name__}; "
            f"wrap one sentence in a list: [{what[:3]}]"
        )
    if obj is None:
        raise TypeError(f"{what} must be a list of strings, got None")
    if isinstance(obj, Mapping):
        raise TypeError(f"{what} must be a list of strings, got a {type(obj).__name__} (a mapping)")
    if isinstance(obj, AbstractSet):
        # Unordered: hypotheses would pair with references (and resamples) in a random order.
        raise TypeError(
            f"{what} must be an ordered sequence of strings, got a {type(obj).__name__} "
            "(a set has no order); pass a list"
        )
    if hasattr(obj, "columns") and hasattr(obj, "iloc"):
        # Iterating a DataFrame yields its column names, which would be scored as sentences.
        raise TypeError(
            f"{what} must be a list of strings, got a {type(obj).__name__}; pass one column, "
            "e.g. df[\"column\"].tolist()"
        )
    try:
        return list(obj)
    except TypeError:
        raise TypeError(f"{what} must be a list of strings, got {type(obj).__name__}") from None


def check_texts(texts: Any, what: str) -> List[str]:
    """A non-empty list of sentences as a new list of ``str``, or a ``TypeError``/``ValueError``
    that names ``what`` and the problem (the one check of "a list of strings" everywhere).

    >>> check_texts(("a b", "c"), "candidates")
    ['a b', 'c']
    """
    items = _as_list(texts, what)
    if not items:
        raise ValueError(f"empty corpus: {what} is empty, at least one sentence is needed")
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"{what}[{i}] must be a str, got {type(item).__name__}")
    return items


def check_hypotheses(hypotheses: Any) -> List[str]:
    """The hypotheses as a new list of ``str``, or a ``TypeError``/``ValueError`` naming the problem.

    >>> check_hypotheses(("a b", "c"))
    ['a b', 'c']
    """
    return check_texts(hypotheses, "hypotheses")


def _refs_of_one(item: Any, where: str) -> List[str]:
    if isinstance(item, str):
        return [item]
    if item is None:
        raise ValueError(f"{where} is None: every hypothesis needs at least one reference")
    if not _is_sequence(item):
        raise TypeError(
            f"{where} must be a str or a list of str (None for a missing reference), "
            f"got {type(item).__name__}"
        )
    refs = []
    for k, ref in enumerate(item):
        if ref is None:
            continue
        if not isinstance(ref, str):
            raise TypeError(f"{where}[{k}] must be a str or None, got {type(ref).__name__}")
        refs.append(ref)
    if not refs:
        raise ValueError(
            f"{where} holds no reference (empty or all None): every hypothesis needs at least one"
        )
    return refs


def check_references(references: Any, n_hypotheses: int) -> List[List[str]]:
    """References per hypothesis as new lists of strings with missing (``None``) ones removed.

    >>> check_references(["only one"], n_hypotheses=1)
    [['only one']]
    """
    refs = _as_list(references, "references")
    if len(refs) != n_hypotheses:
        message = f"got {n_hypotheses} hypotheses but {len(refs)} reference entries. "
        if refs and all(_is_sequence(r) and len(r) == n_hypotheses for r in refs):
            message += (
                f"This looks like sacreBLEU-style reference streams ({len(refs)} stream(s) of "
                f"{n_hypotheses} lines): convert them with bleukit.references_from_streams(references). "
            )
        raise ValueError(message + _LAYOUT_HINT)
    # A plain string is the common case: skip the per-item call and error-message formatting
    # (a third of the check's time on a 100k-line corpus); the result is the same.
    return [[item] if type(item) is str else _refs_of_one(item, f"references[{i}]") for i, item in enumerate(refs)]


def check_sentence_references(references: Any) -> List[str]:
    """References of a single hypothesis: a string or a list of strings.

    >>> check_sentence_references("the cat")
    ['the cat']
    """
    return _refs_of_one(references, "references")


def references_from_streams(
    streams: Sequence[Sequence[Optional[str]]], n_hypotheses: Optional[int] = None
) -> List[List[Optional[str]]]:
    """Turn sacreBLEU-style reference streams (``streams[k][i]``) into per-hypothesis lists.

    All streams must have the same length (and ``n_hypotheses`` lines, when given); use ``None``
    for a missing reference. A stream of another length is a ``ValueError`` that names it, where
    sacreBLEU's ``zip`` silently drops the lines past the shortest.

    Which layout a nested list is cannot always be told from its shape: two hypotheses with two
    streams of two lines each is a valid per-hypothesis layout too (two references each). The
    scoring functions take the per-hypothesis layout; convert streams explicitly with this function
    rather than relying on a length mismatch to notice them.

    >>> references_from_streams([["a1", "b1"], ["a2", None]])
    [['a1', 'a2'], ['b1', None]]
    >>> references_from_streams([["a1", "b1"], ["a2"]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: reference streams have different lengths: [2, 1]; stream 1 is shorter than stream 0 ...
    """
    streams = _as_list(streams, "streams")
    if not streams:
        raise ValueError("no reference streams given")
    lengths = []
    for k, stream in enumerate(streams):
        if isinstance(stream, str) or not _is_sequence(stream):
            raise TypeError(
                f"streams[{k}] must be a list of reference strings, got {type(stream).__name__}"
            )
        lengths.append(len(stream))
    if n_hypotheses is not None:
        for k, n in enumerate(lengths):
            if n != n_hypotheses:
                word = "short" if n < n_hypotheses else "long"
                raise ValueError(
                    f"reference stream {k} is too {word}: it has {n} lines for {n_hypotheses} hypotheses; every "
                    "stream needs one line per hypothesis (None for a missing reference)"
                )
    if len(set(lengths)) != 1:
        longest = max(range(len(lengths)), key=lengths.__getitem__)
        short = next(k for k, n in enumerate(lengths) if n < lengths[longest])
        raise ValueError(
            f"reference streams have different lengths: {lengths}; stream {short} is shorter than stream "
            f"{longest} (use None for a missing reference)"
        )
    return [list(refs) for refs in zip(*streams)]
