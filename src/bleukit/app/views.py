"""What the page shows: the tables (pandas frames), the plots' data and the HTML pieces, made from
the reports of :mod:`bleukit.app.reports`. User text is always escaped.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from bleukit.analysis.explain import MatchExplanation
from bleukit.metrics import get_metric
from bleukit.metrics.bleu.options import BleuOptions

from .forms import (
    BOM,
    COMPARE_COLUMNS,
    DEFAULTS,
    MAX_SHOWN_NGRAMS,
    MAX_SHOWN_TOKENS,
    MAX_TABLE_CHARS,
    METRIC_COLUMNS,
    PLOT_BINS,
    RANKING_COLUMNS,
    SIGNIFICANCE_LEVEL,
    SORT_CHOICES,
    TABLE_COLUMNS,
    VARIANT_COLUMNS,
)
from .reports import explain_segment

#: The page's style sheet (package data): the classes this module's HTML uses.
CSS_PATH = Path(__file__).resolve().parent / "style.css"


def metrics_frame(report: Dict[str, Any]) -> pd.DataFrame:
    """The other metrics' table as the page shows it (two decimals).

    >>> from bleukit.app.reports import metrics_report
    >>> metrics_frame(metrics_report("a b c d", ["a b c d"])).values.tolist()[2][:3]
    ['TER', '0.00', 'lower']
    """
    return pd.DataFrame(
        [
            [r["metric"], f"{r['score']:.2f}", "higher" if r["higher_is_better"] else "lower", r["signature"]]
            for r in report["rows"]
        ],
        columns=METRIC_COLUMNS,
    )


def compare_frame(report: Dict[str, Any]) -> pd.DataFrame:
    """The comparison table as the page shows it: two decimals, the p-value marked ``*`` below
    0.05 (as sacreBLEU marks it; with a correction the corrected p-value follows the arrow and
    decides), and no mean or CI where the test gives none.

    >>> from bleukit.app.reports import compare_report
    >>> from bleukit.app.forms import make_options
    >>> systems = [("a", ["a b c d", "a b"]), ("b", ["a b c d", "x y"])]
    >>> r = compare_report(systems, [["a b c d"], ["a b"]], make_options(), "ar", 10, 1)
    >>> compare_frame(r).values.tolist()
    [['a (baseline)', '100.00', '—', '—', '—'], ['b', '84.09', '—', '0.0909', 'no']]
    """
    rows = []
    for k, s in enumerate(report["systems"]):
        p = s["p_value"]
        rows.append(
            [
                s["name"] + (" (baseline)" if k == 0 else ""),
                f"{s['score']:.2f}",
                "—" if s["mean"] is None else f"{s['mean']:.2f} ± {s['ci']:.2f}",
                "—" if p is None else f"{p:.4f}" + _adjusted_cell(s.get("p_value_adjusted"))
                + (" *" if s["significant"] else ""),
                "—" if p is None else ("yes" if s["significant"] else "no"),
            ]
        )
    # the score column is named after the metric (BLEU, chrF2, TER ...)
    return pd.DataFrame(rows, columns=[COMPARE_COLUMNS[0], report.get("metric", "BLEU"), *COMPARE_COLUMNS[2:]])


def _adjusted_cell(q: Optional[float]) -> str:
    return "" if q is None else f" → {q:.4f}"


def ranking_html(report: Dict[str, Any]) -> str:
    """The ranking of all pairs (``report["ranking"]``) as HTML: the systems by score with their
    cluster and rank range, then every pair's test; empty when the report has no ranking.

    >>> from bleukit.app.reports import compare_report
    >>> from bleukit.app.forms import make_options
    >>> systems = [("a", ["a b c d", "a b"]), ("b", ["x y z", "x y"])]
    >>> r = compare_report(systems, [["a b c d"], ["a b"]], make_options(), "ar", 10, 1, "rank", "holm")
    >>> "<th>cluster</th>" in ranking_html(r), ranking_html(compare_report(systems, [["a"], ["b"]], make_options(),
    ...                                                                    "ar", 10, 1))
    (True, '')
    """
    ranking = report.get("ranking")
    if not ranking:
        return ""
    esc = html.escape
    head = "".join(f"<th>{esc(c)}</th>" for c in RANKING_COLUMNS[:-1]) + f"<th>{esc(ranking['name'])}</th>"
    body = "".join(
        f"<tr><td>{r['rank']}</td><td>{r['cluster']}</td><td>{r['rank_range'][0]}-{r['rank_range'][1]}</td>"
        f"<td>{esc(r['name'])}</td><td>{r['score']:.2f}</td></tr>"
        for r in ranking["ranking"]
    )
    corrected = ranking["correction"] is not None
    pair_head = "<th>system A</th><th>system B</th><th>Δ (A - B)</th><th>p-value</th>" + (
        f"<th>p ({esc(ranking['correction'])})</th>" if corrected else ""
    ) + "<th>significant</th>"
    pairs = "".join(
        f"<tr><td>{esc(c['a'])}</td><td>{esc(c['b'])}</td><td>{c['delta']:+.2f}</td><td>{c['p_value']:.4f}</td>"
        + (f"<td>{c['p_value_adjusted']:.4f}</td>" if corrected else "")
        + f"<td>{'yes: ' + esc(c['better']) if c['significant'] and c['better'] else 'no'}</td></tr>"
        for c in ranking["comparisons"]
    )
    which = "Holm-Bonferroni-corrected" if ranking["correction"] == "holm" else (
        "Bonferroni-corrected" if corrected else "uncorrected")
    return (
        '<div id="compare-ranking"><h4>Ranking of all pairs</h4>'
        f"<p>Every pair tested, {which} p-values, alpha {ranking['alpha']}. Systems are ordered by score; a "
        "new cluster starts where every system above is significantly better than every system below (the "
        "WMT findings' rule), so systems that do not differ significantly share a cluster.</p>"
        f'<table id="compare-ranking-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
        f'<table id="compare-pairs-table"><thead><tr>{pair_head}</tr></thead><tbody>{pairs}</tbody></table></div>'
    )


def distribution_frame(scores: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """Plot data: each system's bootstrap distribution of its corpus score (``scores``: its
    resampled scores, the same resamples for every system, see
    :func:`bleukit.app.reports.compare_counted`) as the share of resamples per score bin, over
    bins shared by all systems.

    >>> f = distribution_frame({"a": np.array([50.0, 51.0, 52.0]), "b": np.array([40.0, 40.5, 41.0])})
    >>> sorted(set(f["system"])), f.groupby("system")["share of resamples (%)"].sum().round(6).tolist()
    (['a', 'b'], [100.0, 100.0])
    """
    edges = np.histogram_bin_edges(np.concatenate(list(scores.values())), bins=PLOT_BINS)
    centres = (edges[:-1] + edges[1:]) / 2
    parts = []
    for name, values in scores.items():
        counts, _ = np.histogram(values, bins=edges)
        # Each curve spans its own scores (and one empty bin either side, so it starts and ends
        # at 0), not a flat line along the axis under the other systems.
        used = np.flatnonzero(counts)
        keep = slice(max(used[0] - 1, 0), used[-1] + 2)
        parts.append(
            pd.DataFrame(
                {"score": centres[keep], "share of resamples (%)": 100.0 * counts[keep] / len(values), "system": name}
            )
        )
    return pd.concat(parts, ignore_index=True)


def compare_summary_html(report: Dict[str, Any], plot_samples: int) -> str:
    """The signature of the comparison and what the table and plot show.

    >>> from bleukit.app.reports import compare_report
    >>> from bleukit.app.forms import make_options
    >>> r = compare_report([("a", ["a b c d"]), ("b", ["a b c e"])], [["a b c d"]], make_options(), "ar", 10, 1)
    >>> compare_summary_html(r, 1000).split('id="compare-signature">')[1].split("|<wbr>")[:3]
    ['nrefs:1', 'ar:10', 'seed:1']
    """
    test = "paired bootstrap resampling" if report["method"] == "bs" else "approximate randomization"
    plot_note = (
        "the same resamples as the test"
        if report["method"] == "bs"
        else f"{plot_samples:,} bootstrap resamples, seed {report['seed']} "
        "(approximate randomization has no score distribution)"
    )
    return (
        f'<div id="compare-summary">{test}, {report["n_samples"]:,} samples, seed {report["seed"]}: p-values '
        f"against the baseline (the first system)"
        + ("" if report.get("correction") is None else
           f", then corrected for {len(report['systems']) - 1} comparisons ({report['correction']}; after the arrow)")
        + f"; <b>*</b> marks p &lt; {SIGNIFICANCE_LEVEL}. "
        + ("" if report["method"] == "bs" else "Approximate randomization gives no mean or CI (as in sacreBLEU). ")
        + ("" if report.get("higher_is_better", True) else f"{report['metric']} is an error rate: lower is better. ")
        + f"Plot: {plot_note}.</div>"
        + (
            options_html(report["options"], "compare-options")
            if report.get("metric", "BLEU") == "BLEU"
            else metric_options_html(report["metric"], report["options"])
        )
        + f'<div>signature <code id="compare-signature">{_signature_html(report["signature"])}</code></div>'
        + ranking_html(report)
    )


def variants_frame(table: Any) -> pd.DataFrame:
    """``bleukit.compare_variants``'s table for the page (two decimals, the note whole).

    >>> import bleukit
    >>> variants_frame(bleukit.compare_variants(["a b c d"], [["a b c d"]])).iloc[0].tolist()[:2]
    ['sacreBLEU', '100.00']
    """
    return pd.DataFrame([[r.name, f"{r.score:.2f}", r.note] for r in table.rows], columns=VARIANT_COLUMNS)


def options_html(options: Dict[str, Any], elem_id: str = "bleu-options") -> str:
    """The options a score was computed with, in words; those that differ from the defaults are
    marked, so options left over from an example or an earlier run are seen next to the score.

    >>> from bleukit.app.reports import score_report
    >>> from bleukit.app.forms import make_options
    >>> html = options_html(score_report("a b", ["a b"], make_options(smooth_method="floor"))["options"])
    >>> html.split(" · ")[:2]
    ['<div id="bleu-options" class="options-used">options: <span class="opt">tokenizer 13a</span>', \
'<b class="opt changed">smoothing floor 0.10</b>']
    """
    method, value = options["smooth_method"], options["smooth_value"]
    default_value = BleuOptions(smooth_method=method).resolved_smooth_value
    items = [
        (f"tokenizer {options['tokenize']}", options["tokenize"] == DEFAULTS.tokenize),
        (
            f"smoothing {method}" + ("" if value is None else f" {value:.2f}"),
            method == DEFAULTS.smooth_method and value == default_value,
        ),
        ("lowercase" if options["lowercase"] else "case-sensitive", options["lowercase"] == DEFAULTS.lowercase),
        (f"max n-gram order {options['max_ngram_order']}", options["max_ngram_order"] == DEFAULTS.max_ngram_order),
        (
            "effective order " + ("on" if options["effective_order"] else "off"),
            options["effective_order"] == DEFAULTS.effective_order,
        ),
    ]
    shown = [
        f'<span class="opt">{html.escape(text)}</span>'
        if is_default
        else f'<b class="opt changed">{html.escape(text)}</b>'
        for text, is_default in items
    ]
    changed = sum(not is_default for _, is_default in items)
    note = f" ({changed} not default)" if changed else " (all defaults)"
    return f'<div id="{elem_id}" class="options-used">options: {" · ".join(shown)}{note}</div>'


def metric_options_html(metric: str, options: Dict[str, Any]) -> str:
    """chrF's or TER's options in words (``options``: their ``to_dict()``), those that differ from
    sacreBLEU's defaults marked, as :func:`options_html` does for BLEU's.

    >>> from bleukit.metrics.chrf.options import ChrfOptions
    >>> metric_options_html("chrF2++", ChrfOptions(word_order=2, char_order=4).to_dict()).split(" · ")[:2]
    ['<div id="compare-options" class="options-used">options: chrF2++: <b class="opt changed">char order 4</b>', \
'<span class="opt">word order 2</span>']
    """
    name = "chrf" if "word_order" in options else "ter"
    defaults = get_metric(name).options_type().to_dict()
    if name == "chrf":
        defaults["word_order"] = options["word_order"]  # chrF or chrF++: the choice, not an option
    shown = []
    for key, value in options.items():
        text = key.replace("_", " ") + ("" if isinstance(value, bool) and value else
                                        " off" if isinstance(value, bool) else f" {value}")
        css = '<span class="opt">{}</span>' if value == defaults.get(key) else '<b class="opt changed">{}</b>'
        shown.append(css.format(html.escape(text)))
    changed = sum(value != defaults.get(key) for key, value in options.items())
    note = f" ({changed} not default)" if changed else " (sacreBLEU's defaults; the BLEU options above do not apply)"
    listed = " · ".join(shown)
    return f'<div id="compare-options" class="options-used">options: {html.escape(metric)}: {listed}{note}</div>'


def _signature_html(signature: str) -> str:
    # Line breaks only between fields ("tok:13a" never splits); <wbr> adds no text.
    return "|<wbr>".join(html.escape(field) for field in signature.split("|"))


def score_html(report: Dict[str, Any]) -> str:
    """The corpus score (full precision in ``data-score``), the options in force, its signature and
    one-line summary.

    >>> from bleukit.app.reports import score_report
    >>> from bleukit.app.forms import make_options
    >>> page = score_html(score_report("a b c", ["a b d"], make_options(max_ngram_order=2)))
    >>> page[:68], '<code id="bleu-signature">nrefs:1|<wbr>case:mixed|' in page
    ('<div class="bleu-head"><span id="bleu-score" data-score="57.73502691', True)
    """
    corpus = report["corpus"]
    return (
        '<div class="bleu-head">'
        f'<span id="bleu-score" data-score="{corpus["score"]!r}">{corpus["score"]:.2f}</span>'
        '<span class="bleu-unit">BLEU</span></div>'
        + options_html(report["options"])
        + f'<div>signature <code id="bleu-signature">{_signature_html(corpus["signature"])}</code></div>'
        f'<pre id="bleu-summary">{_signature_html(report["formatted"])}</pre>'
    )


def notice_html(messages: Sequence[str], error: bool = False, name: str = "bleu") -> str:
    """Messages above the results: an input error (``role=alert``) or notes about the input.
    ``name`` keeps the element ids of each panel's notice apart (``bleu-error``, ``compare-error``).

    >>> notice_html(["Reference set 1 has 1 line(s)"], error=True).split("</b> ")
    ['<div id="bleu-error" class="notice error" role="alert"><b>Cannot score this input.', \
'Reference set 1 has 1 line(s)</div>']
    """
    if not messages:
        return ""
    if error:
        return (
            f'<div id="{name}-error" class="notice error" role="alert"><b>Cannot score this input.</b> '
            + html.escape(" ".join(messages))
            + "</div>"
        )
    return f'<div id="{name}-note" class="notice note">' + "<br>".join(html.escape(m) for m in messages) + "</div>"


def bom_notes(fields: Sequence[Tuple[str, Optional[str]]], drawn: bool = True) -> List[str]:
    """A note for each text field that starts with a byte-order mark (U+FEFF). It is kept, as
    sacreBLEU and ``bleukit`` on the command line read such a file (UTF-8, the mark is text of
    line 1), so the numbers stay theirs; the note says why line 1's first token cannot match.

    >>> bom_notes([("the hypotheses", "\\ufeff28 Tage"), ("reference set 1", "28 days")])  # doctest: +ELLIPSIS
    ['Line 1 of the hypotheses begins with a byte-order mark (U+FEFF, drawn as ⟨BOM⟩ below): ...']
    """
    return [
        f"Line 1 of {name} begins with a byte-order mark (U+FEFF{', drawn as ⟨BOM⟩ below' if drawn else ''}): "
        "it is kept as "
        "part of the text, as sacreBLEU and the bleukit command line read the file, so the first token "
        "of line 1 cannot match. Save the file as UTF-8 without BOM to score the text alone."
        for name, text in fields
        if isinstance(text, str) and text.startswith(BOM)
    ]


def parts_frame(report: Dict[str, Any]) -> pd.DataFrame:
    """Chart data: each n-gram precision and the brevity penalty, on one 0-100 scale.

    >>> from bleukit.app.reports import score_report
    >>> from bleukit.app.forms import make_options
    >>> parts_frame(score_report("a b c", ["a b d"], make_options(max_ngram_order=2)))["value"].round(2).tolist()
    [66.67, 50.0, 100.0]
    """
    corpus = report["corpus"]
    labels = [f"{n}-gram precision" for n in range(1, len(corpus["precisions"]) + 1)]
    return pd.DataFrame(
        {
            "part": labels + ["brevity penalty x100"],
            "value": [float(p) for p in corpus["precisions"]] + [100.0 * corpus["bp"]],
            "kind": ["precision"] * len(labels) + ["brevity penalty"],
        }
    )


def sentence_frame(report: Dict[str, Any], sort: str) -> pd.DataFrame:
    """The per-sentence table in the chosen order (one of ``SORT_CHOICES``).

    >>> from bleukit.app.reports import score_report
    >>> from bleukit.app.forms import make_options
    >>> r = score_report("a b\\nx y", ["a b\\nx z"], make_options())
    >>> sentence_frame(r, "lowest BLEU first")["line"].tolist()
    [2, 1]
    """
    rows = [
        [
            s["line"],
            round(s["score"], 2),
            s["sys_len"],
            s["ref_len"],
            s["hypothesis"] if len(s["hypothesis"]) <= MAX_TABLE_CHARS else s["hypothesis"][:MAX_TABLE_CHARS] + "…",
        ]
        for s in report["sentences"]
    ]
    if sort == SORT_CHOICES[1]:
        rows.sort(key=lambda r: (r[1], r[0]))
    elif sort == SORT_CHOICES[2]:
        rows.sort(key=lambda r: (-r[1], r[0]))
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def sentence_table(report: Dict[str, Any], sort: str) -> Any:
    """The table as the page shows it: sentence BLEU always with two decimals (100.00, 44.30).

    >>> from bleukit.app.reports import score_report
    >>> from bleukit.app.forms import make_options
    >>> sentence_table(score_report("a b", ["a b"], make_options()), SORT_CHOICES[0]).to_html().count(">100.00<")
    1
    """
    return sentence_frame(report, sort).style.format({"sentence BLEU": "{:.2f}"}).hide(axis="index")


def _text_html(text: str) -> str:
    """User text for the page: escaped, and a byte-order mark drawn visibly (it is otherwise
    invisible, and "\ufeff28" would look like an unmatched "28")."""
    return html.escape(text).replace(BOM, '<span class="bom" title="byte-order mark U+FEFF">⟨BOM⟩</span>')


def _tokens_html(tokens: Sequence[Any], levels: Sequence[int]) -> str:
    out = []
    for tok, level in zip(tokens[:MAX_SHOWN_TOKENS], levels):
        css = f"tok m{min(level, 4)}" if level else "tok m0"
        title = f"in a matched {level}-gram" if level else "not matched"
        out.append(f'<span class="{css}" data-level="{level}" title="{title}">{_text_html(str(tok))}</span>')
    if len(tokens) > MAX_SHOWN_TOKENS:
        out.append(
            f'<span class="more">… {len(tokens) - MAX_SHOWN_TOKENS:,} more tokens not drawn (see the JSON)</span>'
        )
    return " ".join(out) if out else '<span class="empty">(empty)</span>'


def _ngram_html(ngram: Sequence[Any]) -> str:
    """One n-gram, each token in its own box: a comma token reads as a boxed ``,``, never as a
    separator."""
    tokens = "".join(f'<span class="ngtok">{_text_html(str(t))}</span>' for t in ngram)
    return f'<span class="ngram">{tokens}</span>'


def _ngram_list(items: List[str]) -> str:
    """The n-grams of a table cell, one list item each (no separator characters between them)."""
    shown = "".join(f"<li>{item}</li>" for item in items[:MAX_SHOWN_NGRAMS])
    if len(items) > MAX_SHOWN_NGRAMS:
        shown += f'<li class="more">… and {len(items) - MAX_SHOWN_NGRAMS:,} more</li>'
    return f'<ul class="ngrams">{shown}</ul>' if shown else "—"


def explanation_html(line: int, explanation: MatchExplanation, bleu: float, order: Optional[int]) -> str:
    """The sentence with its matched n-grams highlighted, and a per-order table of the matches.

    ``order`` None colours each token by the highest order of a counted match covering it; a
    number shows exactly the n-grams of that order that count.

    >>> from bleukit.analysis.explain import explain_bleu
    >>> ex = explain_bleu("the cat", "the dog")
    >>> 'data-level="1" title="in a matched 1-gram">the<' in explanation_html(1, ex, 0.0, None)
    True
    """
    n_max = explanation.max_ngram_order
    hyp_levels: Sequence[int]
    ref_levels: Sequence[Sequence[int]]
    if order is None:
        hyp_levels = explanation.hyp_match_order
        ref_levels = explanation.ref_match_order
        what = "the highest order of a counted match covering each token"
    else:
        hyp_levels = explanation.hyp_levels(order)
        ref_levels = [explanation.ref_levels(k, order) for k in range(len(explanation.reference_tokens))]
        what = f"the {order}-grams that count"
    parts = [
        f'<div id="explain-head" data-line="{line}" data-bleu="{bleu!r}">'
        f"<b>Line {line}</b>: sentence BLEU {bleu:.2f}, hypothesis length {explanation.hyp_len}, "
        f"closest reference length {explanation.ref_len}. Highlighted: {what}.</div>",
        '<div class="legend">'
        + " ".join(f'<span class="tok m{min(n, 4)}">{n}-gram</span>' for n in range(1, min(n_max, 4) + 1))
        + (" (4 and above share a colour)" if n_max > 4 else "")
        + "</div>",
        f'<div class="row"><span class="who">hypothesis</span><div id="explain-hyp" class="toks">'
        f"{_tokens_html(explanation.hypothesis_tokens, hyp_levels)}</div></div>",
    ]
    for k, (tokens, levels) in enumerate(zip(explanation.reference_tokens, ref_levels), start=1):
        parts.append(
            f'<div class="row"><span class="who">reference {k}</span><div class="toks explain-ref">'
            f"{_tokens_html(tokens, levels)}</div></div>"
        )
    table = [
        "<table class='orders'><tr><th>order</th><th>matched / total</th><th>precision</th>"
        "<th>matched n-grams (clip)</th><th>clipped or unmatched</th></tr>"
    ]
    for o in explanation.orders:
        hits = [
            _ngram_html(m.ngram)
            + (f" ×{m.matched}" if m.matched > 1 else "")
            + (f" <i>(clipped {m.hyp_count}→{m.matched})</i>" if m.clipped else "")
            for m in o.ngrams
            if m.matched
        ]
        misses = [
            _ngram_html(m.ngram) + (f" ×{m.hyp_count}" if m.hyp_count > 1 else "")
            for m in o.ngrams
            if not m.matched
        ]
        table.append(
            f"<tr><td>{o.order}</td><td>{o.matched} / {o.total}</td><td>{o.precision:.1f}</td>"
            f"<td>{_ngram_list(hits)}</td><td>{_ngram_list(misses)}</td></tr>"
        )
    table.append("</table>")
    parts.append("".join(table))
    return "".join(parts)


def explanation_panel(line: int, hypothesis: str, references: Sequence[str], options: BleuOptions, bleu: float,
                      order: Optional[int]) -> str:
    """The "why this score" panel of one line, or a note where the line is beyond the explanation
    limits (its score stays in the table)."""
    try:
        explanation = explain_segment(hypothesis, references, options)
    except ValueError as e:
        return notice_html([f"Line {line} is not explained: {e}."], name="explain")
    return explanation_html(line, explanation, bleu, order)


def score_table_frame(table: Any) -> pd.DataFrame:
    """A :class:`bleukit.ScoreTable` for the page: its text cells (``score ± CI [cluster]`` per
    metric, AutoRank), exactly as ``bleukit-scores`` prints them (:meth:`~bleukit.ScoreTable.text_rows`).

    >>> import bleukit
    >>> score_table_frame(bleukit.score_table({"a": [9, 8], "b": [1, 2]}, n_samples=20)).columns.tolist()
    ['System', 'score']
    """
    headers, body = table.text_rows()
    return pd.DataFrame(body, columns=headers)


def score_table_summary_html(table: Any) -> str:
    """What the table was computed with, the note when no pair can be significant, and each
    metric's signature (model and score hash for segment-score metrics), every name escaped.

    >>> import bleukit
    >>> page = score_table_summary_html(bleukit.score_table({"<a>": [9, 8], "b": [1, 2]}, n_samples=20))
    >>> 'id="scores-signatures"' in page and "<a>" not in page
    True
    """
    from bleukit.analysis.score_table import reachability_note

    first = table.comparisons[table.metrics[0]]
    test = "paired bootstrap" if first.method == "bs" else "approximate randomization"
    unit = "resamples" if first.method == "bs" else "trials"
    head = (f"{len(table.systems)} systems × {len(table.metrics)} metric(s); each cell: score ± 95% bootstrap CI "
            f"[significance cluster]; {test}, {first.n_samples:,} {unit}, seed {first.seed}, "
            f"{(first.correction or 'no').capitalize()} correction, alpha {first.alpha}"
            + (f"; AutoRank {table.autorank.method}" if table.autorank else "")
            + ". ↓: lower is better.")
    note = reachability_note(first)
    signatures = "".join(
        f'<li data-metric="{html.escape(m)}">{html.escape(m)}: <code>{_signature_html(sig)}</code></li>'
        for m, sig in table.signatures().items())
    return (f'<div id="scores-summary" class="note">{html.escape(head)}</div>'
            + (f'<div id="scores-warning" class="notice note">{html.escape(note)}</div>' if note else "")
            + f'<ul id="scores-signatures">{signatures}</ul>')
