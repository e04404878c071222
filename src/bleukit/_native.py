"""Glue between bleukit and the compiled statistics kernel (``bleukit._native_kernel``, sources in ``csrc/``).

Two entry points: :func:`native_text_statistics` (the text path) and
:func:`native_flat_ids_statistics` (token ids). Both release the GIL while they count and stop
with ``KeyboardInterrupt`` on Ctrl-C.

The kernel is optional. :func:`engine_name` says which engine ``text_statistics`` uses; the
environment variable ``BLEUKIT_ENGINE`` (``python`` or ``native``, read at each call) overrides
the default, which is the kernel when it is built and the tokenizer is one it implements.

The kernel's character classes are not typed into the C code: :func:`character_table` derives
them here from the objects the Python tokenizers use (the mteval patterns, the ``regex``
package's ``\\p{P}``/``\\p{S}``/``\\p{N}``, ``CHINESE_RANGES``), so both engines always agree.

>>> engine_name() in ("native", "python")
True
"""

from __future__ import annotations

import importlib
import os
import warnings
from typing import List, Optional, Sequence

import numpy as np

from .options import BleuOptions
from .statistics import BleuStatistics, stats_columns
from .tokenizers import _MTEVAL_RULES, CHINESE_RANGES, MtevalRule

__all__ = ["NATIVE_TOKENIZERS", "available", "unavailable_reason", "engine_name", "uses_native",
           "native_declined", "character_table", "native_text_statistics", "native_flat_ids_statistics"]

try:
    # import_module names the missing module in its error ("from . import" would blame a cycle)
    _kernel = importlib.import_module(f"{__package__}._native_kernel")
    unavailable_reason: Optional[str] = None
except ImportError as err:  # not compiled: the pure-Python engine is used
    _kernel = None
    unavailable_reason = f"the native kernel is not built ({err})"

#: Tokenizers the kernel implements, with their codes in the C source (the TOK_* enum of csrc/kernel.h).
NATIVE_TOKENIZERS = {"13a": 0, "intl": 1, "zh": 2, "char": 3, "none": 4}

_ENGINES = ("native", "python")
#: File that ``setup.py`` puts beside this module when the package is built with BLEUKIT_NO_NATIVE.
NO_NATIVE_MARKER = "_no_native"
_table: Optional[bytes] = None  # mteval and Chinese classes
_full_table: Optional[bytes] = None  # the same plus the Unicode properties intl needs
_warned = False


def available() -> bool:
    """Whether the compiled kernel could be imported.

    >>> isinstance(available(), bool)
    True
    """
    return _kernel is not None


def _requested() -> Optional[str]:
    value = os.environ.get("BLEUKIT_ENGINE", "").strip().lower()
    if not value:
        return None
    if value not in _ENGINES:
        raise ValueError(f"BLEUKIT_ENGINE={value!r} is not one of {', '.join(_ENGINES)}")
    if value == "native" and _kernel is None:
        raise RuntimeError(f"BLEUKIT_ENGINE=native, but {unavailable_reason}")
    return value


def engine_name() -> str:
    """``'native'`` or ``'python'``: the engine that turns text into statistics.

    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"BLEUKIT_ENGINE": "python"}):
    ...     engine_name()
    'python'
    """
    requested = _requested()
    if requested is not None:
        return requested
    return "native" if _kernel is not None else "python"


def uses_native(options: BleuOptions) -> bool:
    """Whether text with these options goes through the kernel (ja-mecab/ko-mecab never do).

    >>> uses_native(BleuOptions(tokenize="ja-mecab"))
    False
    """
    global _warned
    if options.tokenize not in NATIVE_TOKENIZERS:
        return False
    if engine_name() == "native":
        return True
    if _kernel is None and not _warned and _requested() is None and not native_declined():
        _warned = True
        warnings.warn(f"bleukit: {unavailable_reason}; using the pure-Python engine", RuntimeWarning, 2)
    return False


def native_declined() -> bool:
    """Whether the user chose the pure-Python engine, so its use needs no warning.

    ``BLEUKIT_NO_NATIVE`` set now, or set when the package was built (``setup.py`` then leaves
    the marker file ``_no_native`` beside this module).

    >>> isinstance(native_declined(), bool)
    True
    """
    if os.environ.get("BLEUKIT_NO_NATIVE"):
        return True
    return os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), NO_NATIVE_MARKER))


