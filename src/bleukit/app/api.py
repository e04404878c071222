"""The app's API endpoints (``gradio_client``): ``/bleu``, ``/explain``, ``/compare``, ``/metrics``,
``/variants`` and ``/scores``. Each checks its arguments as the page does and answers an input error
with its message as a ``gr.Error`` (one log line, no traceback).
"""

from __future__ import annotations

import json
from typing import Any, List, Optional

import gradio as gr
from gradio.data_classes import FileData
from gradio_client.utils import is_file_obj_with_meta

from bleukit.compat.variants import compare_variants
from bleukit.defaults import DEFAULT_SEED
from bleukit.metrics.bleu.options import DEFAULT_SENTENCE_SMOOTH

from .callbacks import _log_input_error
from .forms import (
    DEFAULTS,
    MAX_CHARS,
    MAX_REFERENCE_SETS,
    SCORE_TABLE_DEFAULTS,
    api_texts,
    make_options,
    paired_settings,
    parse_corpus,
    parse_systems,
)
from .forms import (
    metric_options as options_of,
)
from .reports import compare_report, explain_report, metrics_report, score_report, upload_table_report


def _user_error(where: str, e: Exception) -> gr.Error:
    """An input error for the API: its message to the client, one line in the log, no traceback."""
    _log_input_error(where, e)
    return gr.Error(str(e), title="Cannot score this input", print_exception=False)


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
        reference_sets = api_texts(references, "references", "one text per reference set")
        return score_report(hypotheses, reference_sets, options=options)
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
    metric_options: Optional[dict] = None,
) -> dict:
    """Paired significance test of 2-5 systems against the first (the baseline), as sacreBLEU's
    ``--paired-bs`` / ``--paired-ar``; `correction`: "holm" or "bonferroni" adds each corrected
    p-value; `comparison`: "rank" also tests all pairs and ranks the systems in significance
    clusters (the report's "ranking"). `systems`: one text per system, one segment per line;
    `references`: one to four reference sets (as for ``/bleu``); `names`: optional, one per system;
    `method`: "bs" (paired bootstrap, default 1000 samples) or "ar" (approximate randomization,
    default 10000); `seed`: sacreBLEU's default 12345; `metric`: "BLEU" (with the BLEU options),
    "chrF", "chrF++" or "TER" (TER: lower is better) with sacreBLEU's defaults, or those of
    `metric_options` (chrF: char_order, beta, lowercase, whitespace, eps_smoothing; TER: normalized,
    no_punct, asian_support, case_sensitive).

    >>> r = compare(["a b c d\\na b", "a b c d\\nx y"], ["a b c d\\na b"], names=["A", "B"], n_samples=20)
    >>> [(s["name"], round(s["score"], 2)) for s in r["systems"]], r["signature"].split("|")[1:3]
    ([('A', 100.0), ('B', 84.09)], ['bs:20', 'seed:12345'])
    >>> compare(["a b c d\\na b", "a b c d\\nx y"], ["a b c d\\na b"], n_samples=20, metric="TER")["metric"]
    'TER'
    >>> compare(["a b c d\\na b", "a b c d\\nx y"], ["a b c d\\na b"], n_samples=20, metric="chrF",
    ...         metric_options={"char_order": 4})["signature"].split("|")[5]
    'nc:4'
    """
    try:
        bleu_options = make_options(tokenize, smooth_method, smooth_value, lowercase, max_ngram_order, effective_order)
        if metric_options is not None and not isinstance(metric_options, dict):
            given = type(metric_options).__name__
            raise TypeError(f"metric_options must be a dict of chrF or TER options, got {given}")
        options = options_of(metric, bleu_options, metric_options)
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
        return compare_variants(hyps, refs).to_dict()
    except (ValueError, TypeError) as e:
        raise _user_error("/variants", e) from None


