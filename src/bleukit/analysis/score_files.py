"""Segment scores from the files the scoring tools write, read as they are, into a
:class:`~bleukit.analysis.segment_scores.SegmentScores` table. Every error names the file and line.

- :func:`read_wmt25`: WMT25's ``data/automatic_scores/<system>.jsonl`` (wmt-conference/wmt25-general-mt):
  one object per document, ``language_pair``, ``domain``, ``document_id`` and ``metric_scores``
  (metric -> the document's segment scores, ``null`` = missing); the system is the file's name.
- :func:`read_comet`: ``comet-score`` output, text (``<file>\\tSegment <i>\\tscore: <x>`` lines and
  ``<file>\\tscore: <x>`` for the system) or its ``--to_json`` file (hypothesis file -> list of
  ``{"src", "mt", "ref", "COMET"}``).
- :func:`read_metricx`: MetricX's output JSONL (one object per segment with a ``prediction``
  field; lower is better).
- :func:`read_mtme`: an mt-metrics-eval segment score file (``system<TAB>score`` per line, each
  system's segments in order).
- :func:`read_column`: one number per line (one system).
- :func:`read_table`: TSV/CSV with a header: ``system`` and one column per metric (wide), or
  ``system``, ``metric``, ``score`` (long); optional ``segment``.
- :func:`read_scores`: any of these by name and content (``format="auto"``).

Empty values (``None``/``null``, an empty cell, ``NA``) are missing scores, never zeros; NaN,
inf and other non-numbers are errors.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .segment_scores import ScoreInputError, SegmentScores

__all__ = ["read_wmt25", "FORMATS", "LOWER_IS_BETTER"]

PathLike = Union[str, "os.PathLike[str]"]

#: The formats :func:`read_scores` knows.
FORMATS = ("wmt25", "comet", "comet-json", "metricx", "mtme", "lines", "table")
#: Metric names (lower-cased prefixes) whose lower scores are better, when a file does not say.
LOWER_IS_BETTER = ("metricx", "ter")

_NA = {"", "na", "n/a", "none", "null", "-"}


def _number(text: Any, where: str) -> float:
    """A cell as a score: NaN for an empty/NA cell, an error for anything but a finite number."""
    if text is None:
        return math.nan
    if isinstance(text, bool):
        raise ScoreInputError(f"{where}: {text!r} is a boolean, not a score")
    if isinstance(text, (int, float)):
        value = float(text)
    else:
        raw = str(text).strip()
        if raw.lower() in _NA:
            return math.nan
        try:
            value = float(raw)
        except ValueError:
            raise ScoreInputError(f"{where}: {raw!r} is not a number") from None
    if not math.isfinite(value):
        raise ScoreInputError(f"{where}: {text!r} is not a score (NaN/inf; leave it empty for a missing one)")
    return value


def _lines(path: PathLike) -> List[str]:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read().splitlines()


def _json_line(line: str, where: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as e:
        raise ScoreInputError(f"{where}: not JSON ({e.msg})") from None


def _system_name(path: PathLike) -> str:
    name = Path(path).name
    for suffix in (".jsonl", ".json", ".tsv", ".csv", ".txt", ".seg.score", ".score"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def _check_systems(paths: Sequence[PathLike], names: Sequence[str]) -> None:
    seen: Dict[str, PathLike] = {}
    for p, n in zip(paths, names):
        if n in seen:
            raise ScoreInputError(f"{p}: system {n!r} again (also from {seen[n]}): duplicate system name")
        seen[n] = p


def _expand(paths: Union[PathLike, Sequence[PathLike]], pattern: str) -> List[Path]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: List[Path] = []
    for p in paths:
        p = Path(p)
        out += sorted(p.glob(pattern)) if p.is_dir() else [p]
    if not out:
        raise ScoreInputError(f"no score files in {', '.join(map(str, paths))}")
    return out


# ---------------------------------------------------------------------------------------------- WMT25


def read_wmt25(paths: Union[PathLike, Sequence[PathLike]], *, language_pair: Optional[str] = None,
               metrics: Optional[Sequence[str]] = None) -> SegmentScores:
    """WMT25 ``automatic_scores/<system>.jsonl`` files (or a folder of them) for one language pair.

    Every system must list the same documents, in the same order, with the same number of segments
    (checked, naming the file and line). Systems without a line for ``language_pair`` are left out
    (not every system translated every pair). ``language_pair`` may be omitted when the files hold
    one. Per-segment labels: documents, domains, language pairs.
    """
    files = _expand(paths, "*.jsonl")
    names = [_system_name(p) for p in files]
    _check_systems(files, names)
    found: Dict[str, Tuple[List[Tuple[str, str, int]], Dict[str, List[float]], Path]] = {}
    pairs_seen: List[str] = []
    for path, name in zip(files, names):
        layout: List[Tuple[str, str, int]] = []
        values: Dict[str, List[float]] = {}
        for number, line in enumerate(_lines(path), 1):
            if not line.strip():
                continue
            where = f"{path}, line {number}"
            obj = _json_line(line, where)
            if not isinstance(obj, dict) or not isinstance(obj.get("metric_scores"), dict):
                raise ScoreInputError(f"{where}: expected an object with 'metric_scores' (WMT25 automatic_scores)")
            lp = str(obj.get("language_pair"))
            if lp not in pairs_seen:
                pairs_seen.append(lp)
            if language_pair is not None and lp != language_pair:
                continue
            if language_pair is None and lp != pairs_seen[0]:
                raise ScoreInputError(f"{where}: the files hold several language pairs ({', '.join(pairs_seen)}); "
                                      "choose one with language_pair=")
            scores = obj["metric_scores"]
            lengths = {m: len(v) if isinstance(v, list) else -1 for m, v in scores.items()}
            if any(k < 0 for k in lengths.values()) or len(set(lengths.values())) > 1:
                raise ScoreInputError(f"{where}: the metrics' score lists differ in length or are not lists: {lengths}")
            n = next(iter(lengths.values()), 0)
            layout.append((str(obj.get("domain")), str(obj.get("document_id")), n))
            if values and set(scores) != set(values):
                raise ScoreInputError(f"{where}: metrics {sorted(scores)} differ from the file's earlier "
                                      f"{sorted(values)}")
            for m, v in scores.items():
                column = values.setdefault(m, [])
                for k, x in enumerate(v):
                    column.append(_number(x, f"{where}, metric {m!r}, segment {k + 1} of the document"))
        if layout:
            found[name] = (layout, values, path)
    if not found:
        raise ScoreInputError(f"no lines for language pair {language_pair!r}; the files hold {', '.join(pairs_seen)}")
    systems = list(found)
    ref_layout, ref_values, ref_path = found[systems[0]]
    for name in systems[1:]:
        layout, values, path = found[name]
        if layout != ref_layout:
            k = next((i for i, (a, b) in enumerate(zip(layout, ref_layout)) if a != b), min(len(layout),
                                                                                         len(ref_layout)))
            raise ScoreInputError(f"{path}: document {k + 1} of {language_pair or pairs_seen[0]} is "
                                  f"{layout[k] if k < len(layout) else 'missing'} but {ref_path} has "
                                  f"{ref_layout[k] if k < len(ref_layout) else 'none'} (domain, document, segments)")
        if set(values) != set(ref_values):
            raise ScoreInputError(f"{path}: metrics {sorted(values)} differ from {ref_path}'s {sorted(ref_values)}")
    chosen = list(ref_values) if metrics is None else list(metrics)
    for m in chosen:
        if m not in ref_values:
            raise ScoreInputError(f"no metric {m!r} in the files; they hold {', '.join(ref_values)}")
    arrays = {m: np.array([found[s][1][m] for s in systems], dtype=np.float64) for m in chosen}
    documents = [d for _, d, n in ref_layout for _ in range(n)]
    domains = [dom for dom, _, n in ref_layout for _ in range(n)]
    lp_label = language_pair or pairs_seen[0]
    info = {m: {"format": "wmt25", "language_pair": lp_label} for m in chosen}
    # WMT25 stores every metric higher-is-better (MetricX-24 negated)
    return SegmentScores(systems, arrays, info=info, documents=documents, domains=domains,
                         language_pairs=[lp_label] * len(documents), where=str(paths))


def _lower_default(metric: str) -> bool:
    return metric.lower().startswith(LOWER_IS_BETTER)
