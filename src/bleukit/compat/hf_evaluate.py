"""Hugging Face evaluate's ``"bleu"`` metric: tensorflow/nmt ``compute_bleu`` on evaluate's 13a tokens.

How it differs from sacreBLEU (same 13a tokens, same clipping):

* the reference length of a sentence is its *shortest* reference, not the closest one;
* no smoothing by default (one order without a match gives 0); ``smooth=True`` adds one to the
  numerator and denominator of *every* order, unigrams included;
* the brevity penalty is ``exp(1 - 1/ratio)`` with ``ratio = hyp_len / ref_len`` (one more rounding);
* 0-1 scale, and the result is evaluate's dict.

Empty input raises ``ValueError`` here; the original fails with ``IndexError``/``ZeroDivisionError``.

>>> out = bleu(["the cat sat on the mat"], [["the cat is on the mat", "a cat sat"]])
>>> round(out["bleu"], 6), out["reference_length"]
(0.0, 3)
>>> round(bleu(["the cat sat on the mat"], ["the cat is on the mat"], smooth=True)["bleu"], 6)
0.488923
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Sequence, Tuple

from ._common import per_hypothesis_references, predictions_list, token_function, token_statistics

__all__ = ["compute_bleu", "bleu"]


def compute_bleu(
    reference_corpus: Sequence[Sequence[Sequence[Any]]],
    translation_corpus: Sequence[Sequence[Any]],
    max_order: int = 4,
    smooth: bool = False,
) -> Tuple[float, List[float], float, float, int, int]:
    """tensorflow/nmt ``compute_bleu`` on token lists: ``(bleu, precisions, bp, ratio, hyp_len, ref_len)``.

    >>> compute_bleu([[["a", "b", "c"]]], [["a", "b", "c"]], max_order=2)
    (1.0, [1.0, 1.0], 1.0, 1.0, 3, 3)
    """
    if isinstance(max_order, bool) or not isinstance(max_order, int) or max_order < 1:
        raise ValueError(f"max_order must be an int >= 1, got {max_order!r}")
    refs = [list(r) for r in reference_corpus]
    hyps = list(translation_corpus)
    if len(refs) != len(hyps):
        raise ValueError(f"{len(hyps)} translations but {len(refs)} reference lists")
    if not hyps:
        raise ValueError("empty input: compute_bleu needs at least one translation")
    if any(not r for r in refs):
        raise ValueError("every translation needs at least one reference")
    stats = token_statistics(hyps, refs, max_order)
    matches = stats.counts.sum(axis=0).tolist()
    possible = stats.totals.sum(axis=0).tolist()
    translation_length = int(stats.sys_len.sum())
    # the one integer sacreBLEU's statistics do not hold: the shortest reference per sentence
    reference_length = sum(min(len(r) for r in rs) for rs in refs)
    if reference_length == 0:
        raise ValueError("all references are empty: the length ratio divides by zero")
    if translation_length == 0:
        raise ValueError("all translations are empty: the brevity penalty divides by zero")
    precisions = [0.0] * max_order
    for i in range(max_order):
        if smooth:
            precisions[i] = (matches[i] + 1.0) / (possible[i] + 1.0)
        elif possible[i] > 0:
            precisions[i] = float(matches[i]) / possible[i]
    if min(precisions) > 0:
        geo_mean = math.exp(sum((1.0 / max_order) * math.log(p) for p in precisions))
    else:
        geo_mean = 0
    ratio = float(translation_length) / reference_length
    bp = 1.0 if ratio > 1.0 else math.exp(1 - 1.0 / ratio)
    return (geo_mean * bp, precisions, bp, ratio, translation_length, reference_length)


def bleu(
    predictions: Sequence[str],
    references: Sequence[Any],
    tokenizer: Any = None,
    max_order: int = 4,
    smooth: bool = False,
) -> Dict[str, Any]:
    """``evaluate.load("bleu").compute(...)``: the same arguments and the same dict.

    ``references[i]`` is a string or a list of strings (decided by ``references[0]``, as evaluate
    does). ``tokenizer`` is a ``str -> list`` callable, or a bleukit tokenizer name; ``None`` is 13a,
    which is evaluate's own ``Tokenizer13a``.

    >>> sorted(bleu(["a b c d"], ["a b c d"]).items())[:2]
    [('bleu', 1.0), ('brevity_penalty', 1.0)]
    """
    preds = predictions_list(predictions, "bleu")
    refs = per_hypothesis_references(references, len(preds), "bleu")
    tok = token_function(tokenizer)
    score, precisions, bp, ratio, hyp_len, ref_len = compute_bleu(
        [[tok(r) for r in rs] for rs in refs], [tok(p) for p in preds], max_order=max_order, smooth=smooth
    )
    return {
        "bleu": score,
        "precisions": precisions,
        "brevity_penalty": bp,
        "length_ratio": ratio,
        "translation_length": hyp_len,
        "reference_length": ref_len,
    }
