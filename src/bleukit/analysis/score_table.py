"""One table of systems × metrics: BLEU, chrF and TER from text next to any number of segment-score
metrics (COMET, MetricX, LLM judges, human scores), each cell the score, its bootstrap 95% CI and
its significance cluster, every metric tested on the same resamples (the same seed and the same
number of segments draw the same segments for every metric), plus, if asked, WMT's AutoRank over
all the metrics and a signature per metric.

>>> t = score_table({"a": {"judge": [90, 80, 85, 70]}, "b": {"judge": [60, 70, 65, 60]}}, n_samples=100)
>>> [(row["system"], row["judge"]["cluster"]) for row in t.rows()]
[('a', 1), ('b', 2)]
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from ..defaults import DEFAULT_SEED
from ..metrics.base import MetricOptions
from .autorank import AutoRank, autorank_system_scores
from .ranking import DEFAULT_ALPHA, SystemComparison, compare_systems
from .score_tests import compare_scores
from .segment_scores import ScoreInputError, SegmentScores, as_segment_scores
from .significance import Progress, Seed

__all__ = ["ScoreTable", "score_table", "reachability_note", "read_score_files", "system_name"]

#: File endings left out of a system's name (COMET prints the translation file's path, a MetricX
#: or WMT25 file is named after its system, a hypothesis file is ``<system>.txt``).
SYSTEM_FILE_ENDINGS = (".txt", ".jsonl", ".json", ".hyp", ".out", ".tsv", ".csv", ".detok", ".seg.score", ".score")


@dataclass(frozen=True)
class ScoreTable:
    """Each metric's :class:`~bleukit.analysis.ranking.SystemComparison` (``comparisons``, in the
    order of ``metrics``) of the same ``systems``, and the AutoRank over them when asked for."""

    systems: Tuple[str, ...]
    metrics: Tuple[str, ...]
    comparisons: Dict[str, SystemComparison]
    autorank: Optional[AutoRank]

    def rows(self) -> List[Dict[str, Any]]:
        """One dict per system (AutoRank order when there is one, else the first metric's ranking):
        ``system``, ``autorank`` and per metric ``score``, ``mean``, ``ci``, ``cluster``, ``rank_range``."""
        cells: Dict[str, Dict[str, Any]] = {s: {"system": s} for s in self.systems}
        for m in self.metrics:
            c = self.comparisons[m]
            ranked = {r.name: r for r in c.ranking or ()}
            for p in c.systems:
                r = ranked.get(p.name)
                cells[p.name][m] = {"score": p.score, "mean": p.mean, "ci": p.ci,
                                    "cluster": None if r is None else r.cluster,
                                    "rank_range": None if r is None else list(r.rank_range)}
        if self.autorank is not None:
            for row in self.autorank.rows:
                cells[row.system]["autorank"] = row.autorank
            order = [row.system for row in self.autorank.rows]
        else:
            first = self.comparisons[self.metrics[0]]
            order = [r.name for r in first.ranking] if first.ranking else list(self.systems)
        return [cells[s] for s in order]

    def signatures(self) -> Dict[str, str]:
        return {m: self.comparisons[m].signature for m in self.metrics}

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready: ``systems``, ``metrics``, ``rows`` (see :meth:`rows`), ``signatures``, each
        metric's full comparison (``comparisons``) and ``autorank``."""
        return {"systems": list(self.systems), "metrics": list(self.metrics), "rows": self.rows(),
                "signatures": self.signatures(),
                "comparisons": {m: c.to_dict() for m, c in self.comparisons.items()},
                "autorank": None if self.autorank is None else self.autorank.to_dict()}

    def text_rows(self, widths: Optional[Mapping[str, int]] = None) -> Tuple[List[str], List[List[str]]]:
        """The table as text cells, as :meth:`format` and the app show it: the headers (``System``,
        ``AutoRank`` when there is one, each metric, `` ↓`` where lower is better) and per system
        its name, AutoRank (1 decimal) and per metric ``score ± ci [cluster]`` (``widths[metric]``
        decimals; default 3 for scores within [-1, 1], else 1).

        >>> score_table({"a": [0.9, 0.8, 0.85], "b": [0.6, 0.7, 0.65]}, n_samples=20).text_rows()
        (['System', 'score'], [['a', '0.850 ± 0.050 [1]'], ['b', '0.650 ± 0.050 [2]']])
        """
        rows = self.rows()
        places = {}
        for m in self.metrics:
            values = [abs(r[m]["score"]) for r in rows]
            places[m] = (widths or {}).get(m, 3 if max(values) <= 1.0 else 1)
        headers = ["System"] + (["AutoRank"] if self.autorank else []) + [
            m + ("" if self.comparisons[m].higher_is_better else " ↓") for m in self.metrics]
        body = []
        for r in rows:
            line = [r["system"]] + ([f"{r['autorank']:.1f}"] if self.autorank else [])
            for m in self.metrics:
                cell, w = r[m], places[m]
                text = f"{cell['score']:.{w}f}"
                if cell["ci"] is not None:
                    text += f" ± {cell['ci']:.{w}f}"
                if cell["cluster"] is not None:
                    text += f" [{cell['cluster']}]"
                line.append(text)
            body.append(line)
        return headers, body

    def to_html(self, title: str = "Systems × metrics") -> str:
        """The table as one self-contained HTML page (no script code, nothing fetched; every
        system and metric name escaped): the table system × metric (score ± CI [cluster], AutoRank),
        the note when no pair can be significant, each metric's signature, ranking and paired tests,
        and :meth:`to_dict` embedded as JSON (``<script id="bleukit-scores-data">``), the same data
        as ``format("json")``.

        >>> page = score_table({"a": {"judge": [90, 80, 85]}, "b": {"judge": [60, 70, 65]}}, n_samples=20).to_html()
        >>> page.startswith("<!DOCTYPE html>"), 'data-metric="judge" data-score="85.0"' in page
        (True, True)
        """
        from .htmlreport.scores import render_score_table

        note = reachability_note(self.comparisons[self.metrics[0]])
        return render_score_table(self.to_dict(), title=title, notes=[note] if note else [])

    def format(self, fmt: str = "text", widths: Optional[Mapping[str, int]] = None) -> str:
        """``"text"`` or ``"latex"``: a table system × metric, each cell ``score ± ci [cluster]``
        (``widths[metric]`` decimals; default 3 for scores within [-1, 1], else 1), then the
        signatures; ``"json"``: :meth:`to_dict`; ``"html"``: a self-contained page with the table,
        each metric's ranking and paired tests, and the data as embedded JSON."""
        if fmt == "json":
            return json.dumps(self.to_dict(), indent=1, ensure_ascii=False)
        if fmt == "html":
            return self.to_html()
        if fmt not in ("text", "latex"):
            raise ValueError(f"unknown format {fmt!r}; choose text, latex, json or html")
        from tabulate import tabulate

        headers, body = self.text_rows(widths)
        table = tabulate(body, headers=headers, tablefmt="simple" if fmt == "text" else "latex_booktabs",
                         disable_numparse=True, stralign="right")
        first = self.comparisons[self.metrics[0]]
        test = {"bs": "paired bootstrap", "ar": "approximate randomization"}[first.method]
        head = (f"{len(self.systems)} systems × {len(self.metrics)} metric{'' if len(self.metrics) == 1 else 's'}: "
                f"score ± 95% CI [cluster]; "
                f"{test}, {first.n_samples} {'resamples' if first.method == 'bs' else 'trials'}, seed {first.seed}, "
                f"{(first.correction or 'no').capitalize()} correction, alpha {first.alpha}"
                + (f"; AutoRank {self.autorank.method}" if self.autorank else ""))
        notes = [f"{m}: {s}" for m, s in self.signatures().items()]
        warning = reachability_note(first)
        return "\n".join([head, "", table] + (["", warning] if warning else []) + ["", "Signatures:"] + notes)


def reachability_note(c: SystemComparison) -> Optional[str]:
    """A warning when no pair can be significant: with ``P`` comparisons, ``n`` resamples and a
    Holm or Bonferroni correction, the smallest corrected p-value is ``P / (n + 1)``."""
    pairs = len(c.comparisons)
    if c.correction is None or pairs == 0 or pairs / (c.n_samples + 1) <= c.alpha:
        return None
    needed = int(pairs / c.alpha)
    return (f"Note: with {pairs} comparisons and {c.n_samples} {'resamples' if c.method == 'bs' else 'trials'}, "
            f"no {c.correction.capitalize()}-corrected p-value can reach {c.alpha} (the smallest is "
            f"{pairs}/{c.n_samples + 1}), so every system shares cluster 1: use at least {needed} samples.")


def system_name(path: Union[str, "os.PathLike[str]"]) -> str:
    """The system a file names: its name without a folder and a :data:`SYSTEM_FILE_ENDINGS` ending,
    so that ``out/sysA.txt`` (a hypothesis file, or COMET's name for it) and ``sysA.jsonl`` (its
    MetricX scores) are one system.

    >>> system_name("runs/sysA.txt"), system_name("metricx/sysA.jsonl"), system_name("sys.de")
    ('sysA', 'sysA', 'sys.de')
    """
    base = Path(path).name
    for ending in SYSTEM_FILE_ENDINGS:
        if base.endswith(ending) and len(base) > len(ending):
            return base[: -len(ending)]
    return base


def _renamed(table: SegmentScores) -> SegmentScores:
    names = [system_name(s) for s in table.systems]
    if len(set(names)) != len(names):
        names = list(table.systems)
    return SegmentScores(names, {m: table.array(m) for m in table.metrics}, lower_is_better=table.lower_is_better,
                         info={m: table.info(m) for m in table.metrics}, documents=table.documents,
                         domains=table.domains, language_pairs=table.language_pairs)


def read_score_files(
    paths: Iterable[Union[str, "os.PathLike[str]"]],
    *,
    format: str = "auto",
    metric: Optional[str] = None,
    model: Optional[str] = None,
    language_pair: Optional[str] = None,
    lower_is_better: Iterable[str] = (),
) -> SegmentScores:
    """Several score files (or folders of WMT25 files) as one table, as ``bleukit-scores`` and the
    app read them: each by :func:`~bleukit.analysis.score_files.read_scores` (``format``,
    ``metric``, ``model``, ``language_pair`` as there), its systems named by :func:`system_name`,
    the tables merged (a system scored twice by one metric is an error), and ``lower_is_better``
    metrics declared so. Errors are :class:`~bleukit.analysis.segment_scores.ScoreInputError`
    naming the file (and line).

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name, text in (("a.txt", "1\\n2\\n"), ("b.txt", "3\\n4\\n")):
    ...     _ = (folder / name).write_text(text, encoding="utf-8")
    >>> t = read_score_files([folder / "a.txt", folder / "b.txt"], metric="judge")
    >>> t.systems, t.metrics
    (('a', 'b'), ('judge',))
    """
    from .score_files import read_scores

    table: Optional[SegmentScores] = None
    for path in paths:
        if not os.path.exists(path):
            raise ScoreInputError(f"{path}: no such file or folder")
        one = _renamed(read_scores(path, format=format, metric=metric, model=model, language_pair=language_pair))
        try:
            table = one if table is None else table.merge(one)
        except ScoreInputError as e:
            raise ScoreInputError(f"{path}: {e}") from None
    if table is None:
        raise ScoreInputError("no score file given")
    lower = list(dict.fromkeys(lower_is_better))
    if lower:
        unknown = [m for m in lower if m not in table.metrics]
        if unknown:
            raise ScoreInputError(f"lower is better: no metric {', '.join(map(repr, unknown))} in the score files")
        table = SegmentScores(table.systems, {m: table.array(m) for m in table.metrics},
                              lower_is_better=set(table.lower_is_better) | set(lower),
                              info={m: table.info(m) for m in table.metrics}, documents=table.documents,
                              domains=table.domains, language_pairs=table.language_pairs)
    return table


def score_table(
    scores: Any = None,
    *,
    metrics: Optional[Sequence[str]] = None,
    hypotheses: Optional[Mapping[str, Sequence[str]]] = None,
    references: Optional[Sequence[Any]] = None,
    lexical: Sequence[MetricOptions] = (),
    method: str = "bs",
    n_samples: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
    correction: Optional[str] = "holm",
    alpha: float = DEFAULT_ALPHA,
    missing: str = "error",
    autorank: Optional[str] = None,
    progress: Progress = None,
) -> ScoreTable:
    """Score, CI and cluster of every system by every metric: the segment-score metrics of ``scores``
    (:func:`~bleukit.analysis.score_tests.compare_scores`; ``metrics`` picks some) and, with
    ``hypotheses`` (system -> lines) and ``references``, each lexical metric of ``lexical`` (options
    objects: ``BleuOptions()``, ``ChrfOptions()``, ``TerOptions()``;
    :func:`~bleukit.analysis.ranking.compare_systems`). Every system must have every metric.
    ``autorank``: ``"wmt25"`` or ``"wmt24"`` adds AutoRank over all the metrics' system scores.
    """
    comparisons: Dict[str, SystemComparison] = {}
    systems: Optional[List[str]] = None
    means: Dict[str, Dict[str, float]] = {}  # AutoRank's system scores: means of the available segments
    if scores is not None:
        table: SegmentScores = as_segment_scores(scores)
        systems = list(table.systems)
        for m in (table.metrics if metrics is None else metrics):
            c = compare_scores(table, metric=m, method=method, n_samples=n_samples, seed=seed,
                               correction=correction, alpha=alpha, missing=missing, progress=progress)
            comparisons[m] = c
            for s, v in zip(table.systems, table.means(m).tolist()):
                means.setdefault(s, {})[m] = v
    if lexical:
        if hypotheses is None or references is None:
            raise ValueError("lexical metrics need hypotheses and references")
        hyp_names = list(hypotheses)
        if systems is not None and sorted(hyp_names) != sorted(systems):
            raise ValueError(f"the hypotheses' systems {sorted(hyp_names)} are not the scores' {sorted(systems)}")
        if scores is not None and len(references) != table.n_segments:
            raise ValueError(f"the score files have {table.n_segments} segments but the references "
                             f"{len(references)} lines: both must be the same segments, in order")
        systems = systems or hyp_names
        for options in lexical:
            c = compare_systems({s: hypotheses[s] for s in systems}, references, method=method, n_samples=n_samples,
                                seed=seed, correction=correction, alpha=alpha, progress=progress, options=options)
            if c.name in comparisons:
                raise ValueError(f"metric {c.name!r} twice")
            comparisons[c.name] = c
            for p in c.systems:
                means.setdefault(p.name, {})[c.name] = p.score
    if not comparisons or systems is None:
        raise ValueError("no metric to score: give segment scores, or hypotheses, references and lexical metrics")
    ranked = None
    if autorank is not None:
        lower = [m for m, c in comparisons.items() if not c.higher_is_better]
        ranked = autorank_system_scores({s: means[s] for s in systems}, method=autorank, lower_is_better=lower)
    return ScoreTable(tuple(systems), tuple(comparisons), comparisons, ranked)
