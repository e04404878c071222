"""Every metric's public functions (``corpus_<metric>``, ``sentence_<metric>``,
``sentence_<metric>_scores``) and command line against live sacreBLEU 2.6, on both engines,
through the harness: scores with ==, the summed statistics, the name, the printed line and the
signature. One table per metric; a new metric adds its table here (see ``harness.py``).

After the tables, what one metric's public API has of its own (chrF's threads, TER's result
fields, each one's errors)."""

from __future__ import annotations

import numpy as np
import pytest
from metrics.chrf.chrf_cases import corpora, corpus
from metrics.harness import LINES_HYPS, LINES_REFS, Corpus, MetricCase, MetricTester, params
from sacrebleu.metrics import CHRF

import bleukit
from bleukit import (
    ChrfOptions,
    ChrfResult,
    corpus_chrf,
    corpus_ter,
    sentence_chrf,
    sentence_chrf_scores,
    sentence_ter_scores,
)
from bleukit.metrics import get_metric
from bleukit.metrics.ter import METRIC, TerOptions
from bleukit.metrics.ter.statistics import UNIT


def lines(metric, **options):
    return MetricCase(metric, options, hyps=LINES_HYPS, refs=LINES_REFS, name="lines")


# 300 WMT22 de-en sentences with two references each (the first of them missing on every 7th)
WMT22_TWO_REFS = Corpus("wmt22-de-en", "hyp.Online-A.en", "ref.A.en+ref.B.en", 300, missing=((0, 7),))

TABLES = {
    "bleu": [
        lines("bleu"),
        lines("bleu", tokenize="intl", lowercase=True),
        lines("bleu", smooth_method="floor", smooth_value=0.2),
    ],
    "chrf": [
        lines("chrf"),
        lines("chrf", word_order=2),
        lines("chrf", char_order=4, word_order=1, beta=1),
        lines("chrf", lowercase=True, whitespace=True),
        lines("chrf", eps_smoothing=True, word_order=2, beta=3),
        lines("chrf", beta=0.5),
    ],
    "ter": [
        # the default engine: TER's pure-Python engine on real data is test_ter_vs_sacrebleu.py's
        MetricCase("ter", options, corpus=WMT22_TWO_REFS, ref_layout="present", name="wmt22", engines="default")
        for options in (
            {},
            {"normalized": True},
            {"no_punct": True, "case_sensitive": True},
            {"normalized": True, "asian_support": True, "no_punct": True},
        )
    ],
}
#: the stride of the sentences checked one by one (sacreBLEU's TER of 300 sentences: every 13th)
SENTENCE_STEP = {"bleu": 1, "chrf": 1, "ter": 13}


@pytest.mark.parametrize("case", params([case for table in TABLES.values() for case in table]))
def test_corpus_and_sentence_scores_are_sacrebleus(case, each_engine):
    tester = MetricTester(case, each_engine)
    tester.check_corpus()
    tester.check_sentences(step=SENTENCE_STEP[case.metric])


# (case, the argument lists given to both command lines)
CLI = [
    (MetricCase("ter", {}, corpus=WMT22_TWO_REFS, ref_layout="present", name="wmt22"), [
        ["-m", "ter", "-w", "14"], ["-m", "bleu", "chrf", "ter", "-f", "text"],
        ["-m", "ter", "--ter-normalized", "--ter-no-punct", "-b"], ["-m", "ter", "-sl", "-f", "text"],
        # bootstrap estimates to the last digit (sacreBLEU's float32 arithmetic)
        ["-m", "ter", "--confidence", "-w", "14"],
        ["-m", "ter", "chrf", "--confidence", "--confidence-n", "200", "-f", "text", "-w", "14"],
    ]),
]


@pytest.mark.parametrize("case, argument_sets", [pytest.param(case, args, id=case.id) for case, args in CLI])
def test_command_line_prints_sacrebleus_lines(case, argument_sets, tmp_path, each_engine):
    MetricTester(case, each_engine).check_cli(tmp_path, argument_sets)


LINES_HYPS_LIST, LINES_REFS_LIST = list(LINES_HYPS), list(LINES_REFS)


