"""bleukit.integrations.torchmetrics: int64 sum states, == sacreBLEU's corpus scores, in one process and
summed over two gloo processes on CPU (DDP) exactly as in one."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
import sacrebleu
import torch
from ddp_metric_worker import run
from shared_data import SHARED_DATA, read_lines
from torchmetrics.utilities.data import dim_zero_sum

import bleukit
import bleukit.metrics.ter
from bleukit.integrations.torchmetrics import BLEUScore, CHRFScore, MetricScore, TERScore
from bleukit.metrics import available_metrics
from bleukit.metrics.bleu import BleuOptions
from bleukit.metrics.chrf import ChrfOptions
from bleukit.metrics.ter.statistics import UNIT
from bleukit.pipeline import corpus_statistics, score_statistics

JOBS = [
    ("bleu", "bleu", {}),
    ("bleu_intl_lc", "bleu", {"tokenize": "intl", "lowercase": True}),
    ("chrf", "chrf", {}),
    ("chrf_pp", "chrf", {"word_order": 2}),
    ("ter", "ter", {}),
    ("ter_norm_cs", "ter", {"normalized": True, "case_sensitive": True}),
]
SACREBLEU = {
    "bleu": lambda h, r: sacrebleu.corpus_bleu(h, r),
    "bleu_intl_lc": lambda h, r: sacrebleu.corpus_bleu(h, r, tokenize="intl", lowercase=True),
    "chrf": lambda h, r: sacrebleu.corpus_chrf(h, r),
    "chrf_pp": lambda h, r: sacrebleu.corpus_chrf(h, r, word_order=2),
    "ter": lambda h, r: sacrebleu.corpus_ter(h, r),
    "ter_norm_cs": lambda h, r: sacrebleu.corpus_ter(h, r, normalized=True, case_sensitive=True),
}
CLASSES = {"bleu": BLEUScore, "chrf": CHRFScore, "ter": TERScore}


@pytest.fixture(scope="module")
def corpus(shared_data):
    folder = shared_data / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.Online-A.en")[:240]
    streams = [read_lines(folder / "ref.A.en")[:240], read_lines(folder / "ref.B.en")[:240]]
    return hyps, streams


def core_score(scorer, hyps, refs):
    """The core's corpus score of the same sentences, in one call (what the states must reproduce)."""
    return score_statistics(corpus_statistics(hyps, refs, options=scorer.options), scorer.options).score


def equal_sacrebleu(got, core, want):
    """``got`` is the core's corpus score (==), and sacreBLEU's (==): the core is exact."""
    assert got == core
    assert got == want


def one_process(metric, keywords, hyps, streams, batch=13):
    scorer = CLASSES[metric](**keywords)
    refs = [list(r) for r in zip(*streams)]
    for start in range(0, len(hyps), batch):
        scorer.update(hyps[start:start + batch], refs[start:start + batch])
    return scorer


@pytest.mark.parametrize("name, metric, keywords", JOBS, ids=[j[0] for j in JOBS])
def test_one_process_equals_sacrebleu(corpus, name, metric, keywords):
    hyps, streams = corpus
    scorer = one_process(metric, keywords, hyps, streams)
    want = SACREBLEU[name](hyps, streams)
    score = scorer.compute()
    assert score.dtype == torch.float64 and scorer.result().score == float(score)
    assert scorer.result().signature.split("|")[0] == "nrefs:2"
    for state in ("statistics", "sentences", "nrefs_sum", "nrefs_squares"):
        assert getattr(scorer, state).dtype == torch.int64
        assert scorer._reductions[state] is dim_zero_sum
    assert scorer.higher_is_better is (metric != "ter") and scorer.is_differentiable is False
    got = float(score)
    scorer.reset()
    with pytest.raises(ValueError, match="no sentences"):
        scorer.compute()
    equal_sacrebleu(got, core_score(scorer, hyps, [list(r) for r in zip(*streams)]), want.score)


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_scripts_as_torchmetrics_own_metrics_do(corpus, name):
    # torchmetrics' test harness scripts every metric (torch.jit.script(metric)), and its own
    # BLEUScore/CHRFScore/TERScore script; the drop-ins must too, with their states intact.
    hyps, streams = corpus
    scorer = one_process(name, {}, hyps[:20], [s[:20] for s in streams])
    scripted = torch.jit.script(scorer)
    for state in ("statistics", "sentences", "nrefs_sum", "nrefs_squares"):
        assert torch.equal(getattr(scripted, state), getattr(scorer, state))
    assert float(scorer.compute()) == SACREBLEU[name](hyps[:20], [s[:20] for s in streams]).score


