"""Designed subsets of test grids: where one engine or one peer runs a grid on fewer cases than
another, the subset is a covering design, not a sample (an every-8th sample of chrF's option grid
missed a branch that the all-pairs design covers), and a test asserts its coverage."""

from __future__ import annotations

import itertools
import os
from typing import Hashable, Iterable, List, Optional, Sequence, Set, Tuple

Row = Tuple[Hashable, ...]

#: BLEUKIT_FULL_GRIDS=1 runs every designed subset whole (the Python engine on every case, as the
#: compiled engine does): what a design's coverage is compared with (docs/development.md).
FULL_GRIDS = os.environ.get("BLEUKIT_FULL_GRIDS") == "1"


def level_pairs(row: Row, factor_pairs: Optional[Iterable[Tuple[int, int]]] = None) -> Set[tuple]:
    """The (factor, level, factor, level) pairs ``row`` covers: for every two factors, or for
    ``factor_pairs`` only.

    >>> sorted(level_pairs(("a", 1, True), [(0, 2)]))
    [(0, 'a', 2, True)]
    """
    chosen = factor_pairs if factor_pairs is not None else itertools.combinations(range(len(row)), 2)
    return {(i, row[i], j, row[j]) for i, j in chosen}


def all_pairs_design(rows: Sequence[Row], factor_pairs: Optional[Sequence[Tuple[int, int]]] = None) -> List[Row]:
    """A strength-2 covering subset of ``rows`` (tuples of factor levels): every pair of levels of
    every two factors (or of the ``factor_pairs``) that occurs in ``rows`` occurs in the subset.
    Greedy (the row covering most uncovered pairs first; ties to the earliest), so deterministic.

    >>> grid = list(itertools.product([0, 1], [0, 1], [0, 1]))
    >>> design = all_pairs_design(grid)
    >>> len(design), set().union(*(level_pairs(r) for r in design)) == set().union(*map(level_pairs, grid))
    (4, True)
    """
    wanted = set().union(*(level_pairs(row, factor_pairs) for row in rows))
    chosen: List[Row] = []
    while wanted:
        best = max(rows, key=lambda row: len(level_pairs(row, factor_pairs) & wanted))
        chosen.append(best)
        wanted -= level_pairs(best, factor_pairs)
    return chosen


def uncovered_pairs(design: Iterable[Row], rows: Sequence[Row],
                    factor_pairs: Optional[Iterable[Tuple[int, int]]] = None) -> Set[tuple]:
    """The level pairs of ``rows`` (as ``level_pairs`` gives them) that no row of ``design`` covers:
    empty when ``design`` is a strength-2 covering subset of ``rows``.

    >>> grid = list(itertools.product([0, 1], [0, 1]))
    >>> sorted(uncovered_pairs([(0, 0), (1, 1)], grid))
    [(0, 0, 1, 1), (0, 1, 1, 0)]
    """
    pairs = list(factor_pairs) if factor_pairs is not None else None
    covered = set().union(*(level_pairs(row, pairs) for row in design))
    return set().union(*(level_pairs(row, pairs) for row in rows)) - covered