@pytest.mark.skipif(not corpora(), reason="real MT data not found (set BLEUKIT_SHARED_DATA)")
@pytest.mark.parametrize("word_order", [0, 2])
def test_chrf_real_data_with_threads(word_order):
    hyps, streams, per_hyp = corpus("wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en", 800)
    metric = CHRF(word_order=word_order)
    one = corpus_chrf(hyps, per_hyp, word_order=word_order)
    assert one.score == metric.corpus_score(hyps, streams).score
    assert corpus_chrf(hyps, per_hyp, word_order=word_order, threads=0) == one
    assert corpus_chrf(hyps, per_hyp, word_order=word_order, threads=3) == one
    scores = sentence_chrf_scores(hyps, per_hyp, word_order=word_order, threads=2)
    assert scores.tolist() == [metric._compute_f_score(row) for row in metric._extract_corpus_statistics(hyps, streams)]


def test_chrf_public_names():
    assert {"corpus_chrf", "sentence_chrf", "sentence_chrf_scores"} <= set(bleukit.__all__)
    assert bleukit.ChrfOptions is ChrfOptions and bleukit.ChrfResult is ChrfResult
    assert bleukit.ChrfStatistics.__name__ == "ChrfStatistics"


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: corpus_chrf("a b", ["a b"]), TypeError, "single str"),
        (lambda: corpus_chrf([], []), ValueError, "empty corpus"),
        (lambda: corpus_chrf(["a"], ["a", "b"]), ValueError, "1 hypotheses but 2 reference entries"),
        (lambda: corpus_chrf(["a"], [[None]]), ValueError, "holds no reference"),
        (lambda: corpus_chrf(["a"], ["a"], char_order=0), ValueError, "char_order must be between 1"),
        (lambda: corpus_chrf(["a"], ["a"], word_order="2"), TypeError, "word_order must be an int"),
        (lambda: corpus_chrf(["a"], ["a"], beta=-1), ValueError, "beta must be a finite number >= 0"),
        (lambda: corpus_chrf(["a"], ["a"], lowercase=1), TypeError, "lowercase must be a bool"),
        (lambda: corpus_chrf(["a"], ["a"], n_bootstrap=0), ValueError, "n_bootstrap must be >= 1"),
        (lambda: corpus_chrf(["a"], ["a"], threads=-1), ValueError, "threads"),
        (lambda: sentence_chrf(["a"], ["a"]), TypeError, "use sentence_chrf_scores"),
        (lambda: sentence_chrf("a", []), ValueError, "holds no reference"),
        (lambda: sentence_chrf_scores(["a", 1], ["a", "b"]), TypeError, r"hypotheses\[1\] must be a str"),
    ],
)
def test_chrf_bad_input_is_named(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_chrf_inputs_are_not_mutated():
    hyps, refs = list(LINES_HYPS_LIST), [list(r) if isinstance(r, list) else r for r in LINES_REFS_LIST]
    corpus_chrf(hyps, refs, word_order=2)
    sentence_chrf_scores(hyps, refs)
    assert hyps == LINES_HYPS_LIST and refs == LINES_REFS_LIST


def test_ter_result_fields_and_format():
    result = corpus_ter(["a b c d"], ["c d a b"])
    assert result.format() == f"TER|{result.signature} = 25.00"
    assert result.to_dict()["num_edits"] == 1 and float(result) == 25.0
    assert get_metric("ter") is METRIC and METRIC.higher_is_better is False
    assert bleukit.TerOptions is TerOptions


def test_ter_table_rows_are_average_lengths_in_units():
    table = METRIC.statistics(["a b", "c"], [["a b c", "a"], ["c d"]], TerOptions())
    assert table.rows.tolist() == [[1, 2 * UNIT], [1, 2 * UNIT]]
    assert table.nrefs.tolist() == [2, 1]


def test_ter_too_many_references_is_a_clear_error():
    with pytest.raises(ValueError, match="at most 20 references"):
        corpus_ter(["a"], [["a"] * 21])


def test_ter_empty_corpus_is_the_error_every_metric_gives():
    for function in (corpus_ter, sentence_ter_scores):
        with pytest.raises(ValueError, match="empty corpus"):
            function([], [])
    assert np.asarray(sentence_ter_scores(["a"], [""])).tolist() == [100.0]