def test_bleu_parts_nrefs_and_the_generic_class(corpus):
    hyps, streams = corpus
    refs = [[a, b] if i % 3 else [a] for i, (a, b) in enumerate(zip(*streams))]  # 1 or 2 references
    scorer = MetricScore(BleuOptions(tokenize="13a"))
    scorer.update(hyps[:100], refs[:100])
    scorer.update(hyps[100], [refs[100]])  # a single hypothesis
    result = scorer.result()
    want = sacrebleu.corpus_bleu(hyps[:101], [[r[0] for r in refs[:101]], [r[1] if len(r) > 1 else None
                                                                            for r in refs[:101]]])
    assert (result.sys_len, result.ref_len) == (want.sys_len, want.ref_len)
    assert result.signature.startswith("nrefs:var|")
    assert CHRFScore(options=ChrfOptions(word_order=2)).options == ChrfOptions(word_order=2)
    with pytest.raises(TypeError, match="either options= or option keywords"):
        BLEUScore(options=BleuOptions(), tokenize="intl")
    with pytest.raises(TypeError, match="BleuOptions"):
        BLEUScore(options=ChrfOptions())
    with pytest.raises(ValueError, match="tokenize"):
        BLEUScore(tokenize="nope")
    with pytest.raises(TypeError, match="options"):
        MetricScore("bleu")
    with pytest.raises(ValueError, match="hypothes"):
        BLEUScore().update(["a", "b"], ["a"])
    # torchmetrics' own keywords pass through
    assert BLEUScore(sync_on_compute=False, tokenize="intl").sync_on_compute is False
    equal_sacrebleu(result.score, core_score(scorer, hyps[:101], refs[:101]), want.score)
    equal_sacrebleu(result.bp, bleukit.corpus_bleu(hyps[:101], refs[:101]).bp, want.bp)


@pytest.mark.slow
def test_two_gloo_processes_equal_one_process_and_sacrebleu(corpus, tmp_path):
    hyps, streams = corpus
    refs = [list(r) for r in zip(*streams)]
    cut = 97  # uneven shards
    shards = [(hyps[:cut], refs[:cut]), (hyps[cut:], refs[cut:])]
    torch.multiprocessing.start_processes(
        run, args=(2, str(tmp_path / "init"), str(tmp_path), JOBS, shards), nprocs=2, start_method="spawn"
    )
    exact = []
    for name, metric, keywords in JOBS:
        ranks = [json.loads((tmp_path / f"{name}.rank{r}.json").read_text()) for r in range(2)]
        single = one_process(metric, keywords, hyps, streams)
        want = SACREBLEU[name](hyps, streams).score
        for seen in ranks:  # every process gets the corpus score of both shards
            assert seen["score"] == float(single.compute()) == core_score(single, hyps, refs)
            assert seen["result_score"] == seen["score"] and seen["score_dtype"] == "torch.float64"
            assert seen["signature"] == single.result().signature
            assert seen["state_dtype"] == "torch.int64"
        # after compute the states are the process's own again, and they add up to the whole corpus
        summed = np.add(ranks[0]["local_statistics"], ranks[1]["local_statistics"])
        assert summed.tolist() == single.statistics.tolist()
        if metric == "ter":  # two references: the summed averages are exact, so sacreBLEU's number, shard or not
            assert ranks[0]["score"] == want
        exact.append((ranks[0]["score"], core_score(single, hyps, refs), want))
    equal_sacrebleu(*map(list, zip(*exact)))


def test_ter_is_sacrebleu_exact(corpus):
    hyps, streams = corpus
    scorer = one_process("ter", {}, hyps, streams)
    want = sacrebleu.corpus_ter(hyps, streams)
    result = scorer.result()
    assert float(scorer.compute()) == result.score == want.score
    assert (result.num_edits, result.ref_length) == (want.num_edits, want.ref_length)
    assert scorer.higher_is_better is False
    assert "ter" in available_metrics()


