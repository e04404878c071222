"""BLEU's statistics table and its reference counter: the one representation every BLEU number comes from.

A statistics table has one row per hypothesis and ``2 + 2 * max_ngram_order`` integer columns, in
sacreBLEU's order: hypothesis length, chosen reference length, clipped matches for orders
``1..N``, hypothesis n-gram totals for orders ``1..N``. Corpus BLEU is the score of the column sums,
sentence BLEU the score of each row, streaming and distributed evaluation add rows up, bootstrap
resamples rows.

>>> stats = count_statistics([["a", "b", "c"]], [[["a", "b", "d"]]], max_ngram_order=2)
>>> stats.rows.tolist()
[[3, 3, 2, 1, 3, 2]]
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Hashable, Iterable, Iterator, List, Optional, Protocol, Sequence, Tuple, TypeVar

from ..base import Statistics

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "BleuStatistics",
    "ngram_counts",
    "closest_ref_length",
    "reference_clips",
    "sentence_row",
    "count_statistics",
    "stats_columns",
    "column_names",
]

Token = Hashable
T = TypeVar("T", covariant=True)


class SizedIterable(Protocol[T]):
    """What :func:`count_statistics` reads: a length and one pass over the items."""

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[T]: ...


def stats_columns(max_ngram_order: int) -> int:
    """Number of columns of a statistics row for ``max_ngram_order``.

    >>> stats_columns(4)
    10
    """
    return 2 + 2 * max_ngram_order


@dataclass(frozen=True, eq=False)
class BleuStatistics(Statistics):
    """BLEU's integer statistics of a corpus, one row per hypothesis (see :class:`Statistics`).

    >>> a = count_statistics([["x", "y"]], [[["x", "y"]]], max_ngram_order=1)
    >>> b = count_statistics([["x"]], [[["z"], ["x", "q"]]], max_ngram_order=1)
    >>> both = BleuStatistics.concat([a, b])
    >>> len(both), both.summed().rows.tolist(), both.nrefs_signature
    (2, [[3, 3, 3, 3]], 'var')
    >>> a == count_statistics([["x", "y"]], [[["x", "y"]]], max_ngram_order=1), a == a[[]]
    (True, False)
    """

    max_ngram_order: int

    def expected_width(self) -> int:
        return stats_columns(self.max_ngram_order)

    @property
    def sys_len(self) -> np.ndarray:
        return self.rows[:, 0]

    @property
    def ref_len(self) -> np.ndarray:
        return self.rows[:, 1]

    @property
    def counts(self) -> np.ndarray:
        return self.rows[:, 2 : 2 + self.max_ngram_order]

    @property
    def totals(self) -> np.ndarray:
        return self.rows[:, 2 + self.max_ngram_order :]


def column_names(max_ngram_order: int) -> Tuple[str, ...]:
    """The names of a statistics row's columns, in order.

    >>> column_names(2)
    ('sys_len', 'ref_len', 'counts_1', 'counts_2', 'totals_1', 'totals_2')
    """
    orders = range(1, max_ngram_order + 1)
    return ("sys_len", "ref_len", *(f"counts_{n}" for n in orders), *(f"totals_{n}" for n in orders))


def ngram_counts(tokens: Sequence[Token], max_ngram_order: int) -> "Counter[Tuple[Token, ...]]":
    """Counts of all n-grams of orders ``1..max_ngram_order``, keyed by token tuples.

    >>> sorted(ngram_counts(["a", "b", "a"], 2).items())
    [(('a',), 2), (('a', 'b'), 1), (('b',), 1), (('b', 'a'), 1)]
    """
    counts: "Counter[Tuple[Token, ...]]" = Counter()
    tokens = list(tokens)
    for n in range(1, min(max_ngram_order, len(tokens)) + 1):
        counts.update(zip(*(tokens[i:] for i in range(n))))
    return counts


def closest_ref_length(hyp_len: int, ref_lens: Iterable[int]) -> int:
    """The reference length closest to ``hyp_len``; ties go to the shorter reference.

    >>> closest_ref_length(5, [3, 7, 9])
    3
    """
    best: Optional[int] = None
    for ref_len in ref_lens:
        if (
            best is None
            or abs(hyp_len - ref_len) < abs(hyp_len - best)
            or (abs(hyp_len - ref_len) == abs(hyp_len - best) and ref_len < best)
        ):
            best = ref_len
    if best is None:
        raise ValueError("a hypothesis needs at least one reference")
    return best


def reference_clips(refs_tokens: Sequence[Sequence[Token]], max_ngram_order: int) -> "Counter[Tuple[Token, ...]]":
    """The clip of every reference n-gram: the most times it occurs in any single reference.

    >>> sorted(reference_clips([["a", "a", "b"], ["a", "b", "b"]], 1).items())
    [(('a',), 2), (('b',), 2)]
    """
    ref_max: "Counter[Tuple[Token, ...]]" = Counter()
    for ref in refs_tokens:
        for ngram, count in ngram_counts(ref, max_ngram_order).items():
            if count > ref_max[ngram]:
                ref_max[ngram] = count
    return ref_max


def sentence_row(
    hyp_tokens: Sequence[Token], refs_tokens: Sequence[Sequence[Token]], max_ngram_order: int
) -> List[int]:
    """Statistics row of one hypothesis against its references (the reference implementation).

    Matches are clipped against the largest count of each n-gram in any single reference.

    >>> sentence_row(["the", "the", "cat"], [["the", "cat"], ["the", "the"]], 2)
    [3, 2, 3, 2, 3, 2]
    """
    if not refs_tokens:
        raise ValueError("a hypothesis needs at least one reference")
    ref_max = reference_clips(refs_tokens, max_ngram_order)
    hyp_len = len(hyp_tokens)
    correct = [0] * max_ngram_order
    total = [0] * max_ngram_order
    for ngram, count in ngram_counts(hyp_tokens, max_ngram_order).items():
        n = len(ngram) - 1
        total[n] += count
        ref_count = ref_max.get(ngram)
        if ref_count:
            correct[n] += min(count, ref_count)
    ref_len = closest_ref_length(hyp_len, (len(r) for r in refs_tokens))
    return [hyp_len, ref_len] + correct + total


def count_statistics(
    hypotheses: SizedIterable[Sequence[Token]],
    references: SizedIterable[Sequence[Sequence[Token]]],
    max_ngram_order: int,
) -> BleuStatistics:
    """Statistics table for already tokenized hypotheses and their references (pure Python).

    ``references[i]`` is the list of token sequences of hypothesis ``i``'s references.

    >>> count_statistics([[1, 2, 3]], [[[1, 2, 3]]], 1).rows.tolist()
    [[3, 3, 3, 3]]
    """
    import numpy as np

    width = stats_columns(max_ngram_order)
    rows = np.zeros((len(hypotheses), width), dtype=np.int64)
    nrefs = np.zeros(len(hypotheses), dtype=np.int64)
    for i, (hyp, refs) in enumerate(zip(hypotheses, references)):
        rows[i] = sentence_row(hyp, refs, max_ngram_order)
        nrefs[i] = len(refs)
    return BleuStatistics(rows, nrefs, max_ngram_order)
