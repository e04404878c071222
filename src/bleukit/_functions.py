"""What every metric's sacreBLEU-shaped functions share: ``corpus_bleu``, ``sentence_chrf``,
``sentence_ter_scores``, ... (:mod:`bleukit.bleu`, :mod:`bleukit.chrf`, :mod:`bleukit.ter`) each
build their metric's options from their own explicit, typed keywords (sacreBLEU's names and
defaults: those signatures are the public API) and call one of these with them, so the flow is
written once for every metric.

>>> from bleukit.metrics.chrf import ChrfOptions
>>> round(corpus_score(["a cat"], ["the cat"], ChrfOptions()).score, 4)
31.25
>>> sentence_score(["a cat"], "the cat", ChrfOptions())
Traceback (most recent call last):
...
TypeError: hypothesis must be a str, got list; for many sentences use sentence_chrf_scores(hypotheses, references)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Hashable, Optional, Sequence

from .defaults import DEFAULT_SEED, DEFAULT_THREADS
from .metrics import MetricOptions, MetricResult
from .pipeline import corpus_result, corpus_statistics, sentence_result, sentence_scores_from_statistics

if TYPE_CHECKING:
    import numpy as np

__all__ = ["corpus_score", "sentence_score", "sentence_scores"]


def corpus_score(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    options: MetricOptions,
    *,
    threads: int = DEFAULT_THREADS,
    n_bootstrap: Optional[int] = None,
    seed: Optional[int] = DEFAULT_SEED,
    group_by: Optional[Sequence[Hashable]] = None,
) -> MetricResult:
    """The corpus result of the options' metric: from the column sums alone (no table, and the
    analyses stay unimported), or, with ``n_bootstrap`` or ``group_by``, from the table with the
    bootstrap estimate and each group's result (:func:`bleukit.analysis.groups.corpus_estimates`)."""
    if n_bootstrap is None and group_by is None:
        return corpus_result(hypotheses, references, options, threads)
    from .analysis.groups import corpus_estimates  # the table, and the analyses, only when asked for

    return corpus_estimates(hypotheses, references, options, threads=threads, n_bootstrap=n_bootstrap, seed=seed,
                            group_by=group_by)


def sentence_score(hypothesis: str, references: Any, options: MetricOptions) -> MetricResult:
    """The result of one hypothesis (a ``TypeError`` that points to the metric's per-sentence
    scores for anything but a str): one kernel call for its row and the formula on plain floats,
    no table, no batch (:func:`bleukit.pipeline.sentence_result`). ``options`` are the sentence
    ones already."""
    if not isinstance(hypothesis, str):
        raise TypeError(
            f"hypothesis must be a str, got {type(hypothesis).__name__}; "
            f"for many sentences use sentence_{options.metric}_scores(hypotheses, references)"
        )
    return sentence_result(hypothesis, references, options)


def sentence_scores(
    hypotheses: Sequence[str], references: Sequence[Any], options: MetricOptions, *, threads: int = DEFAULT_THREADS
) -> "np.ndarray":
    """The score of every hypothesis (float64 array) from one pass over the corpus: element ``i``
    is ``sentence_score(hypotheses[i], references[i], options).score``."""
    table = corpus_statistics(hypotheses, references, options=options, threads=threads)
    return sentence_scores_from_statistics(table, options)
