"""The HTML page of a report: one self-contained file (inline CSS and SVG, the data as embedded
JSON), readable offline in any browser; nothing is fetched when it is viewed.

>>> html = render({"title": "t", "bleukit_version": "1", "n_segments": 1, "n_references": 1, "systems": ["s"],
...                "metrics": [], "differences": {"metric": "BLEU", "kind": "lowest", "lines": []},
...                "explanations": []})
>>> html.startswith("<!DOCTYPE html>") and 'id="bleukit-report-data"' in html
True
"""

from __future__ import annotations

import json
import math
from html import escape
from typing import Any, Dict, List, Optional

from .charts import grouped_bars, histogram_counts

__all__ = ["render"]

_CSS = """
:root { --fg: #1d2430; --muted: #5b6575; --line: #d9dee6; --bg: #ffffff; --soft: #f4f6f9; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       background: var(--bg); margin: 0; }
main { max-width: 1040px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 36px 0 8px; padding-bottom: 4px; border-bottom: 2px solid var(--line); }
h3 { font-size: 15px; margin: 22px 0 6px; }
p.meta, p.note { color: var(--muted); margin: 4px 0 10px; }
nav a { margin-right: 14px; color: #0b5cab; text-decoration: none; }
table { border-collapse: collapse; margin: 6px 0 12px; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num, th.num { text-align: right; white-space: nowrap; }
tr.cluster-odd td { background: #f7fbff; }
code, .sig { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: #394150;
             word-break: break-all; }
.sig-list li { margin: 2px 0; }
.chart { max-width: 100%; height: auto; display: block; margin: 4px 0 14px; }
.chart .chart-title { font-size: 14px; font-weight: 600; fill: var(--fg); }
.chart .tick { font-size: 11px; fill: var(--muted); }
.chart .grid { stroke: #eceff3; } .chart .axis { stroke: #8a93a3; }
.chart .errorbar { stroke: #1d2430; stroke-width: 1.4; fill: none; }
.yes { color: #0a7a3f; font-weight: 600; } .no { color: var(--muted); }
.line-card { border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; margin: 10px 0; }
.line-card .label { color: var(--muted); font-size: 12px; min-width: 110px; display: inline-block; }
.tokens span { padding: 1px 2px; border-radius: 3px; margin-right: 2px; display: inline-block; }
.m0 { background: #fde2e1; } .m1 { background: #fff3c4; } .m2 { background: #d7f0d2; }
.m3 { background: #a8dfa0; } .m4 { background: #6cc36a; }
.legend span { padding: 1px 6px; border-radius: 3px; margin-right: 6px; font-size: 12px; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
"""


def render(data: Dict[str, Any]) -> str:
    """The whole page for a report's data (:func:`bleukit.analysis.htmlreport.data.report_data`)."""
    body: List[str] = [_header(data)]
    for m in data["metrics"]:
        body.append(_metric_section(m, data["systems"]))
    body.append(_differences(data))
    body.append(_explanations(data))
    body.append(f'<footer>Written by bleukit {escape(data["bleukit_version"])}. Every number above is also in this '
                'file as JSON (<code>&lt;script id="bleukit-report-data"&gt;</code>).</footer>')
    # "</script" would end the script element early and "<!--<script" would keep it open past
    # its end tag: no "<" at all in the JSON (\u003c reads back the same)
    payload = json.dumps(data, ensure_ascii=False, allow_nan=False).replace("<", "\\u003c")
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(data['title'])}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body><main>",
        *body,
        f'<script type="application/json" id="bleukit-report-data">{payload}</script>',
        "</main></body>",
        "</html>",
        "",
    ])


def _header(data: Dict[str, Any]) -> str:
    systems = ", ".join(escape(s) for s in data["systems"])
    links = "".join(f'<a href="#metric-{escape(m["metric"])}">{escape(m["name"])}</a>' for m in data["metrics"])
    links += '<a href="#differences">Sentences</a>'
    if data["explanations"]:
        links += '<a href="#explanations">Explanations</a>'
    return (f'<h1 id="title">{escape(data["title"])}</h1>'
            f'<p class="meta">{data["n_segments"]} segments, up to {data["n_references"]} reference(s) each; '
            f'{len(data["systems"])} system(s): {systems}</p><nav>{links}</nav>')


def _fmt(value: Optional[float], width: int = 2) -> str:
    return "–" if value is None else f"{value:.{width}f}"


