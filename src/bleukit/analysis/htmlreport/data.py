"""The numbers of an HTML report, as one JSON-ready dictionary (``report.schema.json`` describes it).

Everything comes from the shared machinery: each system's statistics table per metric (counted
once), its corpus result with a bootstrap CI (:func:`bleukit.analysis.significance.with_bootstrap`), the
paired tests or the ranking (:mod:`bleukit.analysis.ranking`), the scores per reference-length bucket
(:mod:`bleukit.analysis.groups` on the same tables), the sentence scores (the metric's formula per row) and
the matched n-grams of a few sentences: BLEU's (:mod:`bleukit.analysis.explain`) when BLEU is among the
metrics, else chrF's (:mod:`bleukit.analysis.chrf_explanation`) when chrF is.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..._version import __version__
from ...defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from ...inputs import check_hypotheses, check_references
from ...metrics import metric_for
from ...metrics.base import MetricOptions
from ...metrics.bleu.options import BleuOptions
from ...metrics.chrf.options import ChrfOptions
from ...testsets import TestSet
from ..chrf_explanation import explain_chrf
from ..explain import explain_bleu
from ..groups import group_results
from ..ranking import DEFAULT_ALPHA, compare_systems
from ..significance import Seed, check_correction, check_systems, check_test, with_bootstrap

__all__ = ["LENGTH_EDGES", "COMPARISONS", "named_systems", "length_buckets", "report_data"]

#: Bucket edges of the reference length in words (compare-mt's buckets: <10, 10-19, ..., >=50).
LENGTH_EDGES = (10, 20, 30, 40, 50)
#: What a report compares when there are several systems.
COMPARISONS = ("rank", "baseline", "none")


def named_systems(systems: Any) -> List[Tuple[str, List[str]]]:
    """``(name, hypotheses)`` pairs from one list of hypotheses (named ``"system"``), a mapping
    name -> hypotheses or a list of ``(name, hypotheses)``.

    >>> [name for name, _ in named_systems(["a", "b"])], [name for name, _ in named_systems({"x": ["a"]})]
    (['system'], ['x'])
    """
    if isinstance(systems, (list, tuple)) and systems and all(isinstance(s, str) for s in systems):
        return [("system", check_hypotheses(systems))]
    if isinstance(systems, Mapping) and len(systems) == 1:
        (name, hyps), = systems.items()
        if not isinstance(name, str):
            raise TypeError(f"system names must be str, got {type(name).__name__}")
        return [(name, check_hypotheses(hyps))]
    if isinstance(systems, (list, tuple)) and len(systems) == 1:
        name, hyps = systems[0]
        return [(str(name), check_hypotheses(hyps))]
    return check_systems(systems)


def length_buckets(references: List[List[str]]) -> List[str]:
    """The length bucket of each sentence: the word count of its first reference, as ``"<10"``,
    ``"10-19"``, ..., ``">=50"``.

    >>> length_buckets([["a b c"], [" ".join(["w"] * 25)], [" ".join(["w"] * 70), "x"]])
    ['<10', '20-29', '>=50']
    """
    out = []
    for refs in references:
        words = len(refs[0].split())
        k = int(np.searchsorted(LENGTH_EDGES, words, side="right"))
        out.append(_bucket_name(k))
    return out


def _bucket_name(k: int) -> str:
    if k == 0:
        return f"<{LENGTH_EDGES[0]}"
    if k == len(LENGTH_EDGES):
        return f">={LENGTH_EDGES[-1]}"
    return f"{LENGTH_EDGES[k - 1]}-{LENGTH_EDGES[k] - 1}"


def _bucket_order() -> List[str]:
    return [_bucket_name(k) for k in range(len(LENGTH_EDGES) + 1)]


def report_data(
    systems: Any,
    references: Sequence[Any],
    *,
    options: Sequence[MetricOptions],
    comparison: str = "rank",
    method: str = "bs",
    n_samples: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
    correction: Optional[str] = "holm",
    alpha: float = DEFAULT_ALPHA,
    n_bootstrap: int = DEFAULT_SAMPLES["bs"],
    n_examples: int = 10,
    n_explained: int = 3,
    title: str = "bleukit report",
    sources: Optional[Sequence[str]] = None,
) -> Dict[str, Any]:
    """The report's numbers (see :func:`bleukit.analysis.htmlreport.build_report` for the arguments)."""
    if comparison not in COMPARISONS:
        raise ValueError(f"unknown comparison={comparison!r}; choose one of {', '.join(COMPARISONS)}")
    n_samples, seed = check_test(method, n_samples, seed)
    check_correction(correction)
    for what, value in (("n_examples", n_examples), ("n_explained", n_explained)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{what} must be an int >= 0, got {value!r}")
    if not isinstance(title, str):
        raise TypeError(f"title must be a str, got {type(title).__name__}")
    if not options:
        raise ValueError("options is empty: give at least one metric's options (e.g. BleuOptions())")
    for one in options:
        metric_for(one)
    named = named_systems(systems)
    names = [name for name, _ in named]
    n = len(named[0][1])
    refs = check_references(references, n)
    if sources is None and isinstance(references, TestSet):
        sources = references.source  # a test set brings its source segments
    if sources is not None:
        sources = check_hypotheses(sources)
        if len(sources) != n:
            raise ValueError(f"sources has {len(sources)} lines but there are {n} segments")
    buckets = length_buckets(refs)
    per_metric = [
        _metric_data(named, refs, one, buckets, comparison, method, n_samples, seed, correction,
                     alpha, n_bootstrap)
        for one in options
    ]
    first = per_metric[0]
    lines = _differing_lines(first["sentence_scores"], names, n_examples, first["higher_is_better"])
    explained = next((o for o in options if isinstance(o, BleuOptions)), None) or next(
        (o for o in options if isinstance(o, ChrfOptions)), None
    )
    return {
        "bleukit_version": __version__,
        "title": title,
        "n_segments": n,
        "n_references": max(len(r) for r in refs),
        "systems": names,
        "metrics": per_metric,
        "differences": {
            "metric": first["name"],
            "kind": "spread" if len(names) > 1 else "lowest" if first["higher_is_better"] else "highest",
            "lines": [_line_data(i, named, refs, sources, per_metric) for i in lines],
        },
        "explanations": [] if explained is None else [
            _explanation(i, name, hyps[i], refs[i], explained) for i in lines[:n_explained] for name, hyps in named
        ],
    }


def _metric_data(
    named: List[Tuple[str, List[str]]],
    refs: List[List[str]],
    options: MetricOptions,
    buckets: List[str],
    comparison: str,
    method: str,
    n_samples: int,
    seed: Seed,
    correction: Optional[str],
    alpha: float,
    n_bootstrap: int,
) -> Dict[str, Any]:
    metric = metric_for(options)
    sentence_options = options.sentence_level()
    scores = []
    by_bucket: Dict[str, Dict[str, Any]] = {}
    sentence_scores: Dict[str, List[float]] = {}
    name = ""
    signature = ""
    for system, hyps in named:
        stats = metric.statistics(hyps, refs, options)
        result = with_bootstrap(metric.result(stats, options), stats, options, n_bootstrap, seed)
        name, signature = result.name, result.signature
        scores.append({"system": system, "score": result.score, "mean": result.mean, "ci": result.ci,
                       "formatted": result.format()})
        for label, group in group_results(stats, buckets, options).items():
            by_bucket.setdefault(str(label), {})[system] = group.score
        # as sentence_bleu/sentence_chrf compute them: the one-row formula (math.exp/log, sacreBLEU's floats)
        sentence_scores[system] = [metric.row_result(row, nrefs, sentence_options).score
                                   for row, nrefs in zip(stats.rows.tolist(), stats.nrefs.tolist())]
    counts = {label: buckets.count(label) for label in set(buckets)}
    compared = None
    if len(named) > 1 and comparison != "none":
        compared = compare_systems(
            named, refs, baseline=named[0][0] if comparison == "baseline" else None, method=method,
            n_samples=n_samples, seed=seed, correction=correction, alpha=alpha, options=options,
        ).to_dict()
    return {
        "metric": metric.name,
        "name": name,
        "signature": signature,
        "sentence_signature": sentence_options.signature(_nrefs(refs)),
        "higher_is_better": metric.higher_is_better,
        "n_bootstrap": n_bootstrap,
        "scores": scores,
        "comparison": compared,
        "buckets": [
            {"bucket": label, "n_segments": counts[label],
             "scores": [{"system": system, "score": by_bucket[label][system]} for system, _ in named]}
            for label in _bucket_order() if label in by_bucket
        ],
        "sentence_scores": sentence_scores,
    }


def _nrefs(refs: List[List[str]]) -> Any:
    counts = {len(r) for r in refs}
    return counts.pop() if len(counts) == 1 else "var"


def _differing_lines(
    sentence_scores: Dict[str, List[float]], names: List[str], k: int, higher_is_better: bool = True
) -> List[int]:
    """The lines where the systems' sentence scores spread most (one system: its worst scores, the
    lowest or, where lower is better (TER), the highest); ties go to the earlier line."""
    table = np.array([sentence_scores[name] for name in names])
    key = -(table.max(axis=0) - table.min(axis=0)) if len(names) > 1 else table[0] if higher_is_better else -table[0]
    return [int(i) for i in np.argsort(key, kind="stable")[:k]]


def _line_data(
    i: int, named: List[Tuple[str, List[str]]], refs: List[List[str]], sources: Optional[List[str]],
    per_metric: List[Dict[str, Any]],
) -> Dict[str, Any]:
    first = per_metric[0]["sentence_scores"]
    values = [first[name][i] for name, _ in named]
    out: Dict[str, Any] = {
        "line": i + 1,
        "spread": max(values) - min(values),
        "references": refs[i],
        "systems": [
            {"system": name, "hypothesis": hyps[i],
             "scores": {m["name"]: m["sentence_scores"][name][i] for m in per_metric}}
            for name, hyps in named
        ],
    }
    if sources is not None:
        out["source"] = sources[i]
    return out


def _explanation(i: int, system: str, hypothesis: str, refs: List[str], options: MetricOptions) -> Dict[str, Any]:
    if isinstance(options, ChrfOptions):
        explained_chrf = explain_chrf(hypothesis, refs, options=options)
        return {"line": i + 1, "system": system, "metric": "chrf", **explained_chrf.to_dict()}
    assert isinstance(options, BleuOptions)  # report_data explains with BLEU or chrF only
    explained = explain_bleu(hypothesis, refs, options=options)
    return {"line": i + 1, "system": system, "metric": "bleu", **explained.to_dict()}
