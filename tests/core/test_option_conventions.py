"""The two ways to pass options (docs/architecture.md, "Naming rules"): beyond sacreBLEU's functions,
``options=`` (any metric's options object) or the metric's typed keywords, never both; the
per-metric functions refuse another metric's options; token ids take ``BleuOptions(tokenize="none")``."""

from __future__ import annotations

import numpy as np
import pytest

import bleukit
from bleukit import BleuOptions, ChrfOptions, TerOptions
from bleukit.ids import corpus_bleu_ids, sentence_bleu_ids

HYPS = ["the cat sat on the mat", "it is raining today", "a b c d"]
REFS = ["the cat is on the mat", "it rains today", "a b c e"]


@pytest.mark.parametrize(
    "call, sentence",
    [
        (lambda **kw: bleukit.corpus_statistics(HYPS, REFS, **kw).rows.tolist(), False),
        (lambda **kw: bleukit.score_report(HYPS, REFS, **kw).to_dict(), False),
        (lambda **kw: bleukit.pairwise_scores(HYPS, REFS, **kw).tolist(), True),  # keywords: sentence defaults
        (lambda **kw: bleukit.explain_bleu(HYPS[0], REFS[0], **kw).to_dict(), False),
        (lambda **kw: bleukit.document_bleu(HYPS, REFS, [0, 0, 1], **kw).to_dict(), False),
        (lambda **kw: bleukit.build_report(HYPS, REFS, n_bootstrap=10, **kw).data["metrics"][0]["scores"], False),
    ],
    ids=["corpus_statistics", "score_report", "pairwise_scores", "explain_bleu", "document_bleu", "build_report"],
)
def test_keywords_and_options_give_the_same(call, sentence):
    keywords = {"tokenize": "intl", "max_ngram_order": 3}
    options = BleuOptions(**keywords)
    assert call(options=options.sentence_level() if sentence else options) == call(**keywords)
    with pytest.raises(TypeError, match="not both"):
        call(options=options, tokenize="13a")


def test_the_metric_of_options_or_its_own_keywords():
    chrf = ChrfOptions(word_order=2)
    assert bleukit.pairwise_chrf(HYPS, REFS, options=chrf.sentence_level()).tolist() == \
        bleukit.pairwise_chrf(HYPS, REFS, word_order=2).tolist()
    assert bleukit.pairwise_scores(HYPS, REFS, options=chrf).tolist() == \
        bleukit.pairwise_chrf(HYPS, REFS, word_order=2).tolist()
    assert bleukit.explain_chrf(HYPS[1], REFS[1], word_order=2).row == \
        bleukit.explain_chrf(HYPS[1], REFS[1], options=chrf).row
    assert bleukit.explain_ter(HYPS[1], REFS[1], case_sensitive=True).options == TerOptions(case_sensitive=True)
    assert isinstance(bleukit.corpus_statistics(HYPS, REFS, options=TerOptions()), bleukit.TerStatistics)
    for call in (
        lambda: bleukit.pairwise_bleu(HYPS, REFS, options=chrf),
        lambda: bleukit.pairwise_chrf(HYPS, REFS, options=BleuOptions()),
        lambda: bleukit.document_bleu(HYPS, REFS, [0, 0, 1], options=chrf),
        lambda: bleukit.explain_ter(HYPS[0], REFS[0], options=chrf),
    ):
        with pytest.raises(TypeError, match="options must be a"):
            call()
    with pytest.raises(TypeError, match="unknown CHRF option"):
        bleukit.pairwise_chrf(HYPS, REFS, tokenize="intl")


def test_token_ids_take_options_without_a_tokenizer():
    hyp = np.array([[5, 6, 7, 8], [1, 2, 3, 0]])
    ref = np.array([[5, 6, 7, 9], [1, 2, 3, 4]])
    ids_options = BleuOptions(tokenize="none", max_ngram_order=2)
    assert corpus_bleu_ids(hyp, ref, options=ids_options) == corpus_bleu_ids(hyp, ref, max_ngram_order=2)
    assert sentence_bleu_ids(hyp, ref, options=ids_options.sentence_level()).tolist() == \
        sentence_bleu_ids(hyp, ref, max_ngram_order=2).tolist()
    assert bleukit.pairwise_bleu_ids(hyp, ref, options=ids_options.sentence_level()).tolist() == \
        bleukit.pairwise_bleu_ids(hyp, ref, max_ngram_order=2).tolist()
    assert bleukit.self_bleu_ids(hyp, options=ids_options.sentence_level()).score == \
        bleukit.self_bleu_ids(hyp, max_ngram_order=2).score
    for bad in (BleuOptions(), BleuOptions(tokenize="none", lowercase=True), ChrfOptions()):
        with pytest.raises(TypeError, match="token ids take BleuOptions"):
            corpus_bleu_ids(hyp, ref, options=bad)
    with pytest.raises(TypeError, match="not both"):
        sentence_bleu_ids(hyp, ref, options=ids_options, max_ngram_order=2)
    with pytest.raises(TypeError, match="do\\(es\\) not apply to token ids"):
        corpus_bleu_ids(hyp, ref, tokenize="13a")


def test_paired_tests_by_group_and_the_report_take_options():
    systems = {"a": HYPS, "b": REFS}
    by_keywords = bleukit.paired_test_by_group(systems, REFS, ["x", "x", "y"], n_samples=20, tokenize="intl")
    by_options = bleukit.paired_test_by_group(systems, REFS, ["x", "x", "y"], n_samples=20,
                                              options=BleuOptions(tokenize="intl"))
    assert [[r.to_dict() for r in v] for v in by_keywords.values()] == \
        [[r.to_dict() for r in v] for v in by_options.values()]
    report = bleukit.build_report(systems, REFS, options=[BleuOptions(), ChrfOptions()], n_bootstrap=10, n_samples=20)
    assert [m["name"] for m in report.data["metrics"]] == ["BLEU", "chrF2"]
