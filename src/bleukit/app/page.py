"""The page's layout: the scoring tab, the compare tab, the API endpoints and the wiring of every
event to :mod:`bleukit.app.callbacks`. Gradio is imported here, so only when the app is built.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Tuple

import gradio as gr

from bleukit._version import __version__
from bleukit.defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from bleukit.metrics.bleu.options import SMOOTH_DEFAULTS
from bleukit.metrics.chrf.options import ChrfOptions
from bleukit.metrics.ter.options import TerOptions

from . import api
from .callbacks import (
    clear_variants,
    on_compare,
    on_explain,
    on_load_testset,
    on_method,
    on_metrics,
    on_score,
    on_scores,
    on_select,
    on_sort,
    on_upload_hyps,
    on_upload_refs,
    on_upload_systems,
    on_variants,
    reset_options,
)
from .examples import EXAMPLE_LABELS, EXAMPLES
from .forms import (
    ALL_ORDERS,
    AUTORANK_CHOICES,
    CHRF_FORM_OPTIONS,
    COMPARE_COLUMNS,
    COMPARISONS,
    CORRECTIONS,
    DEFAULTS,
    FORM_OPTIONS,
    MAX_CHAR_ORDER,
    MAX_CHARS,
    MAX_FILE_SIZE,
    MAX_MAX_ORDER,
    MAX_PAIRED_SAMPLES,
    MAX_REFERENCE_SETS,
    MAX_SCORE_FILES,
    MAX_SEGMENTS,
    MAX_SYSTEMS,
    MAX_TABLE_SYSTEMS,
    METHODS,
    METRIC_CHOICES,
    METRIC_COLUMNS,
    SCORE_FORMATS,
    SCORE_TABLE_DEFAULTS,
    SORT_CHOICES,
    TABLE_COLUMNS,
    TER_FORM_OPTIONS,
    VARIANT_COLUMNS,
    available_tokenizers,
)
from .views import CSS_PATH


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
            label=f"max n-gram order (1-{MAX_MAX_ORDER})",
            # no precision: Gradio would round 2.5 to 2 silently; the form names it instead
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


def _metric_option_controls(prefix: str = "") -> List[Any]:
    """chrF's and TER's options, in ``CHRF_FORM_OPTIONS + TER_FORM_OPTIONS`` order, at the library's
    defaults (a closed panel: they apply only to those metrics); element ids get ``prefix``."""
    chrf, ter = ChrfOptions(), TerOptions()
    with gr.Accordion("chrF / chrF++ and TER options", open=False, elem_id=f"{prefix}metric-options"):
        with gr.Row():
            controls = [
                gr.Number(chrf.char_order, label=f"chrF character n-gram order (1-{MAX_CHAR_ORDER})",
                          elem_id=f"{prefix}chrf-char-order"),
                gr.Number(chrf.beta, label="chrF beta (recall's weight)", elem_id=f"{prefix}chrf-beta"),
                gr.Checkbox(chrf.lowercase, label="chrF lowercase", elem_id=f"{prefix}chrf-lowercase"),
                gr.Checkbox(chrf.whitespace, label="chrF keeps whitespace", elem_id=f"{prefix}chrf-whitespace"),
                gr.Checkbox(chrf.eps_smoothing, label="chrF eps smoothing", elem_id=f"{prefix}chrf-eps"),
            ]
        with gr.Row():
            controls += [
                gr.Checkbox(ter.normalized, label="TER normalized", elem_id=f"{prefix}ter-normalized"),
                gr.Checkbox(ter.no_punct, label="TER without punctuation", elem_id=f"{prefix}ter-no-punct"),
                gr.Checkbox(ter.asian_support, label="TER Asian support", elem_id=f"{prefix}ter-asian"),
                gr.Checkbox(ter.case_sensitive, label="TER case-sensitive", elem_id=f"{prefix}ter-case"),
            ]
    assert len(controls) == len(CHRF_FORM_OPTIONS + TER_FORM_OPTIONS)
    return controls


def _reference_boxes(prefix: str = "") -> List[Any]:
    return [
        gr.Textbox(
            label=f"Reference set {k}" + ("" if k == 1 else " (optional)"),
            lines=6 if k == 1 else 2,
            elem_id=f"{prefix}ref-{k}",
        )
        for k in range(1, MAX_REFERENCE_SETS + 1)
    ]


def _testset_controls(prefix: str = "") -> Tuple[Any, Any, Any]:
    """A registered test set's name and language pair, and the button that loads its references
    into the reference boxes (from sacreBLEU's cache, as ``bleukit -t NAME -l PAIR`` scores)."""
    with gr.Row():
        name = gr.Textbox(label="or a test set (e.g. wmt22)", max_lines=1, scale=2, min_width=100,
                          elem_id=f"{prefix}testset")
        pair = gr.Textbox(label="language pair (e.g. de-en)", max_lines=1, scale=2, min_width=100,
                          elem_id=f"{prefix}langpair")
        load = gr.Button("Load its references", scale=1, min_width=100, elem_id=f"{prefix}testset-btn")
    return name, pair, load


def _score_tab(tokenizers: List[str]) -> None:
    """The scoring tab: one system's score, explained, and the other BLEUs on request."""
    report_state = gr.State(None)
    with gr.Row():
        with gr.Column(scale=3):
            hyps = gr.Textbox(label="Hypotheses (system output)", lines=6, elem_id="hyps")
            # No extension filter: MT files are named .de, .zh, .ja ...; read_upload checks the content.
            hyps_file = gr.File(label="or upload the hypotheses (a UTF-8 text file)", height=130, elem_id="hyps-file")
        with gr.Column(scale=3):
            refs = _reference_boxes()
            refs_file = gr.File(
                label=f"or upload 1-{MAX_REFERENCE_SETS} reference files",
                file_count="multiple",
                height=130,
                elem_id="refs-file",
            )
            testset, langpair, testset_btn = _testset_controls()
    options = _option_controls(tokenizers)
    form = [hyps, *refs, *options]
    assert len(form) == 1 + MAX_REFERENCE_SETS + len(FORM_OPTIONS)
    # Beside the inputs it fills, as labels (a table of every field would be cut off).
    gr.Examples(
        EXAMPLES,
        inputs=form,
        example_labels=EXAMPLE_LABELS,
        examples_per_page=len(EXAMPLES),
        label="Examples (each sets the texts and every option; the score shows the options used)",
        elem_id="examples",
    )
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
            "The same text scored with sacreBLEU's chrF, chrF++ and TER, each with its own options "
            "(sacreBLEU's defaults until changed below; the BLEU options above do not apply) and its "
            "signature. TER is an error rate: lower is better."
        )
        metric_inputs = _metric_option_controls()
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
        line = gr.Number(1, label="line", precision=0, elem_id="line")
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
    metrics_btn.click(
        on_metrics, [hyps, *refs, *metric_inputs], [metrics_notice, metrics_table], api_visibility="undocumented"
    )
    reset_btn.click(reset_options, None, options, api_visibility="undocumented")
    variants_btn.click(on_variants, [hyps, *refs], [variants_notice, variants_table], api_visibility="undocumented")
    sort.change(on_sort, [report_state, sort], table, api_visibility="undocumented")
    table.select(on_select, [report_state, highlight], [line, explanation], api_visibility="undocumented")
    line.submit(on_explain, [report_state, line, highlight], explanation, api_visibility="undocumented")
    highlight.change(on_explain, [report_state, line, highlight], explanation, api_visibility="undocumented")
    hyps_file.upload(on_upload_hyps, hyps_file, [hyps, notice], api_visibility="undocumented")
    refs_file.upload(on_upload_refs, refs_file, refs + [notice], api_visibility="undocumented")
    testset_btn.click(on_load_testset, [testset, langpair], refs + [notice], api_visibility="undocumented")


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
                height=130,
                elem_id="cmp-sys-file",
            )
        with gr.Column(scale=2):
            refs = _reference_boxes("cmp-")
            refs_file = gr.File(
                label=f"or upload 1-{MAX_REFERENCE_SETS} reference files",
                file_count="multiple",
                height=130,
                elem_id="cmp-refs-file",
            )
            testset, langpair, testset_btn = _testset_controls("cmp-")
    options = _option_controls(tokenizers, "cmp-")
    with gr.Row():
        method = gr.Radio(list(METHODS), value=list(METHODS)[0], label="test", elem_id="cmp-method")
        n_samples = gr.Number(
            DEFAULT_SAMPLES["bs"],
            label=f"samples, 1-{MAX_PAIRED_SAMPLES:,} (sacreBLEU's default: bs {DEFAULT_SAMPLES['bs']:,}, "
            f"ar {DEFAULT_SAMPLES['ar']:,})",
            elem_id="cmp-n",
        )
        seed = gr.Number(DEFAULT_SEED, label="seed", precision=0, elem_id="cmp-seed")
        metric = gr.Dropdown(
            list(METRIC_CHOICES),
            value="BLEU",
            label="metric (chrF, chrF++, TER: their options below; TER: lower is better)",
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
    metric_inputs = _metric_option_controls("cmp-")
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
    inputs += metric_inputs
    compare_btn.click(on_compare, inputs, [notice, table, summary, plot], api_visibility="undocumented")
    method.input(on_method, method, n_samples, api_visibility="undocumented")
    systems_file.upload(on_upload_systems, systems_file, systems + names + [notice], api_visibility="undocumented")
    refs_file.upload(
        lambda paths: on_upload_refs(paths, name="compare"), refs_file, refs + [notice], api_visibility="undocumented"
    )
    testset_btn.click(
        lambda set_name, pair: on_load_testset(set_name, pair, name="compare"), [testset, langpair], refs + [notice],
        api_visibility="undocumented",
    )


def _scores_tab() -> None:
    """The systems × metrics tab: segment-score files (COMET, MetricX, WMT25, LLM judges, human
    scores) and, with the systems' text, BLEU/chrF/TER in one table of score ± CI [cluster] per
    metric, AutoRank when asked, a signature per metric, and the table as an HTML page (``/scores``
    gives the same table as JSON). Its settings open at ``SCORE_TABLE_DEFAULTS``, ``/scores``'s defaults."""
    settings = SCORE_TABLE_DEFAULTS
    gr.Markdown(
        f"Any metric's segment scores next to BLEU, chrF and TER: upload up to {MAX_SCORE_FILES} score files "
        "(COMET's output, MetricX JSONL, WMT25 `automatic_scores/*.jsonl`, mt-metrics-eval `*.seg.score`, one "
        "number per line, TSV/CSV; read as `bleukit-scores` reads them) and, for the text metrics, each "
        "system's translation (named as its scores name it: `sysA.txt` is system `sysA`) and the references. "
        f"Up to {MAX_TABLE_SYSTEMS} systems; every metric is tested on the same resamples."
    )
    with gr.Row():
        score_files = gr.File(label="segment-score files", file_count="multiple", height=130,
                              elem_id="scores-file")
        system_files = gr.File(label="system files (for BLEU, chrF, TER)", file_count="multiple", height=130,
                               elem_id="scores-sys-file")
        reference_files = gr.File(label=f"1-{MAX_REFERENCE_SETS} reference files", file_count="multiple",
                                  height=130, elem_id="scores-refs-file")
    with gr.Row():
        score_format = gr.Dropdown(list(SCORE_FORMATS), value=settings.score_format, label="score file format",
                                   elem_id="scores-format")
        metric = gr.Textbox(label="metric name (files that do not name it)", max_lines=1, elem_id="scores-metric")
        language_pair = gr.Textbox(label="language pair (WMT25 files, e.g. cs-de_DE)", max_lines=1,
                                   elem_id="scores-lp")
        lower = gr.Textbox(label="lower is better (metrics, comma-separated)", max_lines=1, elem_id="scores-lower")
    with gr.Row():
        lexical = gr.CheckboxGroup(list(METRIC_CHOICES), value=[], label="text metrics (sacreBLEU's defaults)",
                                   elem_id="scores-lexical")
        method = gr.Radio(list(METHODS), value=settings.method, label="test", elem_id="scores-method")
        # the number the test takes when none is given (settings.n_samples: its default)
        shown = settings.n_samples if settings.n_samples is not None else DEFAULT_SAMPLES[METHODS[settings.method]]
        n_samples = gr.Number(shown, label=f"samples, 1-{MAX_PAIRED_SAMPLES:,}", elem_id="scores-n")
        seed = gr.Number(settings.seed, label="seed", precision=0, elem_id="scores-seed")
    with gr.Row():
        correction = gr.Radio(list(CORRECTIONS), value=settings.correction,
                              label="correction for multiple comparisons", elem_id="scores-correction")
        autorank = gr.Dropdown(list(AUTORANK_CHOICES), value=settings.autorank, label="AutoRank",
                               elem_id="scores-autorank")
        drop = gr.Checkbox(settings.drop_missing, label="drop segments a system has no score for",
                           elem_id="scores-drop")
    scores_btn = gr.Button("Score table", variant="primary", elem_id="scores-btn")
    notice = gr.HTML(elem_id="scores-notice")
    table = gr.Dataframe(interactive=False, wrap=True, elem_id="scores-table")
    summary = gr.HTML(elem_id="scores-out")
    download = gr.DownloadButton("Download the table (HTML page)", elem_id="scores-download", visible=False)
    inputs = [score_files, system_files, reference_files, score_format, metric, language_pair, lower, lexical,
              method, n_samples, seed, correction, autorank, drop]
    scores_btn.click(on_scores, inputs, [notice, table, summary, download], api_visibility="undocumented")
    method.input(on_method, method, n_samples, api_visibility="undocumented")


def build_demo() -> gr.Blocks:
    """The page and its API endpoints (``app.py``'s module-level ``demo`` is what a Space or
    ``python app.py`` launches)."""
    tokenizers = available_tokenizers()
    with gr.Blocks(title="bleukit: BLEU, explained", analytics_enabled=False, delete_cache=(3600, 3600)) as demo:
        gr.Markdown(
            f"# BLEU, explained\nsacreBLEU-exact BLEU (bleukit {__version__}). One segment per "
            f"line; line *i* of every reference set belongs to hypothesis line *i*. Up to "
            f"{MAX_REFERENCE_SETS} reference sets, {MAX_SEGMENTS:,} lines and {MAX_CHARS:,} characters per field. "
            "Files are read as UTF-8; a byte-order mark is kept, as sacreBLEU keeps it, and flagged."
        )
        with gr.Tabs():
            with gr.Tab("Score", elem_id="score-tab"):
                _score_tab(tokenizers)
            with gr.Tab("Compare systems", elem_id="compare-tab"):
                _compare_tab(tokenizers)
            with gr.Tab("Systems × metrics", elem_id="scores-tab"):
                _scores_tab()

        gr.api(api.bleu, api_name="bleu")
        gr.api(api.explain, api_name="explain")
        gr.api(api.compare, api_name="compare")
        gr.api(api.variants, api_name="variants")
        gr.api(api.metrics, api_name="metrics")
        gr.api(api.scores, api_name="scores")
    demo.queue(default_concurrency_limit=2, max_size=32)
    return demo


def launch(demo: Optional[gr.Blocks] = None, **keywords: Any) -> None:
    """Serve the page (see :func:`bleukit.app.launch`)."""
    settings: Dict[str, Any] = {
        "server_name": os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
        # Gradio's own cap is a backstop above ours: read_upload names a file over MAX_UPLOAD_BYTES.
        "max_file_size": MAX_FILE_SIZE,
        "css": CSS_PATH.read_text(encoding="utf-8"),
        # Errors raised before an endpoint runs (an API call with too few input values) reach the
        # client with Gradio's message instead of a null one; ours are gr.Error and shown anyway.
        "show_error": True,
    }
    settings.update(keywords)
    (demo or build_demo()).launch(**settings)
