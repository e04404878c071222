"""Why a sentence gets its BLEU score: which hypothesis n-grams matched a reference, per order.

The explanation is built from the same pieces as the statistics (the core tokenizers, ``engine.
preprocess`` and ``statistics.ngram_counts``), so its matched and total counts per order are
exactly the clipped counts of the sentence's statistics row. It adds where the matches are, so a
user interface can highlight them.

>>> ex = explain_bleu("the the the cat", ["the cat", "a the dog"], max_ngram_order=2)
>>> ex.row
[4, 3, 2, 1, 4, 3]
>>> [(" ".join(m.ngram), m.hyp_count, m.ref_count, m.matched) for m in ex.orders[0].ngrams]
[('the', 3, 1, 1), ('cat', 1, 1, 1)]
>>> ex.hyp_match_order      # one "the" counts (clipped to 1): the one inside the matched bigram
(0, 0, 2, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Hashable, List, Optional, Sequence, Tuple

import numpy as np

from ..inputs import check_sentence_references, check_sequence, check_tokens
from ..metrics import resolve_options
from ..metrics.bleu.extract import preprocess
from ..metrics.bleu.options import BleuOptions, check_max_ngram_order
from ..metrics.bleu.statistics import BleuStatistics, closest_ref_length, ngram_counts, reference_clips
from ..tokenizers import get_tokenizer

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..metrics.bleu.options import BleuOptionKeywords

__all__ = ["NgramMatch", "OrderMatches", "MatchExplanation", "explain_tokens", "explain_bleu"]

Token = Hashable


@dataclass(frozen=True)
class NgramMatch:
    """One distinct hypothesis n-gram and how much of it counts as matched.

    ``ref_count`` is the clip: the largest number of times the n-gram occurs in any single
    reference. ``matched = min(hyp_count, ref_count)``. ``hyp_positions`` are the start indices of
    its occurrences in the hypothesis and ``matched_positions`` the ``matched`` of them shown as
    counted (clipping says how many occurrences count, not which: occurrences inside longer
    matches are preferred, then the leftmost).
    """

    ngram: Tuple[Token, ...]
    hyp_count: int
    ref_count: int
    matched: int
    hyp_positions: Tuple[int, ...]
    matched_positions: Tuple[int, ...]

    @property
    def order(self) -> int:
        return len(self.ngram)

    @property
    def clipped(self) -> int:
        """Occurrences in the hypothesis that find no partner because the references have fewer."""
        return self.hyp_count - self.matched if self.ref_count else 0


@dataclass(frozen=True)
class OrderMatches:
    """All hypothesis n-grams of one order, in order of first occurrence, with the order's totals.

    ``ref_matched_positions[k]`` are the start indices of the n-grams of reference ``k`` shown as
    partners of hypothesis n-grams: each n-gram in as many occurrences as the hypothesis has of it
    (at most as many as that reference has).
    """

    order: int
    matched: int
    total: int
    ngrams: Tuple[NgramMatch, ...]
    ref_matched_positions: Tuple[Tuple[int, ...], ...]

    @property
    def precision(self) -> float:
        """Unsmoothed precision in percent (0 when the hypothesis has no n-gram of this order)."""
        return 100.0 * self.matched / self.total if self.total else 0.0

    def __repr__(self) -> str:
        return (f"OrderMatches(order={self.order}, matched={self.matched}, total={self.total}, "
                f"ngrams={len(self.ngrams)})")


@dataclass(frozen=True)
class MatchExplanation:
    """Matched n-grams of one hypothesis against its references, per order.

    ``hyp_match_order[i]`` is the highest order of a counted match that covers hypothesis token
    ``i`` (0: the token is in no counted match); ``ref_match_order[k][j]`` is the same for token
    ``j`` of reference ``k``. ``hyp_levels(n)`` and ``ref_levels(k, n)`` give the same for one order
    only: exactly the occurrences that order counted. (The orders are clipped independently, each
    against its best reference, so a token may lie in a counted bigram while its own unigram was
    clipped away.)
    """

    hypothesis_tokens: Tuple[Token, ...]
    reference_tokens: Tuple[Tuple[Token, ...], ...]
    ref_len: int
    orders: Tuple[OrderMatches, ...]
    hyp_match_order: Tuple[int, ...]
    ref_match_order: Tuple[Tuple[int, ...], ...]

    @property
    def max_ngram_order(self) -> int:
        return len(self.orders)

    @property
    def hyp_len(self) -> int:
        return len(self.hypothesis_tokens)

    def hyp_levels(self, order: int) -> Tuple[int, ...]:
        """Per hypothesis token: ``order`` if a counted n-gram of that order covers it, else 0.

        >>> explain_tokens(["a", "a", "b"], [["a", "b"]], 2).hyp_levels(1)   # the "a" of "a b"
        (0, 1, 1)
        """
        levels = [0] * self.hyp_len
        for m in self._order(order).ngrams:
            for start in m.matched_positions:
                _mark(levels, start, order)
        return tuple(levels)

    def ref_levels(self, k: int, order: int) -> Tuple[int, ...]:
        """Per token of reference ``k``: ``order`` if it lies in a partner n-gram of that order."""
        levels = [0] * len(self.reference_tokens[k])
        for start in self._order(order).ref_matched_positions[k]:
            _mark(levels, start, order)
        return tuple(levels)

    def _order(self, order: int) -> OrderMatches:
        if isinstance(order, bool) or not isinstance(order, int) or not 1 <= order <= len(self.orders):
            raise ValueError(f"order must be an int in 1..{len(self.orders)}, got {order!r}")
        return self.orders[order - 1]

    @property
    def row(self) -> List[int]:
        """The statistics row these matches amount to (sacreBLEU's column order)."""
        return (
            [self.hyp_len, self.ref_len]
            + [o.matched for o in self.orders]
            + [o.total for o in self.orders]
        )

    def __repr__(self) -> str:
        orders = ", ".join(f"{o.matched}/{o.total}" for o in self.orders)
        return (
            f"MatchExplanation(hypothesis={_short(self.hypothesis_tokens)}, references={len(self.reference_tokens)}, "
            f"hyp_len={self.hyp_len}, ref_len={self.ref_len}, matched/total per order=[{orders}])"
        )

    def __str__(self) -> str:
        """A table a person can read: the tokens, and per order the counts, precision and matches.

        >>> print(explain_tokens("the the the cat".split(), [["the", "cat"]], 2))
        hypothesis   the the the cat  (4 tokens)
        reference 1  the cat  (2 tokens)
        order  matched/total  precision  matched n-grams (counted of occurring, where fewer count)
            1            2/4     50.00%  the (1 of 3) | cat
            2            1/3     33.33%  the cat
        """
        lines = [f"hypothesis   {' '.join(map(str, self.hypothesis_tokens))}  ({self.hyp_len} tokens)"]
        for k, ref in enumerate(self.reference_tokens):
            lines.append(f"reference {k + 1:<2} {' '.join(map(str, ref))}  ({len(ref)} tokens)")
        lines.append("order  matched/total  precision  matched n-grams (counted of occurring, where fewer count)")
        for o in self.orders:
            shown = [
                " ".join(map(str, m.ngram)) + (f" ({m.matched} of {m.hyp_count})" if m.matched < m.hyp_count else "")
                for m in o.ngrams
                if m.matched
            ]
            counts = f"{o.matched}/{o.total}"
            lines.append(f"{o.order:>5}  {counts:>13}  {o.precision:>8.2f}%  {' | '.join(shown) or '-'}")
        return "\n".join(lines)

    def statistics(self) -> BleuStatistics:
        """A one-row statistics table, ready for ``score_statistics`` or sentence scoring."""
        return BleuStatistics(np.array([self.row]), np.array([len(self.reference_tokens)]), self.max_ngram_order)

    def to_dict(self) -> Dict[str, Any]:
        """Plain JSON-ready dictionary (tokens turned into strings).

        >>> explain_tokens(["a", "b"], [["a", "c"]], 1).to_dict()["orders"][0]["matched"]
        1
        """
        return {
            "hypothesis_tokens": [str(t) for t in self.hypothesis_tokens],
            "reference_tokens": [[str(t) for t in ref] for ref in self.reference_tokens],
            "hyp_len": self.hyp_len,
            "ref_len": self.ref_len,
            "hyp_match_order": list(self.hyp_match_order),
            "ref_match_order": [list(r) for r in self.ref_match_order],
            "orders": [
                {
                    "order": o.order,
                    "matched": o.matched,
                    "total": o.total,
                    "precision": o.precision,
                    "ngrams": [
                        {
                            "ngram": " ".join(str(t) for t in m.ngram),
                            "hyp_count": m.hyp_count,
                            "ref_count": m.ref_count,
                            "matched": m.matched,
                            "hyp_positions": list(m.hyp_positions),
                            "matched_positions": list(m.matched_positions),
                        }
                        for m in o.ngrams
                    ],
                    "ref_matched_positions": [list(p) for p in o.ref_matched_positions],
                }
                for o in self.orders
            ],
        }


def _short(tokens: Sequence[Token], limit: int = 8) -> str:
    """A few tokens of a sentence, for a one-line repr."""
    text = " ".join(map(str, tokens[:limit])) + (" ..." if len(tokens) > limit else "")
    return repr(text)


def _occurrences(tokens: Sequence[Token], n: int) -> Dict[Tuple[Token, ...], List[int]]:
    """Start positions of every n-gram of order ``n`` (locations only; counts come from
    ``ngram_counts``)."""
    where: Dict[Tuple[Token, ...], List[int]] = {}
    for i in range(len(tokens) - n + 1):
        where.setdefault(tuple(tokens[i : i + n]), []).append(i)
    return where


def _preferred(starts: List[int], levels: List[int], n: int) -> List[int]:
    """Occurrences already inside longer matches first, then left to right."""
    return sorted(starts, key=lambda i: (not all(levels[i : i + n]), i))


def _mark(levels: List[int], start: int, n: int) -> None:
    for j in range(start, start + n):
        if levels[j] < n:
            levels[j] = n


def explain_tokens(
    hyp_tokens: Sequence[Token], refs_tokens: Sequence[Sequence[Token]], max_ngram_order: int
) -> MatchExplanation:
    """Explain the matches of already tokenized input (any hashable tokens, like the counter).

    >>> ex = explain_tokens([1, 2, 3], [[1, 2, 4], [3]], 2)
    >>> ex.row, ex.hyp_match_order, ex.ref_match_order
    ([3, 3, 3, 1, 3, 2], (2, 2, 1), ((2, 2, 0), (1,)))
    """
    max_ngram_order = check_max_ngram_order(max_ngram_order)
    hyp = tuple(check_tokens(hyp_tokens, "hyp_tokens"))
    refs = tuple(
        tuple(check_tokens(r, f"refs_tokens[{k}]"))
        for k, r in enumerate(check_sequence(refs_tokens, "refs_tokens", of="token lists"))
    )
    if not refs:
        raise ValueError("a hypothesis needs at least one reference")
    clip = reference_clips(refs, max_ngram_order)
    hyp_counts = ngram_counts(hyp, max_ngram_order)

    hyp_levels = [0] * len(hyp)
    ref_levels = [[0] * len(r) for r in refs]
    orders = []
    # Highest order first, so that a clipped lower-order n-gram is shown inside the longer matches
    # that contain it rather than at an arbitrary occurrence.
    for n in range(max_ngram_order, 0, -1):
        ngrams = []
        for ngram, starts in _occurrences(hyp, n).items():
            count = hyp_counts[ngram]
            ref_count = clip.get(ngram, 0)
            matched = min(count, ref_count)
            shown = tuple(sorted(_preferred(starts, hyp_levels, n)[:matched]))
            ngrams.append(NgramMatch(ngram, count, ref_count, matched, tuple(starts), shown))
        for m in ngrams:
            for start in m.matched_positions:
                _mark(hyp_levels, start, n)
        ref_shown = []
        for k, ref in enumerate(refs):
            shown_k: List[int] = []
            for ngram, starts in _occurrences(ref, n).items():
                partners = min(hyp_counts.get(ngram, 0), len(starts))
                shown_k.extend(_preferred(starts, ref_levels[k], n)[:partners])
            for start in shown_k:
                _mark(ref_levels[k], start, n)
            ref_shown.append(tuple(sorted(shown_k)))
        orders.append(
            OrderMatches(
                order=n,
                matched=sum(m.matched for m in ngrams),
                total=sum(m.hyp_count for m in ngrams),
                ngrams=tuple(ngrams),
                ref_matched_positions=tuple(ref_shown),
            )
        )
    orders.reverse()
    return MatchExplanation(
        hypothesis_tokens=hyp,
        reference_tokens=refs,
        ref_len=closest_ref_length(len(hyp), (len(r) for r in refs)),
        orders=tuple(orders),
        hyp_match_order=tuple(hyp_levels),
        ref_match_order=tuple(tuple(levels) for levels in ref_levels),
    )


def explain_bleu(
    hypothesis: str,
    references: Any,
    *,
    options: Optional[BleuOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> MatchExplanation:
    """Which n-grams of ``hypothesis`` matched its reference(s), tokenized as the score sees them.

    ``references`` is a string or a list of strings (``None`` entries are missing references), as
    for ``sentence_bleu``. ``options`` (a ``BleuOptions``) or the option ``keywords`` supply the
    tokenizer, lowercasing and maximum order; its ``row`` equals the hypothesis's row of
    ``corpus_statistics``.

    >>> ex = explain_bleu("It is raining today.", ["It rains today."])
    >>> [o.matched for o in ex.orders], [o.total for o in ex.orders]
    ([3, 1, 0, 0], [5, 4, 3, 2])
    >>> ex.hypothesis_tokens, ex.hyp_match_order
    (('It', 'is', 'raining', 'today', '.'), (1, 0, 0, 2, 2))
    """
    if not isinstance(hypothesis, str):
        raise TypeError(f"hypothesis must be a str, got {type(hypothesis).__name__}")
    resolved = resolve_options(options, keywords)
    if not isinstance(resolved, BleuOptions):
        raise TypeError(f"options must be a BleuOptions, got {type(resolved).__name__}")
    options = resolved
    refs = check_sentence_references(references)
    tok = get_tokenizer(options.tokenize)
    lc = options.lowercase
    return explain_tokens(
        preprocess(hypothesis, tok, lc), [preprocess(r, tok, lc) for r in refs], options.max_ngram_order
    )
