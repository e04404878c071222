"""The page's event handlers: each reads the form (:mod:`bleukit.app.forms`), computes
(:mod:`bleukit.app.reports`) and returns what every output shows (:mod:`bleukit.app.views`). An
input error is the user's, not the server's: one message above the results, every earlier result
cleared, one line in the log and no traceback.
"""

from __future__ import annotations

import json
import logging
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import gradio as gr
import pandas as pd

from bleukit.compat.variants import compare_variants
from bleukit.defaults import DEFAULT_SAMPLES

from .forms import (
    ALL_ORDERS,
    CHRF_FORM_OPTIONS,
    COMPARE_COLUMNS,
    COMPARISONS,
    CORRECTIONS,
    DEFAULTS,
    FORM_OPTIONS,
    MAX_NAME_CHARS,
    MAX_REFERENCE_SETS,
    MAX_SYSTEMS,
    METHODS,
    METRIC_COLUMNS,
    SCORE_TABLE_DEFAULTS,
    TABLE_COLUMNS,
    TER_FORM_OPTIONS,
    VARIANT_COLUMNS,
    make_options,
    metric_options,
    paired_settings,
    parse_corpus,
    parse_systems,
    read_upload,
    tab_separated_references,
    testset_references,
)
from .reports import compare_counted, count_systems, metrics_report, score_report, upload_table_report
from .state import ScoredCorpus
from .views import (
    bom_notes,
    compare_frame,
    compare_summary_html,
    distribution_frame,
    explanation_panel,
    metrics_frame,
    notice_html,
    parts_frame,
    score_html,
    score_table_frame,
    score_table_summary_html,
    sentence_table,
    variants_frame,
)

# Input errors are the user's, not the server's: one line each in the server log, no traceback.


log = logging.getLogger("bleukit.app")
_DOWNLOADS = Path(tempfile.gettempdir()) / "bleukit-app"
_DOWNLOAD_AGE_S = 3600


def write_json(report: Dict[str, Any]) -> str:
    """Write the report for download; reports older than an hour are removed on the way.

    >>> json.loads(Path(write_json({"score": 1.5})).read_text(encoding="utf-8"))
    {'score': 1.5}
    """
    return _write_download("bleu", ".json", json.dumps(report, ensure_ascii=False, indent=2))


def write_html(page: str) -> str:
    """Write a self-contained page for download (next to the JSON downloads, removed after an hour
    likewise).

    >>> Path(write_html("<!DOCTYPE html>")).read_text(encoding="utf-8")
    '<!DOCTYPE html>'
    """
    return _write_download("scores", ".html", page)


def _write_download(prefix: str, suffix: str, text: str) -> str:
    """A new file ``<prefix>-<random><suffix>`` for download holding ``text``; files of that kind
    older than an hour are removed on the way."""
    _DOWNLOADS.mkdir(parents=True, exist_ok=True)
    now = time.time()
    for old in _DOWNLOADS.glob(f"{prefix}-*{suffix}"):
        try:
            if now - old.stat().st_mtime > _DOWNLOAD_AGE_S:
                old.unlink()
        except OSError:
            pass
    path = _DOWNLOADS / f"{prefix}-{uuid.uuid4().hex[:12]}{suffix}"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _log_input_error(where: str, e: Exception) -> None:
    log.warning("input error in %s: %s", where, " ".join(str(e).split()))


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
        report = score_report(hyps_text, [ref1, ref2, ref3, ref4], options=options)
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
        ScoredCorpus.from_report(report),
        gr.update(value=write_json(report), visible=True),
        gr.update(value=1, maximum=len(report["sentences"])),
        gr.update(choices=order_choices, value=ALL_ORDERS),
        explanation_panel(1, first["hypothesis"], first["references"], options, first["score"], None),
    )


def on_sort(run: Optional[ScoredCorpus], sort: str) -> Any:
    """Sort control: the table again, in the new order."""
    if run is None:
        return gr.update()
    return sentence_table(run.report, sort)


