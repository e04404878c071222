"""The one flow every entry point uses: checked input → statistics table → result, for any metric.

The metric comes from the options object (:func:`bleukit.metrics.metric_for`): the same three
functions serve BLEU, chrF and TER.

>>> from bleukit.metrics.bleu import BleuOptions
>>> stats = corpus_statistics(["a b c", "x y"], ["a b d", "x y"], options=BleuOptions(max_ngram_order=2))
>>> stats.rows.tolist()
[[3, 3, 2, 1, 3, 2], [2, 2, 2, 1, 2, 1]]
>>> score_statistics(stats, BleuOptions(max_ngram_order=2)).counts
[4, 2]
>>> sentence_scores_from_statistics(stats, BleuOptions(max_ngram_order=2, effective_order=True)).round(2).tolist()
[57.74, 100.0]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional, Sequence, Tuple

from .engine import MIN_CHUNK, in_threads, thread_count
from .inputs import check_hypotheses, check_references, hypotheses_and_entries, reference_entries
from .metrics import metric_for, resolve_options
from .metrics.base import Metric, MetricOptions, MetricResult, Statistics

if TYPE_CHECKING:
    import numpy as np
    from typing_extensions import Unpack

    from .metrics.bleu.options import BleuOptionKeywords

__all__ = [
    "checked_input",
    "checked_references",
    "corpus_statistics",
    "corpus_result",
    "distinct_pairs",
    "sentence_result",
    "score_statistics",
    "sentence_scores_from_statistics",
]


def checked_input(hypotheses: Any, references: Any, options: MetricOptions) -> Tuple[List[str], List[Any]]:
    """User input as the options' metric reads it: the hypotheses as a checked list of str, and
    the references either checked into lists of strings or, for a metric that
    :meth:`~bleukit.metrics.base.Metric.reads_reference_entries` (BLEU's kernel), as the caller's
    entries, checked as a whole here and entry by entry as they are read (no list per sentence).

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> checked_input(("a b",), ["a b c"], BleuOptions(tokenize="ja-mecab"))
    (['a b'], [['a b c']])
    """
    if metric_for(options).reads_reference_entries(options):
        # the kernel reads private copies of both lists: copying them here too would only add
        # 16 bytes a pair to the call's peak (160 MB at 10M pairs); it checks every hypothesis
        # before it counts, so they are walked here only to report errors in the same order
        return hypotheses_and_entries(hypotheses, references, copy=False)
    hyps = check_hypotheses(hypotheses)
    return hyps, check_references(references, len(hyps))


def checked_references(references: Any, n_hypotheses: int, options: MetricOptions) -> List[Any]:
    """The references of ``n_hypotheses`` checked hypotheses as the options' metric reads them:
    the caller's entries (checked as a whole) for a metric that reads entries in place, else
    :func:`bleukit.inputs.check_references`' lists.

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> checked_references(["a", ["b", None]], 2, BleuOptions(tokenize="ko-mecab"))
    [['a'], ['b']]
    """
    n = n_hypotheses
    if metric_for(options).reads_reference_entries(options):
        return reference_entries(references, n)
    return check_references(references, n)


def corpus_statistics(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    threads: int = 1,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> Statistics:
    """Checked input → per-sentence statistics table (one row per hypothesis) of the metric of
    ``options`` (any metric's options object), or of BLEU with the option ``keywords``.

    ``references[i]`` is the reference of ``hypotheses[i]`` (a string) or its references (a list
    of strings, ``None`` for a missing one). ``threads`` counts chunks of the corpus in parallel
    (0: all cores) where the metric's extractor gains from it; the table is the same.

    >>> corpus_statistics(["a b"], ["a b"], max_ngram_order=2).rows.tolist()
    [[2, 2, 2, 1, 2, 1]]
    """
    options = resolve_options(options, keywords)
    metric = metric_for(options)
    n_threads = thread_count(threads)
    if n_threads > 1 and metric.chunks_in_threads(options):
        hyps = check_hypotheses(hypotheses)
        if len(hyps) >= 2 * MIN_CHUNK:
            chunked: Statistics = in_threads(lambda h, r: metric.statistics(h, r, options), hyps, references, n_threads)
            return chunked
        refs = checked_references(references, len(hyps), options)
    else:
        hyps, refs = checked_input(hypotheses, references, options)
    table: Statistics = metric.statistics(hyps, refs, options, threads=n_threads)
    return table


def corpus_result(
    hypotheses: Sequence[str], references: Sequence[Any], options: MetricOptions, threads: int = 1
) -> MetricResult:
    """The corpus result of the options' metric, from the column sums alone
    (:meth:`~bleukit.metrics.base.Metric.summed_row`): the same result as
    ``score_statistics(corpus_statistics(...))``, without a table where the metric's extractor
    sums as it counts (BLEU's kernel: constant memory whatever the corpus' size).

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> corpus_result(["a b c"], ["a b d"], BleuOptions(max_ngram_order=2)).counts
    [2, 1]
    """
    metric = metric_for(options)
    n_threads = thread_count(threads)
    # Only a metric that sums as it counts has a summed row to gain from; for the others (TER
    # adds its sentences' averages in order, not the summed row's quotient) the table decides.
    if (n_threads > 1 and metric.chunks_in_threads(options)) or type(metric).summed_row is Metric.summed_row:
        return score_statistics(corpus_statistics(hypotheses, references, options=options, threads=threads), options)
    hyps, refs = checked_input(hypotheses, references, options)
    found = _repeated_summed_row(metric, hyps, refs, options, n_threads)
    row, nrefs = metric.summed_row(hyps, refs, options, threads=n_threads) if found is None else found
    result: MetricResult = metric.row_result(row, nrefs, options)
    return result


# Pairs looked at before deciding whether a corpus repeats enough to count its distinct pairs:
# a sixteenth of the corpus, at most this many (a few ms; about 1% of scoring those rows).
REPEAT_SAMPLE = 65536


def _pair_key(entry: Any) -> Any:
    if isinstance(entry, (str, tuple)):
        return entry
    if type(entry) is list:
        return tuple(entry)
    # anything else (a set, a dict, ...) is for the plain path to check and report, not to key
    raise TypeError("not a reference entry to key")


def distinct_pairs(
    hypotheses: Sequence[str], references: Sequence[Any]
) -> Optional[Tuple[List[str], List[Any], "np.ndarray"]]:
    """``(hypotheses, references, multiplicities)`` of the distinct (hypothesis, references)
    pairs of a highly repetitive corpus (the same lines scored again and again), in order of first
    appearance, or ``None`` when its first pairs are mostly distinct (the check costs about 1% of
    scoring them), too few to gain, or not hashable. A summed statistic then counts each distinct
    pair once and weighs its row by its multiplicity: the same sums, less work.

    >>> hyps, refs, counts = distinct_pairs(["a", "b"] * 40000, [["x", None], "y"] * 40000)
    >>> hyps, refs, counts.tolist()
    (['a', 'b'], [['x', None], 'y'], [40000, 40000])
    >>> distinct_pairs([str(i) for i in range(80000)], ["r"] * 80000) is None
    True
    """
    import itertools
    from collections import Counter

    n = len(hypotheses)
    sample = min(n // 16, REPEAT_SAMPLE)
    try:
        # Distinct hypotheses bound distinct pairs from below: a cheap first look (a set of strings).
        if sample < 1024 or len(set(itertools.islice(hypotheses, sample))) * 2 > sample:
            return None
        try:
            counts = Counter(zip(hypotheses, references))
            lists = False
        except TypeError:  # list entries (several references): a tuple of them is their key
            counts = Counter(zip(hypotheses, map(_pair_key, references)))
            lists = True
    except Exception:  # an item that is unhashable or fails to hash: the plain path checks and reports it
        return None
    if len(counts) * 2 > n:
        return None
    import numpy as np

    hyps = [h for h, _ in counts]
    refs = [r if isinstance(r, str) or not lists else list(r) for _, r in counts]
    return hyps, refs, np.fromiter(counts.values(), dtype=np.int64, count=len(counts))


def _repeated_summed_row(
    metric: "Metric[Any, Any, Any]", hyps: List[str], refs: List[Any], options: MetricOptions, threads: int
) -> Optional[Tuple[List[int], int]]:
    """:meth:`~bleukit.metrics.base.Metric.summed_row` of a highly repetitive corpus from its
    distinct pairs (:func:`distinct_pairs`), or ``None`` for any other corpus."""
    distinct = distinct_pairs(hyps, refs)
    if distinct is None:
        return None
    try:
        table = metric.statistics(distinct[0], distinct[1], options, threads=threads)
    except (TypeError, ValueError):
        return None  # bad input: the plain path names the faulty row by its own index
    # each distinct pair's row times its multiplicity: the same integer column sums
    summed = table.with_rows(table.rows * distinct[2][:, None], table.nrefs).summed()
    return [int(x) for x in summed.rows[0].tolist()], int(summed.nrefs[0])


def sentence_result(hypothesis: str, references: Any, options: MetricOptions) -> MetricResult:
    """The result of one hypothesis against its references (a string, or a list of strings with
    ``None`` for a missing one), through the metric's one-sentence path
    (:meth:`~bleukit.metrics.base.Metric.sentence_row` and ``row_result``): no table, no batch.
    Pass sentence-level options for sacreBLEU's sentence scores (``options.sentence_level()``).

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> round(sentence_result("the cat sat", "the cat sat down", BleuOptions().sentence_level()).score, 4)
    71.6531
    """
    if not isinstance(hypothesis, str):
        raise TypeError(f"hypothesis must be a str, got {type(hypothesis).__name__}")
    metric = metric_for(options)
    row, nrefs = metric.sentence_row(hypothesis, references, options)
    result: MetricResult = metric.row_result(row, nrefs, options)
    return result


def score_statistics(statistics: Statistics, options: MetricOptions) -> MetricResult:
    """The corpus result of a statistics table: the score of its column sums, with the signature.

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> stats = corpus_statistics(["a b c"], ["a b d"], options=BleuOptions(max_ngram_order=2))
    >>> score_statistics(stats, BleuOptions(max_ngram_order=2)).precisions
    [66.66666666666667, 50.0]
    """
    result: MetricResult = metric_for(options).result(statistics, options)
    return result


def sentence_scores_from_statistics(statistics: Statistics, options: MetricOptions) -> "np.ndarray":
    """The score of every row of a statistics table, as a float64 array (pass sentence-level options
    for sentence scores: ``options.sentence_level()``).

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> stats = corpus_statistics(["a b", "c"], ["a b", "d"], options=BleuOptions(max_ngram_order=2))
    >>> sentence_scores_from_statistics(stats, BleuOptions(max_ngram_order=2, effective_order=True))
    array([100.,   0.])
    """
    import numpy as np

    metric = metric_for(options)
    metric.check_statistics(statistics, options)
    return np.asarray(metric.scores(statistics.rows, options), dtype=np.float64)
