"""Glue between BLEU and its compiled kernel (``bleukit.metrics.bleu._kernel``, sources in ``csrc/metrics/bleu/``).

Two entry points: :func:`native_text_statistics` (the text path) and
:func:`native_flat_ids_statistics` (token ids). Both release the GIL while they count and stop
with ``KeyboardInterrupt`` on Ctrl-C. :func:`uses_native` says whether text with some options goes
through the kernel (``bleukit._native`` loads it and applies ``BLEUKIT_ENGINE``).

The kernel's character classes are not typed into the C code: :func:`character_table` derives
them here from the objects the Python tokenizers use (the mteval patterns, the ``regex``
package's ``\\p{P}``/``\\p{S}``/``\\p{N}``, ``CHINESE_RANGES``), so both engines always agree.

>>> uses_native(BleuOptions(tokenize="ja-mecab"))
False
"""

from __future__ import annotations

from array import array
from types import ModuleType
from typing import TYPE_CHECKING, Any, List, Optional, Sequence, Tuple

from ... import _native
from ...inputs import check_reference_entry
from ...tokenizers.mteval import CHINESE_RANGES, MTEVAL_RULES, MtevalRule
from .options import BleuOptions
from .statistics import BleuStatistics, stats_columns

if TYPE_CHECKING:
    import numpy as np

__all__ = ["NATIVE_TOKENIZERS", "KERNEL", "available", "unavailable_reason", "uses_native", "ids_kernel_in_use",
           "character_table", "native_text_statistics", "native_systems_statistics", "native_summed_row",
           "native_sentence_row", "native_systems_rows",
           "native_flat_ids_statistics"]

#: The module name of BLEU's kernel.
KERNEL = _native.MAIN_KERNEL
#: The kernel itself, or ``None`` when it is not built.
_kernel: Optional[ModuleType] = _native.load_kernel(KERNEL)
unavailable_reason: Optional[str] = _native.kernel_error(KERNEL)

#: Tokenizers the kernel implements, with their codes in the C source (the TOK_* enum of csrc/metrics/bleu/bleu.h).
NATIVE_TOKENIZERS = {"13a": 0, "intl": 1, "zh": 2, "char": 3, "none": 4}

_table: Optional[bytes] = None  # mteval and Chinese classes
_full_table: Optional[bytes] = None  # the same plus the Unicode properties intl needs


def available() -> bool:
    """Whether the compiled kernel could be imported.

    >>> isinstance(available(), bool)
    True
    """
    return _kernel is not None


def uses_native(options: BleuOptions) -> bool:
    """Whether text with these options goes through the kernel (ja-mecab/ko-mecab never do).

    >>> uses_native(BleuOptions(tokenize="ko-mecab"))
    False
    """
    return options.tokenize in NATIVE_TOKENIZERS and _native.kernel(KERNEL) is not None


def ids_kernel_in_use() -> bool:
    """Whether token ids on the host are counted by the kernel now (``BLEUKIT_ENGINE`` decides).

    >>> ids_kernel_in_use() == (available() and _native.engine_name() == "native")
    True
    """
    return _native.kernel(KERNEL) is not None


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
        # Joined from pieces, not numpy: a score on a few lines (the command line's start-up) never
        # imports numpy. (A zeroed 1.1 MB bytearray copied to bytes cost twice the page faults.)
        flags = _flags()
        ascii_part = bytearray(128)
        # The mteval patterns are ASCII classes (their ranges are written with ASCII bounds), so
        # testing the ASCII code points reads them off completely; tests/metrics/bleu/test_bleu_kernel.py
        # checks all others.
        for cp in range(128):
            if MTEVAL_RULES[MtevalRule.PUNCTUATION][0].fullmatch(chr(cp)):
                ascii_part[cp] |= flags["13A"]
            # the digit class, read off the rule that splits "<digit>-"
            if MTEVAL_RULES[MtevalRule.DASH_AFTER_DIGIT][0].fullmatch(chr(cp) + "-"):
                ascii_part[cp] |= flags["DIGIT"]
        pieces, end = [bytes(ascii_part)], 128  # the Chinese ranges (which overlap) lie above ASCII
        for lo, hi in sorted(CHINESE_RANGES):
            lo = max(lo, end)
            if hi >= lo:
                pieces += [bytes(lo - end), bytes([flags["ZH"]]) * (hi - lo + 1)]
                end = hi + 1
        pieces.append(bytes(0x110000 - end))
        _table = b"".join(pieces)
    if not unicode_properties:
        return _table
    import numpy as np
    import regex

    full = np.frombuffer(_table, dtype=np.uint8).copy()
    every = _decode(np.arange(0x110000, dtype=np.uint32))
    for name in ("P", "S", "N"):
        starts = [m.start() for m in regex.finditer(rf"\p{{{name}}}", every)]
        full[np.asarray(starts, dtype=np.int64)] |= _flags()[name]
    _full_table = full.tobytes()
    return _full_table


