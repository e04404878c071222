"""Scores per group: domain, length bucket, language pair or any label per sentence, for any metric.

A group's score is the corpus score of its sentences' statistics rows (the rows of the whole
corpus, counted once, then selected), so ``result.groups[label]`` equals the corpus score of that
group's sentences alone, and with ``n_bootstrap`` its bootstrap CI is the one ``corpus_bleu`` of
those sentences with the same seed gives. Groups are listed sorted by label when the labels sort,
else in order of first appearance.

>>> from bleukit import corpus_bleu
>>> hyps = ["the cat sat on the mat", "it is raining", "the dog barked", "a bird sang"]
>>> refs = ["the cat sat on the mat", "it rains", "the dog barked loudly", "a bird sang"]
>>> r = corpus_bleu(hyps, refs, group_by=["news", "chat", "news", "chat"])
>>> round(r.score, 2), {k: round(g.score, 2) for k, g in r.groups.items()}
(88.3, {'chat': 0.0, 'news': 89.48})
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Dict, Hashable, Iterable, List, Optional, Sequence, TypeVar

import numpy as np

from ..defaults import DEFAULT_SEED, DEFAULT_THREADS
from ..inputs import check_hypotheses, check_references
from ..metrics import metric_for, resolve_options
from ..metrics.base import MetricOptions, MetricResult, Statistics
from ..pipeline import corpus_statistics
from .significance import PairedResult, Progress, Seed, check_systems, paired_test, with_bootstrap

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..metrics.bleu.options import BleuOptionKeywords

__all__ = ["check_labels", "group_rows", "ordered_labels", "group_results", "with_groups", "corpus_estimates",
           "score_by_group", "paired_test_by_group"]

R = TypeVar("R", bound=MetricResult)


def check_labels(labels: Any, n: int, what: str = "group_by") -> List[Hashable]:
    """One hashable label per sentence as a new list (numpy and pandas values as Python scalars),
    or a ``TypeError``/``ValueError`` naming the problem.

    >>> check_labels(("a", 1, ("x", 2)), 3)
    ['a', 1, ('x', 2)]
    """
    if labels is None or isinstance(labels, (str, bytes, dict, set, frozenset)) or not hasattr(labels, "__len__"):
        raise TypeError(
            f"{what} must be a list of labels, one per sentence (e.g. a domain name each), got "
            f"{type(labels).__name__}"
        )
    if hasattr(labels, "columns") and hasattr(labels, "iloc"):
        raise TypeError(f"{what} must be one column of labels, got a {type(labels).__name__}; pass df[\"column\"]")
    values = labels.tolist() if hasattr(labels, "tolist") else list(labels)
    if len(values) != n:
        raise ValueError(f"{what} has {len(values)} labels but there are {n} sentences: give one label per sentence")
    for i, label in enumerate(values):
        try:
            hash(label)
        except TypeError:
            raise TypeError(
                f"{what}[{i}] is a {type(label).__name__}, which cannot be a group label (it is not hashable); "
                "use a str, a number or a tuple"
            ) from None
        if isinstance(label, float) and math.isnan(label):
            raise ValueError(f"{what}[{i}] is NaN: give sentences without a group a label of their own (e.g. 'none')")
    return values


def group_rows(labels: Any, n: int) -> Dict[Hashable, np.ndarray]:
    """The sentence indices of each group (sorted by label when the labels sort, else in order of
    first appearance).

    >>> {k: v.tolist() for k, v in group_rows(["b", "a", "b"], 3).items()}
    {'a': [1], 'b': [0, 2]}
    """
    members: Dict[Hashable, List[int]] = {}
    for i, label in enumerate(check_labels(labels, n)):
        members.setdefault(label, []).append(i)
    return {k: np.asarray(members[k], dtype=np.int64) for k in ordered_labels(members)}


def ordered_labels(labels: Iterable[Hashable]) -> List[Hashable]:
    """Labels in the order groups are listed: sorted when they sort, else as given (first seen).

    >>> ordered_labels(["b", "a"]), ordered_labels(["b", None, "a"])
    (['a', 'b'], ['b', None, 'a'])
    """
    keys = list(labels)
    try:
        return sorted(keys)  # type: ignore[type-var]
    except TypeError:  # labels of kinds that do not compare keep the order seen
        return keys


def group_results(
    statistics: Statistics,
    labels: Any,
    options: MetricOptions,
    *,
    n_bootstrap: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
) -> Dict[Hashable, MetricResult]:
    """Each group's corpus result from the statistics table of the whole corpus, with its bootstrap
    ``mean``/``ci`` over ``n_bootstrap`` resamples of the group's rows when given.

    >>> from bleukit import BleuOptions, corpus_statistics
    >>> stats = corpus_statistics(["a b c d", "x y"], ["a b c d", "x z"], options=BleuOptions())
    >>> {k: round(r.score, 2) for k, r in group_results(stats, [1, 2], BleuOptions()).items()}
    {1: 100.0, 2: 0.0}
    """
    metric = metric_for(options)
    metric.check_statistics(statistics, options)
    out: Dict[Hashable, MetricResult] = {}
    for label, rows in group_rows(labels, len(statistics)).items():
        part = statistics[rows]
        result = metric.result(part, options)
        if n_bootstrap is not None:
            result = with_bootstrap(result, part, options, n_bootstrap, seed)
        out[label] = result
    return out


def with_groups(
    result: R,
    statistics: Statistics,
    labels: Any,
    options: MetricOptions,
    n_bootstrap: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
) -> R:
    """``result`` (of the whole corpus) carrying each group's result in ``result.groups``: what
    ``corpus_bleu(..., group_by=labels)`` returns.

    >>> from bleukit import BleuOptions, corpus_statistics, score_statistics
    >>> stats = corpus_statistics(["a b c d", "x y"], ["a b c d", "x z"], options=BleuOptions())
    >>> r = with_groups(score_statistics(stats, BleuOptions()), stats, ["p", "q"], BleuOptions())
    >>> sorted(r.groups), r.to_dict()["groups"][0]["group"]
    (['p', 'q'], 'p')
    """
    return result.with_groups(group_results(statistics, labels, options, n_bootstrap=n_bootstrap, seed=seed))


def corpus_estimates(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    options: MetricOptions,
    *,
    threads: int = DEFAULT_THREADS,
    n_bootstrap: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
    group_by: Any = None,
) -> MetricResult:
    """The corpus result of the options' metric from its statistics table, with the bootstrap
    mean and CI (``n_bootstrap`` resamples drawn with ``seed``) and each group's result in
    ``.groups`` (``group_by``: a label per sentence) when asked: what ``corpus_bleu``,
    ``corpus_chrf`` and ``corpus_ter`` return with either.

    >>> from bleukit.metrics.ter import TerOptions
    >>> r = corpus_estimates(["a b", "c d"], ["a b", "c x"], TerOptions(), n_bootstrap=10, group_by=["p", "q"])
    >>> r.score, {k: g.score for k, g in r.groups.items()}, r.mean is not None
    (25.0, {'p': 0.0, 'q': 50.0}, True)
    """
    hyps = check_hypotheses(hypotheses)
    labels = None if group_by is None else check_labels(group_by, len(hyps))  # before any counting
    stats = corpus_statistics(hyps, references, options=options, threads=threads)
    result = metric_for(options).result(stats, options)
    if n_bootstrap is not None:
        result = with_bootstrap(result, stats, options, n_bootstrap, seed)
    if labels is not None:
        result = with_groups(result, stats, labels, options, n_bootstrap, seed)
    return result


def score_by_group(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    group_by: Any,
    *,
    n_bootstrap: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
    threads: int = DEFAULT_THREADS,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> MetricResult:
    """The corpus result with each group's in ``.groups``, for any metric: BLEU with the option
    ``keywords``, or the metric of ``options`` (``ChrfOptions()``, ...). ``group_by`` holds one
    label per sentence; ``n_bootstrap``/``seed`` add each group's (and the corpus's) bootstrap CI.

    >>> from bleukit.metrics.chrf import ChrfOptions
    >>> r = score_by_group(["a cat", "the dog"], ["a cat", "a dog"], ["x", "y"], options=ChrfOptions())
    >>> {k: round(g.score, 2) for k, g in r.groups.items()}
    {'x': 100.0, 'y': 42.28}
    """
    opts = resolve_options(options, keywords)
    return corpus_estimates(hypotheses, references, opts, threads=threads, n_bootstrap=n_bootstrap, seed=seed,
                            group_by=group_by)


def paired_test_by_group(
    systems: Any,
    references: Sequence[Any],
    group_by: Any,
    *,
    method: str = "bs",
    n_samples: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
    correction: Optional[str] = None,
    progress: Progress = None,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> Dict[Hashable, List[PairedResult]]:
    """:func:`bleukit.paired_test` on each group's sentences alone (keywords as ``paired_test``'s,
    ``correction`` included): label -> that group's results, baseline first.

    >>> refs = ["a b c d", "e f g h", "a b c d", "e f g h"]
    >>> out = paired_test_by_group({"base": ["a b c", "e f", "a b", "e f g h"], "new": refs}, refs,
    ...                            ["x", "x", "y", "y"], n_samples=20)
    >>> {k: [r.name for r in v] for k, v in out.items()}
    {'x': ['base', 'new'], 'y': ['base', 'new']}
    """
    opts = resolve_options(options, keywords)
    checked = check_systems(systems)
    n = len(checked[0][1])
    refs = check_references(references, n)
    out: Dict[Hashable, List[PairedResult]] = {}
    for label, rows in group_rows(group_by, n).items():
        picked = rows.tolist()
        subset = [(name, [hyps[i] for i in picked]) for name, hyps in checked]
        out[label] = paired_test(subset, [refs[i] for i in picked], method=method, n_samples=n_samples, seed=seed,
                                 correction=correction, progress=progress, options=opts)
    return out
