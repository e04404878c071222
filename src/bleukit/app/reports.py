"""What the app computes, as JSON-ready reports: every number comes from the library's public
functions (:mod:`bleukit.pipeline`, :mod:`bleukit.analysis.report`, :mod:`bleukit.analysis.significance`,
:mod:`bleukit.analysis.ranking`, :mod:`bleukit.analysis.explain`); this module only calls them and arranges what they
return. The compare tab tokenizes and counts each system once (:class:`~bleukit.app.state.ComparedSystems`)
and draws its resamples once for the test, the ranking and the plot.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from bleukit.analysis.explain import MatchExplanation, explain_bleu
from bleukit.analysis.ranking import compare_statistics
from bleukit.analysis.report import score_report as core_score_report
from bleukit.analysis.score_table import ScoreTable, score_table
from bleukit.analysis.segment_scores import SegmentScores
from bleukit.analysis.significance import bootstrap_matrix, paired_test_statistics, system_statistics
from bleukit.defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from bleukit.metrics import metric_for
from bleukit.metrics.base import MetricOptions
from bleukit.metrics.bleu.extract import preprocess
from bleukit.metrics.bleu.options import BleuOptions
from bleukit.pipeline import corpus_statistics, score_statistics, sentence_scores_from_statistics
from bleukit.tokenizers import get_tokenizer

from .forms import (
    AUTORANK_CHOICES,
    COMPARISONS,
    CORRECTIONS,
    MAX_EXPLAIN_CHARS,
    MAX_EXPLAIN_TOKENS,
    MAX_SHOWN_NGRAMS,
    METRIC_CHOICES,
    OTHER_METRICS,
    SCORE_TABLE_DEFAULTS,
    SIGNIFICANCE_LEVEL,
    make_options,  # noqa: F401  (the doctests use it)
    metric_options,
    paired_settings,
    parse_corpus,
    read_score_uploads,
    read_system_uploads,
)
from .state import Comparison, CountedSystems


def score_report(hypotheses: str, reference_sets: Sequence[Optional[str]], options: BleuOptions) -> Dict[str, Any]:
    """The text fields scored by the core's report (corpus result and per-sentence rows), as JSON.

    >>> r = score_report("The cat sat on the mat.", ["The cat sat on the mat."], BleuOptions())
    >>> round(r["corpus"]["score"], 6), round(r["sentences"][0]["score"], 6), r["sentences"][0]["counts"]
    (100.0, 100.0, [7, 6, 5, 4])
    """
    hyps, refs = parse_corpus(hypotheses, reference_sets)
    return core_score_report(hyps, refs, options=options).to_dict()


def metrics_report(
    hypotheses: str, reference_sets: Sequence[Optional[str]], keywords: Optional[Dict[str, Any]] = None
) -> Dict[str, Any]:
    """The text fields scored with chrF, chrF++ and TER (sacreBLEU's defaults, or the form's
    ``keywords``, see :func:`~bleukit.app.forms.metric_options`): per metric its corpus score,
    whether higher is better, and its signature.

    >>> [(r["metric"], round(r["score"], 2), r["higher_is_better"]) for r in
    ...  metrics_report("the cat sat on the mat", ["the mat the cat sat on"])["rows"]]
    [('chrF', 81.09, True), ('chrF++', 83.32, True), ('TER', 16.67, False)]
    """
    hyps, refs = parse_corpus(hypotheses, reference_sets)
    rows = []
    for label in OTHER_METRICS:
        options = metric_options(label, None, keywords)
        result = score_statistics(corpus_statistics(hyps, refs, options=options), options)
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


def count_systems(
    systems: Sequence[Tuple[str, Sequence[str]]], refs: Sequence[Sequence[str]], options: MetricOptions
) -> CountedSystems:
    """Tokenize and count each system once (the references once for all).

    >>> counted = count_systems([("a", ["a b"]), ("b", ["a c"])], [["a b"]], make_options())
    >>> counted.names, [s.rows.shape[0] for s in counted.statistics]
    (['a', 'b'], [1, 1])
    """
    names, stats, _ = system_statistics([(name, list(hyps)) for name, hyps in systems], [list(r) for r in refs],
                                        options)
    return CountedSystems(names, stats, options)


def compare_counted(
    counted: CountedSystems,
    method: str,
    n_samples: int,
    seed: int,
    comparison: str = "baseline",
    correction: Optional[str] = None,
) -> Comparison:
    """The comparison of systems counted once: the paired test, the ranking of all pairs when
    asked, and each system's bootstrap distribution for the plot, all from the same statistics
    tables; under the paired bootstrap the resamples are drawn once for all three (under
    approximate randomization the plot draws sacreBLEU's default number of bootstrap resamples
    with the same seed). The report is :func:`compare_report`'s.

    >>> counted = count_systems([("a", ["a b c d", "a b"]), ("b", ["a b c d", "x y"])], [["a b c d"], ["a b"]],
    ...                         make_options())
    >>> result = compare_counted(counted, "bs", 10, 1)
    >>> sorted(result.distributions), result.plot_samples, result.report["systems"][1]["name"]
    (['a', 'b'], 10, 'b')
    """
    if comparison not in COMPARISONS.values():
        raise ValueError(f"comparison must be one of {', '.join(map(repr, COMPARISONS.values()))}, got {comparison!r}")
    names, stats, options = counted.names, counted.statistics, counted.options
    plot_samples = n_samples if method == "bs" else DEFAULT_SAMPLES["bs"]
    matrix = bootstrap_matrix(stats, options, plot_samples, seed)
    scores = matrix if method == "bs" else None
    results = paired_test_statistics(
        names, stats, options, method=method, n_samples=n_samples, seed=seed, correction=correction, scores=scores
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
        ranking = compare_statistics(
            names, stats, options, method=method, n_samples=n_samples, seed=seed, correction=correction,
            alpha=SIGNIFICANCE_LEVEL, scores=scores,
        ).to_dict()
    report = {
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
    return Comparison(report, {name: matrix[:, k] for k, name in enumerate(names)}, plot_samples)


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
    return compare_counted(count_systems(systems, refs, options), method, n_samples, seed, comparison,
                           correction).report


def explain_segment(hypothesis: str, references: Sequence[Optional[str]], options: BleuOptions) -> MatchExplanation:
    """``explain_bleu`` within the explanation limits (``MAX_EXPLAIN_CHARS`` and
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
    return explain_bleu(hypothesis, list(references), options=options)


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


def table_report(
    scores: Optional[SegmentScores],
    hypotheses: Optional[Dict[str, List[str]]] = None,
    references: Optional[List[List[str]]] = None,
    lexical: Sequence[str] = (),
    method: str = "bs",
    n_samples: Optional[int] = None,
    seed: int = DEFAULT_SEED,
    correction: Optional[str] = "holm",
    autorank: Optional[str] = None,
    missing: str = "error",
    progress: Optional[Callable[[int], None]] = None,
) -> ScoreTable:
    """The systems × metrics table of the "Systems × metrics" tab: ``bleukit.score_table`` of the
    segment scores (``None``: text metrics alone) and, with the systems' text, the ``lexical`` metrics (labels of
    :data:`~bleukit.app.forms.METRIC_CHOICES`, each with sacreBLEU's defaults, as
    ``bleukit-scores --lexical``); every statistic is the library's.

    >>> t = table_report(SegmentScores.from_mapping({"a": {"j": [9, 8, 7]}, "b": {"j": [1, 2, 3]}}),
    ...                  {"a": ["x y", "z", "w"], "b": ["x", "q", "w"]}, [["x y"], ["z"], ["w"]], ["BLEU"],
    ...                  n_samples=20)
    >>> t.metrics, [r["system"] for r in t.rows()]
    (('j', 'BLEU'), ['a', 'b'])
    """
    for label in lexical:
        if label not in METRIC_CHOICES:
            raise ValueError(f"unknown metric {label!r}: choose among {', '.join(METRIC_CHOICES)}")
    options = [metric_options(label) for label in dict.fromkeys(lexical)]
    return score_table(scores, hypotheses=hypotheses if options else None,
                       references=references if options else None, lexical=options, method=method,
                       n_samples=n_samples, seed=seed, correction=correction, alpha=SIGNIFICANCE_LEVEL,
                       missing=missing, autorank=autorank, progress=progress)


def upload_table_report(
    score_files: Optional[Sequence[str]],
    system_files: Optional[Sequence[str]] = None,
    reference_files: Optional[Sequence[str]] = None,
    score_format: str = SCORE_TABLE_DEFAULTS.score_format,
    metric: Optional[str] = None,
    language_pair: Optional[str] = None,
    lower_is_better: Optional[str] = None,
    lexical: Optional[Sequence[str]] = None,
    method: str = SCORE_TABLE_DEFAULTS.method,
    n_samples: Any = SCORE_TABLE_DEFAULTS.n_samples,
    seed: Any = SCORE_TABLE_DEFAULTS.seed,
    correction: str = SCORE_TABLE_DEFAULTS.correction,
    autorank: str = SCORE_TABLE_DEFAULTS.autorank,
    drop_missing: bool = SCORE_TABLE_DEFAULTS.drop_missing,
    progress: Optional[Callable[[int, int], None]] = None,
) -> ScoreTable:
    """The "Systems × metrics" table of uploaded files, for the tab and ``/scores`` alike: the
    segment-score files read and checked (:func:`~bleukit.app.forms.read_score_uploads`; ``None``
    only with text metrics), with ``lexical`` metrics the systems' text and references
    (:func:`~bleukit.app.forms.read_system_uploads`), the test, samples and seed checked against
    the limits, and the table computed by :func:`table_report`. Choices are the page's labels (or
    the library's names); an input error is a ValueError (or TypeError) whose message the tab and
    the API show as it is. ``progress(done, total)``: resamples done so far, of all the metrics'.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "sysA.txt").write_text("0.9\\n0.8\\n0.7\\n", encoding="utf-8")
    >>> _ = (folder / "sysB.txt").write_text("0.1\\n0.2\\n0.3\\n", encoding="utf-8")
    >>> t = upload_table_report([str(folder / "sysA.txt"), str(folder / "sysB.txt")], metric="judge", n_samples=20)
    >>> t.text_rows()[0], t.comparisons["judge"].correction
    (['System', 'judge'], 'holm')
    """
    lexical = list(lexical or [])
    scores = None
    if [p for p in (score_files or []) if p] or not lexical:
        scores = read_score_uploads(score_files, score_format, metric, language_pair, lower_is_better)
    hypotheses = references = None
    if lexical:
        hypotheses, references = read_system_uploads(system_files, reference_files)
    elif [p for p in (system_files or []) if p]:
        raise ValueError("System files are for BLEU, chrF and TER: pick some of them, or remove the files.")
    key, n, seed = paired_settings(method, n_samples, seed)
    if autorank not in AUTORANK_CHOICES and autorank not in AUTORANK_CHOICES.values():
        raise ValueError(f"unknown AutoRank {autorank!r}: choose one of {', '.join(AUTORANK_CHOICES)}")
    n_metrics = (len(scores.metrics) if scores is not None else 0) + len(dict.fromkeys(lexical))
    total, done = n * n_metrics, [0]

    def advance(k: int) -> None:
        done[0] += k
        if progress is not None:
            progress(done[0], total)

    return table_report(
        scores, hypotheses, references, lexical, method=key, n_samples=n, seed=seed,
        correction=CORRECTIONS.get(correction, correction), autorank=AUTORANK_CHOICES.get(autorank, autorank),
        missing="drop" if drop_missing else "error", progress=advance,
    )