def _decode(codes: "np.ndarray") -> str:
    # Lone surrogates are code points too (a str can hold them), so they are in the table.
    return codes.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")


def _flags() -> dict:
    # The bits are the kernel's (CLS_* in csrc/metrics/bleu/bleu.h), read from the module rather than copied.
    if _kernel is None:
        raise RuntimeError(unavailable_reason)
    return {name: getattr(_kernel, f"CLS_{name}") for name in ("P", "S", "N", "ZH", "13A", "DIGIT")}


def _kernel_arguments(options: BleuOptions) -> Tuple[Any, int]:
    """The kernel and the tokenizer's code in it, or an error saying why the kernel cannot count."""
    if _kernel is None:
        raise RuntimeError(unavailable_reason)
    code = NATIVE_TOKENIZERS.get(options.tokenize)
    if code is None:
        raise ValueError(f"the native kernel does not implement tokenize={options.tokenize!r}")
    return _kernel, code


def native_text_statistics(
    hypotheses: Sequence[str], references: Sequence[Any], options: BleuOptions, threads: int = 1
) -> BleuStatistics:
    """Statistics from the kernel (same table as the Python reference), on ``threads`` threads.

    ``references[i]`` is entry ``i`` as the caller gave it (a str, or a list or tuple of str and
    ``None``): the kernel checks it with :func:`bleukit.inputs.check_reference_entry`'s errors
    and reads it in place; other types of entry go through that function.

    >>> if available():
    ...     native_text_statistics(["Hello, world!"], ["Hello world!"], BleuOptions()).rows.tolist()
    ... else:
    ...     [[4, 3, 3, 1, 0, 0, 4, 3, 2, 1]]
    [[4, 3, 3, 1, 0, 0, 4, 3, 2, 1]]
    """
    import numpy as np

    kernel, code = _kernel_arguments(options)
    n = len(hypotheses)
    rows = np.empty((n, stats_columns(options.max_ngram_order)), dtype=np.int64)
    nrefs = np.empty(n, dtype=np.int64)
    kernel.text_statistics(
        hypotheses, references, code, int(options.lowercase), options.max_ngram_order,
        character_table(unicode_properties=options.tokenize == "intl"), rows, nrefs,
        min(threads, kernel.MAX_THREADS), 0, check_reference_entry,
    )
    return BleuStatistics(rows, nrefs, options.max_ngram_order)


def native_systems_statistics(
    systems: Sequence[Sequence[str]], references: Sequence[Any], options: BleuOptions, threads: int = 1
) -> List[BleuStatistics]:
    """:func:`native_text_statistics` of several systems translating the same sentences, each
    sentence's references tokenized once for all of them (a paired test's tables).

    >>> if available():
    ...     tables = native_systems_statistics([["a b"], ["a"]], ["a b"], BleuOptions(max_ngram_order=1))
    ...     [t.rows.tolist() for t in tables]
    ... else:
    ...     [[[2, 2, 2, 2]], [[1, 2, 1, 1]]]
    [[[2, 2, 2, 2]], [[1, 2, 1, 1]]]
    """
    import numpy as np

    kernel, code = _kernel_arguments(options)
    if len(systems) > kernel.MAX_SYSTEMS:
        step = kernel.MAX_SYSTEMS
        return [table for j in range(0, len(systems), step)
                for table in native_systems_statistics(systems[j : j + step], references, options, threads)]
    count, n = len(systems), len(references)
    rows = np.empty((count * n, stats_columns(options.max_ngram_order)), dtype=np.int64)
    nrefs = np.empty(count * n, dtype=np.int64)
    _systems_into(kernel, code, systems, references, options, rows, nrefs, threads)
    return [BleuStatistics(rows[j * n : (j + 1) * n], nrefs[j * n : (j + 1) * n], options.max_ngram_order)
            for j in range(count)]


