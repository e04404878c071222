"""TER's statistics table: per hypothesis, its fewest edits and its average reference length.

sacreBLEU keeps the average reference length of a sentence as a float (``sum_len / nrefs``). Here it
is an integer in units of ``1 / UNIT`` (``UNIT`` = lcm(1, ..., 20), so the average of up to 20
references is a whole number of units): rows add up exactly, which is what streaming, all-reduce
and resampling need, and ``units / UNIT`` is the same float as sacreBLEU's division.

>>> import numpy as np
>>> table = TerStatistics(np.array([[1, 5 * UNIT // 2], [0, 3 * UNIT]]), np.array([2, 1]))
>>> table.summed().rows.tolist() == [[1, 11 * UNIT // 2]]
True
>>> COLUMNS
('edits', 'ref_length_units')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import reduce
from typing import Any

from ..base import Statistics

__all__ = ["TerStatistics", "COLUMNS", "UNIT", "MAX_REFERENCES", "from_counts"]

#: Most references a sentence may have: the unit is divisible by every count up to it.
MAX_REFERENCES = 20
#: A reference length of one word, in table units.
UNIT: int = reduce(lambda a, b: a * b // math.gcd(a, b), range(1, MAX_REFERENCES + 1))
COLUMNS = ("edits", "ref_length_units")


@dataclass(frozen=True, eq=False)
class TerStatistics(Statistics):
    """TER statistics of a corpus, one row per hypothesis: edits and average reference length in units."""

    def expected_width(self) -> int:
        return len(COLUMNS)


def from_counts(counts: Any) -> TerStatistics:
    """The protocol table of the extractor's integer table (edits, sum of reference lengths, nrefs).

    >>> from_counts([[1, 6, 2]]).rows.tolist() == [[1, 3 * UNIT]]
    True
    """
    import numpy as np  # when text is counted: the package loads without it (the command line)

    counts = np.asarray(counts, dtype=np.int64)
    if counts.ndim != 2 or counts.shape[1] != 3:
        raise ValueError(f"TER counts have shape (n, 3) (edits, ref_length_sum, nrefs), got {counts.shape}")
    nrefs = counts[:, 2]
    if counts.size and (counts.min() < 0 or nrefs.min() < 1):
        raise ValueError("TER counts have no negative entries and at least one reference per row")
    if nrefs.size and int(nrefs.max()) > MAX_REFERENCES:
        raise ValueError(
            f"TER takes at most {MAX_REFERENCES} references per sentence, got {int(nrefs.max())}; "
            "score the references in groups of at most that many"
        )
    scale = UNIT // np.maximum(nrefs, 1)
    if counts.size and int(counts[:, 1].max()) > np.iinfo(np.int64).max // UNIT:
        raise ValueError("the references are too long for TER's int64 table (more than 3.9e10 words)")
    rows = np.stack([counts[:, 0], counts[:, 1] * scale], axis=1) if len(counts) else np.zeros((0, 2), np.int64)
    return TerStatistics(rows, nrefs)
