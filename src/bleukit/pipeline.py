"""The one flow every entry point uses: checked input → statistics table → result, for any metric.

The metric comes from the options object (:func:`bleukit.metrics.metric_for`): the same three
functions serve BLEU, chrF and TER.

>>> from bleukit.metrics.bleu import BleuOptions
>>> stats = corpus_statistics(["a b c", "x y"], ["a b d", "x y"], BleuOptions(max_ngram_order=2))
>>> stats.rows.tolist()
[[3, 3, 2, 1, 3, 2], [2, 2, 2, 1, 2, 1]]
>>> score_statistics(stats, BleuOptions(max_ngram_order=2)).counts
[4, 2]
>>> sentence_scores_from_statistics(stats, BleuOptions(max_ngram_order=2, effective_order=True)).round(2).tolist()
[57.74, 100.0]
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .engine import MIN_CHUNK, in_threads, thread_count
from .inputs import check_hypotheses, check_references
from .metrics import metric_for
from .metrics.base import MetricOptions, MetricResult, Statistics

__all__ = ["corpus_statistics", "score_statistics", "sentence_scores_from_statistics"]


def corpus_statistics(
    hypotheses: Sequence[str], references: Sequence[Any], options: MetricOptions, threads: int = 1
) -> Statistics:
    """Checked input → per-sentence statistics table (one row per hypothesis) of the options' metric.

    ``references[i]`` is the reference of ``hypotheses[i]`` (a string) or its references (a list
    of strings, ``None`` for a missing one). ``threads`` counts chunks of the corpus in parallel
    (0: all cores) where the metric's extractor gains from it; the table is the same.

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> corpus_statistics(["a b"], ["a b"], BleuOptions(max_ngram_order=2)).rows.tolist()
    [[2, 2, 2, 1, 2, 1]]
    """
    metric = metric_for(options)
    n_threads = thread_count(threads)
    hyps = check_hypotheses(hypotheses)
    if n_threads > 1 and len(hyps) >= 2 * MIN_CHUNK and metric.chunks_in_threads(options):
        table: Statistics = in_threads(lambda h, r: metric.statistics(h, r, options), hyps, references, n_threads)
    else:
        table = metric.statistics(hyps, check_references(references, len(hyps)), options, threads=n_threads)
    return table


def score_statistics(statistics: Statistics, options: MetricOptions) -> MetricResult:
    """The corpus result of a statistics table: the score of its column sums, with the signature.

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> stats = corpus_statistics(["a b c"], ["a b d"], BleuOptions(max_ngram_order=2))
    >>> score_statistics(stats, BleuOptions(max_ngram_order=2)).precisions
    [66.66666666666667, 50.0]
    """
    result: MetricResult = metric_for(options).result(statistics, options)
    return result


def sentence_scores_from_statistics(statistics: Statistics, options: MetricOptions) -> np.ndarray:
    """The score of every row of a statistics table, as a float64 array (pass sentence-level options
    for sentence scores: ``options.sentence_level()``).

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> stats = corpus_statistics(["a b", "c"], ["a b", "d"], BleuOptions(max_ngram_order=2))
    >>> sentence_scores_from_statistics(stats, BleuOptions(max_ngram_order=2, effective_order=True))
    array([100.,   0.])
    """
    metric = metric_for(options)
    metric.check_statistics(statistics, options)
    return np.asarray(metric.scores(statistics.rows, options), dtype=np.float64)
