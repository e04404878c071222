"""Typed signatures of bleukit's compiled statistics kernel (``csrc/module.c``).

Call it through :mod:`bleukit.metrics.bleu.kernel`, which builds the arguments. Every array
argument is a C-contiguous, aligned int64 buffer (a numpy ``int64`` array, or an
``array.array("q")``), except ``table``, the bytes of ``character_table``. The corpus entry
points release the GIL while they count and raise ``KeyboardInterrupt`` on Ctrl-C.

A reference entry (``refs[i]``, or the references of one sentence) is a str, or a list or tuple of
str and ``None`` (``None`` marks a missing reference) with at least one str; any other type goes
through ``normalize(entry, i)`` (``i = -1`` for one sentence), which returns a list of str or raises.
"""

from typing import Any, Callable, Final, List, Optional, Sequence, Tuple

from typing_extensions import Buffer

#: Entries of the character-class table (one byte per code point).
TABLE_SIZE: Final[int]
#: Bits of the character-class table (csrc/kernel.h).
CLS_P: Final[int]
CLS_S: Final[int]
CLS_N: Final[int]
CLS_ZH: Final[int]
CLS_13A: Final[int]
CLS_DIGIT: Final[int]
#: Tokenizer codes (bleukit._native.NATIVE_TOKENIZERS).
TOK_13A: Final[int]
TOK_INTL: Final[int]
TOK_ZH: Final[int]
TOK_CHAR: Final[int]
TOK_NONE: Final[int]
#: The largest max_ngram_order the kernel accepts.
MAX_ORDER: Final[int]
#: The most threads one call counts on.
MAX_THREADS: Final[int]
#: The most systems one systems_statistics call counts.
MAX_SYSTEMS: Final[int]

Normalize = Optional[Callable[[Any, int], List[str]]]

def text_statistics(
    hyps: Sequence[str],
    refs: Sequence[Any],
    tokenizer: int,
    lowercase: int,
    order: int,
    table: Buffer,
    rows_out: Buffer,
    nrefs_out: Buffer,
    threads: int = 1,
    summed: int = 0,
    normalize: Normalize = None,
    /,
) -> None:
    """Fill rows_out (n x (2 + 2 order)) and nrefs_out (n) with the statistics of hyps[i]
    against the reference entry refs[i], counted on ``threads`` threads. With ``summed``,
    rows_out is 1 x (2 + 2 order): the column sums, and nrefs_out[0] the common number of
    references (-1 when it varies)."""

def systems_statistics(
    systems: Sequence[Sequence[str]],
    refs: Sequence[Any],
    tokenizer: int,
    lowercase: int,
    order: int,
    table: Buffer,
    rows_out: Buffer,
    nrefs_out: Buffer,
    threads: int = 1,
    normalize: Normalize = None,
    /,
) -> None:
    """text_statistics of S systems translating the same n sentences: rows_out is (S * n) x
    (2 + 2 order) and nrefs_out S * n, system j's at [j * n, (j + 1) * n); each sentence's
    references are tokenized once for all systems."""

def sentence_row(
    hyp: str,
    refs: Any,
    tokenizer: int,
    lowercase: object,
    order: int,
    table: Buffer,
    normalize: Normalize,
    /,
) -> Tuple[int, ...]:
    """The statistics row of one hypothesis against one reference entry: 2 + 2 order ints, then
    the number of references."""

def ids_statistics_flat(
    tokens: Buffer,
    lengths: Buffer,
    owner: Buffer,
    n_rows: int,
    order: int,
    rows_out: Buffer,
    nrefs_out: Buffer,
    /,
) -> None:
    """The same statistics from a flat batch of ids: sequence j has lengths[j] ids and belongs
    to row owner[j]; sequences are ordered by row, each row's hypothesis first."""