def _metric_section(m: Dict[str, Any], systems: List[str]) -> str:
    name = escape(m["name"])
    key = escape(m["metric"])
    out = [f'<section id="metric-{key}"><h2>{name}</h2>']
    direction = "higher is better" if m["higher_is_better"] else "lower is better"
    out.append(f'<p class="meta">{direction}; 95% confidence intervals from {m["n_bootstrap"]} bootstrap resamples '
               "(sacreBLEU's <code>--confidence</code>).</p>")
    rows = "".join(
        f'<tr><td>{escape(s["system"])}</td><td class="num score">{_fmt(s["score"])}</td>'
        f'<td class="num">{_fmt(s["mean"])} ± {_fmt(s["ci"])}</td></tr>'
        for s in m["scores"])
    out.append(f'<table id="scores-{key}" class="scores"><thead><tr><th>System</th><th class="num">{name}</th>'
               f'<th class="num">μ ± 95% CI</th></tr></thead><tbody>{rows}</tbody></table>')
    out.append(grouped_bars([s["system"] for s in m["scores"]], [(m["name"], [s["score"] for s in m["scores"]])],
                            errors=[[s["ci"] for s in m["scores"]]], title=f"{m['name']} with 95% CI",
                            y_label=m["name"]))
    out.append('<ul class="sig-list">'
               f'<li>corpus: <span class="sig">{escape(m["signature"])}</span></li>'
               f'<li>sentences: <span class="sig">{escape(m["sentence_signature"])}</span></li></ul>')
    if m["comparison"] is not None:
        out.append(_comparison(m["comparison"]))
    out.append(_buckets(m))
    out.append(_distribution(m, systems))
    out.append("</section>")
    return "".join(out)


def _comparison(c: Dict[str, Any], places: int = 2) -> str:
    """A comparison's ranking (or tests against the baseline) and its pairs' tests; scores and
    differences with ``places`` decimals (2 for BLEU-like scales; score tables give 3 for [0, 1] ones)."""
    key = escape(c["metric"])
    test = "paired bootstrap resampling" if c["method"] == "bs" else "approximate randomization"
    unit = "resamples" if c["method"] == "bs" else "trials"
    corrected = f"{c['correction'].capitalize()}-corrected" if c["correction"] else "uncorrected"
    out = []
    if c["ranking"] is not None:
        out.append(f'<h3>Ranking with significance clusters</h3><p class="note">All pairs tested with {test} '
                   f'({c["n_samples"]} {unit}), {corrected} p-values, alpha {c["alpha"]}. Systems are ordered by '
                   "score; a new cluster starts where every system above is significantly better than every system "
                   "below (the rule of the WMT rankings), so systems that do not differ significantly share a "
                   "cluster.</p>")
        rows = "".join(
            f'<tr class="cluster-{"odd" if r["cluster"] % 2 else "even"}"><td class="num">{r["rank"]}</td>'
            f'<td class="num cluster">{r["cluster"]}</td><td class="num">{r["rank_range"][0]}–{r["rank_range"][1]}'
            f'</td><td>{escape(r["name"])}</td><td class="num">{_fmt(r["score"], places)}</td></tr>'
            for r in c["ranking"])
        out.append(f'<table id="ranking-{key}" class="ranking"><thead><tr><th class="num">Rank</th>'
                   '<th class="num">Cluster</th><th class="num">Rank range</th><th>System</th>'
                   f'<th class="num">{escape(c["name"])}</th></tr></thead><tbody>{rows}</tbody></table>')
    else:
        out.append(f'<h3>Paired tests against {escape(c["baseline"])}</h3><p class="note">{test} ({c["n_samples"]} '
                   f'{unit}), {corrected} p-values, alpha {c["alpha"]}.</p>')
    adjusted = c["correction"] is not None
    head = "<th>System A</th><th>System B</th><th class=\"num\">Δ (A − B)</th><th class=\"num\">p-value</th>"
    if adjusted:
        head += f'<th class="num">p ({escape(c["correction"].capitalize())})</th>'
    head += "<th>Significant</th>"
    tests = []
    for p in c["comparisons"]:
        cells = (f'<td>{escape(p["a"])}</td><td>{escape(p["b"])}</td><td class="num">{p["delta"]:+.{places}f}</td>'
                 f'<td class="num">{p["p_value"]:.4f}</td>')
        if adjusted:
            cells += f'<td class="num">{p["p_value_adjusted"]:.4f}</td>'
        verdict = (f'<span class="yes">yes: {escape(p["better"])} better</span>' if p["significant"] and p["better"]
                   else '<span class="no">no</span>')
        tests.append(f"<tr>{cells}<td>{verdict}</td></tr>")
    out.append(f'<table id="tests-{key}" class="tests"><thead><tr>{head}</tr></thead>'
               f'<tbody>{"".join(tests)}</tbody></table>')
    return "".join(out)


