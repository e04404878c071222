"""Typed signatures of bleukit's compiled statistics kernel (``csrc/module.c``).

Call it through :mod:`bleukit._native`, which builds the arguments. Every array argument is a
C-contiguous, aligned int64 buffer (a numpy ``int64`` array), except ``table``, the bytes of
:func:`bleukit._native.character_table`. Both entry points release the GIL while they count and
raise ``KeyboardInterrupt`` on Ctrl-C.
"""

from typing import Final, Sequence, Union

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

def text_statistics(
    hyps: Sequence[str],
    refs: Sequence[Union[list[str], tuple[str, ...]]],
    tokenizer: int,
    lowercase: int,
    order: int,
    table: Buffer,
    rows_out: Buffer,
    nrefs_out: Buffer,
    /,
) -> None:
    """Fill rows_out (n x (2 + 2 order)) and nrefs_out (n) with the statistics of hyps[i]
    against refs[i] (a non-empty list or tuple of str)."""

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