def _explain_line(run: Optional[ScoredCorpus], line: Optional[float], highlight: Optional[str]) -> str:
    if run is None:
        return notice_html(["Score a corpus first."], error=True)
    if line is None or not 1 <= int(line) <= len(run):
        return notice_html([f"Line must be between 1 and {len(run)}."], error=True)
    s = run.sentence(int(line))
    order = None if highlight in (None, ALL_ORDERS) else int(highlight)
    return explanation_panel(s.line, s.hypothesis, s.references, run.options, s.score, order)


def on_select(run: Optional[ScoredCorpus], highlight: Optional[str], evt: gr.SelectData) -> Tuple[int, str]:
    """A click in the table: the row's line number (column 0 survives any sorting) and its explanation."""
    line = int(evt.row_value[0])
    return line, _explain_line(run, line, highlight)


def on_explain(run: Optional[ScoredCorpus], line: Optional[float], highlight: Optional[str]) -> str:
    """Line number or highlight choice changed: explain that line again."""
    return _explain_line(run, line, highlight)


def on_upload_hyps(path: Optional[str]) -> Tuple[Any, str]:
    """Hypothesis file upload: its text into the hypotheses box, and a notice (an error, or the
    byte-order-mark note) above the results."""
    try:
        text = read_upload(path, "The hypothesis file")
    except ValueError as e:
        _log_input_error("upload", e)
        return gr.update(), notice_html([str(e)], error=True)
    return text, notice_html(bom_notes([("the hypotheses", text)]))


def _read_uploads(paths: List[str], limit: int, kind: str, label: str) -> List[str]:
    """The texts of several uploaded files, each checked by :func:`read_upload`; at most ``limit``."""
    if len(paths) > limit:
        raise ValueError(f"At most {limit} {kind} files, got {len(paths)}.")
    return [read_upload(p, f"{label} file {k}") for k, p in enumerate(paths, start=1)]


def on_upload_refs(paths: Optional[List[str]], name: str = "bleu") -> Tuple[Any, ...]:
    """Reference files upload: one file per reference set box, the other boxes emptied; the last
    output is the notice, as for the hypotheses (``name``: whose notice, see :func:`notice_html`)."""
    paths = list(paths or [])
    split_notes: List[str] = []
    try:
        texts: List[str] = []
        for k, text in enumerate(_read_uploads(paths, MAX_REFERENCE_SETS, "reference", "Reference"), start=1):
            # sacreBLEU's --num-refs layout: one reference set per tab-separated column
            columns = tab_separated_references(text)
            if columns is not None:
                first = len(texts) + 1
                split_notes.append(
                    f"Reference file {k} holds {len(columns)} tab-separated references per line (sacreBLEU's "
                    f"--num-refs layout): split into reference sets {first}-{first + len(columns) - 1}."
                )
            texts.extend(columns or [text])
        if len(texts) > MAX_REFERENCE_SETS:
            raise ValueError(
                f"The reference files hold {len(texts)} reference sets (tab-separated columns count one each): "
                f"at most {MAX_REFERENCE_SETS}."
            )
    except ValueError as e:
        _log_input_error("upload", e)
        return (gr.update(),) * MAX_REFERENCE_SETS + (notice_html([str(e)], error=True, name=name),)
    notes = split_notes + bom_notes(
        [(f"reference set {k}", t) for k, t in enumerate(texts, start=1)], drawn=name == "bleu"
    )
    return tuple(texts + [""] * (MAX_REFERENCE_SETS - len(texts))) + (notice_html(notes, name=name),)