def _buckets(m: Dict[str, Any]) -> str:
    key = escape(m["metric"])
    buckets = m["buckets"]
    systems = [s["system"] for s in buckets[0]["scores"]] if buckets else []
    head = "".join(f'<th class="num">{escape(s)}</th>' for s in systems)
    rows = "".join(
        f'<tr><td>{escape(b["bucket"])}</td><td class="num">{b["n_segments"]}</td>'
        + "".join(f'<td class="num">{_fmt(s["score"])}</td>' for s in b["scores"]) + "</tr>"
        for b in buckets)
    chart = grouped_bars([b["bucket"] for b in buckets],
                         [(s, [b["scores"][k]["score"] for b in buckets]) for k, s in enumerate(systems)],
                         title=f"{m['name']} by reference length (words)", y_label=m["name"])
    return (f'<h3>By sentence length</h3><p class="note">Corpus {escape(m["name"])} of the segments whose first '
            "reference has that many words (compare-mt's buckets).</p>"
            f'<table id="buckets-{key}" class="buckets"><thead><tr><th>Reference words</th><th class="num">Segments'
            f'</th>{head}</tr></thead><tbody>{rows}</tbody></table>{chart}')


def _distribution(m: Dict[str, Any], systems: List[str]) -> str:
    scores = m["sentence_scores"]
    top = max([max(v) for v in scores.values() if v] + [0.0])
    # the 0-100 scale unless the metric's scores pass it clearly (TER); 100 + rounding stays in it
    high = 100.0 if top <= 100.0 + 1e-6 else 10.0 * math.ceil(top / 10.0)
    edges = [high * k / 10 for k in range(11)]
    labels = [f"{edges[k]:g}–{edges[k + 1]:g}" for k in range(10)]
    series = [(s, histogram_counts(scores[s], edges)) for s in systems]
    return ('<h3>Sentence scores</h3><p class="note">How many segments have each sentence score '
            f'(<span class="sig">{escape(m["sentence_signature"])}</span>).</p>'
            + grouped_bars(labels, series, title=f"Distribution of sentence {m['name']}", y_label="segments",
                           value_format="{:.0f}"))


def _differences(data: Dict[str, Any]) -> str:
    d = data["differences"]
    if d["kind"] == "spread":
        intro = (f"The {len(d['lines'])} segments whose sentence {escape(d['metric'])} differs most between the "
                 "systems (largest minus smallest).")
        heading = "Where the systems differ most"
    else:
        intro = f"The {len(d['lines'])} segments with the {d['kind']} sentence {escape(d['metric'])}" + (
            " (lower is better)." if d["kind"] == "highest" else ".")
        heading = "The worst-scoring segments"
    cards = []
    for line in d["lines"]:
        parts = [f'<div class="line-card" data-line="{line["line"]}"><div><span class="label">line</span>'
                 f'<b>{line["line"]}</b>' + (f' — spread {line["spread"]:.2f}' if d["kind"] == "spread" else "")
                 + "</div>"]
        if "source" in line:
            parts.append(f'<div><span class="label">source</span>{escape(line["source"])}</div>')
        for k, ref in enumerate(line["references"]):
            parts.append(f'<div><span class="label">reference {k + 1}</span>{escape(ref)}</div>')
        for s in line["systems"]:
            scores = ", ".join(f"{escape(n)} {v:.2f}" for n, v in s["scores"].items())
            parts.append(f'<div><span class="label">{escape(s["system"])}</span>{escape(s["hypothesis"])} '
                         f'<span class="no">({scores})</span></div>')
        parts.append("</div>")
        cards.append("".join(parts))
    return (f'<section id="differences"><h2>{heading}</h2><p class="note">{intro}</p>{"".join(cards)}</section>')


