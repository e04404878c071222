"""The HTML page of a table of systems × metrics (:class:`bleukit.analysis.score_table.ScoreTable`):
one self-contained file (inline CSS, the data as embedded JSON, ``cli-scores`` schema), with the
table (score ± CI [cluster] per metric, AutoRank), each metric's ranking and paired tests as the
report shows them, and the signatures; nothing is fetched when it is viewed.

>>> from bleukit.analysis.score_table import score_table
>>> html = render_score_table(score_table({"a": [90, 80, 85], "b": [60, 70, 65]}, n_samples=20).to_dict())
>>> html.startswith("<!DOCTYPE html>") and 'id="bleukit-scores-data"' in html
True
"""

from __future__ import annotations

import json
from html import escape
from typing import Any, Dict, List, Sequence

from ... import _version
from .page import _CSS, _comparison

__all__ = ["render_score_table"]


def _places(values: List[float]) -> int:
    """Decimals of a metric's cells, as the text table: 3 for scores within [-1, 1], else 1."""
    return 3 if values and max(abs(v) for v in values) <= 1.0 else 1


def _attr(value: Any) -> str:
    """A number for a ``data-`` attribute: full precision (``repr``), empty for none."""
    return "" if value is None else escape(repr(value))


def render_score_table(data: Dict[str, Any], title: str = "Systems × metrics", notes: Sequence[str] = ()) -> str:
    """The page for :meth:`~bleukit.analysis.score_table.ScoreTable.to_dict`'s data (``notes``:
    warnings shown under the table, e.g. :func:`~bleukit.analysis.score_table.reachability_note`).
    Every user string (system, metric, model, title) is escaped; each cell also carries its full
    numbers (``data-score``, ``data-ci``, ``data-cluster``), and the whole data is embedded as JSON."""
    if not isinstance(title, str):
        raise TypeError(f"title must be a str, got {type(title).__name__}")
    metrics = data["metrics"]
    has_autorank = data["autorank"] is not None
    places = {m: _places([r[m]["score"] for r in data["rows"]]) for m in metrics}
    head = "<th>System</th>" + ('<th class="num">AutoRank</th>' if has_autorank else "") + "".join(
        f'<th class="num" data-metric="{escape(m)}">{escape(m)}'
        f'{"" if data["comparisons"][m]["higher_is_better"] else " ↓"}</th>'
        for m in metrics)
    rows = []
    for r in data["rows"]:
        cells = f'<td class="system">{escape(r["system"])}</td>'
        if has_autorank:
            cells += f'<td class="num autorank" data-autorank="{_attr(r["autorank"])}">{r["autorank"]:.1f}</td>'
        for m in metrics:
            c, w = r[m], places[m]
            text = f"{c['score']:.{w}f}" + (f" ± {c['ci']:.{w}f}" if c["ci"] is not None else "")
            text += f" [{c['cluster']}]" if c["cluster"] is not None else ""
            cells += (f'<td class="num" data-metric="{escape(m)}" data-score="{_attr(c["score"])}" '
                      f'data-ci="{_attr(c["ci"])}" data-cluster="{_attr(c["cluster"])}">{escape(text)}</td>')
        rows.append(f'<tr data-system="{escape(r["system"])}">{cells}</tr>')
    first = data["comparisons"][metrics[0]]
    test = "paired bootstrap" if first["method"] == "bs" else "approximate randomization"
    unit = "resamples" if first["method"] == "bs" else "trials"
    correction = (first["correction"] or "no").capitalize()
    body = [f'<h1 id="title">{escape(title)}</h1>',
            f'<p class="meta">{len(data["systems"])} systems × {len(metrics)} metric(s); each cell: score ± 95% '
            f'bootstrap CI [significance cluster]; {test}, {first["n_samples"]} {unit}, seed '
            f'{escape(str(first["seed"]))}, {correction} correction, alpha {first["alpha"]}'
            + ("; AutoRank " + escape(data["autorank"]["method"]) if has_autorank else "") + ".</p>",
            f'<table id="scores" class="scores"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>',
            *(f'<p class="note warning">{escape(n)}</p>' for n in notes),
            '<h2 id="signatures">Signatures</h2><ul class="sig-list">'
            + "".join(f'<li>{escape(m)}: <span class="sig">{escape(s)}</span></li>'
                      for m, s in data["signatures"].items()) + "</ul>"]
    for m in metrics:
        body.append(f'<section id="metric-{escape(m)}"><h2>{escape(m)}</h2>'
                    f'{_comparison(data["comparisons"][m], max(places[m], 2))}</section>')
    body.append(f"<footer>Written by bleukit {escape(_version.__version__)}. Every number above is also in this file "
                'as JSON (<code>&lt;script id="bleukit-scores-data"&gt;</code>).</footer>')
    # "</script" would end the script element early and "<!--<script" would keep it open past
    # its end tag: no "<" at all in the JSON (\u003c reads back the same)
    payload = json.dumps(data, ensure_ascii=False, allow_nan=False).replace("<", "\\u003c")
    return "\n".join(["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
                      '<meta name="viewport" content="width=device-width, initial-scale=1">',
                      f"<title>{escape(title)}</title>", f"<style>{_CSS}</style>", "</head>", "<body><main>", *body,
                      f'<script type="application/json" id="bleukit-scores-data">{payload}</script>',
                      "</main></body>", "</html>", ""])
