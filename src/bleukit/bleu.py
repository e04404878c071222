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

from typing import TYPE_CHECKING, Any, Hashable, Optional, Sequence, cast

from .defaults import DEFAULT_SEED, DEFAULT_THREADS
from .engine import thread_count
from .metrics import cached_options, fast
from .metrics.bleu import METRIC
from .metrics.bleu.formula import table_scores
from .metrics.bleu.options import DEFAULT_CORPUS_SMOOTH, DEFAULT_MAX_NGRAM_ORDER, DEFAULT_SENTENCE_SMOOTH, BleuOptions
from .metrics.bleu.result import BleuResult
from .pipeline import corpus_result, corpus_statistics, score_statistics, sentence_scores_from_statistics
from .tokenizers.languages import tokenizer_for_language

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "corpus_bleu",
    "sentence_bleu",
    "sentence_bleu_scores",
    "corpus_statistics",
    "score_statistics",
    "sentence_scores_from_statistics",
]


def corpus_bleu(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    tokenize: Optional[str] = None,
    lowercase: bool = False,
    smooth_method: str = DEFAULT_CORPUS_SMOOTH,
    smooth_value: Optional[float] = None,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    weights: Optional[Sequence[float]] = None,
    effective_order: bool = False,
    trg_lang: Optional[str] = None,
    language_pair: Optional[str] = None,
    threads: int = DEFAULT_THREADS,
    n_bootstrap: Optional[int] = None,
    seed: Optional[int] = DEFAULT_SEED,
    group_by: Optional[Sequence[Hashable]] = None,
) -> BleuResult:
    """Corpus BLEU, identical to ``sacrebleu.corpus_bleu`` (0-100 scale).

    ``references[i]`` is the reference of ``hypotheses[i]`` (a string) or its references (a list
    of strings, ``None`` for a missing one). ``threads`` splits the counting over that many
    threads (0: all cores; only the native engine gains from it); the score is the same. With
    ``n_bootstrap=N`` the result also holds the bootstrap ``mean`` and 95% ``ci`` of the score
    over N resamples drawn with ``seed`` (``None``: unseeded), as sacreBLEU's ``--confidence``
    (see ``bleukit.analysis.significance``); as in sacreBLEU, only ``N > 1`` resamples (``N=1`` is a
    plain score). With ``group_by`` (one label per sentence: domain, length bucket, ...) the
    result also holds each group's result, with its own CI, in ``.groups[label]`` (see
    ``bleukit.analysis.groups``). Without ``tokenize``, the target language (``trg_lang="zh"`` or
    ``language_pair="en-zh"``) picks ``zh``, ``ja-mecab`` or ``ko-mecab`` as sacreBLEU's
    ``trg_lang`` does (else ``13a``; the signature's ``tok:`` says which); a Thai, Khmer, Lao or
    Burmese target warns that whitespace tokens are phrases there (use ``flores200`` or ``char``).

    >>> corpus_bleu(["我喜欢猫。"], ["我喜欢狗。"], language_pair="en-zh").signature.split("|")[3]
    'tok:zh'
    >>> r = corpus_bleu(["the cat sat on the mat"], [["the cat is on the mat", "a cat sat on a mat"]])
    >>> round(r.score, 2), r.signature.split("|")[0]
    (53.73, 'nrefs:2')
    """
    options = _options(tokenize, trg_lang, language_pair, lowercase, smooth_method, smooth_value, max_ngram_order,
                       weights, effective_order)
    if n_bootstrap is None and group_by is None:
        # the column sums alone: no table, constant memory
        return cast(BleuResult, corpus_result(hypotheses, references, options, threads))
    from .analysis.groups import corpus_estimates  # the table, and the analyses, only when asked for

    return cast(BleuResult, corpus_estimates(hypotheses, references, options, threads=threads, n_bootstrap=n_bootstrap,
                                        seed=seed, group_by=group_by))


def sentence_bleu(
    hypothesis: str,
    references: Any,
    *,
    tokenize: Optional[str] = None,
    lowercase: bool = False,
    smooth_method: str = DEFAULT_SENTENCE_SMOOTH,
    smooth_value: Optional[float] = None,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    weights: Optional[Sequence[float]] = None,
    effective_order: bool = True,
    trg_lang: Optional[str] = None,
    language_pair: Optional[str] = None,
) -> BleuResult:
    """BLEU of one hypothesis against its reference(s), identical to ``sacrebleu.sentence_bleu``
    (``trg_lang`` and ``language_pair`` as in :func:`corpus_bleu`).

    >>> round(sentence_bleu("the cat sat", "the cat sat down").score, 4)
    71.6531
    """
    if not isinstance(hypothesis, str):
        raise TypeError(
            f"hypothesis must be a str, got {type(hypothesis).__name__}; "
            "for many sentences use sentence_bleu_scores(hypotheses, references)"
        )
    options = _options(tokenize, trg_lang, language_pair, lowercase, smooth_method, smooth_value, max_ngram_order,
                       weights, effective_order)
    # one kernel call for the row, the formula on plain floats: no table, no batch
    row, nrefs = fast.sentence_row(METRIC, hypothesis, references, options)
    return METRIC.row_result(row, nrefs, options)


def sentence_bleu_scores(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    tokenize: Optional[str] = None,
    lowercase: bool = False,
    smooth_method: str = DEFAULT_SENTENCE_SMOOTH,
    smooth_value: Optional[float] = None,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    weights: Optional[Sequence[float]] = None,
    effective_order: bool = True,
    trg_lang: Optional[str] = None,
    language_pair: Optional[str] = None,
    threads: int = DEFAULT_THREADS,
) -> "np.ndarray":
    """Sentence BLEU of every hypothesis (float64 array), from one pass over the corpus.

    Element ``i`` equals ``sentence_bleu(hypotheses[i], references[i]).score``. ``threads``,
    ``trg_lang`` and ``language_pair`` as in :func:`corpus_bleu`.

    >>> sentence_bleu_scores(["a b c d", "x y"], ["a b c d", "x z"]).round(4).tolist()
    [100.0, 50.0]
    """
    import numpy as np

    options = _options(tokenize, trg_lang, language_pair, lowercase, smooth_method, smooth_value, max_ngram_order,
                       weights, effective_order)
    stats = corpus_statistics(hypotheses, references, options=options, threads=threads)
    # (METRIC.scores, scored on the call's threads too)
    return np.asarray(table_scores(stats.rows, options, thread_count(threads)), dtype=np.float64)


def _options(
    tokenize: Optional[str], trg_lang: Optional[str], language_pair: Optional[str], *values: Any
) -> BleuOptions:
    """BleuOptions from the public keywords (``values``: lowercase to effective_order, in
    BleuOptions' field order), kept for the next call when no target language is given (the
    language's choice may warn each call) and no weights (a sequence: see cached_options)."""
    if trg_lang is not None or language_pair is not None or values[4] is not None:
        return BleuOptions(tokenizer_for_language(tokenize, trg_lang, language_pair), *values)
    return cached_options(_build, tokenize, *values)


def _build(tokenize: Optional[str], *values: Any) -> BleuOptions:
    return BleuOptions(tokenizer_for_language(tokenize), *values)
