"""Reference aggregation for chrF (DeNero et al. 2009; Vamvas & Sennrich 2024, who proposed it for
chrF): each hypothesis is scored against one expected reference instead of every reference.

The expected reference holds, for every n-gram, the ``ref_weights``-weighted mean of its count in
the references (weights summing to one), and per order the weighted mean of their n-gram totals.
A hypothesis's row is then what :func:`bleukit.metrics.chrf.reference.match_statistics` gives
against a real reference: per order its n-grams (0 when the expected reference has none of that
order), the expected reference's total, and the matches ``min(hyp count, expected count)``, now
fractional; the one chrF formula scores the rows. Linear in the number of n-grams rather than in
hypotheses x references, and an approximation of the mean pairwise chrF, not equal to it (chrF is
not linear in the counts), except with one reference, where it is that reference's sentence chrF.

>>> from bleukit.metrics.chrf.options import ChrfOptions
>>> import numpy as np
>>> aggregate_scores(["ab"], ["ab"], np.array([1.0]), ChrfOptions(char_order=1)).tolist()
[100.0]
>>> aggregate_scores(["ab"], ["ab", "b"], np.array([0.5, 0.5]), ChrfOptions(char_order=1)).round(4).tolist()
[93.75]
"""

from __future__ import annotations

from typing import Dict, Hashable, List, Sequence

import numpy as np

from .formula import sentence_scores
from .options import ChrfOptions
from .reference import sentence_ngrams

__all__ = ["aggregate_scores"]


def aggregate_scores(
    hypotheses: Sequence[str], references: Sequence[str], ref_weights: np.ndarray, options: ChrfOptions
) -> np.ndarray:
    """chrF of each hypothesis against the expected reference of ``references`` weighted by
    ``ref_weights`` (one non-negative weight per reference, summing to one): float64 ``(N,)``."""
    weights = np.asarray(ref_weights, dtype=np.float64)
    if weights.shape != (len(references),):
        raise ValueError(
            f"ref_weights must hold one weight per reference ({len(references)}), got shape {weights.shape}"
        )
    k = options.order
    expected: List[Dict[Hashable, float]] = [{} for _ in range(k)]
    totals = [0.0] * k
    for ref, w in zip(references, weights.tolist()):
        for o, counts in enumerate(sentence_ngrams(ref, options)):
            table = expected[o]
            for gram, count in counts.items():
                table[gram] = table.get(gram, 0.0) + w * count
            totals[o] += w * sum(counts.values())
    rows = np.zeros((len(hypotheses), 3 * k), dtype=np.float64)
    for i, hyp in enumerate(hypotheses):
        for o, counts in enumerate(sentence_ngrams(hyp, options)):
            table = expected[o]
            matches = 0.0
            for gram, count in counts.items():
                other = table.get(gram)
                if other:
                    matches += count if count < other else other
            # as for a real reference: no hypothesis n-grams of an order the reference has none of
            rows[i, 3 * o] = sum(counts.values()) if totals[o] > 0 else 0
            rows[i, 3 * o + 1] = totals[o]
            rows[i, 3 * o + 2] = matches
    scores: np.ndarray = np.asarray(sentence_scores(rows, options), dtype=np.float64)
    return scores
