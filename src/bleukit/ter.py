"""Public TER API on text: corpus, sentence and per-sentence scores, with sacreBLEU's ``TER`` option
names. TER is an error rate: lower is better.

>>> from bleukit import corpus_ter, sentence_ter
>>> hyps = ["the cat sat on the mat", "it is raining today"]
>>> refs = ["the mat the cat sat on", ["it rains today", "today it is raining"]]
>>> corpus_ter(hyps, refs).score
21.052631578947366
>>> sentence_ter("It is raining today.", ["it is raining today."], case_sensitive=True).score
25.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Hashable, Optional, Sequence, cast

from ._functions import corpus_score, sentence_score, sentence_scores
from .defaults import DEFAULT_SEED, DEFAULT_THREADS
from .metrics import cached_options
from .metrics.ter.options import TerOptions
from .metrics.ter.result import TerResult

if TYPE_CHECKING:
    import numpy as np

__all__ = ["corpus_ter", "sentence_ter", "sentence_ter_scores"]


def corpus_ter(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
    threads: int = DEFAULT_THREADS,
    n_bootstrap: Optional[int] = None,
    seed: Optional[int] = DEFAULT_SEED,
    group_by: Optional[Sequence[Hashable]] = None,
) -> TerResult:
    """Corpus TER, identical to sacreBLEU's ``TER(...).corpus_score``.

    ``references[i]`` is the reference of ``hypotheses[i]`` (a string) or its references (a list
    of at most 20 strings, ``None`` for a missing one); each sentence counts the edits to its
    closest reference and the average length of its references, as sacreBLEU (and tercom) do.
    The options are tercom's: ``normalized`` (normalise and tokenise punctuation), ``no_punct``
    (remove punctuation), ``asian_support`` (the CJK parts of both), ``case_sensitive`` (by default
    text is lowercased). ``threads`` splits the shift search over threads (0: all cores); the
    score is the same. With ``n_bootstrap=N`` the result also holds the bootstrap ``mean`` and 95%
    ``ci`` over N resamples drawn with ``seed`` (sacreBLEU's ``--confidence``). With ``group_by``
    (one label per sentence) the result also holds each group's result, with its own CI, in
    ``.groups[label]`` (see ``bleukit.analysis.groups``).

    The result has ``score``, ``num_edits``, ``ref_length`` and the ``signature``.

    >>> r = corpus_ter(["a b c d"], [["c d a b", "a b x d"]])
    >>> r.score, r.num_edits, r.ref_length, r.signature.split("|")[:3]
    (25.0, 1, 4.0, ['nrefs:2', 'case:lc', 'tok:tercom'])
    >>> {k: g.score for k, g in corpus_ter(["a b", "c d"], ["a b", "c x"], group_by=["p", "q"]).groups.items()}
    {'p': 0.0, 'q': 50.0}
    """
    options = cached_options(TerOptions, normalized, no_punct, asian_support, case_sensitive)
    return cast(TerResult, corpus_score(hypotheses, references, options, threads=threads, n_bootstrap=n_bootstrap,
                                        seed=seed, group_by=group_by))


def sentence_ter(
    hypothesis: str,
    references: Any,
    *,
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> TerResult:
    """TER of one hypothesis against its reference(s), identical to sacreBLEU's
    ``TER(...).sentence_score``; ``references`` is a string or a list of strings.

    >>> sentence_ter("the cat sat", "the cat sat down").score
    25.0
    >>> sentence_ter("", "a b").score, sentence_ter("a", "").score
    (100.0, 100.0)
    """
    options = cached_options(TerOptions, normalized, no_punct, asian_support, case_sensitive)
    return cast(TerResult, sentence_score(hypothesis, references, options))


def sentence_ter_scores(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
    threads: int = DEFAULT_THREADS,
) -> "np.ndarray":
    """Sentence TER of every hypothesis (float64 array), from one pass over the corpus.

    Element ``i`` equals ``sentence_ter(hypotheses[i], references[i]).score``. ``threads`` as in
    :func:`corpus_ter`.

    >>> sentence_ter_scores(["a b c d", "x y"], ["a b c d", "x z"]).tolist()
    [0.0, 50.0]
    """
    options = cached_options(TerOptions, normalized, no_punct, asian_support, case_sensitive)
    return sentence_scores(hypotheses, references, options, threads=threads)
