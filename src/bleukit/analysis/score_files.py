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

import csv
import io
import json
import math
import os
import re
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from .segment_scores import ScoreInputError, SegmentScores

__all__ = ["read_wmt25", "read_comet", "read_metricx", "read_mtme", "read_column", "read_table", "read_scores",
           "detect_format", "FORMATS", "LOWER_IS_BETTER"]

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


# ---------------------------------------------------------------------------------------------- COMET

_COMET_SEGMENT = re.compile(r"^(?P<file>.*)\tSegment (?P<i>\d+)\tscore: (?P<x>\S+)(\tvariance: \S+)?$")
_COMET_SYSTEM = re.compile(r"^(?P<file>.*)\tscore: (?P<x>\S+)$")


def read_comet(path: PathLike, *, metric: str = "COMET", model: Optional[str] = None) -> SegmentScores:
    """``comet-score`` output: its text (stdout: ``FILE\\tSegment I\\tscore: X`` per segment and
    system, ``FILE\\tscore: X`` per system) or its ``--to_json`` file (``{FILE: [{"src", "mt",
    "ref", "COMET"}, ...]}``). Systems are the translation files' names as COMET prints them.
    The text output has 4 decimals (COMET rounds it so); the JSON file has full precision."""
    text = Path(path).read_text(encoding="utf-8")
    if text.lstrip().startswith("{"):
        return _comet_json(path, text, metric, model)
    per: Dict[str, Dict[int, float]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        where = f"{path}, line {number}"
        if not line.strip() or line.startswith("Predictions saved in"):
            continue
        m = _COMET_SEGMENT.match(line)
        if m:
            seen = per.setdefault(m["file"], {})
            i = int(m["i"])
            if i in seen:
                raise ScoreInputError(f"{where}: segment {i} of {m['file']!r} again")
            seen[i] = _number(m["x"], where)
            continue
        if _COMET_SYSTEM.match(line):
            continue
        raise ScoreInputError(f"{where}: not a line of comet-score output: {line[:80]!r}")
    if not per:
        raise ScoreInputError(f"{path}: no segment scores (was comet-score run with --only_system?)")
    arrays = []
    n = max(len(v) for v in per.values())
    for name, seen in per.items():
        if sorted(seen) != list(range(n)):
            gap = next(k for k in range(n) if k not in seen)
            raise ScoreInputError(f"{path}: system {name!r} has {len(seen)} segments, no segment {gap} "
                                  f"(others have {n})")
        arrays.append([seen[k] for k in range(n)])
    info = {metric: {"format": "comet", "file": str(path), **({"model": model} if model else {}),
                     "precision": "4 decimals (comet-score's text output)"}}
    return SegmentScores(list(per), {metric: np.array(arrays)}, info=info, where=str(path))


def _comet_json(path: PathLike, text: str, metric: str, model: Optional[str]) -> SegmentScores:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ScoreInputError(f"{path}, line {e.lineno}: not JSON ({e.msg})") from None
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise ScoreInputError(f"{path}: expected comet-score --to_json output, an object file -> list of segments")
    arrays = []
    n = None
    for name, segments in data.items():
        if n is not None and len(segments) != n:
            raise ScoreInputError(f"{path}: system {name!r} has {len(segments)} segments but the first has {n}")
        n = len(segments)
        row = []
        for k, seg in enumerate(segments):
            where = f"{path}: system {name!r}, segment {k}"
            if not isinstance(seg, dict) or "COMET" not in seg:
                raise ScoreInputError(f"{where}: no 'COMET' field")
            row.append(_number(seg["COMET"], where))
        arrays.append(row)
    info = {metric: {"format": "comet-json", "file": str(path), **({"model": model} if model else {})}}
    return SegmentScores(list(data), {metric: np.array(arrays, dtype=np.float64).reshape(len(data), n or 0)},
                         info=info, where=str(path))


# ---------------------------------------------------------------------------------------------- MetricX


def read_metricx(paths: Union[PathLike, Sequence[PathLike]], *, metric: str = "MetricX",
                 model: Optional[str] = None, systems: Optional[Sequence[str]] = None) -> SegmentScores:
    """MetricX's output JSONL, one file per system (its name: the file's, or ``systems``): one
    object per segment with a ``prediction`` field. MetricX scores errors, so lower is better."""
    files = _expand(paths, "*.jsonl")
    names = list(systems) if systems is not None else [_system_name(p) for p in files]
    if len(names) != len(files):
        raise ScoreInputError(f"{len(files)} MetricX files but {len(names)} system names")
    _check_systems(files, names)
    rows: List[List[float]] = []
    for path in files:
        row = []
        for number, line in enumerate(_lines(path), 1):
            if not line.strip():
                continue
            where = f"{path}, line {number}"
            obj = _json_line(line, where)
            if not isinstance(obj, dict) or "prediction" not in obj:
                raise ScoreInputError(f"{where}: no 'prediction' field (MetricX output JSONL)")
            row.append(_number(obj["prediction"], where))
        if rows and len(row) != len(rows[0]):
            raise ScoreInputError(f"{path}: {len(row)} segments but {files[0]} has {len(rows[0])}")
        rows.append(row)
    info = {metric: {"format": "metricx", "file": ", ".join(map(str, files)), **({"model": model} if model else {})}}
    return SegmentScores(names, {metric: np.array(rows, dtype=np.float64)}, lower_is_better=[metric], info=info,
                         where=str(paths))


# ---------------------------------------------------------------------------------------------- mt-metrics-eval


def read_mtme(path: PathLike, *, metric: Optional[str] = None,
              lower_is_better: Optional[bool] = None) -> SegmentScores:
    """An mt-metrics-eval segment score file, ``<metric>-<reference>.seg.score``: lines
    ``system<TAB>score``, each system's segments in order (``None`` = missing). The metric is the
    name before the last ``-`` unless ``metric`` says otherwise."""
    name = Path(path).name
    base = name[: -len(".seg.score")] if name.endswith(".seg.score") else _system_name(path)
    refs = None
    if metric is None:
        metric, _, refs = base.rpartition("-")
        metric = metric or base
    per: Dict[str, List[float]] = {}
    for number, line in enumerate(_lines(path), 1):
        if not line.strip():
            continue
        where = f"{path}, line {number}"
        parts = line.split("\t")
        if len(parts) != 2:
            raise ScoreInputError(f"{where}: expected 'system<TAB>score', got {line[:80]!r}")
        per.setdefault(parts[0], []).append(_number(parts[1], where))
    return _rows(path, per, metric, lower_is_better, {"format": "mtme", "file": str(path),
                                                      **({"reference": refs} if refs else {})})


def _rows(path: PathLike, per: Dict[str, List[float]], metric: str, lower: Optional[bool],
          info: Dict[str, Any]) -> SegmentScores:
    if not per:
        raise ScoreInputError(f"{path}: no scores")
    first = next(iter(per))
    for s, row in per.items():
        if len(row) != len(per[first]):
            raise ScoreInputError(f"{path}: system {s!r} has {len(row)} segment scores but {first!r} has "
                                  f"{len(per[first])}")
    low = _lower_default(metric) if lower is None else lower
    return SegmentScores(list(per), {metric: np.array(list(per.values()), dtype=np.float64)},
                         lower_is_better=[metric] if low else [], info={metric: info}, where=str(path))


# ---------------------------------------------------------------------------------------------- plain files


def read_column(path: PathLike, *, metric: str = "score", system: Optional[str] = None,
                lower_is_better: Optional[bool] = None) -> SegmentScores:
    """One number per line: one system's segment scores (an empty line or ``NA`` = missing)."""
    values = [_number(line, f"{path}, line {k}") for k, line in enumerate(_lines(path), 1)]
    while values and values[-1] != values[-1] and _lines(path)[len(values) - 1] == "":
        values.pop()  # a trailing empty line is the file's end, not a missing score
    return _rows(path, {system or _system_name(path): values}, metric, lower_is_better,
                 {"format": "lines", "file": str(path)})


def read_table(path: PathLike, *, metrics: Optional[Sequence[str]] = None,
               lower_is_better: Iterable[str] = ()) -> SegmentScores:
    """A TSV or CSV file with a header (tab-separated when the header has a tab): ``system`` and one
    column per metric (wide), or ``system``, ``metric`` and ``score`` (long); an optional
    ``segment`` column orders each system's rows. Empty cells and ``NA`` are missing."""
    text = Path(path).read_text(encoding="utf-8")
    header = text.split("\n", 1)[0]
    reader = csv.reader(io.StringIO(text), delimiter="\t" if "\t" in header else ",")
    rows = list(reader)
    if not rows:
        raise ScoreInputError(f"{path}: empty")
    head = [h.strip() for h in rows[0]]
    if "system" not in head:
        raise ScoreInputError(f"{path}, line 1: no 'system' column in the header {head}")
    col = {h: k for k, h in enumerate(head)}
    long = "metric" in col and "score" in col
    chosen = list(metrics) if metrics is not None else (
        [] if long else [h for h in head if h not in ("system", "segment")])
    per: Dict[str, Dict[str, List[Tuple[float, float]]]] = {}
    for number, row in enumerate(rows[1:], 2):
        if not any(cell.strip() for cell in row):
            continue
        where = f"{path}, line {number}"
        if len(row) != len(head):
            raise ScoreInputError(f"{where}: {len(row)} cells but the header has {len(head)}")
        s = row[col["system"]]
        order = _number(row[col["segment"]], where + ", segment") if "segment" in col else float(number)
        if long:
            m = row[col["metric"]]
            if metrics is None and m not in chosen:
                chosen.append(m)
            if m in chosen:
                per.setdefault(s, {}).setdefault(m, []).append((order, _number(row[col["score"]], where)))
        else:
            for m in chosen:
                if m not in col:
                    raise ScoreInputError(f"{path}, line 1: no column {m!r}")
                per.setdefault(s, {}).setdefault(m, []).append((order, _number(row[col[m]], f"{where}, {m!r}")))
    mapping: Dict[str, Dict[str, List[Optional[float]]]] = {}
    for s, by_metric in per.items():
        mapping[s] = {}
        for m, pairs in by_metric.items():
            orders = [o for o, _ in pairs]
            if len(set(orders)) != len(orders):
                raise ScoreInputError(f"{path}: system {s!r}, metric {m!r} lists a segment twice")
            mapping[s][m] = [None if v != v else v for _, v in sorted(pairs)]
    table = SegmentScores.from_mapping(mapping, where=str(path),
                                       lower_is_better=[m for m in chosen if m in set(lower_is_better)])
    return table


# ---------------------------------------------------------------------------------------------- any


def detect_format(path: PathLike) -> str:
    """The format of a score file (one of :data:`FORMATS`), from its name and first line."""
    p = Path(path)
    if p.is_dir():
        return "wmt25"
    if p.name.endswith(".seg.score"):
        return "mtme"
    with open(p, encoding="utf-8") as f:
        first = ""
        for line in f:
            if line.strip():
                first = line.rstrip("\r\n")
                break
    if first.startswith("{"):
        try:
            obj = json.loads(first)
        except json.JSONDecodeError:
            return "comet-json"  # an indented JSON file: comet-score --to_json
        if isinstance(obj, dict) and "metric_scores" in obj:
            return "wmt25"
        if isinstance(obj, dict) and "prediction" in obj:
            return "metricx"
        raise ScoreInputError(f"{path}, line 1: a JSON object with neither 'metric_scores' (WMT25) nor "
                              "'prediction' (MetricX)")
    if _COMET_SEGMENT.match(first) or _COMET_SYSTEM.match(first):
        return "comet"
    if p.suffix.lower() in (".tsv", ".csv"):
        return "table"
    parts = first.split("\t")
    if len(parts) == 2:
        try:
            float(parts[1])
            return "mtme"
        except ValueError:
            pass
    return "lines"


def read_scores(path: PathLike, *, format: str = "auto", metric: Optional[str] = None,
                system: Optional[str] = None, model: Optional[str] = None, language_pair: Optional[str] = None,
                lower_is_better: Optional[bool] = None) -> SegmentScores:
    """A score file (or a folder of WMT25 files) in any of :data:`FORMATS` (``"auto"``: told from
    its name and first line). ``metric`` names the metric where the file does not (default: the
    format's: COMET, MetricX, the mt-metrics-eval file name, ``score``); ``model`` is recorded in
    the signature; ``lower_is_better`` overrides the default (MetricX and TER: lower is better)."""
    fmt = detect_format(path) if format == "auto" else format
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {format!r}; choose auto or one of {', '.join(FORMATS)}")
    if fmt == "wmt25":
        table = read_wmt25(path, language_pair=language_pair)
    elif fmt in ("comet", "comet-json"):
        table = read_comet(path, metric=metric or "COMET", model=model)
    elif fmt == "metricx":
        table = read_metricx(path, metric=metric or "MetricX", model=model,
                             systems=[system] if system else None)
    elif fmt == "mtme":
        table = read_mtme(path, metric=metric, lower_is_better=lower_is_better)
    elif fmt == "table":
        table = read_table(path)
    else:
        table = read_column(path, metric=metric or "score", system=system, lower_is_better=lower_is_better)
    if lower_is_better is not None and fmt in ("comet", "comet-json", "metricx", "table", "wmt25"):
        table = _declare(table, lower_is_better)
    return table


def _declare(table: SegmentScores, lower: bool) -> SegmentScores:
    arrays = {m: table.array(m) for m in table.metrics}
    return SegmentScores(table.systems, arrays, lower_is_better=list(table.metrics) if lower else [],
                         info={m: table.info(m) for m in table.metrics}, documents=table.documents,
                         domains=table.domains, language_pairs=table.language_pairs)
