"""Self-TER's counts: each text against all the others as its references, for any number of texts.

A TER statistics table holds a sentence's average reference length in exact units for at most
:data:`.statistics.MAX_REFERENCES` references, so Self-TER of more than 21 texts cannot go through
one. sacreBLEU's multi-reference TER of a hypothesis is its fewest edits over the references and
the sum of the references' lengths divided by their number; both follow from the single-reference
statistics of every ordered pair (:func:`bleukit.metrics.fast.pairwise_statistics`), a block of texts at a time:
the fewest edits of row ``i`` leaving out ``j == i``, the lengths summed leaving out its own.
"""

from __future__ import annotations

from typing import List

import numpy as np

from .options import TerOptions
from .statistics import UNIT

__all__ = ["self_counts"]

#: Pairs counted at once (bounds the memory of a block's pairwise table).
_BLOCK_PAIRS = 1 << 20


def self_counts(texts: List[str], options: TerOptions, *, threads: int = 1) -> np.ndarray:
    """int64 ``(N, 3)``: for each text, its fewest edits against any other text, the sum of the other
    texts' lengths (in words) and their number ``N - 1``: the extractor's counts of
    ``statistics([texts[i]], [texts[:i] + texts[i + 1:]])``, for any ``N >= 2``. ``texts`` are checked.

    >>> from bleukit.metrics.ter import TerOptions
    >>> self_counts(["a b c", "a b d", "x"], TerOptions()).tolist()  # "x": 1 substitution, 2 insertions
    [[1, 4, 2], [1, 4, 2], [3, 6, 2]]
    """
    from .. import fast
    from . import METRIC

    n = len(texts)
    if n < 2:
        raise ValueError(f"Self-TER needs at least 2 texts (each is scored against the others), got {n}")
    out = np.empty((n, 3), dtype=np.int64)
    out[:, 2] = n - 1
    step = max(1, _BLOCK_PAIRS // n)
    for i0 in range(0, n, step):
        block = fast.pairwise_statistics(METRIC, texts[i0 : i0 + step], texts, options, threads=threads)
        rows = np.arange(len(block))
        own = (rows, rows + i0)
        edits = block[:, :, 0].copy()
        edits[own] = np.iinfo(np.int64).max  # a text is not its own reference
        lengths = block[:, :, 1] // UNIT  # one reference a pair: its length in whole units
        out[i0 : i0 + len(block), 0] = edits.min(axis=1)
        out[i0 : i0 + len(block), 1] = lengths.sum(axis=1) - lengths[own]
    return out
