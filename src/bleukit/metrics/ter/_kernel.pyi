"""Type stub of the compiled TER kernel (csrc/metrics/ter/ter.c); bleukit.metrics.ter.extract is its glue."""

from typing import Any, List, Sequence

#: Longest segment (code points) the kernel takes; longer ones raise OverflowError.
MAX_SEGMENT_CHARS: int

def statistics(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    normalized: bool,
    no_punct: bool,
    asian_support: bool,
    case_sensitive: bool,
    out: Any,
    threads: int,
) -> None:
    """Fill ``out`` (writable C-contiguous int64, n x 3) with the TER statistics of every
    hypothesis against its references: fewest edits, sum of reference lengths, nrefs.
    Releases the GIL; ``threads`` >= 1."""

def words(
    text: str, normalized: bool, no_punct: bool, asian_support: bool, case_sensitive: bool, reference: bool
) -> List[str]:
    """The kernel's TER words of one segment (for tests against the Python tokenizer)."""
