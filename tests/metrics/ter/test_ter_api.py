"""TER through the protocol and the public API: corpus_ter/sentence_ter/sentence_ter_scores, the
accumulator, significance, pairwise scores and the command line, against live sacreBLEU with ==."""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import TER
from sacrebleu.significance import PairedTest
from shared_data import SHARED_DATA, read_lines

import bleukit
from bleukit import StatisticsAccumulator, corpus_ter, sentence_ter, sentence_ter_scores
from bleukit.metrics import get_metric
from bleukit.metrics.ter import METRIC, TerOptions
from bleukit.metrics.ter.statistics import UNIT

OPTIONS = [
    {},
    {"normalized": True},
    {"no_punct": True, "case_sensitive": True},
    {"normalized": True, "asian_support": True, "no_punct": True},
]


@pytest.fixture(scope="module")
def wmt22():
    """300 WMT22 de-en sentences with two references each (the first of them missing on every 7th)."""
    folder = SHARED_DATA / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.Online-A.en")[:300]
    ref_a = read_lines(folder / "ref.A.en")[:300]
    ref_b = read_lines(folder / "ref.B.en")[:300]
    streams = [[None if i % 7 == 0 else r for i, r in enumerate(ref_a)], ref_b]
    refs = [[r for r in pair if r is not None] for pair in zip(*streams)]
    return hyps, refs, streams


@pytest.mark.parametrize("kwargs", OPTIONS)
def test_corpus_and_sentence_scores_equal_sacrebleus(wmt22, kwargs):
    hyps, refs, streams = wmt22
    ter = TER(**kwargs)
    expected = ter.corpus_score(hyps, streams)
    result = corpus_ter(hyps, refs, **kwargs)
    assert (result.score, result.num_edits, result.ref_length) == (
        expected.score, expected.num_edits, expected.ref_length)
    assert result.signature.rsplit("|", 1)[0] == str(ter.get_signature()).rsplit("|", 1)[0]
    scores = sentence_ter_scores(hyps, refs, **kwargs)
    for i in range(0, 300, 13):
        assert scores[i] == ter.sentence_score(hyps[i], refs[i]).score == sentence_ter(hyps[i], refs[i], **kwargs).score


def test_result_fields_and_format():
    result = corpus_ter(["a b c d"], ["c d a b"])
    assert result.format() == f"TER|{result.signature} = 25.00"
    assert result.to_dict()["num_edits"] == 1 and float(result) == 25.0
    assert get_metric("ter") is METRIC and METRIC.higher_is_better is False
    assert bleukit.TerOptions is TerOptions


def test_streaming_sums_are_the_corpus_score(wmt22):
    hyps, refs, _ = wmt22
    refs = [r[-1:] for r in refs]  # one reference: the summed row is sacreBLEU's total exactly
    options = TerOptions(normalized=True)
    acc = StatisticsAccumulator(options)
    for start in range(0, 300, 37):
        acc.add_text(hyps[start:start + 37], refs[start:start + 37])
    streamed = acc.result()
    assert streamed.score == corpus_ter(hyps, refs, normalized=True).score
    assert streamed.score == TER(normalized=True).corpus_score(hyps, [[r[0] for r in refs]]).score


@pytest.mark.parametrize("method", ["ar", "bs"])
def test_paired_tests_and_bootstrap_agree_with_sacrebleu(wmt22, method, monkeypatch):
    """p-values and scores are sacreBLEU's (fewer edits is better: its test reads the sign the same way)."""
    hyps, refs, _ = wmt22
    folder = SHARED_DATA / "wmt22-de-en"
    other = read_lines(folder / "hyp.LT22.en")[:300]
    one_ref = [[r[-1]] for r in refs]
    ours = bleukit.paired_test({"A": hyps, "LT22": other}, one_ref, method=method, n_samples=200,
                               options=TerOptions())
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    metric = TER(references=[[r[0] for r in one_ref]])
    _, theirs = PairedTest([("A", hyps), ("LT22", other)], {"TER": metric}, None, test_type=method, n_samples=200)()
    assert ours[1].p_value == theirs["TER"][1].p_value
    assert [r.score for r in ours] == [s.score for s in theirs["TER"]]


def test_pairwise_scores_are_sentence_scores():
    hyps = ["a b c", "the cat sat", "x"]
    refs = ["a c b", "cat the sat on", ""]
    matrix = bleukit.pairwise_scores(hyps, refs, options=TerOptions())
    assert matrix.tolist() == [[TER().sentence_score(h, [r]).score for r in refs] for h in hyps]


def test_table_rows_are_average_lengths_in_units():
    table = METRIC.statistics(["a b", "c"], [["a b c", "a"], ["c d"]], TerOptions())
    assert table.rows.tolist() == [[1, 2 * UNIT], [1, 2 * UNIT]]
    assert table.nrefs.tolist() == [2, 1]


def test_too_many_references_is_a_clear_error():
    with pytest.raises(ValueError, match="at most 20 references"):
        corpus_ter(["a"], [["a"] * 21])


def test_cli_matches_sacrebleu(tmp_path, wmt22):
    import subprocess
    import sys

    hyps, refs, _ = wmt22
    (tmp_path / "hyp").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    (tmp_path / "ref").write_text("\n".join(r[-1] for r in refs) + "\n", encoding="utf-8")
    for args in (["-m", "ter", "-w", "14"], ["-m", "bleu", "chrf", "ter", "-f", "text"],
                 ["-m", "ter", "--ter-normalized", "--ter-no-punct", "-b"], ["-m", "ter", "-sl", "-f", "text"]):
        def run(tool, args=args):
            proc = subprocess.run([sys.executable, "-m", tool, str(tmp_path / "ref"), "-i", str(tmp_path / "hyp"),
                                   *args], capture_output=True, text=True, check=True)
            return proc.stdout.replace("bleukit-" + bleukit.__version__, "V").replace("2.6.0", "V")

        assert run("bleukit") == run("sacrebleu"), args


def test_an_empty_corpus_is_the_error_every_metric_gives():
    for function in (corpus_ter, sentence_ter_scores):
        with pytest.raises(ValueError, match="empty corpus"):
            function([], [])
    assert np.asarray(sentence_ter_scores(["a"], [""])).tolist() == [100.0]