def on_load_testset(testset: Optional[str], langpair: Optional[str], name: str = "bleu") -> Tuple[Any, ...]:
    """A registered test set's references (sacreBLEU's cache) into the reference set boxes, one
    set per reference, the other boxes emptied, as an upload of its reference files would; the last
    output is the notice (``name``: whose notice, see :func:`notice_html`)."""
    try:
        fields, streams = testset_references(testset, langpair)
    except ValueError as e:
        _log_input_error("test set", e)
        return (gr.update(),) * MAX_REFERENCE_SETS + (notice_html([str(e)], error=True, name=name),)
    texts = ["".join(f"{line}\n" for line in stream) for stream in streams]
    boxes = "reference set 1" if len(texts) == 1 else f"reference sets 1-{len(texts)}"
    note = (f"{str(testset).strip()} {str(langpair).strip()}: {len(streams[0]):,} segments; its references "
            f"({', '.join(fields)}) are in {boxes}. The hypotheses must translate its source, line for line "
            f"(bleukit -t {str(testset).strip()} -l {str(langpair).strip()} --echo src).")
    return tuple(texts + [""] * (MAX_REFERENCE_SETS - len(texts))) + (notice_html([note], name=name),)


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
    ``COMPARISONS`` label), the correction (a ``CORRECTIONS`` label), then chrF's options
    (``CHRF_FORM_OPTIONS``) and TER's (``TER_FORM_OPTIONS``; their defaults when left out). Returns
    the notice, the table, the summary with the signature (and the ranking of all pairs when asked)
    and the plot data; an input error shows its message and clears the results instead."""
    texts, names = values[:MAX_SYSTEMS], values[MAX_SYSTEMS : 2 * MAX_SYSTEMS]
    sets = values[2 * MAX_SYSTEMS : 2 * MAX_SYSTEMS + MAX_REFERENCE_SETS]
    rest = values[2 * MAX_SYSTEMS + MAX_REFERENCE_SETS :]
    form_options, settings = rest[: len(FORM_OPTIONS)], rest[len(FORM_OPTIONS) :]
    method, n_samples, seed = settings[:3]
    chosen = list(settings[3:6])
    metric, comparison, correction = chosen + ["BLEU", list(COMPARISONS)[0], list(CORRECTIONS)[0]][len(chosen) :]
    metric_values = settings[6:]
    keywords = dict(zip(CHRF_FORM_OPTIONS + TER_FORM_OPTIONS, metric_values))
    try:
        options = metric_options(metric, make_options(*form_options), keywords)
        systems, refs = parse_systems(list(texts), list(names), list(sets))
        method, n, seed = paired_settings(method, n_samples, seed)
        # each system tokenized and counted once; the test, ranking and plot share its tables
        result = compare_counted(
            count_systems(systems, refs, options), method, n, seed, COMPARISONS.get(comparison, comparison),
            CORRECTIONS.get(correction, correction),
        )
    except (ValueError, TypeError) as e:
        _log_input_error("compare", e)
        return compare_error_outputs(str(e))
    fields = [(f"system {k}", t) for k, t in enumerate(texts, 1)] + [
        (f"reference set {k}", t) for k, t in enumerate(sets, 1)
    ]
    return (
        notice_html(bom_notes(fields, drawn=False), name="compare"),
        compare_frame(result.report),
        compare_summary_html(result.report, result.plot_samples),
        distribution_frame(result.distributions),
    )


def on_method(method: str) -> int:
    """A test picked by the user: its number of samples back to sacreBLEU's default for it."""
    return DEFAULT_SAMPLES[METHODS.get(method, method)]


def on_upload_systems(paths: Optional[List[str]]) -> Tuple[Any, ...]:
    """System files upload: one file per system box (the first is the baseline), each named after
    its file, the other boxes emptied; the last output is the notice."""
    paths = list(paths or [])
    try:
        texts = _read_uploads(paths, MAX_SYSTEMS, "system", "System")
    except ValueError as e:
        _log_input_error("upload", e)
        return (gr.update(),) * (2 * MAX_SYSTEMS) + (notice_html([str(e)], error=True, name="compare"),)
    names = [Path(p).name[:MAX_NAME_CHARS] for p in paths]
    notes = bom_notes([(f"system {k}", t) for k, t in enumerate(texts, start=1)], drawn=False)
    empty = [""] * (MAX_SYSTEMS - len(paths))
    return tuple(texts + empty + names + empty) + (notice_html(notes, name="compare"),)