def native_systems_rows(
    systems: Sequence[Sequence[str]], references: Sequence[Any], options: BleuOptions, threads: int = 1
) -> Optional[Tuple[array, array]]:
    """:func:`native_systems_statistics` as flat ``array("q")`` buffers, without numpy: the systems'
    rows one table after another, and their ``nrefs`` in the same order. ``None`` for more systems
    than one kernel call counts (then the tables are numpy's).

    >>> if available():
    ...     rows, nrefs = native_systems_rows([["a b"], ["a"]], ["a b"], BleuOptions(max_ngram_order=1))
    ...     rows.tolist(), nrefs.tolist()
    ... else:
    ...     ([2, 2, 2, 2, 1, 2, 1, 1], [1, 1])
    ([2, 2, 2, 2, 1, 2, 1, 1], [1, 1])
    """
    kernel, code = _kernel_arguments(options)
    if len(systems) > kernel.MAX_SYSTEMS:
        return None
    cells = len(systems) * len(references)
    rows = array("q", bytes(8 * cells * stats_columns(options.max_ngram_order)))
    nrefs = array("q", bytes(8 * cells))
    _systems_into(kernel, code, systems, references, options, rows, nrefs, threads)
    return rows, nrefs


def _systems_into(kernel: ModuleType, code: int, systems: Sequence[Sequence[str]], references: Sequence[Any],
                  options: BleuOptions, rows: Any, nrefs: Any, threads: int) -> None:
    kernel.systems_statistics(
        systems, references, code, int(options.lowercase), options.max_ngram_order,
        character_table(unicode_properties=options.tokenize == "intl"), rows, nrefs,
        min(threads, kernel.MAX_THREADS), check_reference_entry,
    )


def native_summed_row(
    hypotheses: Sequence[str], references: Sequence[Any], options: BleuOptions, threads: int = 1
) -> Tuple[List[int], int]:
    """The column sums of :func:`native_text_statistics`' table and the summed row's number of
    references (``-1`` when it varies), counted without the table: constant memory per corpus.

    >>> if available():
    ...     native_summed_row(["a b", "c"], ["a b", ["c", "d"]], BleuOptions(max_ngram_order=1))
    ... else:
    ...     ([3, 3, 3, 3], -1)
    ([3, 3, 3, 3], -1)
    """
    kernel, code = _kernel_arguments(options)
    row = array("q", bytes(8 * stats_columns(options.max_ngram_order)))
    nrefs = array("q", [0])
    kernel.text_statistics(
        hypotheses, references, code, int(options.lowercase), options.max_ngram_order,
        character_table(unicode_properties=options.tokenize == "intl"), row, nrefs,
        min(threads, kernel.MAX_THREADS), 1, check_reference_entry,
    )
    return row.tolist(), nrefs[0]


def native_sentence_row(hypothesis: str, references: Any, options: BleuOptions) -> Tuple[List[int], int]:
    """The statistics row of one hypothesis against its references (a str, or a list of str
    and ``None``) and their number, in one kernel call.

    >>> if available():
    ...     native_sentence_row("the cat sat", ["the cat sat down", None], BleuOptions(max_ngram_order=2))
    ... else:
    ...     ([3, 4, 3, 2, 3, 2], 1)
    ([3, 4, 3, 2, 3, 2], 1)
    """
    kernel, code = _kernel_arguments(options)
    out = kernel.sentence_row(
        hypothesis, references, code, options.lowercase, options.max_ngram_order,
        character_table(unicode_properties=options.tokenize == "intl"), check_reference_entry,
    )
    return list(out[:-1]), out[-1]


def native_flat_ids_statistics(
    tokens: "np.ndarray", lengths: "np.ndarray", owner: "np.ndarray", n_rows: int, max_ngram_order: int = 4
) -> BleuStatistics:
    """Statistics of a flat batch of ids without a Python loop over sentences.

    ``tokens`` holds every sequence's ids back to back; sequence ``j`` has ``lengths[j]`` ids and
    belongs to row ``owner[j]``. Sequences are ordered by row, each row's hypothesis first, then
    its references (at least one).

    >>> import numpy as np
    >>> from bleukit.metrics.bleu.statistics import count_statistics
    >>> tokens = np.array([5, 6, 7, 5, 5, 6, 8, 7, 5])
    >>> if available():
    ...     rows = native_flat_ids_statistics(tokens, np.array([4, 3, 2]), np.array([0, 0, 0]), 1, 2).rows
    ... else:
    ...     rows = count_statistics([[5, 6, 7, 5]], [[[5, 6, 8], [7, 5]]], 2).rows
    >>> rows.tolist()
    [[4, 3, 3, 2, 4, 3]]
    """
    import numpy as np

    if _kernel is None:
        raise RuntimeError(unavailable_reason)
    rows = np.empty((n_rows, stats_columns(max_ngram_order)), dtype=np.int64)
    nrefs = np.empty(n_rows, dtype=np.int64)
    _kernel.ids_statistics_flat(
        np.ascontiguousarray(tokens, dtype=np.int64), np.ascontiguousarray(lengths, dtype=np.int64),
        np.ascontiguousarray(owner, dtype=np.int64), n_rows, max_ngram_order, rows, nrefs,
    )
    return BleuStatistics(rows, nrefs, max_ngram_order)