def character_table(unicode_properties: bool = True) -> bytes:
    """One byte of class bits per code point, built from the Python tokenizers' own definitions.

    The mteval classes (13a punctuation, digits) are read off the compiled mteval patterns, the
    Chinese bit off ``CHINESE_RANGES`` and, with ``unicode_properties`` (only ``intl`` needs them,
    and they cost some 50 ms to build), ``\\p{P}``, ``\\p{S}``, ``\\p{N}`` off the ``regex``
    package sacreBLEU uses. Built once per process. The bits are the kernel's ``CLS_*`` constants,
    so the table needs the kernel (``RuntimeError`` without it).

    >>> if available():
    ...     t = character_table()
    ...     print(len(t) == 0x110000, bool(t[ord(",")] & _kernel.CLS_P), bool(t[ord("中")] & _kernel.CLS_ZH))
    ... else:
    ...     print(True, True, True)
    True True True
    """
    global _table, _full_table
    if _full_table is not None:
        return _full_table
    if _table is None:
        table = np.zeros(0x110000, dtype=np.uint8)
        flags = _flags()
        # The mteval patterns are ASCII classes (their ranges are written with ASCII bounds), so
        # testing the ASCII code points reads them off completely; test_native checks all others.
        for cp in range(128):
            if _MTEVAL_RULES[MtevalRule.PUNCTUATION][0].fullmatch(chr(cp)):
                table[cp] |= flags["13A"]
            # the digit class, read off the rule that splits "<digit>-"
            if _MTEVAL_RULES[MtevalRule.DASH_AFTER_DIGIT][0].fullmatch(chr(cp) + "-"):
                table[cp] |= flags["DIGIT"]
        for lo, hi in CHINESE_RANGES:
            table[lo : hi + 1] |= flags["ZH"]
        _table = table.tobytes()
    if not unicode_properties:
        return _table
    import regex

    table = np.frombuffer(_table, dtype=np.uint8).copy()
    every = _decode(np.arange(0x110000, dtype=np.uint32))
    for name in ("P", "S", "N"):
        starts = [m.start() for m in regex.finditer(rf"\p{{{name}}}", every)]
        table[np.asarray(starts, dtype=np.int64)] |= _flags()[name]
    _full_table = table.tobytes()
    return _full_table


def _decode(codes: np.ndarray) -> str:
    # Lone surrogates are code points too (a str can hold them), so they are in the table.
    return codes.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")


def _flags() -> dict:
    # The bits are the kernel's (CLS_* in csrc/kernel.h), read from the module rather than copied.
    if _kernel is None:
        raise RuntimeError(unavailable_reason)
    return {name: getattr(_kernel, f"CLS_{name}") for name in ("P", "S", "N", "ZH", "13A", "DIGIT")}


def native_text_statistics(
    hypotheses: Sequence[str], references: Sequence[List[str]], options: BleuOptions
) -> BleuStatistics:
    """Statistics of checked input from the kernel (same table as the Python reference).

    >>> if available():
    ...     native_text_statistics(["Hello, world!"], [["Hello world!"]], BleuOptions()).rows.tolist()
    ... else:
    ...     [[4, 3, 3, 1, 0, 0, 4, 3, 2, 1]]
    [[4, 3, 3, 1, 0, 0, 4, 3, 2, 1]]
    """
    if _kernel is None:
        raise RuntimeError(unavailable_reason)
    code = NATIVE_TOKENIZERS.get(options.tokenize)
    if code is None:
        raise ValueError(f"the native kernel does not implement tokenize={options.tokenize!r}")
    n = len(hypotheses)
    rows = np.empty((n, stats_columns(options.max_ngram_order)), dtype=np.int64)
    nrefs = np.empty(n, dtype=np.int64)
    _kernel.text_statistics(
        hypotheses, references, code, int(options.lowercase), options.max_ngram_order,
        character_table(unicode_properties=options.tokenize == "intl"), rows, nrefs,
    )
    return BleuStatistics(rows, nrefs, options.max_ngram_order)


def native_flat_ids_statistics(
    tokens: np.ndarray, lengths: np.ndarray, owner: np.ndarray, n_rows: int, max_ngram_order: int = 4
) -> BleuStatistics:
    """Statistics of a flat batch of ids without a Python loop over sentences.

    ``tokens`` holds every sequence's ids back to back; sequence ``j`` has ``lengths[j]`` ids and
    belongs to row ``owner[j]``. Sequences are ordered by row, each row's hypothesis first, then
    its references (at least one).

    >>> import numpy as np
    >>> from bleukit.statistics import count_statistics
    >>> tokens = np.array([5, 6, 7, 5, 5, 6, 8, 7, 5])
    >>> if available():
    ...     rows = native_flat_ids_statistics(tokens, np.array([4, 3, 2]), np.array([0, 0, 0]), 1, 2).rows
    ... else:
    ...     rows = count_statistics([[5, 6, 7, 5]], [[[5, 6, 8], [7, 5]]], 2).rows
    >>> rows.tolist()
    [[4, 3, 3, 2, 4, 3]]
    """
    if _kernel is None:
        raise RuntimeError(unavailable_reason)
    rows = np.empty((n_rows, stats_columns(max_ngram_order)), dtype=np.int64)
    nrefs = np.empty(n_rows, dtype=np.int64)
    _kernel.ids_statistics_flat(
        np.ascontiguousarray(tokens, dtype=np.int64), np.ascontiguousarray(lengths, dtype=np.int64),
        np.ascontiguousarray(owner, dtype=np.int64), n_rows, max_ngram_order, rows, nrefs,
    )
    return BleuStatistics(rows, nrefs, max_ngram_order)

