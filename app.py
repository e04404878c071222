"""bleukit demo: see a BLEU score, and understand it.

Paste (or upload) hypotheses and one to four reference sets, one segment per line, pick the options,
and get the corpus score with its signature, a chart of its parts, a per-sentence table and, for the
selected sentence, its hypothesis with the matched n-grams highlighted against its references; on
request, the same text scored by every other BLEU people report. A second tab compares 2-5 systems
against a baseline with sacreBLEU's paired tests (p-values, confidence intervals, the bootstrap
distributions), with BLEU or, through the metric protocol, chrF, chrF++ or TER, optionally Holm- or
Bonferroni-corrected, or ranks them from tests of all pairs in significance clusters; the scoring tab
also gives the text's chrF, chrF++ and TER. Every number comes from the bleukit core (statistics ->
score, paired_test, compare_systems, bootstrap_scores, compare_variants); this file only translates
between the page and the core.

Run it with ``make app`` or ``python app.py`` (127.0.0.1:7860; ``GRADIO_SERVER_NAME`` and
``GRADIO_SERVER_PORT`` override, as for any Gradio app). Besides the page, four API endpoints are
usable with ``gradio_client``: ``/bleu`` (the whole report as JSON), ``/explain`` (one sentence's
matched n-grams), ``/compare`` (the paired test, any metric), ``/variants`` (every other BLEU) and
``/metrics`` (chrF, chrF++ and TER of the same text).
"""

from __future__ import annotations

import html
import json
import logging
import numbers
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import gradio as gr
import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent

try:
    import bleukit
except ImportError:
    # A Hub Space installs only requirements.txt (built apart from the repository), not the
    # package itself: there it runs from its source tree.
    sys.path.insert(0, str(HERE / "src"))
    import bleukit

from bleukit import BleuOptions, sentence_scores_from_statistics
from bleukit.defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from bleukit.explain import MatchExplanation, explain_sentence
from bleukit.inputs import check_seed, check_sequence
from bleukit.metrics import get_metric, metric_for
from bleukit.metrics.base import MetricOptions
from bleukit.metrics.bleu.extract import preprocess
from bleukit.metrics.bleu.options import DEFAULT_SENTENCE_SMOOTH, OPTION_NAMES, SMOOTH_DEFAULTS
from bleukit.pipeline import corpus_statistics, score_statistics
from bleukit.report import score_report as core_score_report
from bleukit.tokenizers import TOKENIZERS, get_tokenizer

# Limits that keep one request from exhausting the server (documented in docs/app.md).
MAX_REFERENCE_SETS = 4
MAX_SEGMENTS = 10_000  # lines per text field
MAX_CHARS = 2_000_000  # characters per text field
MAX_MAX_ORDER = 10  # largest max n-gram order offered
MAX_FILE_SIZE = "5mb"  # per uploaded file
MAX_TABLE_CHARS = 200  # hypothesis text shown per table row (the JSON has it whole)
MAX_SHOWN_TOKENS = 1_000  # tokens drawn per segment in "why this score" (the rest is announced)
MAX_SHOWN_NGRAMS = 200  # n-grams listed per cell of the per-order table (likewise)
MAX_EXPLAIN_CHARS = 50_000  # characters per segment explained (the page's "why this score", /explain)
MAX_EXPLAIN_TOKENS = 5_000  # tokens per segment explained: about a second for a hypothesis and 4 references
MAX_SEED = 2**64 - 1  # JSON readers (and Gradio's own encoder) take 64-bit integers

MAX_SYSTEMS = 5  # systems in one comparison (the first is the baseline)
MAX_NAME_CHARS = 80  # characters of a system name
MAX_PAIRED_SAMPLES = 20_000  # resamples or randomization trials per comparison
SIGNIFICANCE_LEVEL = 0.05
PLOT_BINS = 30  # histogram bins of the bootstrap distributions (shared by every system)

SORT_CHOICES = ["input order", "lowest BLEU first", "highest BLEU first"]
TABLE_COLUMNS = ["line", "sentence BLEU", "hyp len", "ref len", "hypothesis"]
ALL_ORDERS = "all orders (highest match)"

#: The paired tests the compare tab offers, by their label on the page (sacreBLEU's names as keys).
METHODS = {"paired bootstrap": "bs", "approximate randomization": "ar"}
#: What the compare tab tests, by its label on the page: sacreBLEU's comparison with the baseline,
#: or every pair with a ranking and significance clusters (bleukit.compare_systems).
COMPARISONS = {"each against the baseline": "baseline", "all pairs: ranking with clusters": "rank"}
#: The multiple-comparison corrections, by their label on the page (bleukit.significance.adjust_p_values).
CORRECTIONS = {"none (as sacreBLEU)": None, "Holm-Bonferroni": "holm", "Bonferroni": "bonferroni"}
RANKING_COLUMNS = ["rank", "cluster", "rank range", "system", "score"]  # the score's column: the metric's name
COMPARE_COLUMNS = ["system", "BLEU", "mean ± 95% CI", "p-value", f"significant (p < {SIGNIFICANCE_LEVEL})"]
VARIANT_COLUMNS = ["variant", "BLEU", "differs from sacreBLEU by"]

#: The metrics a user can pick, by their label on the page: (metric name, option keywords). BLEU
#: takes the form's options; the others sacreBLEU's defaults (``-m chrf``, ``-m chrf
#: --chrf-word-order 2``, ``-m ter``). Any metric of the protocol fits here.
METRIC_CHOICES: Dict[str, Tuple[str, Dict[str, Any]]] = {
    "BLEU": ("bleu", {}),
    "chrF": ("chrf", {}),
    "chrF++": ("chrf", {"word_order": 2}),
    "TER": ("ter", {}),
}
OTHER_METRICS = [label for label in METRIC_CHOICES if label != "BLEU"]
METRIC_COLUMNS = ["metric", "score", "better", "signature"]

#: The corpus defaults, read from the core (never spelled out here).
DEFAULTS = BleuOptions()
#: The options the form sets, in the order of its inputs (``weights`` has no control on the page).
FORM_OPTIONS = ("tokenize", "smooth_method", "smooth_value", "lowercase", "max_ngram_order", "effective_order")
assert set(FORM_OPTIONS) <= set(OPTION_NAMES)

BOM = "\ufeff"
# Input errors are the user's, not the server's: one line each in the server log, no traceback.
log = logging.getLogger("bleukit.app")


def available_tokenizers() -> List[str]:
    """Tokenizers that work in this environment (MeCab ones need their optional extras).

    >>> {"13a", "intl", "zh", "char", "none"} <= set(available_tokenizers())
    True
    """
    names = []
    for name in TOKENIZERS:
        try:
            get_tokenizer(name)("test")
        except Exception:  # a missing optional dependency only hides that choice
            continue
        names.append(name)
    return names


def split_lines(text: Optional[str], what: str) -> List[str]:
    """Segments of a text field: one per line, a final line end does not start an empty segment.

    >>> split_lines("a\\r\\nb\\n", "hypotheses")
    ['a', 'b']
    """
    if text is None:
        return []
    if not isinstance(text, str):
        raise TypeError(f"{what} must be one text with one segment per line, got {type(text).__name__}")
    if not text.strip():
        return []
    if len(text) > MAX_CHARS:
        raise ValueError(f"{what}: {len(text):,} characters is over the limit of {MAX_CHARS:,} per field")
    text = text.replace("\r\n", "\n")
    if text.endswith("\n"):
        text = text[:-1]
    lines = text.split("\n")
    if len(lines) > MAX_SEGMENTS:
        raise ValueError(f"{what}: {len(lines):,} lines is over the limit of {MAX_SEGMENTS:,} segments")
    return lines


