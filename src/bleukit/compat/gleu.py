"""GLEU (Wu et al. 2016, "Google BLEU"): NLTK's ``corpus_gleu``/``sentence_gleu`` and evaluate's ``google_bleu``.

GLEU of a sentence pair is ``min(precision, recall)`` over all n-grams of orders
``min_len..max_len`` taken together, against each reference *separately* (no clipping across
references, unlike BLEU); a sentence keeps the reference with the best ratio (the first on ties),
and the corpus score is the sum of matches over the sum of denominators. No brevity penalty: the
recall term plays its part. NLTK takes token lists; ``google_bleu`` takes strings (13a tokens).

>>> round(sentence_gleu([["a", "b", "c", "d"]], ["a", "b", "c"]), 6)
0.6
>>> google_bleu(["the cat sat"], [["the cat sat", "a cat"]])
{'google_bleu': 1.0}
"""

from __future__ import annotations

from typing import Any, Dict, Sequence

from ._common import check_token_lists, per_hypothesis_references, predictions_list, token_function, token_statistics

__all__ = ["corpus_gleu", "sentence_gleu", "google_bleu"]


def _ngram_total(length: int, min_len: int, max_len: int) -> int:
    return sum(max(0, length - n + 1) for n in range(min_len, max_len + 1))


def corpus_gleu(
    list_of_references: Sequence[Sequence[Sequence[Any]]],
    hypotheses: Sequence[Sequence[Any]],
    min_len: int = 1,
    max_len: int = 4,
) -> float:
    """``nltk.translate.gleu_score.corpus_gleu`` (0-1).

    >>> corpus_gleu([[["a", "b"]], [["c"]]], [["a", "b"], ["d"]])
    0.75
    """
    list_of_references, hypotheses = check_token_lists(list_of_references, hypotheses, "corpus_gleu")
    if len(list_of_references) != len(hypotheses):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(list_of_references)} reference lists")
    if isinstance(min_len, bool) or not isinstance(min_len, int) or min_len < 1:
        raise ValueError(f"min_len must be an int >= 1, got {min_len!r}")
    if isinstance(max_len, bool) or not isinstance(max_len, int) or max_len < min_len:
        raise ValueError(f"max_len must be an int >= min_len, got {max_len!r}")
    # One statistics row per (hypothesis, single reference) pair: GLEU matches each reference alone.
    pair_hyps, pair_refs, owner = [], [], []
    for i, (refs, hyp) in enumerate(zip(list_of_references, hypotheses)):
        for ref in refs:
            pair_hyps.append(hyp)
            pair_refs.append([ref])
            owner.append(i)
    stats = token_statistics(pair_hyps, pair_refs, max_len)
    lo = min_len - 1
    tp = stats.counts[:, lo:].sum(axis=1).tolist()
    tpfp = stats.totals[:, lo:].sum(axis=1).tolist()
    best: dict = {}
    for k, i in enumerate(owner):
        n_all = max(tpfp[k], _ngram_total(len(pair_refs[k][0]), min_len, max_len))
        if n_all > 0:
            cand = (tp[k], n_all)
            # max() keeps the first of equal ratios
            if i not in best or cand[0] / cand[1] > best[i][0] / best[i][1]:
                best[i] = cand
    n_match = sum(m for m, _ in best.values())
    n_all = sum(a for _, a in best.values())
    return 0.0 if n_all == 0 else n_match / n_all


def sentence_gleu(
    references: Sequence[Sequence[Any]], hypothesis: Sequence[Any], min_len: int = 1, max_len: int = 4
) -> float:
    """``nltk.translate.gleu_score.sentence_gleu``: the corpus GLEU of one pair.

    >>> sentence_gleu([["a", "b"]], ["a", "c"])
    0.3333333333333333
    """
    return corpus_gleu([references], [hypothesis], min_len, max_len)


def google_bleu(
    predictions: Sequence[str], references: Sequence[Any], tokenizer: Any = None, min_len: int = 1, max_len: int = 4
) -> Dict[str, float]:
    """``evaluate.load("google_bleu").compute(...)``: NLTK ``corpus_gleu`` on 13a tokens.

    >>> google_bleu(["a b"], ["a c"])
    {'google_bleu': 0.3333333333333333}
    """
    preds = predictions_list(predictions, "google_bleu")
    refs = per_hypothesis_references(references, len(preds), "google_bleu")
    tok = token_function(tokenizer)
    return {
        "google_bleu": corpus_gleu([[tok(r) for r in rs] for rs in refs], [tok(p) for p in preds], min_len, max_len)
    }
