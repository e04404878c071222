"""Public BLEU API on text: corpus, sentence and per-sentence scores, with sacreBLEU's option names.

>>> from bleukit import corpus_bleu, sentence_bleu
>>> hyps = ["The cat sat on the mat.", "It is raining today."]
>>> refs = ["The cat sat on the mat.", ["It rains today.", "It is raining today!"]]
>>> round(corpus_bleu(hyps, refs).score, 4)
92.4074
>>> round(sentence_bleu("It is raining today.", ["It rains today."]).score, 4)
23.6435
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from .engine import checked_text_statistics, text_statistics
from .inputs import check_sentence_references
from .options import DEFAULT_CORPUS_SMOOTH, DEFAULT_MAX_NGRAM_ORDER, DEFAULT_SENTENCE_SMOOTH, BleuOptions
from .result import BLEUResult
from .scoring import score_table
from .statistics import BleuStatistics
from .tokenizers import DEFAULT_TOKENIZER

__all__ = [
    "corpus_bleu",
    "sentence_bleu",
    "sentence_scores",
    "corpus_statistics",
    "score_statistics",
    "sentence_scores_from_statistics",
]


def corpus_statistics(
    hypotheses: Sequence[str], references: Sequence[Any], options: BleuOptions, threads: int = 1
) -> BleuStatistics:
    """Checked input → per-sentence statistics table (one row per hypothesis).

    ``threads`` counts chunks of the corpus in parallel (0: all cores); the table is the same.

    >>> stats = corpus_statistics(["a b"], ["a b"], BleuOptions(max_ngram_order=2))
    >>> stats.rows.tolist()
    [[2, 2, 2, 1, 2, 1]]
    """
    return checked_text_statistics(hypotheses, references, options, threads=threads)


def _number(x: float) -> Any:
    x = float(x)
    return int(x) if x.is_integer() else x


def score_statistics(stats: BleuStatistics, options: BleuOptions) -> BLEUResult:
    """Corpus BLEU of a statistics table: the score of its column sums.

    >>> stats = corpus_statistics(["a b c"], ["a b d"], BleuOptions(max_ngram_order=2))
    >>> score_statistics(stats, BleuOptions(max_ngram_order=2)).precisions
    [66.66666666666667, 50.0]
    """
    if stats.max_ngram_order != options.max_ngram_order:
        raise ValueError(
            f"statistics were counted with max_ngram_order={stats.max_ngram_order}, "
            f"options say {options.max_ngram_order}"
        )
    total = stats.summed()
    out = score_table(total.rows, options)
    return BLEUResult(
        score=float(out.score[0]),
        counts=[_number(c) for c in out.counts[0]],
        totals=[_number(t) for t in out.totals[0]],
        precisions=[float(p) for p in out.precisions[0]],
        bp=float(out.bp[0]),
        sys_len=int(total.sys_len[0]),
        ref_len=int(total.ref_len[0]),
        signature=options.signature(total.nrefs_signature),
        options=options,
    )


def sentence_scores_from_statistics(stats: BleuStatistics, options: BleuOptions) -> np.ndarray:
    """Sentence BLEU of every row of a statistics table, as a float64 array.

    >>> stats = corpus_statistics(["a b", "c"], ["a b", "d"], BleuOptions(max_ngram_order=2))
    >>> sentence_scores_from_statistics(stats, BleuOptions(max_ngram_order=2, effective_order=True))
    array([100.,   0.])
    """
    return score_table(stats.rows, options).score


def corpus_bleu(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    tokenize: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    smooth_method: str = DEFAULT_CORPUS_SMOOTH,
    smooth_value: Optional[float] = None,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    weights: Optional[Sequence[float]] = None,
    effective_order: bool = False,
    threads: int = 1,
    n_bootstrap: Optional[int] = None,
    seed: Optional[int] = 12345,
) -> BLEUResult:
    """Corpus BLEU, identical to ``sacrebleu.corpus_bleu`` (0-100 scale).

    ``references[i]`` is the reference of ``hypotheses[i]`` (a string) or its references (a list
    of strings, ``None`` for a missing one). ``threads`` splits the counting over that many
    threads (0: all cores; only the native engine gains from it); the score is the same. With
    ``n_bootstrap=N`` the result also holds the bootstrap ``mean`` and 95% ``ci`` of the score
    over N resamples drawn with ``seed`` (``None``: unseeded), as sacreBLEU's ``--confidence``
    (see ``bleukit.significance``).

    >>> r = corpus_bleu(["the cat sat on the mat"], [["the cat is on the mat", "a cat sat on a mat"]])
    >>> round(r.score, 2), r.signature.split("|")[0]
    (53.73, 'nrefs:2')
    """
    options = BleuOptions(
        tokenize=tokenize,
        lowercase=lowercase,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        max_ngram_order=max_ngram_order,
        weights=weights,
        effective_order=effective_order,
    )
    stats = corpus_statistics(hypotheses, references, options, threads)
    result = score_statistics(stats, options)
    if n_bootstrap is not None:
        from .significance import with_bootstrap  # it builds on this module

        result = with_bootstrap(result, stats, options, n_bootstrap, seed)
    return result


def sentence_bleu(
    hypothesis: str,
    references: Any,
    *,
    tokenize: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    smooth_method: str = DEFAULT_SENTENCE_SMOOTH,
    smooth_value: Optional[float] = None,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    weights: Optional[Sequence[float]] = None,
    effective_order: bool = True,
) -> BLEUResult:
    """BLEU of one hypothesis against its reference(s), identical to ``sacrebleu.sentence_bleu``.

    >>> round(sentence_bleu("the cat sat", "the cat sat down").score, 4)
    71.6531
    """
    if not isinstance(hypothesis, str):
        raise TypeError(
            f"hypothesis must be a str, got {type(hypothesis).__name__}; "
            "for many sentences use sentence_scores(hypotheses, references)"
        )
    options = BleuOptions(
        tokenize=tokenize,
        lowercase=lowercase,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        max_ngram_order=max_ngram_order,
        weights=weights,
        effective_order=effective_order,
    )
    refs = check_sentence_references(references)
    return score_statistics(text_statistics([hypothesis], [refs], options), options)


def sentence_scores(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    tokenize: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    smooth_method: str = DEFAULT_SENTENCE_SMOOTH,
    smooth_value: Optional[float] = None,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    weights: Optional[Sequence[float]] = None,
    effective_order: bool = True,
    threads: int = 1,
) -> np.ndarray:
    """Sentence BLEU of every hypothesis (float64 array), from one pass over the corpus.

    Element ``i`` equals ``sentence_bleu(hypotheses[i], references[i]).score``. ``threads`` as
    in :func:`corpus_bleu`.

    >>> sentence_scores(["a b c d", "x y"], ["a b c d", "x z"]).round(4).tolist()
    [100.0, 50.0]
    """
    options = BleuOptions(
        tokenize=tokenize,
        lowercase=lowercase,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        max_ngram_order=max_ngram_order,
        weights=weights,
        effective_order=effective_order,
    )
    return sentence_scores_from_statistics(corpus_statistics(hypotheses, references, options, threads), options)