def parse_corpus(
    hypotheses: Optional[str], reference_sets: Sequence[Optional[str]]
) -> Tuple[List[str], List[List[str]]]:
    """Hypotheses and per-hypothesis references from the text fields, or a ValueError saying what
    to fix. Empty reference sets are skipped; an empty line inside a used set is an empty reference,
    as in sacreBLEU.

    >>> parse_corpus("a b\\nc", ["a b\\nc d", "", "a\\nc"])
    (['a b', 'c'], [['a b', 'a'], ['c d', 'c']])
    """
    hyps = split_lines(hypotheses, "hypotheses")
    if not hyps:
        raise ValueError("The hypotheses are empty: paste one segment per line or upload a text file.")
    if isinstance(reference_sets, str):
        raise TypeError("reference sets must be a list of texts (one per set), got a single string")
    if len(reference_sets) > MAX_REFERENCE_SETS:
        raise ValueError(f"At most {MAX_REFERENCE_SETS} reference sets, got {len(reference_sets)}.")
    sets = []
    for k, text in enumerate(reference_sets, start=1):
        lines = split_lines(text, f"reference set {k}")
        if not lines:
            continue
        if len(lines) != len(hyps):
            raise ValueError(
                f"Reference set {k} has {len(lines)} line(s) but there are {len(hyps)} hypotheses: "
                "line i of every reference set must be a reference of hypothesis line i."
            )
        sets.append(lines)
    if not sets:
        raise ValueError("No references: fill at least one reference set (one segment per line).")
    return hyps, [list(refs) for refs in zip(*sets)]


def make_options(
    tokenize: str = DEFAULTS.tokenize,
    smooth_method: str = DEFAULTS.smooth_method,
    smooth_value: Union[float, str, None] = None,
    lowercase: bool = DEFAULTS.lowercase,
    max_ngram_order: int = DEFAULTS.max_ngram_order,
    effective_order: bool = DEFAULTS.effective_order,
) -> BleuOptions:
    """Corpus options from the form (the core validates them; the defaults are the core's).

    >>> make_options("intl", "floor", 0.2, max_ngram_order=3).signature(1)  # doctest: +ELLIPSIS
    'nrefs:1|case:mixed|eff:no|tok:intl|smooth:floor[0.20]|order:3|version:bleukit-...'
    >>> make_options(smooth_method="add-k", smooth_value=" ").resolved_smooth_value  # the page's empty box
    1
    """
    if isinstance(smooth_value, str):
        # The page's box is text, so that "no value" shows empty instead of a misleading 0.
        text = smooth_value.strip()
        try:
            smooth_value = float(text) if text else None
        except ValueError:
            raise ValueError(f"smoothing value must be a number, got {smooth_value!r}") from None
    if max_ngram_order is None or float(max_ngram_order) != int(max_ngram_order):
        raise ValueError(f"max n-gram order must be a whole number, got {max_ngram_order!r}")
    order = int(max_ngram_order)
    if not 1 <= order <= MAX_MAX_ORDER:
        raise ValueError(f"max n-gram order must be between 1 and {MAX_MAX_ORDER}, got {order}")
    if smooth_value is not None and SMOOTH_DEFAULTS.get(smooth_method, 0) is None:
        smooth_value = None  # exp and none take no value; a leftover number in the form is ignored
    return BleuOptions.from_keywords(
        {
            "tokenize": tokenize,
            "lowercase": bool(lowercase),
            "smooth_method": smooth_method,
            "smooth_value": float(smooth_value) if smooth_value is not None else None,
            "max_ngram_order": order,
            "effective_order": bool(effective_order),
        }
    )


def metric_options(metric: str, bleu_options: Optional[BleuOptions] = None) -> MetricOptions:
    """The options of a metric picked on the page (a :data:`METRIC_CHOICES` label): BLEU's are the
    form's (``bleu_options``), the others' sacreBLEU's defaults.

    >>> metric_options("TER").signature(1).split("|")[:3]
    ['nrefs:1', 'case:lc', 'tok:tercom']
    >>> metric_options("chrF++").word_order
    2
    """
    if metric not in METRIC_CHOICES:
        raise ValueError(f"unknown metric {metric!r}: choose one of {', '.join(METRIC_CHOICES)}")
    name, keywords = METRIC_CHOICES[metric]
    if name == "bleu":
        return bleu_options if bleu_options is not None else DEFAULTS
    return get_metric(name).options_type.from_keywords(keywords)


def metrics_report(hypotheses: str, reference_sets: Sequence[Optional[str]]) -> Dict[str, Any]:
    """The text fields scored with chrF, chrF++ and TER (sacreBLEU's defaults): per metric its
    corpus score, whether higher is better, and its signature.

    >>> [(r["metric"], round(r["score"], 2), r["higher_is_better"]) for r in
    ...  metrics_report("the cat sat on the mat", ["the mat the cat sat on"])["rows"]]
    [('chrF', 81.09, True), ('chrF++', 83.32, True), ('TER', 16.67, False)]
    """
    hyps, refs = parse_corpus(hypotheses, reference_sets)
    rows = []
    for label in OTHER_METRICS:
        options = metric_options(label)
        result = score_statistics(corpus_statistics(hyps, refs, options), options)
        rows.append(
            {
                "metric": label,
                "name": result.name,
                "score": result.score,
                "higher_is_better": metric_for(options).higher_is_better,
                "signature": result.signature,
            }
        )
    return {"rows": rows}


def metrics_frame(report: Dict[str, Any]) -> pd.DataFrame:
    """The other metrics' table as the page shows it (two decimals).

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


def score_report(hypotheses: str, reference_sets: Sequence[Optional[str]], options: BleuOptions) -> Dict[str, Any]:
    """The text fields scored by the core's report (corpus result and per-sentence rows), as JSON.

    >>> r = score_report("The cat sat on the mat.", ["The cat sat on the mat."], BleuOptions())
    >>> round(r["corpus"]["score"], 6), round(r["sentences"][0]["score"], 6), r["sentences"][0]["counts"]
    (100.0, 100.0, [7, 6, 5, 4])
    """
    hyps, refs = parse_corpus(hypotheses, reference_sets)
    return core_score_report(hyps, refs, options).to_dict()


# ----------------------------------------------------------------------------- comparing systems


def parse_systems(
    system_texts: Sequence[Optional[str]], names: Sequence[Optional[str]], reference_sets: Sequence[Optional[str]]
) -> Tuple[List[Tuple[str, List[str]]], List[List[str]]]:
    """Named systems (the first filled box is the baseline) and per-hypothesis references from the
    compare tab's fields, or a ValueError saying what to fix. Empty system boxes are skipped; a
    system without a name is called by its box ("system 2"). References as in :func:`parse_corpus`.

    >>> parse_systems(["a b\\nc", "", "a\\nc d"], ["base", "", ""], ["a b\\nc d"])
    ([('base', ['a b', 'c']), ('system 3', ['a', 'c d'])], [['a b'], ['c d']])
    """
    if isinstance(system_texts, str) or isinstance(names, str):
        raise TypeError("systems and names must be lists of texts (one per system), got a single string")
    if len(system_texts) > MAX_SYSTEMS:
        raise ValueError(f"At most {MAX_SYSTEMS} systems, got {len(system_texts)}.")
    names = list(names or []) + [None] * (len(system_texts) - len(names or []))
    if len(names) > len(system_texts):
        raise ValueError(f"{len(names)} names for {len(system_texts)} systems: give one name per system.")
    filled = []
    for k, (text, name) in enumerate(zip(system_texts, names), start=1):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"the name of system {k} must be a string, got {type(name).__name__}")
        name = (name or "").strip() or f"system {k}"
        if len(name) > MAX_NAME_CHARS:
            raise ValueError(f"The name of system {k} is {len(name)} characters long; at most {MAX_NAME_CHARS}.")
        lines = split_lines(text, f"system {k} ({name})")
        if lines:
            filled.append((name, lines))
    if len(filled) < 2:
        raise ValueError(
            f"Fill at least 2 systems (the first is the baseline), one segment per line; got {len(filled)}."
        )
    seen = {}
    for name, _ in filled:
        if name in seen:
            raise ValueError(f"Two systems are named {name!r}: give each system its own name.")
        seen[name] = True
    (base_name, base), others = filled[0], filled[1:]
    _, refs = parse_corpus("\n".join(base), reference_sets)
    for name, lines in others:
        if len(lines) != len(base):
            raise ValueError(
                f"System {name!r} has {len(lines)} line(s) but the baseline {base_name!r} has {len(base)}: "
                "every system must translate the same segments, line by line."
            )
    return filled, refs


def whole_number(value: Any, what: str) -> Optional[int]:
    """An int from the page (a float from a number box, a string) or the API, never rounded: a
    float beyond 2**53 does not hold every whole number, so it is refused rather than read as a
    neighbour. ``None`` (an empty box) stays ``None``.

    >>> whole_number(12345.0, "the seed"), whole_number(" 2 ", "n"), whole_number(2**64 + 1, "the seed")
    (12345, 2, 18446744073709551617)
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a whole number, got {value!r}") from None
    if not number.is_integer():
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    if abs(number) > 2**53:
        raise ValueError(
            f"{what} {value!r} is a float above 2**53, where floats skip whole numbers; give it as an integer"
        )
    return int(number)


