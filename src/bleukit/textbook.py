"""Textbook BLEU on token lists, on the 0-1 scale (Papineni et al. 2002), built on the core.

No smoothing: any n-gram order without a match makes the score 0, as the textbook defines it.

>>> round(bleu_unigram("the cat sat on the mat".split(), "the cat is on the mat".split()), 4)
0.8333
"""

from __future__ import annotations

from typing import Hashable, Sequence

from .inputs import check_tokens
from .metrics.bleu.formula import score_table
from .metrics.bleu.options import BleuOptions
from .metrics.bleu.statistics import count_statistics

__all__ = ["bleu_score", "bleu_unigram"]


def bleu_score(candidate: Sequence[Hashable], references: Sequence[Sequence[Hashable]], max_n: int = 4) -> float:
    """BLEU of a token list against one or more reference token lists, between 0 and 1.

    Geometric mean of the clipped n-gram precisions for orders ``1..max_n`` (uniform weights)
    times the brevity penalty against the closest reference length. 0.0 when any precision is
    zero or the candidate is empty.

    >>> round(bleu_score(["a", "b", "c", "d"], [["a", "b", "x", "d"]], max_n=2), 12)
    0.5
    >>> q = bleu_score("the quick brown fox".split(), ["the quick red fox".split(), "a slow red fox".split()], max_n=2)
    >>> round(q, 12)
    0.5
    """
    cand = check_tokens(candidate, "candidate")
    refs = check_tokens(references, "references")
    if not refs:
        raise ValueError("references is empty: give at least one reference token list")
    refs = [check_tokens(r, f"references[{i}]") for i, r in enumerate(refs)]
    options = BleuOptions(smooth_method="none", max_ngram_order=max_n)
    stats = count_statistics([cand], [refs], options.max_ngram_order)
    out = score_table(stats.rows, options)
    return float(out.score[0]) / 100.0


def bleu_unigram(candidate: Sequence[Hashable], reference: Sequence[Hashable]) -> float:
    """Unigram BLEU: clipped unigram precision times the brevity penalty, between 0 and 1.

    >>> bleu_unigram([], ["a"])
    0.0
    """
    return bleu_score(candidate, [check_tokens(reference, "reference")], max_n=1)
