"""The one flow every entry point uses: checked input → statistics table → result, for any metric.

The metric comes from the options object (:func:`bleukit.metrics.metric_for`): the same functions
serve BLEU, chrF and TER. Each entry point resolves the metric and its :class:`Route` (threads, the
reference layout its extractor reads, its fast paths: :func:`route`) once and passes it down.

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

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Sequence, Tuple

from .engine import MIN_CHUNK, in_threads, thread_count
from .inputs import check_hypotheses, check_references, hypotheses_and_entries, reference_entries
from .metrics import fast, metric_for, resolve_options
from .metrics.base import Metric, MetricOptions, MetricResult, Statistics

if TYPE_CHECKING:
    import numpy as np
    from typing_extensions import Unpack

    from .metrics.bleu.options import BleuOptionKeywords

__all__ = [
    "Route",
    "route",
    "checked_input",
    "checked_references",
    "corpus_statistics",
    "corpus_result",
    "distinct_pairs",
    "sentence_result",
    "score_statistics",
    "sentence_scores_from_statistics",
]


@dataclass(frozen=True)
class Route:
    """How one call counts a corpus, decided once at its entry point and passed down: the options'
    metric, the resolved thread count, whether the extractor reads the caller's reference
    entries in place (``entries``), whether chunks of the corpus are counted on threads
    (``chunks``), and the metric's column sums without a table (``summed_row``; ``None``: the
    corpus result is the result of the table).

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> r = route(BleuOptions(tokenize="ja-mecab"))
    >>> r.metric.name, r.threads, r.entries, r.chunks, r.summed_row is not None
    ('bleu', 1, False, False, True)
    """

    metric: Metric[Any, Any, Any]
    options: MetricOptions
    threads: int
    entries: bool
    chunks: bool
    summed_row: Optional[Callable[[List[str], Sequence[Any], Any, int], Tuple[List[int], int]]]

    def checked_input(self, hypotheses: Any, references: Any) -> Tuple[List[str], List[Any]]:
        """The hypotheses as a checked list of str, and the references as the extractor reads them
        (:func:`checked_input`)."""
        if self.entries:
            # the kernel reads private copies of both lists: copying them here too would only add
            # 16 bytes a pair to the call's peak (160 MB at 10M pairs); it checks every hypothesis
            # before it counts, so they are walked here only to report errors in the same order
            return hypotheses_and_entries(hypotheses, references, copy=False)
        hyps = check_hypotheses(hypotheses)
        return hyps, check_references(references, len(hyps))

    def checked_references(self, references: Any, n_hypotheses: int) -> List[Any]:
        """The references of ``n_hypotheses`` checked hypotheses as the extractor reads them
        (:func:`checked_references`)."""
        if self.entries:
            return reference_entries(references, n_hypotheses)
        return check_references(references, n_hypotheses)

    def table(self, hypotheses: Sequence[str], references: Sequence[Any]) -> Statistics:
        """The statistics table of the caller's input, counted this way (:func:`corpus_statistics`)."""
        metric, options = self.metric, self.options
        if self.chunks:
            hyps = check_hypotheses(hypotheses)
            if len(hyps) >= 2 * MIN_CHUNK:
                chunked: Statistics = in_threads(lambda h, r: metric.statistics(h, r, options), hyps, references,
                                                 self.threads)
                return chunked
            refs = self.checked_references(references, len(hyps))
        else:
            hyps, refs = self.checked_input(hypotheses, references)
        table: Statistics = metric.statistics(hyps, refs, options, threads=self.threads)
        return table


def route(options: MetricOptions, threads: int = 1) -> Route:
    """The :class:`Route` of a call with these options and ``threads=`` (0: all cores): the metric
    is found (a ``TypeError`` for anything but a metric's options), then the thread count checked,
    then its fast paths asked, each once."""
    metric = metric_for(options)
    n_threads = thread_count(threads)
    paths = metric.fast
    chunks = n_threads > 1 and fast.chunks_in_threads(metric, options)
    # Only a metric that sums as it counts has a summed row to gain from; for the others (TER
    # adds its sentences' averages in order, not the summed row's quotient) the table decides,
    # and so it does when chunks are counted on threads.
    summed = None if chunks or paths is None else paths.summed_row
    return Route(metric, options, n_threads, fast.reads_reference_entries(metric, options), chunks, summed)