def paired_settings(method: str, n_samples: Any, seed: Any) -> Tuple[str, int, int]:
    """The test, its number of samples (empty: sacreBLEU's default for the test) and its seed,
    checked against the limits; whole numbers are taken as they are, never through a float.

    >>> paired_settings("approximate randomization", None, 12345)
    ('ar', 10000, 12345)
    >>> paired_settings("bs", 200.0, 2**53 + 1)
    ('bs', 200, 9007199254740993)
    """
    key = METHODS.get(method, method) if isinstance(method, str) else method
    if key not in DEFAULT_SAMPLES:
        raise ValueError(f"unknown test {method!r}: choose {' or '.join(METHODS)} ({' or '.join(METHODS.values())})")
    n = whole_number(n_samples, "the number of samples")
    if n is None:
        n = DEFAULT_SAMPLES[key]
    if not 1 <= n <= MAX_PAIRED_SAMPLES:
        raise ValueError(f"the number of samples must be between 1 and {MAX_PAIRED_SAMPLES:,}, got {n:,}")
    whole = whole_number(seed, "the seed")
    if whole is None or not 0 <= whole <= MAX_SEED:
        raise ValueError(
            f"the seed must be a whole number >= 0 and below 2**64 (sacreBLEU's default is {DEFAULT_SEED}), "
            f"got {seed!r}"
        )
    return key, n, int(check_seed(whole) or 0)


def compare_report(
    systems: Sequence[Tuple[str, Sequence[str]]],
    refs: Sequence[Sequence[str]],
    options: MetricOptions,
    method: str,
    n_samples: int,
    seed: int,
    comparison: str = "baseline",
    correction: Optional[str] = None,
) -> Dict[str, Any]:
    """``bleukit.paired_test`` as JSON: each system's score, p-value against the baseline (the
    first), bootstrap mean and CI (paired bootstrap only, as in sacreBLEU), and whether p < 0.05;
    ``options`` are any metric's (``metric``: its score's name; for TER lower is better).
    With ``correction`` (``"holm"``, ``"bonferroni"``) each p-value also has its corrected
    ``p_value_adjusted``, which then decides ``significant``. With ``comparison="rank"`` the report
    also holds ``ranking``: ``bleukit.compare_systems`` of all pairs (its ``to_dict()``: the
    ranking with significance clusters and every pair's test, with the same correction).

    >>> systems = [("a", ["a b c d", "a b"]), ("b", ["a b c d", "x y"])]
    >>> r = compare_report(systems, [["a b c d"], ["a b"]], make_options(), "bs", 10, 1)
    >>> [(s["name"], round(s["score"], 2), s["significant"]) for s in r["systems"]], r["ranking"]
    ([('a', 100.0, None), ('b', 84.09, False)], None)
    >>> r = compare_report(systems, [["a b c d"], ["a b"]], metric_options("TER"), "bs", 10, 1)
    >>> r["metric"], r["higher_is_better"], [s["score"] for s in r["systems"]]
    ('TER', False, [0.0, 33.33333333333333])
    >>> r = compare_report(systems, [["a b c d"], ["a b"]], make_options(), "ar", 10, 1, "rank", "holm")
    >>> [(s["name"], s["cluster"]) for s in r["ranking"]["ranking"]], r["correction"]
    ([('a', 1), ('b', 1)], 'holm')
    """
    if comparison not in COMPARISONS.values():
        raise ValueError(f"comparison must be one of {', '.join(map(repr, COMPARISONS.values()))}, got {comparison!r}")
    named = [(name, list(hyps)) for name, hyps in systems]
    references = [list(r) for r in refs]
    results = bleukit.paired_test(
        named, references, method=method, n_samples=n_samples, seed=seed, correction=correction, options=options
    )
    rows = []
    for r in results:
        row = r.to_dict()
        row.setdefault("p_value_adjusted", None)
        in_force = r.p_value if r.p_value_adjusted is None else r.p_value_adjusted
        row["significant"] = None if in_force is None else bool(in_force < SIGNIFICANCE_LEVEL)
        rows.append(row)
    ranking = None
    if comparison == "rank":
        ranking = bleukit.compare_systems(
            named, references, method=method, n_samples=n_samples, seed=seed, correction=correction,
            alpha=SIGNIFICANCE_LEVEL, options=options
        ).to_dict()
    return {
        "method": method,
        "n_samples": n_samples,
        "seed": seed,
        "significance_level": SIGNIFICANCE_LEVEL,
        "correction": correction,
        "signature": results[0].result.signature,
        "metric": results[0].result.name,
        "higher_is_better": metric_for(options).higher_is_better,
        "options": options.to_dict(),
        "systems": rows,
        "ranking": ranking,
    }


def compare_frame(report: Dict[str, Any]) -> pd.DataFrame:
    """The comparison table as the page shows it: two decimals, the p-value marked ``*`` below
    0.05 (as sacreBLEU marks it; with a correction the corrected p-value follows the arrow and
    decides), and no mean or CI where the test gives none.

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


def distribution_frame(
    systems: Sequence[Tuple[str, Sequence[str]]],
    refs: Sequence[Sequence[str]],
    options: MetricOptions,
    n_samples: int,
    seed: int,
) -> pd.DataFrame:
    """Plot data: each system's bootstrap distribution of its corpus score (``bleukit.bootstrap_scores``
    on its statistics, the same resamples for every system) as the share of resamples per score
    bin, over bins shared by all systems.

    >>> systems = [("a", ["x y z w", "x y"]), ("b", ["x y", "x"])]
    >>> f = distribution_frame(systems, [["x y z w"], ["x y"]], make_options(), 50, 1)
    >>> sorted(set(f["system"])), f.groupby("system")["share of resamples (%)"].sum().round(6).tolist()
    (['a', 'b'], [100.0, 100.0])
    """
    scores = {
        name: bleukit.bootstrap_scores(
            bleukit.corpus_statistics(list(hyps), [list(r) for r in refs], options), options, n_samples, seed
        )
        for name, hyps in systems
    }
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
            else f'<div id="compare-options" class="options-used">options: {html.escape(report["metric"])} with '
            "sacreBLEU's defaults (the BLEU options above do not apply)</div>"
        )
        + f'<div>signature <code id="compare-signature">{_signature_html(report["signature"])}</code></div>'
        + ranking_html(report)
    )


# ----------------------------------------------------------------------------- other BLEUs


def variants_frame(table: Any) -> pd.DataFrame:
    """``bleukit.compare_variants``'s table for the page (two decimals, the note whole).

    >>> variants_frame(bleukit.compare_variants(["a b c d"], [["a b c d"]])).iloc[0].tolist()[:2]
    ['sacreBLEU', '100.00']
    """
    return pd.DataFrame([[r.name, f"{r.score:.2f}", r.note] for r in table.rows], columns=VARIANT_COLUMNS)


# ----------------------------------------------------------------------------- rendering


def options_html(options: Dict[str, Any], elem_id: str = "bleu-options") -> str:
    """The options a score was computed with, in words; those that differ from the defaults are
    marked, so options left over from an example or an earlier run are seen next to the score.

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


def _signature_html(signature: str) -> str:
    # Line breaks only between fields ("tok:13a" never splits); <wbr> adds no text.
    return "|<wbr>".join(html.escape(field) for field in signature.split("|"))