def _tokens(tokens: List[str], levels: List[int]) -> str:
    spans = []
    for token, level in zip(tokens, levels):
        tip = f"in a matched {level}-gram" if level else "not matched"
        spans.append(f'<span class="m{min(level, 4)}" title="{tip}">{escape(token)}</span>')
    return f'<span class="tokens">{"".join(spans)}</span>'


def _explanations(data: Dict[str, Any]) -> str:
    if not data["explanations"]:
        return ""
    if data["explanations"][0]["metric"] == "chrf":
        return _chrf_explanations(data["explanations"])
    legend = ('<p class="legend">' + "".join(
        f'<span class="m{k}">{"unmatched" if k == 0 else f"in a matched {k}-gram" + ("+" if k == 4 else "")}</span>'
        for k in range(5)) + "</p>")
    cards = []
    for e in data["explanations"]:
        orders = " · ".join(f'{o["order"]}-grams {o["matched"]}/{o["total"]}' for o in e["orders"])
        parts = [f'<div class="line-card explanation" data-line="{e["line"]}" data-system="{escape(e["system"])}">'
                 f'<div><span class="label">line {e["line"]}</span><b>{escape(e["system"])}</b>: {orders}, '
                 f'hypothesis {e["hyp_len"]} tokens, reference length {e["ref_len"]}</div>',
                 f'<div><span class="label">hypothesis</span>{_tokens(e["hypothesis_tokens"], e["hyp_match_order"])}'
                 "</div>"]
        for k, (ref, levels) in enumerate(zip(e["reference_tokens"], e["ref_match_order"])):
            parts.append(f'<div><span class="label">reference {k + 1}</span>{_tokens(ref, levels)}</div>')
        parts.append("</div>")
        cards.append("".join(parts))
    return ('<section id="explanations"><h2>Why these sentences score as they do</h2><p class="note">BLEU\'s '
            "n-gram matches of the first segments above, as the score counts them: each token is coloured by the "
            f"longest matched n-gram that covers it (clipped matches are not coloured).</p>{legend}"
            f'{"".join(cards)}</section>')


def _chrf_explanations(explanations: List[Dict[str, Any]]) -> str:
    cards = []
    for e in explanations:
        orders = "".join(
            f'<tr><td>{o["kind"]} {o["n"]}-grams</td><td class="num">{o["matched"]}</td><td class="num">'
            f'{o["hyp_total"]}</td><td class="num">{o["ref_total"]}</td><td class="num">{o["precision"]:.2f}</td>'
            f'<td class="num">{o["recall"]:.2f}</td></tr>'
            for o in e["orders"]
        )
        # the hypothesis's words (or, for chrF without word n-grams, its characters) the kept reference lacks
        unigrams = next((o for o in e["orders"] if o["kind"] == "word" and o["n"] == 1), e["orders"][0])
        missing = [m["ngram"] for m in unigrams["ngrams"] if m["matched"] < m["hyp_count"]]
        kept = e["reference_index"]
        parts = [f'<div class="line-card explanation" data-line="{e["line"]}" data-system="{escape(e["system"])}">'
                 f'<div><span class="label">line {e["line"]}</span><b>{escape(e["system"])}</b>: sentence chrF '
                 f'{e["score"]:.2f}</div>',
                 f'<div><span class="label">hypothesis</span>{escape(e["hypothesis"])}</div>',
                 f'<div><span class="label">reference {kept + 1}</span>{escape(e["references"][kept])} '
                 f'<span class="no">(the reference it is scored against)</span></div>',
                 f'<table class="chrf-orders"><thead><tr><th>n-grams</th><th class="num">matched</th><th class="num">'
                 f'hypothesis</th><th class="num">reference</th><th class="num">P</th><th class="num">R</th></tr>'
                 f"</thead><tbody>{orders}</tbody></table>",
                 f'<div><span class="label">unmatched {unigrams["kind"]}s</span>'
                 f'{escape(" · ".join(missing)) if missing else "none"}</div>',
                 "</div>"]
        cards.append("".join(parts))
    return ('<section id="explanations"><h2>Why these sentences score as they do</h2><p class="note">chrF\'s '
            "matched character (and, for chrF++, word) n-grams of the first segments above, per order, against the "
            "reference whose statistics the score keeps (the best-scoring one), and the hypothesis's words that "
            f'reference lacks.</p>{"".join(cards)}</section>')