def checked_input(hypotheses: Any, references: Any, options: MetricOptions) -> Tuple[List[str], List[Any]]:
    """User input as the options' metric reads it: the hypotheses as a checked list of str, and
    the references either checked into lists of strings or, for a metric that reads reference
    entries in place (:class:`~bleukit.metrics.fast.FastPaths`; BLEU's kernel), as the caller's
    entries, checked as a whole here and entry by entry as they are read (no list per sentence).

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> checked_input(("a b",), ["a b c"], BleuOptions(tokenize="ja-mecab"))
    (['a b'], [['a b c']])
    """
    return route(options).checked_input(hypotheses, references)


def checked_references(references: Any, n_hypotheses: int, options: MetricOptions) -> List[Any]:
    """The references of ``n_hypotheses`` checked hypotheses as the options' metric reads them:
    the caller's entries (checked as a whole) for a metric that reads entries in place, else
    :func:`bleukit.inputs.check_references`' lists.

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> checked_references(["a", ["b", None]], 2, BleuOptions(tokenize="ko-mecab"))
    [['a'], ['b']]
    """
    return route(options).checked_references(references, n_hypotheses)


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
    return route(resolve_options(options, keywords), threads).table(hypotheses, references)


def corpus_result(
    hypotheses: Sequence[str], references: Sequence[Any], options: MetricOptions, threads: int = 1
) -> MetricResult:
    """The corpus result of the options' metric, from the column sums alone (the metric's
    ``summed_row`` fast path, :class:`~bleukit.metrics.fast.FastPaths`): the same result as
    ``score_statistics(corpus_statistics(...))``, without a table where the metric's extractor
    sums as it counts (BLEU's kernel: constant memory whatever the corpus' size).

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> corpus_result(["a b c"], ["a b d"], BleuOptions(max_ngram_order=2)).counts
    [2, 1]
    """
    way = route(options, threads)
    if way.summed_row is None:
        table_result: MetricResult = way.metric.result(way.table(hypotheses, references), options)
        return table_result
    hyps, refs = way.checked_input(hypotheses, references)
    found = _repeated_summed_row(way, hyps, refs)
    row, nrefs = way.summed_row(hyps, refs, options, way.threads) if found is None else found
    result: MetricResult = way.metric.row_result(row, nrefs, options)
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


def _repeated_summed_row(way: Route, hyps: List[str], refs: List[Any]) -> Optional[Tuple[List[int], int]]:
    """The summed row of a highly repetitive corpus from its distinct pairs
    (:func:`distinct_pairs`), or ``None`` for any other corpus."""
    distinct = distinct_pairs(hyps, refs)
    if distinct is None:
        return None
    try:
        table = way.metric.statistics(distinct[0], distinct[1], way.options, threads=way.threads)
    except (TypeError, ValueError):
        return None  # bad input: the plain path names the faulty row by its own index
    # each distinct pair's row times its multiplicity: the same integer column sums
    summed = table.with_rows(table.rows * distinct[2][:, None], table.nrefs).summed()
    return [int(x) for x in summed.rows[0].tolist()], int(summed.nrefs[0])


def sentence_result(hypothesis: str, references: Any, options: MetricOptions) -> MetricResult:
    """The result of one hypothesis against its references (a string, or a list of strings with
    ``None`` for a missing one), through the metric's one-sentence path
    (:func:`bleukit.metrics.fast.sentence_row` and ``row_result``): no table, no batch.
    Pass sentence-level options for sacreBLEU's sentence scores (``options.sentence_level()``).

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> round(sentence_result("the cat sat", "the cat sat down", BleuOptions().sentence_level()).score, 4)
    71.6531
    """
    if not isinstance(hypothesis, str):
        raise TypeError(f"hypothesis must be a str, got {type(hypothesis).__name__}")
    metric = metric_for(options)
    row, nrefs = fast.sentence_row(metric, hypothesis, references, options)
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