def on_metrics(hyps_text: str, ref1: str, ref2: str, ref3: str, ref4: str, *metric_values: Any
               ) -> Tuple[str, pd.DataFrame]:
    """Other metrics button: the scoring tab's text scored with chrF, chrF++ and TER, with the
    panel's options (``CHRF_FORM_OPTIONS + TER_FORM_OPTIONS``; their defaults when left out); an
    input error shows its message and clears the table."""
    try:
        keywords = dict(zip(CHRF_FORM_OPTIONS + TER_FORM_OPTIONS, metric_values))
        report = metrics_report(hyps_text, [ref1, ref2, ref3, ref4], keywords)
    except (ValueError, TypeError) as e:
        _log_input_error("metrics", e)
        return notice_html([str(e)], error=True, name="metrics"), pd.DataFrame([], columns=METRIC_COLUMNS)
    return "", metrics_frame(report)


def on_variants(hyps_text: str, ref1: str, ref2: str, ref3: str, ref4: str) -> Tuple[str, pd.DataFrame]:
    """Other BLEUs button: the scoring tab's text scored by every variant (each with its own
    defaults), and a note naming those that could not run; an input error clears the table."""
    try:
        hyps, refs = parse_corpus(hyps_text, [ref1, ref2, ref3, ref4])
        table = compare_variants(hyps, refs)
    except (ValueError, TypeError) as e:
        _log_input_error("variants", e)
        return notice_html([str(e)], error=True, name="variants"), pd.DataFrame([], columns=VARIANT_COLUMNS)
    notes = [f"{name} not scored: {why}." for name, why in table.skipped.items()]
    return notice_html(notes, name="variants"), variants_frame(table)


def clear_variants() -> Tuple[str, pd.DataFrame, str, pd.DataFrame]:
    """A new score: the variants and other metrics tables of an earlier text are cleared (they are
    computed on request)."""
    return "", pd.DataFrame([], columns=VARIANT_COLUMNS), "", pd.DataFrame([], columns=METRIC_COLUMNS)


def scores_error_outputs(message: str) -> tuple:
    """Every output of the score-table button for an input error: the message once, the earlier
    table, summary and download cleared."""
    return (notice_html([message], error=True, name="scores"), pd.DataFrame([], columns=["System"]), "",
            gr.update(value=None, visible=False))


def on_scores(
    score_files: Optional[List[str]],
    system_files: Optional[List[str]],
    reference_files: Optional[List[str]],
    score_format: str = SCORE_TABLE_DEFAULTS.score_format,
    metric: Optional[str] = None,
    language_pair: Optional[str] = None,
    lower_is_better: Optional[str] = None,
    lexical: Optional[List[str]] = None,
    method: str = SCORE_TABLE_DEFAULTS.method,
    n_samples: Any = SCORE_TABLE_DEFAULTS.n_samples,
    seed: Any = SCORE_TABLE_DEFAULTS.seed,
    correction: str = SCORE_TABLE_DEFAULTS.correction,
    autorank: str = SCORE_TABLE_DEFAULTS.autorank,
    drop_missing: bool = SCORE_TABLE_DEFAULTS.drop_missing,
    progress: Any = gr.Progress(),  # noqa: B008 (Gradio fills in a Progress default on the page)
) -> tuple:
    """Systems × metrics button: the uploaded segment-score files (``bleukit.read_scores``'s formats)
    and, with the systems' text and references, BLEU/chrF/chrF++/TER (``lexical``), as one table of
    score ± 95% CI [cluster] per metric (``bleukit.score_table``, through
    :func:`~bleukit.app.reports.upload_table_report`, as ``/scores``), with AutoRank when asked, each
    metric's signature, and the table's self-contained HTML page to download. Returns the notice,
    the table, the summary and the download; an input error shows its message and clears them.
    ``progress`` shows the resamples done (Gradio fills it in on the page)."""
    try:
        table = upload_table_report(
            score_files, system_files, reference_files, score_format, metric, language_pair, lower_is_better,
            lexical, method, n_samples, seed, correction, autorank, drop_missing,
            progress=lambda done, total: progress((done, total), desc="resampling", unit="samples"),
        )
    except (ValueError, TypeError) as e:
        _log_input_error("scores", e)
        return scores_error_outputs(str(e))
    return (
        "",
        score_table_frame(table),
        score_table_summary_html(table),
        gr.update(value=write_html(table.to_html(title="bleukit: systems × metrics")), visible=True),
    )
