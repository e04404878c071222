"""Typed signatures of BLEU's compiled kernel, ``bleukit.metrics.bleu._kernel`` (``csrc/metrics/bleu/``).

The statistics (``text.c``, ``ids.c``): call them through :mod:`bleukit.metrics.bleu.kernel`, which
builds the arguments. Every array argument is a C-contiguous, aligned int64 buffer (a numpy
``int64`` array, or an ``array.array("q")``), except ``table``, the bytes of ``character_table``.
The corpus entry points release the GIL while they count and raise ``KeyboardInterrupt`` on Ctrl-C.

A reference entry (``refs[i]``, or the references of one sentence) is a str, or a list or tuple of
str and ``None`` (``None`` marks a missing reference) with at least one str; any other type goes
through ``normalize(entry, i)`` (``i = -1`` for one sentence), which returns a list of str or raises.

The pairwise match loop (``pairwise.c``): call it through :mod:`bleukit.metrics.bleu.pairs`, which
builds the counted tables (int64 buffers). Both entry points release the GIL and raise
``KeyboardInterrupt`` on Ctrl-C.

The formula's libm ``exp``/``log`` over vectors (``libm.c``; the glue is ``libm.py``) and the BLEU
formula without numpy (``float32.c``; the glue is ``formula.py``).
"""

from typing import Any, Callable, Final, List, Optional, Sequence, Tuple

from typing_extensions import Buffer

#: Entries of the character-class table (one byte per code point).
TABLE_SIZE: Final[int]
#: Bits of the character-class table (csrc/metrics/bleu/bleu.h).
CLS_P: Final[int]
CLS_S: Final[int]
CLS_N: Final[int]
CLS_ZH: Final[int]
CLS_13A: Final[int]
CLS_DIGIT: Final[int]
#: Tokenizer codes (bleukit.metrics.bleu.kernel.NATIVE_TOKENIZERS).
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

def pair_matches(
    hyp_ptr: Buffer,
    hyp_gid: Buffer,
    hyp_ord: Buffer,
    hyp_cnt: Buffer,
    post_ptr: Buffer,
    post_ref: Buffer,
    post_cnt: Buffer,
    i0: int,
    i1: int,
    m: int,
    order: int,
    out: Buffer,
    threads: int,
    width: int = -1,
    offset: int = 0,
    /,
) -> None:
    """Zero out ((i1 - i0) x m x width) and write the clipped n-gram matches of hypotheses
    i0..i1-1 against references 0..m-1 into its columns offset..offset+order-1 (width -1 means
    order)."""

def unique_rows(rows: Buffer, width: int, first_out: Buffer, inverse_out: Buffer, /) -> int:
    """Number k of distinct rows of an (R, width) table; first_out[:k] holds their first row
    indices, inverse_out each row's distinct row."""

def exp(x: Any, out: Any, /) -> None:
    """``out[i]`` = the C library's ``exp(x[i])`` (float64 buffers of one length; ``out`` may be ``x``)."""

def log(x: Any, out: Any, /) -> None:
    """``out[i]`` = the C library's ``log(x[i])`` (float64 buffers of one length; ``out`` may be ``x``)."""

def float32_scores(
    sums: Any,
    order: int,
    smooth_method: int,
    smooth_value: float,
    effective_order: bool,
    weak_scalars: bool,
    compensated_sum: bool,
    out: Any,
    /,
) -> None:
    """``out[r]`` = sacreBLEU's BLEU of the float32 bootstrap sums in row ``r`` of ``sums`` (int64, each in
    [0, 2**24])."""

def scores(
    sums: Any,
    order: int,
    smooth_method: int,
    smooth_value: float,
    effective_order: bool,
    compensated_sum: bool,
    out: Any,
    /,
) -> None:
    """``out[r]`` = sacreBLEU's BLEU of the integer statistics in row ``r`` of ``sums`` (int64, each in
    [0, 2**53])."""
