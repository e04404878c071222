"""COCO captioning's BLEU-1..4: ``pycocoevalcap.bleu.bleu.Bleu`` reproduced exactly, as a drop-in.

Captioning papers report ``Bleu_1`` .. ``Bleu_4`` from the COCO caption evaluation toolkit. They
are *cumulative* BLEU-n (the geometric mean of the 1..n-gram precisions, as sacreBLEU's BLEU with
``max_ngram_order=n``), but computed its own way, which this module keeps:

- tokens are the whitespace-split words of the given text (the toolkit runs its PTB tokenizer
  first: lowercased words, punctuation removed; give such text, as ``compute_score`` expects);
- n-grams are always counted up to 4, whatever ``n`` (``Bleu(5)`` fails in the original; here a
  ``ValueError`` says so);
- the reference length of a caption is the closest reference length, ties to the shorter;
- every precision is smoothed as ``(matches + 1e-15) / (total + 1e-9)`` and the mean is the running
  product raised to ``1/k``, so a BLEU-n with no n-gram match is tiny, not 0;
- the brevity penalty is ``exp(1 - 1/ratio)`` with ``ratio = (hyp_len + 1e-15) / (ref_len + 1e-9)``;
- per-caption scores (the second value) use the same formula on each caption alone.

The statistics are bleukit's BLEU table (the counting is the same); only the formula differs.

>>> gts = {1: ["a man riding a horse", "a person on a horse"], 2: ["two dogs play in the snow"]}
>>> res = {1: ["a man riding a brown horse"], 2: ["two dogs playing in snow"]}
>>> score, scores = Bleu(4).compute_score(gts, res, verbose=0)
>>> [round(s, 4) for s in score]
[0.8182, 0.603, 0.4701, 0.3797]
>>> [round(s, 4) for s in scores[0]]
[0.8333, 0.655]
"""

from __future__ import annotations

import math
from typing import Any, Hashable, List, Mapping, Sequence, Tuple

from ._common import token_statistics

__all__ = ["Bleu", "coco_bleu"]

# The toolkit counts n-grams to this order whatever n is (cook_refs/cook_test use their default n=4).
_COUNTED_ORDER = 4
_SMALL = 1e-9
_TINY = 1e-15


def _scores(testlen: int, reflen: int, correct: Sequence[int], guess: Sequence[int], n: int) -> List[float]:
    """BLEU-1..n of one caption or of the corpus sums, in the toolkit's floating-point order."""
    bleus = []
    bleu = 1.0
    for k in range(n):
        bleu *= (float(correct[k]) + _TINY) / (float(guess[k]) + _SMALL)
        bleus.append(bleu ** (1.0 / (k + 1)))
    ratio = (testlen + _TINY) / (reflen + _SMALL)
    if ratio < 1:
        for k in range(n):
            bleus[k] *= math.exp(1 - 1 / ratio)
    return bleus


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= _COUNTED_ORDER:
        raise ValueError(f"n must be an int from 1 to 4 (the toolkit counts n-grams up to 4), got {n!r}")
    return n


def coco_bleu(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]], n: int = 4
) -> Tuple[List[float], List[List[float]]]:
    """The toolkit's ``(score, scores)`` for captions in order: ``score[k]`` is the corpus BLEU-(k+1)
    (0-1), ``scores[k][i]`` caption ``i``'s; ``references[i]`` is the list of references of caption
    ``i``. :class:`Bleu` takes the toolkit's dictionaries instead.

    >>> score, _ = coco_bleu(["a cat on a mat"], [["a cat on the mat", "the cat is on a mat"]], n=2)
    >>> [round(s, 4) for s in score]
    [0.8, 0.8944]
    """
    n = _check_n(n)
    hyp_tokens = [h.split() for h in hypotheses]
    ref_tokens = [[r.split() for r in refs] for refs in references]
    rows = token_statistics(hyp_tokens, ref_tokens, _COUNTED_ORDER).rows.tolist()
    order = _COUNTED_ORDER
    per_caption: List[List[float]] = [[] for _ in range(n)]
    totals = [0] * (2 + 2 * order)
    for row in rows:
        testlen, reflen, correct, guess = row[0], row[1], row[2 : 2 + order], row[2 + order :]
        for k, value in enumerate(_scores(testlen, reflen, correct, guess, n)):
            per_caption[k].append(value)
        totals = [t + v for t, v in zip(totals, row)]
    corpus = _scores(totals[0], totals[1], totals[2 : 2 + order], totals[2 + order :], n)
    return corpus, per_caption


class Bleu:
    """Drop-in for ``pycocoevalcap.bleu.bleu.Bleu``: ``Bleu(4).compute_score(gts, res)`` returns what
    the toolkit returns (``gts``/``res`` map image ids to lists of captions, one per id in ``res``).

    >>> Bleu(2).method()
    'Bleu'
    """

    def __init__(self, n: int = 4) -> None:
        self._n = _check_n(n)

    def compute_score(
        self, gts: Mapping[Hashable, Sequence[str]], res: Mapping[Hashable, Sequence[str]], verbose: int = 1
    ) -> Tuple[List[float], List[List[float]]]:
        """``(score, scores)`` as the toolkit's: corpus BLEU-1..n and per-image lists, images in the
        order of ``gts``. With ``verbose > 0`` it prints the summed counts and the length ratio as
        the toolkit does."""
        if not isinstance(gts, Mapping) or not isinstance(res, Mapping):
            raise TypeError("gts and res must be dicts mapping image ids to lists of captions")
        if gts.keys() != res.keys():
            raise ValueError("gts and res must have the same image ids")
        hypotheses: List[str] = []
        references: List[List[str]] = []
        for image in gts:
            hypo, ref = res[image], gts[image]
            if not isinstance(hypo, list) or len(hypo) != 1 or not isinstance(hypo[0], str):
                raise ValueError(f"res[{image!r}] must be a list of exactly one caption (str), got {hypo!r}")
            if not isinstance(ref, list) or not ref or not all(isinstance(r, str) for r in ref):
                raise ValueError(f"gts[{image!r}] must be a non-empty list of reference captions (str)")
            hypotheses.append(hypo[0])
            references.append(ref)
        if not hypotheses:
            raise ValueError("no images to score (the toolkit divides by zero here)")
        score, scores = coco_bleu(hypotheses, references, self._n)
        if verbose > 0:
            self._print_totals(hypotheses, references)
        return score, scores

    def _print_totals(self, hypotheses: List[str], references: List[List[str]]) -> None:
        rows = token_statistics([h.split() for h in hypotheses], [[r.split() for r in rs] for rs in references],
                                _COUNTED_ORDER).rows
        sums = [int(v) for v in rows.sum(axis=0)]
        order, n = _COUNTED_ORDER, self._n
        print({"testlen": sums[0], "reflen": sums[1], "guess": sums[2 + order : 2 + order + n],
               "correct": sums[2 : 2 + n]})
        print("ratio:", (sums[0] + _TINY) / (sums[1] + _SMALL))

    def method(self) -> str:
        return "Bleu"
