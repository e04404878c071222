"""The public chrF functions beyond the harness's tables (tests/metrics/test_api.py and
test_bootstrap.py check their scores against live sacreBLEU): threads on real data, the public
names, errors and untouched inputs."""

from __future__ import annotations

import pytest
from metrics.chrf.chrf_cases import corpora, corpus
from metrics.harness import LINES_HYPS, LINES_REFS
from sacrebleu.metrics import CHRF

import bleukit
from bleukit import ChrfOptions, ChrfResult, corpus_chrf, sentence_chrf, sentence_chrf_scores

HYPS, REFS = list(LINES_HYPS), list(LINES_REFS)
CASES_FOUND = bool(corpora())


@pytest.mark.skipif(not CASES_FOUND, reason="real MT data not found (set BLEUKIT_SHARED_DATA)")
@pytest.mark.parametrize("word_order", [0, 2])
def test_real_data_with_threads(word_order):
    hyps, streams, per_hyp = corpus("wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en", 800)
    metric = CHRF(word_order=word_order)
    one = corpus_chrf(hyps, per_hyp, word_order=word_order)
    assert one.score == metric.corpus_score(hyps, streams).score
    assert corpus_chrf(hyps, per_hyp, word_order=word_order, threads=0) == one
    assert corpus_chrf(hyps, per_hyp, word_order=word_order, threads=3) == one
    scores = sentence_chrf_scores(hyps, per_hyp, word_order=word_order, threads=2)
    assert scores.tolist() == [metric._compute_f_score(row) for row in metric._extract_corpus_statistics(hyps, streams)]


def test_public_names():
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
def test_bad_input_is_named(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_inputs_are_not_mutated():
    hyps, refs = list(HYPS), [list(r) if isinstance(r, list) else r for r in REFS]
    corpus_chrf(hyps, refs, word_order=2)
    sentence_chrf_scores(hyps, refs)
    assert hyps == HYPS and refs == REFS
