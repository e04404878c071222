"""chrF's statistics table: per order (character orders first, then word orders), the hypothesis's
n-grams, the reference's n-grams and their matches.

With several references a row holds the statistics of the reference with the best sentence
F-score (the first on a tie), as sacreBLEU keeps; corpus chrF is the formula on the column sums.

>>> import numpy as np
>>> ChrfStatistics(np.array([[4, 6, 3, 3, 5, 2]]), np.array([1]), char_order=2, word_order=0).summed().rows.tolist()
[[4, 6, 3, 3, 5, 2]]
>>> column_names(1, 1)
('char1_hyp', 'char1_ref', 'char1_match', 'word1_hyp', 'word1_ref', 'word1_match')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

from ..base import Statistics

__all__ = ["ChrfStatistics", "column_names"]


@dataclass(frozen=True, eq=False)
class ChrfStatistics(Statistics):
    """chrF statistics of a corpus, one row per hypothesis: ``3 * (char_order + word_order)`` columns."""

    char_order: int
    word_order: int

    def expected_width(self) -> int:
        return 3 * (self.char_order + self.word_order)


def column_names(char_order: int, word_order: int) -> Tuple[str, ...]:
    """The names of a statistics row's columns, in order."""
    orders = [f"char{n}" for n in range(1, char_order + 1)] + [f"word{n}" for n in range(1, word_order + 1)]
    return tuple(f"{order}_{part}" for order in orders for part in ("hyp", "ref", "match"))
