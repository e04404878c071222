"""Public chrF / chrF++ API on text: corpus, sentence and per-sentence scores, with sacreBLEU's
``CHRF`` option names (``word_order=2`` is chrF++).

>>> from bleukit import corpus_chrf, sentence_chrf
>>> hyps = ["The cat sat on the mat.", "It is raining today."]
>>> refs = ["The cat sat on the mat.", ["It rains today.", "It is raining today!"]]
>>> round(corpus_chrf(hyps, refs).score, 4)
96.6225
>>> round(sentence_chrf("It is raining today.", ["It rains today."], word_order=2).score, 4)
48.3735
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Hashable, Optional, Sequence, cast

from .defaults import DEFAULT_SEED, DEFAULT_THREADS
from .metrics import cached_options, fast
from .metrics.chrf import METRIC
from .metrics.chrf.options import DEFAULT_BETA, DEFAULT_CHAR_ORDER, DEFAULT_WORD_ORDER, Beta, ChrfOptions
from .metrics.chrf.result import ChrfResult
from .pipeline import corpus_result, corpus_statistics

if TYPE_CHECKING:
    import numpy as np

__all__ = ["corpus_chrf", "sentence_chrf", "sentence_chrf_scores"]


def corpus_chrf(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    char_order: int = DEFAULT_CHAR_ORDER,
    word_order: int = DEFAULT_WORD_ORDER,
    beta: Beta = DEFAULT_BETA,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    threads: int = DEFAULT_THREADS,
    n_bootstrap: Optional[int] = None,
    seed: Optional[int] = DEFAULT_SEED,
    group_by: Optional[Sequence[Hashable]] = None,
) -> ChrfResult:
    """Corpus chrF (chrF++ with ``word_order=2``), identical to sacreBLEU's ``CHRF(...).corpus_score``.

    ``references[i]`` is the reference of ``hypotheses[i]`` (a string) or its references (a list
    of strings, ``None`` for a missing one); with several, each sentence keeps the statistics of
    the reference with its best sentence chrF, as sacreBLEU does. ``char_order`` and
    ``word_order`` are the character and word n-gram orders, ``beta`` weighs recall against
    precision, ``lowercase`` compares lowercased text, ``whitespace`` keeps spaces inside
    character n-grams, ``eps_smoothing`` is the chrF++.py/NLTK/Moses averaging (see
    :class:`bleukit.ChrfOptions`). ``threads`` splits the counting (0: all cores); the score is
    the same. With ``n_bootstrap=N`` the result also holds the bootstrap ``mean`` and 95% ``ci``
    over N resamples drawn with ``seed`` (sacreBLEU's ``--confidence``). With ``group_by`` (one
    label per sentence) the result also holds each group's result, with its own CI, in
    ``.groups[label]`` (see ``bleukit.analysis.groups``).

    The result has ``score``, the summed per-order ``hyp_ngrams``, ``ref_ngrams`` and
    ``matches`` (character orders first), and the ``signature``.

    >>> r = corpus_chrf(["the cat sat on the mat"], [["the cat is on the mat", "a cat sat on a mat"]])
    >>> round(r.score, 2), r.name, r.signature.split("|")[:4]
    (64.58, 'chrF2', ['nrefs:2', 'case:mixed', 'eff:yes', 'nc:6'])
    >>> corpus_chrf(["a cat"], ["the cat"], char_order=2).matches
    [3, 2]
    >>> {k: round(g.score, 2) for k, g in corpus_chrf(["a cat", "a dog"], ["a cat", "the dog"],
    ...                                                 group_by=["x", "y"]).groups.items()}
    {'x': 100.0, 'y': 31.25}
    """
    options = cached_options(ChrfOptions, char_order, word_order, beta, lowercase, whitespace, eps_smoothing)
    if n_bootstrap is None and group_by is None:
        # the protocol's corpus path (the analyses stay unimported)
        return cast(ChrfResult, corpus_result(hypotheses, references, options, threads))
    from .analysis.groups import corpus_estimates  # the table, and the analyses, only when asked for

    return cast(ChrfResult, corpus_estimates(hypotheses, references, options, threads=threads, n_bootstrap=n_bootstrap,
                                        seed=seed, group_by=group_by))


def sentence_chrf(
    hypothesis: str,
    references: Any,
    *,
    char_order: int = DEFAULT_CHAR_ORDER,
    word_order: int = DEFAULT_WORD_ORDER,
    beta: Beta = DEFAULT_BETA,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
) -> ChrfResult:
    """chrF of one hypothesis against its reference(s), identical to sacreBLEU's
    ``CHRF(...).sentence_score``; ``references`` is a string or a list of strings.

    >>> round(sentence_chrf("the cat sat", "the cat sat down").score, 4)
    66.0176
    >>> sentence_chrf("the cat", ["a dog", "the cat"]).score
    100.0
    """
    if not isinstance(hypothesis, str):
        raise TypeError(
            f"hypothesis must be a str, got {type(hypothesis).__name__}; "
            "for many sentences use sentence_chrf_scores(hypotheses, references)"
        )
    options = cached_options(ChrfOptions, char_order, word_order, beta, lowercase, whitespace, eps_smoothing)
    # one kernel call for the row (it checks the references as check_sentence_references does),
    # the formula on plain floats: no table, no batch
    row, nrefs = fast.sentence_row(METRIC, hypothesis, references, options)
    return METRIC.row_result(row, nrefs, options)


def sentence_chrf_scores(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    char_order: int = DEFAULT_CHAR_ORDER,
    word_order: int = DEFAULT_WORD_ORDER,
    beta: Beta = DEFAULT_BETA,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    threads: int = DEFAULT_THREADS,
) -> "np.ndarray":
    """Sentence chrF of every hypothesis (float64 array), from one pass over the corpus.

    Element ``i`` equals ``sentence_chrf(hypotheses[i], references[i]).score`` (what
    ``sentence_bleu_scores`` is for BLEU). ``threads`` as in :func:`corpus_chrf`.

    >>> sentence_chrf_scores(["a b c d", "x y"], ["a b c d", "x z"]).round(4).tolist()
    [100.0, 25.0]
    """
    options = cached_options(ChrfOptions, char_order, word_order, beta, lowercase, whitespace, eps_smoothing)
    import numpy as np

    stats = corpus_statistics(hypotheses, references, options=options, threads=threads)
    return np.asarray(METRIC.scores(stats.rows, options), dtype=np.float64)
