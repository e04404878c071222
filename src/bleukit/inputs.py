"""Checks and normalisation of user input, shared by every entry point.

References are laid out per hypothesis: ``references[i]`` is a string or a list of strings
(``None`` marks a missing reference) for ``hypotheses[i]``. Nothing is truncated, nothing mutated.

>>> check_references(["r1", ["r2a", None, "r2b"]], n_hypotheses=2)
[['r1'], ['r2a', 'r2b']]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from itertools import chain
from typing import Any, List, Optional, Sequence, Tuple, Union

from ._stack import user_stacklevel

__all__ = [
    "check_sequence",
    "check_tokens",
    "check_texts",
    "check_hypotheses",
    "check_references",
    "reference_entries",
    "hypotheses_and_entries",
    "check_reference_entry",
    "check_sentence_references",
    "check_utf8",
    "check_seed",
    "check_count",
    "check_number",
    "references_from_streams",
    "warn_if_streams",
    "ReferenceLayoutWarning",
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


def check_sequence(items: Any, what: str, of: str = "strings") -> List[Any]:
    """An ordered collection of ``of`` as a new list (a generator is read once), whatever its
    items are, or a ``TypeError`` naming ``what``: a single string, ``None``, a mapping, a set (no
    order) and a DataFrame (iterating it gives its column names) are refused wherever a list
    belongs. (:func:`check_texts` and :func:`check_references` apply the same rules to text.)

    >>> check_sequence((s for s in ["a", ["b"]]), "candidates")
    ['a', ['b']]
    >>> check_sequence({0.5, 0.25}, "weights", of="numbers")
    Traceback (most recent call last):
    ...
    TypeError: weights must be an ordered sequence of numbers, got a set (a set has no order); pass a list
    """
    if items is None or isinstance(items, (str, bytes)):
        kind = "None" if items is None else f"a single {type(items).__name__}"
        raise TypeError(f"{what} must be a list of {of}, got {kind}")
    if isinstance(items, Mapping):
        raise TypeError(f"{what} must be a list of {of}, got a {type(items).__name__} (a mapping)")
    if isinstance(items, AbstractSet):
        raise TypeError(
            f"{what} must be an ordered sequence of {of}, got a {type(items).__name__} (a set has no order); "
            "pass a list"
        )
    if hasattr(items, "columns") and hasattr(items, "iloc"):
        raise TypeError(
            f"{what} must be a list of {of}, got a {type(items).__name__}; pass one column, e.g. "
            'df["column"].tolist()'
        )
    try:
        return list(items)
    except TypeError:
        raise TypeError(f"{what} must be a list of {of}, got {type(items).__name__}") from None


def check_tokens(tokens: Any, what: str) -> List[Any]:
    """A list of tokens (any hashable items) as a new list, for the entry points that take
    tokenized input: a string (split it first), a set (its n-grams would change from run to run),
    a mapping or a DataFrame is a ``TypeError`` naming ``what``; a generator is read once.

    >>> check_tokens(iter(["the", "cat"]), "candidate")
    ['the', 'cat']
    >>> check_tokens("the cat", "candidate")
    Traceback (most recent call last):
    ...
    TypeError: candidate must be a list of tokens, got a str; split it first: candidate.split()
    """
    if isinstance(tokens, str):
        raise TypeError(f"{what} must be a list of tokens, got a str; split it first: {what}.split()")
    return check_sequence(tokens, what, of="tokens")


def check_texts(texts: Any, what: str, copy: bool = True, items: bool = True) -> List[str]:
    """A non-empty list of sentences as a new list of ``str``, or a ``TypeError``/``ValueError``
    that names ``what`` and the problem (the one check of "a list of strings" everywhere).
    With ``copy=False`` a ``list`` is checked and returned as it is, for a reader that makes its
    own private copy (BLEU's kernel): 8 bytes a sentence less, 80 MB at 10M sentences.
    ``items=False`` checks the whole but not its items, for a reader that checks every item
    with this message before any work (BLEU's kernel): see :func:`hypotheses_and_entries`.

    >>> check_texts(("a b", "c"), "candidates")
    ['a b', 'c']
    """
    checked = texts if not copy and type(texts) is list else _as_list(texts, what)
    if not checked:
        raise ValueError(f"empty corpus: {what} is empty, at least one sentence is needed")
    if items:
        _check_items(checked, what)
    return checked


def _check_items(items: List[Any], what: str) -> None:
    # The distinct types first (a C loop, no object per item): a million sentences are checked in
    # milliseconds; only a corpus with a bad item is walked in Python, to name the first one.
    if not all(issubclass(kind, str) for kind in set(map(type, items))):
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise TypeError(f"{what}[{i}] must be a str, got {type(item).__name__}")


def check_hypotheses(hypotheses: Any, copy: bool = True) -> List[str]:
    """The hypotheses as a new list of ``str`` (``copy`` as in :func:`check_texts`), or a
    ``TypeError``/``ValueError`` naming the problem.

    >>> check_hypotheses(("a b", "c"))
    ['a b', 'c']
    """
    return check_texts(hypotheses, "hypotheses", copy)


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


def check_reference_entry(entry: Any, index: int) -> List[str]:
    """The references of one entry as a new list of strings, ``None`` ones removed: entry
    ``index`` of a corpus's references, or with ``index=-1`` the references of a single hypothesis.

    This is the one check of a reference entry. A compiled extractor that reads entries as the
    caller gave them (:attr:`bleukit.metrics.fast.FastPaths.reads_reference_entries`) applies the
    same rules with the same messages to ``str``, ``list`` and ``tuple`` entries, and calls this
    function for any other type.

    >>> check_reference_entry(["a", None, "b"], 3)
    ['a', 'b']
    >>> check_reference_entry(None, 3)
    Traceback (most recent call last):
    ...
    ValueError: references[3] is None: every hypothesis needs at least one reference
    """
    if index < 0:
        return check_sentence_references(entry)
    return _refs_of_one(entry, f"references[{index}]")


def reference_entries(references: Any, n_hypotheses: int, copy: bool = True) -> List[Any]:
    """The caller's references as a new list of entries, one per hypothesis, each left as it is
    (a string, or a list of strings with ``None`` for a missing reference): the checks of the
    whole (type, length, layout) without a list per hypothesis. The entries themselves are
    checked by :func:`check_reference_entry`, or by a kernel that reads them in place.
    ``copy=False`` returns a ``list`` itself, as :func:`check_texts` does.

    >>> reference_entries(("r1", ["r2a", None]), n_hypotheses=2)
    ['r1', ['r2a', None]]
    """
    refs = _entries(references, n_hypotheses, copy)
    warn_if_streams(refs, n_hypotheses)
    return refs


def _entries(references: Any, n_hypotheses: int, copy: bool) -> List[Any]:
    """:func:`reference_entries` without the streams warning."""
    # a test set (bleukit.testsets.TestSet) gives its scoring references, one entry per segment
    entries = getattr(references, "reference_entries", None) if not isinstance(references, list) else None
    if entries is not None:
        references = entries
    refs = references if not copy and type(references) is list else _as_list(references, "references")
    if len(refs) != n_hypotheses:
        message = f"got {n_hypotheses} hypotheses but {len(refs)} reference entries. "
        if refs and all(_is_sequence(r) and len(r) == n_hypotheses for r in refs):
            message += (
                f"This looks like sacreBLEU-style reference streams ({len(refs)} stream(s) of "
                f"{n_hypotheses} lines): convert them with bleukit.references_from_streams(references). "
            )
        raise ValueError(message + _LAYOUT_HINT)
    return refs


def hypotheses_and_entries(hypotheses: Any, references: Any, copy: bool = True) -> Tuple[List[str], List[Any]]:
    """:func:`check_hypotheses` then :func:`reference_entries`, for a reader that checks every
    hypothesis itself with :func:`check_texts`' message before any work (BLEU's kernel, which
    reads both lists in place): the hypotheses are checked item by item here only where an error
    or a warning about the references would otherwise come first, so the errors, and their order,
    are those of the two checks in turn, and a million hypotheses are not walked twice (the walk
    holds the GIL: 3% of a one-thread call, whatever the threads).

    >>> hypotheses_and_entries(("a", "b"), ["x", ["y", None]])
    (['a', 'b'], ['x', ['y', None]])
    """
    hyps = check_texts(hypotheses, "hypotheses", copy, items=False)
    try:
        refs = _entries(references, len(hyps), copy)
    except (TypeError, ValueError):
        _check_items(hyps, "hypotheses")  # a bad hypothesis is the first error
        raise
    if _stream_shaped(refs, len(hyps)):
        _check_items(hyps, "hypotheses")
        warn_if_streams(refs, len(hyps))
    return hyps, refs


def check_references(references: Any, n_hypotheses: int) -> List[List[str]]:
    """References per hypothesis as new lists of strings with missing (``None``) ones removed.

    >>> check_references(["only one"], n_hypotheses=1)
    [['only one']]
    """
    refs = reference_entries(references, n_hypotheses)
    # A plain string is the common case: skip the per-item call and error-message formatting
    # (a third of the check's time on a 100k-line corpus); the result is the same.
    return [[item] if type(item) is str else check_reference_entry(item, i) for i, item in enumerate(refs)]


class ReferenceLayoutWarning(UserWarning):
    """References given per hypothesis read like sacreBLEU-style reference streams (see
    :func:`warn_if_streams`)."""


def warn_if_streams(refs: List[Any], n_hypotheses: int) -> None:
    """Warn when per-hypothesis ``refs`` look like sacreBLEU-style reference streams.

    With as many streams as hypotheses, ``streams`` has the shape of per-hypothesis references
    (``n`` entries of ``n`` strings) and would be scored as such, silently wrong. The two layouts
    differ in what is alike: the references of one sentence resemble each other, different
    sentences do not. So when every entry holds exactly ``n`` strings, the strings at one position
    across entries (alike in streams) are compared with the strings within one entry (alike per
    hypothesis), on a sample; clearly more alike across entries gets a ``ReferenceLayoutWarning``
    with the fix. Any other input costs one length check.

    >>> import warnings
    >>> streams = [["the cat sat on the mat", "it is raining today"], ["a cat sat on the mat", "it rains today"]]
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     warn_if_streams(streams, 2)
    >>> [w.category.__name__ for w in seen]
    ['ReferenceLayoutWarning']
    """
    if not _stream_shaped(refs, n_hypotheses):
        return
    sample = range(min(n_hypotheses, 8))
    within = _mean_likeness([(refs[i][j], refs[i][j + 1]) for i in sample for j in sample if j + 1 < n_hypotheses])
    across = _mean_likeness([(refs[j][i], refs[j + 1][i]) for i in sample for j in sample if j + 1 < n_hypotheses])
    if across > 2 * within and across - within > 0.15:
        import warnings

        warnings.warn(
            f"references holds {n_hypotheses} entries of {n_hypotheses} strings, read per hypothesis "
            "(references[i] = the references of hypotheses[i]), but they look like sacreBLEU-style "
            "reference streams (streams[k][i] = k-th reference of sentence i): the strings at one position "
            "of every entry are alike, the strings within an entry are not. If they are streams, convert "
            "them with bleukit.references_from_streams(references) (or score with the sacreBLEU-shaped "
            "API, bleukit.sacrebleu).",
            ReferenceLayoutWarning,
            user_stacklevel(),
        )


def _stream_shaped(refs: List[Any], n_hypotheses: int) -> bool:
    """Whether every entry holds exactly ``n_hypotheses`` items (:func:`warn_if_streams` may warn)."""
    first = refs[0] if refs else None
    if n_hypotheses < 2 or first is None or type(first) is str or not _is_sequence(first) or len(first) != n_hypotheses:
        return False
    return all(_is_sequence(r) and not isinstance(r, str) and len(r) == n_hypotheses for r in refs)


def _mean_likeness(pairs: List[Any]) -> float:
    """Mean overlap (Jaccard) of the character bigrams of string pairs; pairs with a non-string skipped."""
    scores = []
    for a, b in pairs:
        if isinstance(a, str) and isinstance(b, str):
            x = {a[k : k + 2].lower() for k in range(len(a) - 1)}
            y = {b[k : k + 2].lower() for k in range(len(b) - 1)}
            if x or y:
                scores.append(len(x & y) / len(x | y))
    return sum(scores) / len(scores) if scores else 0.0


def check_sentence_references(references: Any) -> List[str]:
    """References of a single hypothesis: a string or a list of strings.

    >>> check_sentence_references("the cat")
    ['the cat']
    """
    if not isinstance(references, str) and references is not None:
        # A set, a mapping or a DataFrame (which would give its column names) is named here;
        # a generator is read once.
        references = check_sequence(references, "references", of="strings (or one string)")
    return _refs_of_one(references, "references")


def check_utf8(texts: Sequence[Union[str, Sequence[str]]], what: str) -> None:
    """A ``ValueError`` naming the first text of ``texts`` (strings, or lists of strings such as
    checked references) that UTF-8 cannot encode: a lone surrogate such as ``"\\ud800"``, from
    text decoded with ``errors="surrogateescape"``.

    Python strings may hold them and the scores treat them as characters, but Arrow (evaluate,
    datasets) and JSON writers cannot store them: the entry points that hand text over check here
    first, so that the error says which item it is.

    >>> check_utf8(["fine", ["ok", "bad \\ud800"]], "references")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: references[1][1] is not valid Unicode text: it holds a lone surrogate ('\\ud800' at character 4), ...
    """
    flat = chain.from_iterable([t] if isinstance(t, str) else t for t in texts)
    try:
        "".join(flat).encode("utf-8")  # one pass in C for the common, valid case
        return
    except UnicodeEncodeError:
        pass
    for i, item in enumerate(texts):
        for k, text in enumerate([item] if isinstance(item, str) else item):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as err:
                where = f"{what}[{i}]" if isinstance(item, str) else f"{what}[{i}][{k}]"
                raise ValueError(
                    f"{where} is not valid Unicode text: it holds a lone surrogate ({text[err.start]!r} at "
                    f"character {err.start}), which UTF-8 cannot encode; decode the input with "
                    'errors="replace" or fix the source'
                ) from None


def check_seed(seed: Any, what: str = "seed") -> Optional[int]:
    """A random seed: an int >= 0 (any size, as numpy takes it) or ``None`` (fresh entropy). A
    float, even a whole one, is a ``TypeError``: above 2**53 it is not the number that was meant.

    >>> check_seed(2**64 + 1), check_seed(None)
    (18446744073709551617, None)
    """
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"{what} must be an int >= 0 or None, got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"{what} must be an int >= 0 or None, got {seed}")
    return int(seed)


def check_count(count: Any, what: str, minimum: int = 1) -> int:
    """A number of things to do (samples, resamples, n-best): an int >= ``minimum``, not a bool or
    a float (``minimum=0`` where sacreBLEU takes 0 to mean none, as its ``n_bootstrap``).

    >>> check_count(1000, "n_samples")
    1000
    """
    if isinstance(count, bool) or not isinstance(count, numbers.Integral):
        raise TypeError(f"{what} must be an int, got {type(count).__name__}")
    if count < minimum:
        raise ValueError(f"{what} must be >= {minimum}, got {count}")
    return int(count)


def check_number(value: Any, what: str, minimum: Optional[float] = None, strict: bool = False) -> float:
    """A real number option (a smoothing value, a weight, a reward's scale) as the float the
    formulas use: finite, and ``>= minimum`` (``> minimum`` when ``strict``) when given. A bool or
    a string is a ``TypeError``; NaN, an infinity or a number out of range a ``ValueError``.

    >>> check_number(1, "scale", minimum=0, strict=True)
    1.0
    >>> check_number(float("nan"), "scale")
    Traceback (most recent call last):
    ...
    ValueError: scale must be a finite number, got nan
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a number, got {type(value).__name__}")
    bound = "" if minimum is None else f" {'>' if strict else '>='} {minimum:g}"
    try:
        number = float(value)
    except OverflowError:  # an int or Fraction beyond float's range
        number = math.inf
    if not math.isfinite(number) or (
        minimum is not None and (number <= minimum if strict else number < minimum)
    ):
        raise ValueError(f"{what} must be a finite number{bound}, got {value!r}")
    return number


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
    # Each stream as a sequence: a generator is read once; a set, a mapping, a DataFrame or a
    # single string is named. Lists and tuples are taken as they are (copying 4 x 100k lines
    # would add half again to this step).
    streams = [
        stream if type(stream) in (list, tuple) else check_sequence(stream, f"streams[{k}]", of="reference strings")
        for k, stream in enumerate(streams)
    ]
    lengths = [len(stream) for stream in streams]
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