def test_ter_summed_states_with_three_references(corpus):
    """The states hold each sentence's average reference length in exact units of 1/UNIT, so the
    summed row's length is the correctly rounded total. sacreBLEU adds the averages as floats one
    after the other: with 1, 2 or 4 references those additions are exact and the scores are equal;
    with 3 references (averages in thirds) its rounding errors add up (here its total is one ulp
    under the exact one; on 1000 lines the scores differ in the 15th digit), and the adapter's score is
    the exact total's (documented in the README, torchmetrics section)."""
    hyps, streams = corpus
    third = read_lines(SHARED_DATA / "wmt22-de-en" / "hyp.LT22.en")[:240]  # any text will do as a reference
    three = [list(r) for r in zip(*streams, third)]
    scorer = one_process("ter", {}, hyps, list(zip(*three)))
    result = scorer.result()
    want = sacrebleu.corpus_ter(hyps, [list(s) for s in zip(*three)])
    assert result.num_edits == want.num_edits
    table = corpus_statistics(hyps, three, options=scorer.options)
    assert set(table.nrefs.tolist()) == {3}
    exact = float(Fraction(int(table.rows[:, 1].sum()), UNIT))
    assert result.ref_length == exact
    assert abs(result.ref_length - want.ref_length) <= 2 * math.ulp(exact)
    # the one-call corpus score adds the averages as sacreBLEU does: equal to it in every case
    assert bleukit.corpus_ter(hyps, three).score == want.score


def test_ter_against_torchmetrics_translation_edit_rate(corpus):
    """torchmetrics' own TranslationEditRate is a float32 port of sacreBLEU's TER giving a ratio
    (0-1, not percent). Where it counts the same edits, its sentence and corpus rates are bleukit's
    edits / length in float32 (the sums are exact in float32 here). It differs in two ways: float32
    (about 7 digits: not sacreBLEU's number), and its shift search does not always make sacreBLEU's
    choices: on a few long sentences it finds more edits than sacreBLEU (1 of these 120, one edit
    more), where bleukit's edits are sacreBLEU's."""
    from torchmetrics.text import TranslationEditRate

    hyps, streams = corpus
    refs = [list(r) for r in zip(*streams)][:120]
    hyps = hyps[:120]

    def float32_rate(edits, length):
        if length == 0:
            return float(edits > 0)
        return (torch.tensor(float(edits), dtype=torch.float32) / torch.tensor(length, dtype=torch.float32)).item()

    theirs = TranslationEditRate(return_sentence_level_score=True)
    theirs.update(hyps, refs)
    _, sentence_rates = theirs.compute()
    options = TERScore().options
    sentences = bleukit.metrics.ter.METRIC.sentence_results(corpus_statistics(hyps, refs, options=options), options)
    same, differ = [], []
    for i, (rate, ours) in enumerate(zip(sentence_rates, sentences)):
        (same if rate.item() == float32_rate(ours.num_edits, ours.ref_length) else differ).append(i)
    assert len(differ) <= 2, differ  # torchmetrics' shift search: a few long sentences
    for i in differ:
        want = sacrebleu.metrics.TER().sentence_score(hyps[i], refs[i])
        assert sentences[i].num_edits == want.num_edits < sentence_rates[i].item() * want.ref_length
    # the corpus rate over the sentences where both count the same edits: bleukit's, in float32
    theirs, ours = TranslationEditRate(), TERScore()
    theirs.update([hyps[i] for i in same], [refs[i] for i in same])
    ours.update([hyps[i] for i in same], [refs[i] for i in same])
    result = ours.result()
    corpus_rate = theirs.compute()
    assert corpus_rate.dtype == torch.float32
    assert corpus_rate.item() == float32_rate(result.num_edits, result.ref_length)
    # float32 is not sacreBLEU's number: bleukit's is (==), torchmetrics' only to ~7 digits
    streams = [[refs[i][k] for i in same] for k in (0, 1)]
    assert result.score == sacrebleu.corpus_ter([hyps[i] for i in same], streams).score
    assert 100 * corpus_rate.item() == pytest.approx(result.score, rel=1e-6)
