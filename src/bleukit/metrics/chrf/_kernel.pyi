"""Type stub of the compiled chrF kernel (csrc/metrics/chrf/); the glue is extract.py."""

from typing import Any, Callable, List, Optional, Sequence, Tuple

MAX_ORDER: int
MAX_THREADS: int

def statistics(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    char_order: int,
    word_order: int,
    lowercase: bool,
    whitespace: bool,
    eps_smoothing: bool,
    factor: float,
    one_plus: float,
    punctuation: str,
    out: Any,
    threads: int,
) -> None: ...
def pairwise(
    hyps: Sequence[str],
    refs: Sequence[str],
    char_order: int,
    word_order: int,
    lowercase: bool,
    whitespace: bool,
    eps_smoothing: bool,
    factor: float,
    one_plus: float,
    punctuation: str,
    scores_out: Optional[Any],
    rows_out: Optional[Any],
    threads: int,
) -> None: ...
def sentence(
    hyp: str,
    refs: Any,
    char_order: int,
    word_order: int,
    lowercase: bool,
    whitespace: bool,
    eps_smoothing: bool,
    factor: float,
    one_plus: float,
    punctuation: str,
    normalize: Optional[Callable[[Any, int], List[str]]],
) -> Tuple[int, ...]: ...
