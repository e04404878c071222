"""The report model: per-sentence rows equal sacreBLEU's sentence scores and the statistics."""

from __future__ import annotations

import math

import sacrebleu
from small_corpus import HYPS, REFS

import bleukit
from bleukit import BleuOptions, corpus_bleu, corpus_statistics


def test_report_rows_equal_sacrebleu_sentence_scores_and_the_statistics():
    opts = BleuOptions(tokenize="intl", max_ngram_order=3)
    report = bleukit.score_report(HYPS, REFS, options=opts)
    assert report.result == corpus_bleu(HYPS, REFS, tokenize="intl", max_ngram_order=3)
    stats = corpus_statistics(HYPS, REFS, options=opts)
    for s, row, hyp, refs in zip(report.sentences, stats.rows.tolist(), HYPS, REFS):
        want = sacrebleu.BLEU(tokenize="intl", max_ngram_order=3, effective_order=True).sentence_score(hyp, refs).score
        assert math.isclose(s.score, want, abs_tol=1e-9)
        assert [s.sys_len, s.ref_len, *s.counts, *s.totals] == row
        assert s.hypothesis == hyp and list(s.references) == refs
    data = report.to_dict()
    assert data["sentence_signature"] == opts.sentence_level().signature(stats.nrefs_signature)
    assert BleuOptions(**data["options"]) == BleuOptions(tokenize="intl", max_ngram_order=3)
    assert data["sentences"][1]["references"] == REFS[1]
