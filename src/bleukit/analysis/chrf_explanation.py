"""Why a sentence gets its chrF score: which character (and, for chrF++, word) n-grams matched,
per order, against the reference sacreBLEU keeps.

Built from the pieces the statistics come from (:mod:`bleukit.metrics.chrf.reference`: the same
character sequence, word split, n-gram counts, clipping and choice of reference), so the counts
of each order are exactly the sentence's statistics row (``row``) and its score is the
sentence's chrF. The BLEU counterpart is :mod:`bleukit.analysis.explain`.

>>> ex = explain_chrf("the cat", ["a dog", "the cats"], char_order=2, word_order=1)
>>> ex.reference_index, ex.row
(1, [6, 7, 6, 5, 6, 5, 2, 2, 1])
>>> [(m.ngram, m.hyp_count, m.ref_count, m.matched) for m in ex.orders[2].ngrams]
[('the', 1, 1, 1), ('cat', 1, 0, 0)]
>>> round(ex.score, 4)
74.8698
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

import numpy as np

from ..inputs import check_sentence_references
from ..metrics import resolve_options
from ..metrics.chrf.formula import sentence_scores
from ..metrics.chrf.options import ChrfOptions
from ..metrics.chrf.reference import best_reference, match_statistics, sentence_ngrams
from ..metrics.chrf.statistics import ChrfStatistics

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..metrics.chrf.options import ChrfOptionKeywords

__all__ = ["ChrfNgramMatch", "ChrfOrderMatches", "ChrfExplanation", "explain_chrf"]


@dataclass(frozen=True)
class ChrfNgramMatch:
    """One distinct hypothesis n-gram: a character n-gram as a string, a word n-gram as its words
    joined by spaces; ``matched = min(hyp_count, ref_count)`` against the kept reference."""

    ngram: str
    hyp_count: int
    ref_count: int
    matched: int


@dataclass(frozen=True)
class ChrfOrderMatches:
    """One order (``kind`` ``"char"`` or ``"word"``, order ``n``) with its statistics: hypothesis
    n-grams, reference n-grams and matches, as the row holds them (so ``hyp_total`` is 0 when the
    reference has no n-gram of this order: sacreBLEU's rule), and the hypothesis's n-grams in order
    of first occurrence."""

    kind: str
    n: int
    hyp_total: int
    ref_total: int
    matched: int
    ngrams: Tuple[ChrfNgramMatch, ...]

    @property
    def precision(self) -> float:
        """Matched over hypothesis n-grams, in percent (0 when there are none)."""
        return 100.0 * self.matched / self.hyp_total if self.hyp_total else 0.0

    @property
    def recall(self) -> float:
        """Matched over reference n-grams, in percent (0 when there are none)."""
        return 100.0 * self.matched / self.ref_total if self.ref_total else 0.0


@dataclass(frozen=True)
class ChrfExplanation:
    """The matches of one hypothesis against the reference whose statistics its chrF uses."""

    hypothesis: str
    references: Tuple[str, ...]
    reference_index: int
    orders: Tuple[ChrfOrderMatches, ...]
    options: ChrfOptions

    @property
    def row(self) -> List[int]:
        """The statistics row these matches amount to (``[hyp, ref, matches]`` per order)."""
        return [v for o in self.orders for v in (o.hyp_total, o.ref_total, o.matched)]

    def statistics(self) -> ChrfStatistics:
        """A one-row statistics table, ready for ``score_statistics`` or sentence scoring."""
        return ChrfStatistics(
            np.array([self.row]), np.array([len(self.references)]), self.options.char_order, self.options.word_order
        )

    @property
    def score(self) -> float:
        """The sentence's chrF (that of ``bleukit.sentence_chrf`` with the same options)."""
        return float(sentence_scores(np.array([self.row]), self.options)[0])

    def to_dict(self) -> Dict[str, Any]:
        """Plain JSON-ready dictionary.

        >>> explain_chrf("ab", "ab", char_order=1).to_dict()["orders"][0]["matched"]
        2
        """
        return {
            "hypothesis": self.hypothesis,
            "references": list(self.references),
            "reference_index": self.reference_index,
            "score": self.score,
            "row": self.row,
            "orders": [
                {
                    "kind": o.kind,
                    "n": o.n,
                    "hyp_total": o.hyp_total,
                    "ref_total": o.ref_total,
                    "matched": o.matched,
                    "precision": o.precision,
                    "recall": o.recall,
                    "ngrams": [
                        {"ngram": m.ngram, "hyp_count": m.hyp_count, "ref_count": m.ref_count, "matched": m.matched}
                        for m in o.ngrams
                    ],
                }
                for o in self.orders
            ],
        }


def explain_chrf(
    hypothesis: str,
    references: Any,
    *,
    options: Optional[ChrfOptions] = None,
    **keywords: Unpack[ChrfOptionKeywords],
) -> ChrfExplanation:
    """Which n-grams of ``hypothesis`` match, per order, the reference its chrF keeps (the one with
    the best sentence chrF, the first on a tie). ``references`` is a string or a list of strings
    (``None`` entries are missing references); ``options`` (a ``ChrfOptions``) or the option
    ``keywords`` (``word_order=2``, ...) default to chrF's.

    >>> ex = explain_chrf("It is raining.", ["It rains."], options=ChrfOptions(word_order=2))
    >>> [(o.kind, o.n, o.matched, o.hyp_total) for o in ex.orders][-2:]
    [('word', 1, 2, 4), ('word', 2, 0, 3)]
    """
    if not isinstance(hypothesis, str):
        raise TypeError(f"hypothesis must be a str, got {type(hypothesis).__name__}")
    resolved = resolve_options(options, keywords, default_metric="chrf")
    if not isinstance(resolved, ChrfOptions):
        raise TypeError(f"options must be a ChrfOptions, got {type(resolved).__name__}")
    options = resolved
    refs = check_sentence_references(references)
    hyp_counts = sentence_ngrams(hypothesis, options)
    ref_counts = [sentence_ngrams(ref, options) for ref in refs]
    best = best_reference([match_statistics(hyp_counts, counts) for counts in ref_counts], options)
    kept = ref_counts[best]
    row = match_statistics(hyp_counts, kept)
    kinds = [("char", n) for n in range(1, options.char_order + 1)] + [
        ("word", n) for n in range(1, options.word_order + 1)
    ]
    orders = []
    for o, (kind, n) in enumerate(kinds):
        ngrams = tuple(
            ChrfNgramMatch(
                gram if isinstance(gram, str) else " ".join(gram),
                count,
                kept[o].get(gram, 0),
                min(count, kept[o].get(gram, 0)),
            )
            for gram, count in hyp_counts[o].items()
        )
        orders.append(ChrfOrderMatches(kind, n, row[3 * o], row[3 * o + 1], row[3 * o + 2], ngrams))
    return ChrfExplanation(hypothesis, tuple(refs), best, tuple(orders), options)