def _api_files(value: Any, what: str) -> List[str]:
    """The server's paths of files sent as ``gradio_client`` sends them (``handle_file(path)``: a
    file object, which Gradio has checked to be an upload before the endpoint runs); one file is a
    list of one. A path string is refused: it would name a file on the server, which no caller may
    read.

    >>> _api_files(None, "score_files"), _api_files({"path": "/up/sysA.txt", "meta": {"_type": "gradio.FileData"}}, "x")
    ([], ['/up/sysA.txt'])
    >>> _api_files(["sysA.txt"], "score_files")
    Traceback (most recent call last):
    ...
    TypeError: score_files: file 1 is a str, not a file: send each file as gradio_client.handle_file(path)
    """
    if value is None:
        return []
    items = [value] if isinstance(value, dict) else value
    if not isinstance(items, (list, tuple)):
        raise TypeError(f"{what} must be a list of files (each gradio_client.handle_file(path)), "
                        f"got {type(value).__name__}")
    paths = []
    for k, item in enumerate(items, start=1):
        if not is_file_obj_with_meta(item):
            raise TypeError(f"{what}: file {k} is a {type(item).__name__}, not a file: send each file as "
                            "gradio_client.handle_file(path)")
        paths.append(item["path"])
    return paths


def scores(
    score_files: Optional[List[FileData]],
    system_files: Optional[List[FileData]] = None,
    reference_files: Optional[List[FileData]] = None,
    score_format: str = SCORE_TABLE_DEFAULTS.score_format,
    metric: Optional[str] = None,
    language_pair: Optional[str] = None,
    lower_is_better: Optional[str] = None,
    lexical: Optional[List[str]] = None,
    method: str = SCORE_TABLE_DEFAULTS.method,
    n_samples: Optional[int] = SCORE_TABLE_DEFAULTS.n_samples,
    seed: int = SCORE_TABLE_DEFAULTS.seed,
    correction: str = SCORE_TABLE_DEFAULTS.correction,
    autorank: str = SCORE_TABLE_DEFAULTS.autorank,
    drop_missing: bool = SCORE_TABLE_DEFAULTS.drop_missing,
) -> dict:
    """The "Systems × metrics" tab's table as JSON: ``bleukit.score_table(...).format("json")``
    (systems, metrics, rows of score, mean, ci, cluster and rank range per metric, signatures,
    each metric's comparison, AutoRank). `score_files`: up to 50 segment-score files, each
    ``gradio_client.handle_file(path)`` (COMET, MetricX, WMT25 ``automatic_scores``, mt-metrics-eval,
    one number per line, TSV/CSV; a system is named after its file); with `lexical` ("BLEU",
    "chrF", "chrF++", "TER"), `system_files` (``sysA.txt`` is system ``sysA``) and 1-4
    `reference_files`. The other options are the tab's, with its labels and defaults:
    `score_format` ("told from each file" or a format's name), `metric` (for files that do not name
    it), `language_pair` (WMT25 files), `lower_is_better` (metric names, comma-separated), `method`
    ("paired bootstrap" or "approximate randomization"), `n_samples` (the test's default: 1000 or
    10000), `seed`, `correction` ("none (as sacreBLEU)", "Holm-Bonferroni", "Bonferroni"),
    `autorank` ("none", or the tab's WMT25 or WMT24 label), `drop_missing`.

    >>> import pathlib, tempfile
    >>> from gradio_client import handle_file
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name, text in (("sysA.txt", "0.9\\n0.8\\n0.7\\n0.9\\n"), ("sysB.txt", "0.1\\n0.2\\n0.3\\n0.2\\n")):
    ...     _ = (folder / name).write_text(text, encoding="utf-8")
    >>> table = scores([handle_file(folder / "sysA.txt"), handle_file(folder / "sysB.txt")], metric="judge",
    ...                n_samples=100)
    >>> [(row["system"], round(row["judge"]["score"], 3), row["judge"]["cluster"]) for row in table["rows"]]
    [('sysA', 0.825, 1), ('sysB', 0.2, 2)]
    >>> table["signatures"]["judge"].split("|")[:3]
    ['metric:judge', 'format:lines', 'segments:4']
    """
    try:
        return json.loads(upload_table_report(
            _api_files(score_files, "score_files"), _api_files(system_files, "system_files"),
            _api_files(reference_files, "reference_files"), score_format, metric, language_pair, lower_is_better,
            api_texts(lexical, "lexical", "a list of metric names"), method, n_samples, seed, correction, autorank,
            drop_missing,
        ).format("json"))
    except (ValueError, TypeError) as e:
        raise _user_error("/scores", e) from None