def score_html(report: Dict[str, Any]) -> str:
    """The corpus score (full precision in ``data-score``), the options in force, its signature and
    one-line summary.

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


def _ngram_list(items: List[str]) -> str:
    shown = ", ".join(items[:MAX_SHOWN_NGRAMS])
    if len(items) > MAX_SHOWN_NGRAMS:
        shown += f" … and {len(items) - MAX_SHOWN_NGRAMS:,} more"
    return shown or "—"


def explanation_html(line: int, explanation: MatchExplanation, bleu: float, order: Optional[int]) -> str:
    """The sentence with its matched n-grams highlighted, and a per-order table of the matches.

    ``order`` None colours each token by the highest order of a counted match covering it; a
    number shows exactly the n-grams of that order that count.

    >>> ex = explain_sentence("the cat", "the dog")
    >>> 'data-level="1" title="in a matched 1-gram">the<' in explanation_html(1, ex, 0.0, None)
    True
    """
    n_max = explanation.max_ngram_order
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
            f"<code>{_text_html(' '.join(map(str, m.ngram)))}</code>"
            + (f" ×{m.matched}" if m.matched > 1 else "")
            + (f" <i>(clipped {m.hyp_count}→{m.matched})</i>" if m.clipped else "")
            for m in o.ngrams
            if m.matched
        ]
        misses = [
            f"<code>{_text_html(' '.join(map(str, m.ngram)))}</code>" + (f" ×{m.hyp_count}" if m.hyp_count > 1 else "")
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


def explain_segment(hypothesis: str, references: Sequence[Optional[str]], options: BleuOptions) -> MatchExplanation:
    """``explain_sentence`` within the explanation limits (``MAX_EXPLAIN_CHARS`` and
    ``MAX_EXPLAIN_TOKENS`` per segment), so that one explanation takes about a second at most, or
    a ValueError naming the segment and the limit. The page and ``/explain`` both go through it.

    >>> explain_segment("the cat", ["the cat"], make_options()).row[:2]
    [2, 2]
    """
    segments = [("the hypothesis", hypothesis)] + [(f"reference {k}", r) for k, r in enumerate(references, start=1)]
    for name, text in segments:
        if isinstance(text, str) and len(text) > MAX_EXPLAIN_CHARS:
            raise ValueError(
                f"{name} has {len(text):,} characters: explanations take segments of at most "
                f"{MAX_EXPLAIN_CHARS:,} (the score itself has no such limit)"
            )
    tokenizer = get_tokenizer(options.tokenize)
    for name, text in segments:
        if isinstance(text, str):
            n_tokens = len(preprocess(text, tokenizer, options.lowercase))
            if n_tokens > MAX_EXPLAIN_TOKENS:
                raise ValueError(
                    f"{name} has {n_tokens:,} tokens: explanations take segments of at most "
                    f"{MAX_EXPLAIN_TOKENS:,} (the score itself has no such limit)"
                )
    return explain_sentence(hypothesis, list(references), options)


def explain_report(hypothesis: str, references: Sequence[Optional[str]], options: BleuOptions) -> Dict[str, Any]:
    """One sentence's explanation plus its sentence BLEU, computed from the explanation's own row.
    Each order lists at most ``MAX_SHOWN_NGRAMS`` matched and as many unmatched n-grams (as the
    page's table), in order of first occurrence; ``ngrams_omitted`` counts the rest, whose numbers
    are in ``matched`` and ``total``.

    >>> r = explain_report("the cat sat", ["the cat sat down"], make_options())
    >>> r["row"], round(r["bleu"], 4), r["orders"][0]["ngrams_omitted"]
    ([3, 4, 3, 2, 1, 0, 3, 2, 1, 0], 71.6531, 0)
    """
    explanation = explain_segment(hypothesis, list(references), options)
    bleu = float(sentence_scores_from_statistics(explanation.statistics(), options.sentence_level())[0])
    out = explanation.to_dict()
    for order in out["orders"]:
        kept, seen = [], {True: 0, False: 0}
        for ngram in order["ngrams"]:
            kind = ngram["matched"] > 0
            seen[kind] += 1
            if seen[kind] <= MAX_SHOWN_NGRAMS:
                kept.append(ngram)
        order["ngrams_omitted"] = len(order["ngrams"]) - len(kept)
        order["ngrams"] = kept
    out["bleu"] = bleu
    out["row"] = explanation.row
    return out


def explanation_panel(line: int, hypothesis: str, references: Sequence[str], options: BleuOptions, bleu: float,
                      order: Optional[int]) -> str:
    """The "why this score" panel of one line, or a note where the line is beyond the explanation
    limits (its score stays in the table)."""
    try:
        explanation = explain_segment(hypothesis, references, options)
    except ValueError as e:
        return notice_html([f"Line {line} is not explained: {e}."], name="explain")
    return explanation_html(line, explanation, bleu, order)


# ----------------------------------------------------------------------------- files

_DOWNLOADS = Path(tempfile.gettempdir()) / "bleukit-app"
_DOWNLOAD_AGE_S = 3600


def write_json(report: Dict[str, Any]) -> str:
    """Write the report for download; reports older than an hour are removed on the way.

    >>> json.loads(Path(write_json({"score": 1.5})).read_text(encoding="utf-8"))
    {'score': 1.5}
    """
    _DOWNLOADS.mkdir(parents=True, exist_ok=True)
    now = time.time()
    for old in _DOWNLOADS.glob("bleu-*.json"):
        try:
            if now - old.stat().st_mtime > _DOWNLOAD_AGE_S:
                old.unlink()
        except OSError:
            pass
    path = _DOWNLOADS / f"bleu-{uuid.uuid4().hex[:12]}.json"
    path.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    return str(path)


def read_upload(path: Optional[str], what: str) -> str:
    """An uploaded file's text: UTF-8 and within the field limits, or a ValueError naming the file.
    A byte-order mark stays (see :func:`bom_notes`)."""
    if not path:
        return ""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{what} is not UTF-8 text ({e.reason} at byte {e.start}).") from None
    split_lines(text, what)  # size limits, with the same message as pasted text
    return text


# ----------------------------------------------------------------------------- callbacks


def _log_input_error(where: str, e: Exception) -> None:
    log.warning("input error in %s: %s", where, " ".join(str(e).split()))


def _user_error(where: str, e: Exception) -> gr.Error:
    """An input error for the API: its message to the client, one line in the log, no traceback."""
    _log_input_error(where, e)
    return gr.Error(str(e), title="Cannot score this input", print_exception=False)


def error_outputs(message: str) -> tuple:
    """Every output of the Score button for an input error: the message once, each earlier result
    (score, chart, table, download, explanation) cleared, so nothing stale sits next to it."""
    return (
        notice_html([message], error=True),
        "",
        None,
        pd.DataFrame([], columns=TABLE_COLUMNS),
        None,
        gr.update(value=None, visible=False),
        gr.update(value=1, maximum=None),
        gr.update(choices=[ALL_ORDERS], value=ALL_ORDERS),
        "",
    )


def on_score(
    hyps_text: str,
    ref1: str,
    ref2: str,
    ref3: str,
    ref4: str,
    tokenize: str,
    smooth_method: str,
    smooth_value: Union[float, str, None],
    lowercase: bool,
    max_order: int,
    effective_order: bool,
    sort: str,
) -> tuple:
    """Score button: every output of the page, with the first line explained; an input error
    shows its message and clears the results instead."""
    try:
        options = make_options(tokenize, smooth_method, smooth_value, lowercase, max_order, effective_order)
        report = score_report(hyps_text, [ref1, ref2, ref3, ref4], options)
    except (ValueError, TypeError) as e:
        _log_input_error("score", e)
        return error_outputs(str(e))
    fields = [("the hypotheses", hyps_text)] + [
        (f"reference set {k}", t) for k, t in enumerate([ref1, ref2, ref3, ref4], 1)
    ]
    first = report["sentences"][0]
    order_choices = [ALL_ORDERS] + [str(n) for n in range(1, options.max_ngram_order + 1)]
    return (
        notice_html(bom_notes(fields)),
        score_html(report),
        parts_frame(report),
        sentence_table(report, sort),
        report,
        gr.update(value=write_json(report), visible=True),
        gr.update(value=1, maximum=len(report["sentences"])),
        gr.update(choices=order_choices, value=ALL_ORDERS),
        explanation_panel(1, first["hypothesis"], first["references"], options, first["score"], None),
    )


def on_sort(report: Optional[Dict[str, Any]], sort: str) -> Any:
    """Sort control: the table again, in the new order."""
    if not report:
        return gr.update()
    return sentence_table(report, sort)


def _explain_line(report: Optional[Dict[str, Any]], line: Optional[float], highlight: Optional[str]) -> str:
    if not report:
        return notice_html(["Score a corpus first."], error=True)
    sentences = report["sentences"]
    if line is None or not 1 <= int(line) <= len(sentences):
        return notice_html([f"Line must be between 1 and {len(sentences)}."], error=True)
    s = sentences[int(line) - 1]
    options = BleuOptions(**report["options"])
    order = None if highlight in (None, ALL_ORDERS) else int(highlight)
    return explanation_panel(s["line"], s["hypothesis"], s["references"], options, s["score"], order)


def on_select(report: Optional[Dict[str, Any]], highlight: Optional[str], evt: gr.SelectData) -> Tuple[int, str]:
    """A click in the table: the row's line number (column 0 survives any sorting) and its explanation."""
    line = int(evt.row_value[0])
    return line, _explain_line(report, line, highlight)


def on_explain(report: Optional[Dict[str, Any]], line: Optional[float], highlight: Optional[str]) -> str:
    """Line number or highlight choice changed: explain that line again."""
    return _explain_line(report, line, highlight)


def on_upload_hyps(path: Optional[str]) -> Tuple[Any, str]:
    """Hypothesis file upload: its text into the hypotheses box, and a notice (an error, or the
    byte-order-mark note) above the results."""
    try:
        text = read_upload(path, "The hypothesis file")
    except ValueError as e:
        _log_input_error("upload", e)
        return gr.update(), notice_html([str(e)], error=True)
    return text, notice_html(bom_notes([("the hypotheses", text)]))


def on_upload_refs(paths: Optional[List[str]], name: str = "bleu") -> Tuple[Any, ...]:
    """Reference files upload: one file per reference set box, the other boxes emptied; the last
    output is the notice, as for the hypotheses (``name``: whose notice, see :func:`notice_html`)."""
    paths = list(paths or [])
    try:
        if len(paths) > MAX_REFERENCE_SETS:
            raise ValueError(f"At most {MAX_REFERENCE_SETS} reference files, got {len(paths)}.")
        texts = [read_upload(p, f"Reference file {k}") for k, p in enumerate(paths, start=1)]
    except ValueError as e:
        _log_input_error("upload", e)
        return (gr.update(),) * MAX_REFERENCE_SETS + (notice_html([str(e)], error=True, name=name),)
    notes = bom_notes([(f"reference set {k}", t) for k, t in enumerate(texts, start=1)], drawn=name == "bleu")
    return tuple(texts + [""] * (MAX_REFERENCE_SETS - len(texts))) + (notice_html(notes, name=name),)


def reset_options() -> tuple:
    """The form's options back to the core's defaults (examples set every option; this is the
    way back after one)."""
    values = DEFAULTS.to_dict()
    return tuple(None if name == "smooth_value" else values[name] for name in FORM_OPTIONS)


def compare_error_outputs(message: str) -> tuple:
    """Every output of the Compare button for an input error: the message once, the earlier
    table, summary and plot cleared."""
    return notice_html([message], error=True, name="compare"), pd.DataFrame([], columns=COMPARE_COLUMNS), "", None


def on_compare(*values: Any) -> tuple:
    """Compare button. ``values``: the ``MAX_SYSTEMS`` system texts, their names, the
    ``MAX_REFERENCE_SETS`` reference sets, the form options (``FORM_OPTIONS``), then test, number of
    samples, seed and, optionally, the metric's label (BLEU when left out), what to compare (a
    ``COMPARISONS`` label) and the correction (a ``CORRECTIONS`` label). Returns the notice, the
    table, the summary with the signature (and the ranking of all pairs when asked) and the plot
    data; an input error shows its message and
    clears the results instead."""
    texts, names = values[:MAX_SYSTEMS], values[MAX_SYSTEMS : 2 * MAX_SYSTEMS]
    sets = values[2 * MAX_SYSTEMS : 2 * MAX_SYSTEMS + MAX_REFERENCE_SETS]
    rest = values[2 * MAX_SYSTEMS + MAX_REFERENCE_SETS :]
    form_options, settings = rest[: len(FORM_OPTIONS)], rest[len(FORM_OPTIONS) :]
    method, n_samples, seed = settings[:3]
    chosen = list(settings[3:6])
    metric, comparison, correction = chosen + ["BLEU", list(COMPARISONS)[0], list(CORRECTIONS)[0]][len(chosen) :]
    try:
        options = metric_options(metric, make_options(*form_options))
        systems, refs = parse_systems(list(texts), list(names), list(sets))
        method, n, seed = paired_settings(method, n_samples, seed)
        report = compare_report(
            systems, refs, options, method, n, seed, COMPARISONS.get(comparison, comparison),
            CORRECTIONS.get(correction, correction),
        )
        plot_n = n if method == "bs" else DEFAULT_SAMPLES["bs"]
        plot = distribution_frame(systems, refs, options, plot_n, seed)
    except (ValueError, TypeError) as e:
        _log_input_error("compare", e)
        return compare_error_outputs(str(e))
    fields = [(f"system {k}", t) for k, t in enumerate(texts, 1)] + [
        (f"reference set {k}", t) for k, t in enumerate(sets, 1)
    ]
    return (
        notice_html(bom_notes(fields, drawn=False), name="compare"),
        compare_frame(report),
        compare_summary_html(report, plot_n),
        plot,
    )


def on_method(method: str) -> int:
    """A test picked by the user: its number of samples back to sacreBLEU's default for it."""
    return DEFAULT_SAMPLES[METHODS.get(method, method)]


def on_upload_systems(paths: Optional[List[str]]) -> Tuple[Any, ...]:
    """System files upload: one file per system box (the first is the baseline), each named after
    its file, the other boxes emptied; the last output is the notice."""
    paths = list(paths or [])
    try:
        if len(paths) > MAX_SYSTEMS:
            raise ValueError(f"At most {MAX_SYSTEMS} system files, got {len(paths)}.")
        texts = [read_upload(p, f"System file {k}") for k, p in enumerate(paths, start=1)]
    except ValueError as e:
        _log_input_error("upload", e)
        return (gr.update(),) * (2 * MAX_SYSTEMS) + (notice_html([str(e)], error=True, name="compare"),)
    names = [Path(p).name[:MAX_NAME_CHARS] for p in paths]
    notes = bom_notes([(f"system {k}", t) for k, t in enumerate(texts, start=1)], drawn=False)
    empty = [""] * (MAX_SYSTEMS - len(paths))
    return tuple(texts + empty + names + empty) + (notice_html(notes, name="compare"),)


def on_metrics(hyps_text: str, ref1: str, ref2: str, ref3: str, ref4: str) -> Tuple[str, pd.DataFrame]:
    """Other metrics button: the scoring tab's text scored with chrF, chrF++ and TER; an input
    error shows its message and clears the table."""
    try:
        report = metrics_report(hyps_text, [ref1, ref2, ref3, ref4])
    except (ValueError, TypeError) as e:
        _log_input_error("metrics", e)
        return notice_html([str(e)], error=True, name="metrics"), pd.DataFrame([], columns=METRIC_COLUMNS)
    return "", metrics_frame(report)


def on_variants(hyps_text: str, ref1: str, ref2: str, ref3: str, ref4: str) -> Tuple[str, pd.DataFrame]:
    """Other BLEUs button: the scoring tab's text scored by every variant (each with its own
    defaults), and a note naming those that could not run; an input error clears the table."""
    try:
        hyps, refs = parse_corpus(hyps_text, [ref1, ref2, ref3, ref4])
        table = bleukit.compare_variants(hyps, refs)
    except (ValueError, TypeError) as e:
        _log_input_error("variants", e)
        return notice_html([str(e)], error=True, name="variants"), pd.DataFrame([], columns=VARIANT_COLUMNS)
    notes = [f"{name} not scored: {why}." for name, why in table.skipped.items()]
    return notice_html(notes, name="variants"), variants_frame(table)


def clear_variants() -> Tuple[str, pd.DataFrame, str, pd.DataFrame]:
    """A new score: the variants and other metrics tables of an earlier text are cleared (they are
    computed on request)."""
    return "", pd.DataFrame([], columns=VARIANT_COLUMNS), "", pd.DataFrame([], columns=METRIC_COLUMNS)


# ----------------------------------------------------------------------------- API endpoints


def api_texts(value: Any, what: str, layout: str) -> List[Any]:
    """A list argument of the API as a list (missing: empty), checked by the core: a single
    string would otherwise be iterated as characters, each a reference set.

    >>> api_texts(None, "references", "one text per reference set")
    []
    """
    if value is None:
        return []
    if isinstance(value, str):
        raise TypeError(f"{what} must be a list ({layout}), got a single string; wrap it: [text]")
    return check_sequence(value, what, of="texts")


def bleu(
    hypotheses: str,
    references: List[str],
    tokenize: str = DEFAULTS.tokenize,
    smooth_method: str = DEFAULTS.smooth_method,
    smooth_value: Optional[float] = None,
    lowercase: bool = DEFAULTS.lowercase,
    max_ngram_order: int = DEFAULTS.max_ngram_order,
    effective_order: bool = DEFAULTS.effective_order,
) -> dict:
    """Corpus BLEU and per-sentence statistics. `hypotheses`: one segment per line; `references`:
    one to four reference sets, each a text with one segment per line (line i belongs to
    hypothesis i). Returns the same JSON as the page's download.

    >>> round(bleu("a b c d", ["a b c d"])["corpus"]["score"], 6)
    100.0
    """
    try:
        options = make_options(tokenize, smooth_method, smooth_value, lowercase, max_ngram_order, effective_order)
        return score_report(hypotheses, api_texts(references, "references", "one text per reference set"), options)
    except (ValueError, TypeError) as e:
        raise _user_error("/bleu", e) from None


def explain(
    hypothesis: str,
    references: List[str],
    tokenize: str = DEFAULTS.tokenize,
    lowercase: bool = DEFAULTS.lowercase,
    max_ngram_order: int = DEFAULTS.max_ngram_order,
) -> dict:
    """Which n-grams of one hypothesis matched its references, per order, with clipping, and its
    sentence BLEU (exp smoothing, effective order, as sacrebleu.sentence_bleu).

    >>> explain("the cat sat", ["the cat sat down"])["row"]
    [3, 4, 3, 2, 1, 0, 3, 2, 1, 0]
    """
    try:
        if hypothesis is None:
            raise ValueError("hypothesis is missing: give the sentence to explain")
        if not isinstance(hypothesis, str) or len(hypothesis) > MAX_CHARS:
            raise ValueError(f"hypothesis must be a string of at most {MAX_CHARS:,} characters")
        refs = api_texts(references, "references", "one text per reference of this sentence")
        if not refs or len(refs) > MAX_REFERENCE_SETS:
            raise ValueError(f"give 1 to {MAX_REFERENCE_SETS} references")
        if any(isinstance(r, str) and len(r) > MAX_CHARS for r in refs):
            raise ValueError(f"a reference is over {MAX_CHARS:,} characters")
        options = make_options(tokenize, DEFAULT_SENTENCE_SMOOTH, None, lowercase, max_ngram_order).sentence_level()
        return explain_report(hypothesis, refs, options)
    except (ValueError, TypeError) as e:
        raise _user_error("/explain", e) from None


def compare(
    systems: List[str],
    references: List[str],
    names: Optional[List[str]] = None,
    method: str = "bs",
    n_samples: Optional[int] = None,
    seed: int = DEFAULT_SEED,
    tokenize: str = DEFAULTS.tokenize,
    smooth_method: str = DEFAULTS.smooth_method,
    smooth_value: Optional[float] = None,
    lowercase: bool = DEFAULTS.lowercase,
    max_ngram_order: int = DEFAULTS.max_ngram_order,
    effective_order: bool = DEFAULTS.effective_order,
    metric: str = "BLEU",
    comparison: str = "baseline",
    correction: Optional[str] = None,
) -> dict:
    """Paired significance test of 2-5 systems against the first (the baseline), as sacreBLEU's
    ``--paired-bs`` / ``--paired-ar``; `correction`: "holm" or "bonferroni" adds each corrected
    p-value; `comparison`: "rank" also tests all pairs and ranks the systems in significance
    clusters (the report's "ranking"). `systems`: one text per system, one segment per line;
    `references`: one to four reference sets (as for ``/bleu``); `names`: optional, one per system;
    `method`: "bs" (paired bootstrap, default 1000 samples) or "ar" (approximate randomization,
    default 10000); `seed`: sacreBLEU's default 12345; `metric`: "BLEU" (with the BLEU options),
    "chrF", "chrF++" or "TER" (sacreBLEU's defaults; TER: lower is better).

    >>> r = compare(["a b c d\\na b", "a b c d\\nx y"], ["a b c d\\na b"], names=["A", "B"], n_samples=20)
    >>> [(s["name"], round(s["score"], 2)) for s in r["systems"]], r["signature"].split("|")[1:3]
    ([('A', 100.0), ('B', 84.09)], ['bs:20', 'seed:12345'])
    >>> compare(["a b c d\\na b", "a b c d\\nx y"], ["a b c d\\na b"], n_samples=20, metric="TER")["metric"]
    'TER'
    """
    try:
        bleu_options = make_options(tokenize, smooth_method, smooth_value, lowercase, max_ngram_order, effective_order)
        options = metric_options(metric, bleu_options)
        texts = api_texts(systems, "systems", "one text per system")
        given = api_texts(names, "names", "one name per system")
        if names is not None and len(given) != len(texts):
            raise ValueError("names: give one name per system (a list), or none")
        named, refs = parse_systems(texts, given, api_texts(references, "references", "one text per reference set"))
        method, n, seed = paired_settings(method, n_samples, seed)
        return compare_report(named, refs, options, method, n, seed, comparison, correction)
    except (ValueError, TypeError) as e:
        raise _user_error("/compare", e) from None


def metrics(hypotheses: str, references: List[str]) -> dict:
    """The corpus scored with chrF, chrF++ and TER (sacreBLEU's defaults; TER: lower is better),
    each with its signature. Inputs as for ``/bleu``.

    >>> [r["name"] for r in metrics("a b c d", ["a b c d"])["rows"]]
    ['chrF2', 'chrF2++', 'TER']
    """
    try:
        return metrics_report(hypotheses, api_texts(references, "references", "one text per reference set"))
    except (ValueError, TypeError) as e:
        raise _user_error("/metrics", e) from None


def variants(hypotheses: str, references: List[str]) -> dict:
    """The corpus scored by every BLEU people report (sacreBLEU, evaluate "bleu", NLTK, Moses,
    torchmetrics, T5, GLEU, spBLEU where its model is configured), each with why it differs from
    sacreBLEU: ``bleukit.compare_variants(...).to_dict()``. Inputs as for ``/bleu``.

    >>> variants("a b c d", ["a b c d"])["rows"][0]["name"]
    'sacreBLEU'
    """
    try:
        hyps, refs = parse_corpus(hypotheses, api_texts(references, "references", "one text per reference set"))
        return bleukit.compare_variants(hyps, refs).to_dict()
    except (ValueError, TypeError) as e:
        raise _user_error("/variants", e) from None


# ----------------------------------------------------------------------------- page


def _read_example(name: str) -> str:
    """A bundled example file's text (empty where the examples folder is not shipped)."""
    path = HERE / "examples" / name
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _example(hypotheses: str, *reference_sets: str, **options: Any) -> List[Any]:
    """One row of the examples table: the texts, then every form option, the core's default for
    each one the example does not set (so clicking an example never leaves an earlier choice)."""
    unknown = set(options) - set(FORM_OPTIONS)
    assert not unknown, unknown
    sets = list(reference_sets) + [""] * (MAX_REFERENCE_SETS - len(reference_sets))
    defaults = {**DEFAULTS.to_dict(), "smooth_value": None}
    return [hypotheses, *sets] + [options.get(name, defaults[name]) for name in FORM_OPTIONS]


EXAMPLES = [
    # The README's Python example: the second hypothesis has two references.
    _example(
        "The cat sat on the mat.\nIt is raining today.",
        "The cat sat on the mat.\nIt rains today.",
        "The cat sat on the mat.\nIt is raining today!",
    ),
    # The bundled corpus of `make demo`, against both of its reference files.
    _example(_read_example("hyps.txt"), _read_example("refs.a.txt"), _read_example("refs.b.txt")),
    # The textbook seed examples, on BLEU's 0-100 scale: unigram precision 5/6 -> 83.33 ...
    _example("the cat sat on the mat", "the cat is on the mat", smooth_method="none", max_ngram_order=1),
    # ... and bigram BLEU of "a b c d" against "a b x d": sqrt(3/4 * 1/3) -> 50.00.
    _example("a b c d", "a b x d", smooth_method="none", max_ngram_order=2),
    # Three references, lowercased, floor smoothing.
    _example(
        "The quick brown fox jumps over the lazy dog.\nShe reads a book every evening.",
        "A quick brown fox jumped over the lazy dog.\nEvery evening she reads a book.",
        "The fast brown fox leaps over the lazy dog.\nShe reads one book each evening.",
        "the quick brown fox jumps over a sleepy dog.\nShe is reading a book every night.",
        smooth_method="floor",
        smooth_value=0.1,
        lowercase=True,
    ),
    # Clipping: a hypothesis cannot get credit for a word more often than a reference has it.
    _example(
        "the the the the the the the",
        "The cat is on the mat.",
        "There is a cat on the mat.",
        lowercase=True,
        max_ngram_order=2,
    ),
    # Chinese needs the zh tokenizer (13a would see one long token).
    _example("今天天气很好，我们去公园散步。", "今天天气不错，我们去公园散步吧。", tokenize="zh"),
]

CSS = """
#bleu-score { font-size: 2.6rem; font-weight: 700; }
.bleu-unit { margin-left: .4rem; color: var(--body-text-color-subdued); }
#bleu-summary { white-space: pre-wrap; overflow-wrap: break-word; font-size: .85rem; }
#bleu-signature { overflow-wrap: break-word; word-break: normal; }
.options-used { margin: .2rem 0 .4rem; font-size: .9rem; }
.options-used .changed { color: #a04000; }
.options-used .opt { white-space: nowrap; }
#compare-signature { overflow-wrap: break-word; word-break: normal; }
#compare-summary { margin: .3rem 0; }
.notice { padding: .5rem .8rem; border-radius: 6px; margin: .3rem 0; }
.notice.error { background: #fdecea; color: #8a1c12; border: 1px solid #f5c2bd; }
.notice.note { background: #fff6dc; color: #5c4400; border: 1px solid #f0dca0; }
.bom { background: #f5c2bd; color: #8a1c12; border-radius: 3px; padding: 0 2px; font-size: .8em; }
.toks { line-height: 2.1; }
.tok { padding: 1px 3px; border-radius: 4px; }
.tok.m0 { text-decoration: line-through; text-decoration-color: #c0392b88; }
.tok.m1 { background: #fde9a9; color: #222; }
.tok.m2 { background: #b9e4a6; color: #222; }
.tok.m3 { background: #8fd0e8; color: #222; }
.tok.m4 { background: #c7b3f0; color: #222; }
.row { display: flex; gap: .8rem; margin: .3rem 0; }
.who { min-width: 6.5rem; color: var(--body-text-color-subdued); }
.legend .tok { margin-right: .3rem; }
table.orders { margin-top: .6rem; font-size: .9rem; }
table.orders td, table.orders th { padding: 2px 8px; vertical-align: top; }
"""


def _smoothing_value_box(method: str) -> Dict[str, Any]:
    """The smoothing-value box for a method: for exp and none it is empty and disabled (they take
    no value); for floor and add-k it is editable and names the default."""
    default = SMOOTH_DEFAULTS.get(method)
    if default is None:
        return gr.update(value="", interactive=False, placeholder=f"not used by {method}")
    return gr.update(interactive=True, placeholder=f"default {default}")


def _option_controls(tokenizers: List[str], prefix: str = "") -> List[Any]:
    """The BLEU option inputs, in ``FORM_OPTIONS`` order, with the smoothing-value box wired to
    the method; one helper so both tabs offer the same options (element ids get ``prefix``)."""
    with gr.Row():
        tokenize = gr.Dropdown(tokenizers, value=DEFAULTS.tokenize, label="tokenizer", elem_id=f"{prefix}tokenize")
        smooth_method = gr.Dropdown(
            list(SMOOTH_DEFAULTS), value=DEFAULTS.smooth_method, label="smoothing", elem_id=f"{prefix}smooth-method"
        )
        # Text, not gr.Number: a Number box shows 0 for "no value".
        smooth_value = gr.Textbox(
            "",
            label="smoothing value (floor, add-k)",
            elem_id=f"{prefix}smooth-value",
            max_lines=1,
            interactive=False,
            placeholder=f"not used by {DEFAULTS.smooth_method}",
        )
        max_order = gr.Number(
            DEFAULTS.max_ngram_order,
            label="max n-gram order",
            precision=0,
            minimum=1,
            maximum=MAX_MAX_ORDER,
            elem_id=f"{prefix}max-order",
        )
        with gr.Column():
            lowercase = gr.Checkbox(DEFAULTS.lowercase, label="lowercase", elem_id=f"{prefix}lowercase")
            effective_order = gr.Checkbox(
                DEFAULTS.effective_order, label="effective order (corpus)", elem_id=f"{prefix}effective-order"
            )
    # A method picked by the user shows its default value; any change (an example included,
    # which sets its own value) only enables or clears the box.
    smooth_method.input(
        lambda m: "" if SMOOTH_DEFAULTS.get(m) is None else str(SMOOTH_DEFAULTS[m]),
        smooth_method,
        smooth_value,
        api_visibility="undocumented",
    )
    smooth_method.change(_smoothing_value_box, smooth_method, smooth_value, api_visibility="undocumented")
    return [tokenize, smooth_method, smooth_value, lowercase, max_order, effective_order]


def _reference_boxes(prefix: str = "") -> List[Any]:
    return [
        gr.Textbox(
            label=f"Reference set {k}" + ("" if k == 1 else " (optional)"),
            lines=6 if k == 1 else 2,
            elem_id=f"{prefix}ref-{k}",
        )
        for k in range(1, MAX_REFERENCE_SETS + 1)
    ]


def _score_tab(tokenizers: List[str]) -> None:
    """The scoring tab: one system's score, explained, and the other BLEUs on request."""
    report_state = gr.State(None)
    with gr.Row():
        with gr.Column(scale=3):
            hyps = gr.Textbox(label="Hypotheses (system output)", lines=6, elem_id="hyps")
            hyps_file = gr.File(
                label="or upload the hypotheses (.txt)", file_types=[".txt"], height=130, elem_id="hyps-file"
            )
        with gr.Column(scale=3):
            refs = _reference_boxes()
            refs_file = gr.File(
                label=f"or upload 1-{MAX_REFERENCE_SETS} reference files",
                file_count="multiple",
                file_types=[".txt"],
                height=130,
                elem_id="refs-file",
            )
    options = _option_controls(tokenizers)
    with gr.Row():
        score_btn = gr.Button("Score", variant="primary", elem_id="score-btn", scale=3)
        reset_btn = gr.Button("Reset options to defaults", elem_id="reset-btn", scale=1)
    notice = gr.HTML(elem_id="notice")
    with gr.Row():
        with gr.Column(scale=2):
            score_out = gr.HTML(elem_id="score-out")
            download = gr.DownloadButton("Download the result (JSON)", elem_id="download", visible=False)
        with gr.Column(scale=3):
            chart = gr.BarPlot(
                x="part",
                y="value",
                color="kind",
                y_lim=[0, 100],
                sort=None,
                x_title="",
                y_title="percent",
                color_title="",
                label="n-gram precisions and brevity penalty",
                height=260,
                elem_id="chart",
            )
    with gr.Accordion(
        "Other BLEUs: NLTK, evaluate, Moses, torchmetrics, T5, GLEU, spBLEU", open=False, elem_id="variants"
    ):
        gr.Markdown(
            "The same text (hypotheses and reference sets above) scored by every BLEU implementation "
            "people report, each with its own defaults (the options above do not apply), and what makes "
            "it differ from sacreBLEU. Computed on request: it is pure Python and takes seconds on "
            "thousands of lines."
        )
        variants_btn = gr.Button("Score with every variant", elem_id="variants-btn")
        variants_notice = gr.HTML(elem_id="variants-notice")
        variants_table = gr.Dataframe(
            headers=VARIANT_COLUMNS,
            datatype=["str", "str", "str"],
            column_widths=["22%", "9%", "69%"],
            interactive=False,
            wrap=True,
            elem_id="variants-table",
        )
    with gr.Accordion("Other metrics: chrF, chrF++, TER", open=False, elem_id="metrics"):
        gr.Markdown(
            "The same text scored with sacreBLEU's chrF, chrF++ and TER, each with its defaults (the "
            "BLEU options above do not apply) and its signature. TER is an error rate: lower is better."
        )
        metrics_btn = gr.Button("Score with chrF, chrF++ and TER", elem_id="metrics-btn")
        metrics_notice = gr.HTML(elem_id="metrics-notice")
        metrics_table = gr.Dataframe(
            headers=METRIC_COLUMNS,
            datatype=["str"] * len(METRIC_COLUMNS),
            column_widths=["12%", "10%", "10%", "68%"],
            interactive=False,
            wrap=True,
            elem_id="metrics-table",
        )
    gr.Markdown(
        "### Sentences\nSentence BLEU as `sacrebleu.sentence_bleu` computes it (the options above, "
        "with effective order). Click a row to see why it gets its score."
    )
    with gr.Row():
        sort = gr.Radio(SORT_CHOICES, value=SORT_CHOICES[0], label="sort by", elem_id="sort")
        line = gr.Number(1, label="line", precision=0, minimum=1, elem_id="line")
        highlight = gr.Dropdown([ALL_ORDERS], value=ALL_ORDERS, label="highlight", elem_id="highlight")
    table = gr.Dataframe(
        headers=TABLE_COLUMNS,
        datatype=["number", "number", "number", "number", "str"],
        # Fixed widths for the numbers, the rest for the text: long real sentences wrap inside
        # their own column instead of squeezing the others ("senten ce BLEU").
        column_widths=["7%", "13%", "9%", "9%", "62%"],
        interactive=False,
        wrap=True,
        max_height=420,
        elem_id="sentences",
    )
    gr.Markdown("### Why this score")
    explanation = gr.HTML(elem_id="explanation")

    form = [hyps, *refs, *options]
    assert len(form) == 1 + MAX_REFERENCE_SETS + len(FORM_OPTIONS)
    gr.Examples(EXAMPLES, inputs=form, label="Examples (each sets every option; the score shows the options used)")

    score_btn.click(
        on_score,
        inputs=form + [sort],
        outputs=[notice, score_out, chart, table, report_state, download, line, highlight, explanation],
        api_visibility="undocumented",
    ).then(
        clear_variants,
        None,
        [variants_notice, variants_table, metrics_notice, metrics_table],
        api_visibility="undocumented",
    )
    metrics_btn.click(on_metrics, [hyps, *refs], [metrics_notice, metrics_table], api_visibility="undocumented")
    reset_btn.click(reset_options, None, options, api_visibility="undocumented")
    variants_btn.click(on_variants, [hyps, *refs], [variants_notice, variants_table], api_visibility="undocumented")
    sort.change(on_sort, [report_state, sort], table, api_visibility="undocumented")
    table.select(on_select, [report_state, highlight], [line, explanation], api_visibility="undocumented")
    line.submit(on_explain, [report_state, line, highlight], explanation, api_visibility="undocumented")
    highlight.change(on_explain, [report_state, line, highlight], explanation, api_visibility="undocumented")
    hyps_file.upload(on_upload_hyps, hyps_file, [hyps, notice], api_visibility="undocumented")
    refs_file.upload(on_upload_refs, refs_file, refs + [notice], api_visibility="undocumented")


def _compare_tab(tokenizers: List[str]) -> None:
    """The compare tab: 2-5 systems against the first, with p-values, CIs and their distributions;
    optionally corrected for the number of comparisons, and all pairs ranked in clusters."""
    gr.Markdown(
        f"Is a system really better than the baseline? Paste or upload {MAX_SYSTEMS} systems at most "
        "(the first filled one is the baseline), all translating the same segments, and their "
        "references. The paired tests are sacreBLEU's (`--paired-bs`, `--paired-ar`): the same seed "
        "gives the same p-values. With several systems, correct the p-values for the number of "
        "comparisons, or test all pairs for a ranking with significance clusters."
    )
    with gr.Row():
        with gr.Column(scale=3):
            names, systems = [], []
            for k in range(1, MAX_SYSTEMS + 1):
                with gr.Row():
                    names.append(
                        gr.Textbox(
                            label="name",
                            placeholder=f"system {k}",
                            max_lines=1,
                            scale=1,
                            min_width=120,
                            elem_id=f"cmp-name-{k}",
                        )
                    )
                    systems.append(
                        gr.Textbox(
                            label=f"System {k}" + (" (baseline)" if k == 1 else "" if k == 2 else " (optional)"),
                            lines=3 if k <= 2 else 1,
                            max_lines=6,
                            scale=4,
                            elem_id=f"cmp-sys-{k}",
                        )
                    )
            systems_file = gr.File(
                label=f"or upload 2-{MAX_SYSTEMS} system files (the first is the baseline)",
                file_count="multiple",
                file_types=[".txt"],
                height=130,
                elem_id="cmp-sys-file",
            )
        with gr.Column(scale=2):
            refs = _reference_boxes("cmp-")
            refs_file = gr.File(
                label=f"or upload 1-{MAX_REFERENCE_SETS} reference files",
                file_count="multiple",
                file_types=[".txt"],
                height=130,
                elem_id="cmp-refs-file",
            )
    options = _option_controls(tokenizers, "cmp-")
    with gr.Row():
        method = gr.Radio(list(METHODS), value=list(METHODS)[0], label="test", elem_id="cmp-method")
        n_samples = gr.Number(
            DEFAULT_SAMPLES["bs"],
            label=f"samples (sacreBLEU's default: bs {DEFAULT_SAMPLES['bs']:,}, ar {DEFAULT_SAMPLES['ar']:,})",
            precision=0,
            minimum=1,
            maximum=MAX_PAIRED_SAMPLES,
            elem_id="cmp-n",
        )
        seed = gr.Number(DEFAULT_SEED, label="seed", precision=0, minimum=0, elem_id="cmp-seed")
        metric = gr.Dropdown(
            list(METRIC_CHOICES),
            value="BLEU",
            label="metric (chrF, chrF++, TER: sacreBLEU's defaults; TER: lower is better)",
            elem_id="cmp-metric",
        )
    with gr.Row():
        comparison = gr.Radio(
            list(COMPARISONS), value=list(COMPARISONS)[0], label="compare", elem_id="cmp-comparison"
        )
        correction = gr.Radio(
            list(CORRECTIONS),
            value=list(CORRECTIONS)[0],
            label="correction for multiple comparisons",
            elem_id="cmp-correction",
        )
    compare_btn = gr.Button("Compare", variant="primary", elem_id="compare-btn")
    notice = gr.HTML(elem_id="compare-notice")
    table = gr.Dataframe(
        headers=COMPARE_COLUMNS,
        datatype=["str"] * len(COMPARE_COLUMNS),
        column_widths=["34%", "12%", "20%", "16%", "18%"],
        interactive=False,
        wrap=True,
        elem_id="compare-table",
    )
    summary = gr.HTML(elem_id="compare-out")
    gr.Markdown("#### Bootstrap distribution of each system's score")
    # No label: Gradio draws it inside the plot's fixed height, which then cuts off the legend.
    plot = gr.LinePlot(
        x="score",
        y="share of resamples (%)",
        color="system",
        sort="x",
        x_title="corpus score of a bootstrap resample",
        y_title="share of resamples (%)",
        color_title="system",
        show_label=False,
        height=380,
        elem_id="compare-plot",
    )
    inputs = systems + names + refs + options + [method, n_samples, seed, metric, comparison, correction]
    compare_btn.click(on_compare, inputs, [notice, table, summary, plot], api_visibility="undocumented")
    method.input(on_method, method, n_samples, api_visibility="undocumented")
    systems_file.upload(on_upload_systems, systems_file, systems + names + [notice], api_visibility="undocumented")
    refs_file.upload(
        lambda paths: on_upload_refs(paths, name="compare"), refs_file, refs + [notice], api_visibility="undocumented"
    )


def build_demo() -> gr.Blocks:
    """The page and its API endpoints (module-level ``demo`` is what a Space or ``python app.py``
    launches)."""
    tokenizers = available_tokenizers()
    with gr.Blocks(title="bleukit: BLEU, explained", analytics_enabled=False, delete_cache=(3600, 3600)) as demo:
        gr.Markdown(
            f"# BLEU, explained\nsacreBLEU-exact BLEU (bleukit {bleukit.__version__}). One segment per "
            f"line; line *i* of every reference set belongs to hypothesis line *i*. Up to "
            f"{MAX_REFERENCE_SETS} reference sets, {MAX_SEGMENTS:,} lines and {MAX_CHARS:,} characters per field. "
            "Files are read as UTF-8; a byte-order mark is kept, as sacreBLEU keeps it, and flagged."
        )
        with gr.Tabs():
            with gr.Tab("Score", elem_id="score-tab"):
                _score_tab(tokenizers)
            with gr.Tab("Compare systems", elem_id="compare-tab"):
                _compare_tab(tokenizers)

        gr.api(bleu, api_name="bleu")
        gr.api(explain, api_name="explain")
        gr.api(compare, api_name="compare")
        gr.api(variants, api_name="variants")
        gr.api(metrics, api_name="metrics")
    demo.queue(default_concurrency_limit=2, max_size=32)
    return demo


demo = build_demo()

if __name__ == "__main__":
    demo.launch(
        server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
        max_file_size=MAX_FILE_SIZE,
        css=CSS,
        # Errors raised before an endpoint runs (an API call with too few input values) reach the
        # client with Gradio's message instead of a null one; ours are gr.Error and shown anyway.
        show_error=True,
    )
