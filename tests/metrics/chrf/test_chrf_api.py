"""The public chrF functions (bleukit.corpus_chrf, sentence_chrf, sentence_chrf_scores) against live
sacreBLEU 2.6 CHRF: scores with ==, the summed statistics, the name, the signature and the bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from metrics.chrf.chrf_cases import corpora, corpus
from sacrebleu.metrics import CHRF

import bleukit
from bleukit import ChrfOptions, ChrfResult, corpus_chrf, sentence_chrf, sentence_chrf_scores

HYPS = ["The cat sat on the mat.", "It is raining, isn't it?", "", "Hello WORLD ", "東京は日本の首都です。", "x y z"]
REFS = [
    ["The cat is on the mat.", "A cat sat on a mat."],
    ["It rains, doesn't it?", None],
    ["", "nothing"],
    "hello world",
    ["日本の首都は東京です。"],
    [None, "x y"],
]
CASES_FOUND = bool(corpora())
OPTIONS = [
    {},
    {"word_order": 2},
    {"char_order": 4, "word_order": 1, "beta": 1},
    {"lowercase": True, "whitespace": True},
    {"eps_smoothing": True, "word_order": 2, "beta": 3},
    {"beta": 0.5},
]


def _streams(refs):
    per_hyp = [[r] if isinstance(r, str) else list(r) for r in refs]
    width = max(len(r) for r in per_hyp)
    return [[r[k] if k < len(r) else None for r in per_hyp] for k in range(width)]


def _version_free(signature: str) -> str:
    return signature.rsplit("|version:", 1)[0]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_corpus_chrf_is_sacrebleus(engine, options):
    metric = CHRF(**options)
    theirs = metric.corpus_score(HYPS, _streams(REFS))
    ours = corpus_chrf(HYPS, REFS, **options)
    assert isinstance(ours, ChrfResult)
    assert ours.score == theirs.score
    assert (ours.name, ours.char_order, ours.word_order, ours.beta) == (
        theirs.name,
        theirs.char_order,
        theirs.word_order,
        theirs.beta,
    )
    assert _version_free(ours.signature) == _version_free(metric.get_signature().format())
    summed = np.sum(metric._extract_corpus_statistics(HYPS, _streams(REFS)), axis=0).tolist()
    assert ours.hyp_ngrams == summed[0::3] and ours.ref_ngrams == summed[1::3] and ours.matches == summed[2::3]
    assert len(ours.matches) == ours.char_order + ours.word_order
    assert ours.to_dict()["matches"] == ours.matches and ours.to_dict()["score"] == ours.score
    assert ours.format(signature=False) == f"{theirs.name} = {theirs.score:.2f}"


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_sentence_chrf_and_the_sentence_scores_are_sacrebleus(engine, options):
    metric = CHRF(**options)
    expected = []
    for hyp, refs in zip(HYPS, REFS):
        refs_list = [refs] if isinstance(refs, str) else [r for r in refs if r is not None]
        theirs = metric.sentence_score(hyp, refs_list)
        ours = sentence_chrf(hyp, refs, **options)
        assert ours.score == theirs.score
        assert _version_free(ours.signature) == _version_free(metric.get_signature().format())
        expected.append(theirs.score)
    scores = sentence_chrf_scores(HYPS, REFS, **options)
    assert scores.dtype == np.float64 and scores.tolist() == expected


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


def test_bootstrap_is_sacrebleus_confidence_interval(monkeypatch):
    """The estimate of sacreBLEU's ``--confidence`` (its resamples scored in float32 there, exactly
    here), the same printed line and the same signature."""
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    hyps, streams, per_hyp = (
        corpus("wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en", 300) if CASES_FOUND else (HYPS, _streams(REFS), REFS)
    )
    metric = CHRF(word_order=2)
    theirs = metric.corpus_score(hyps, streams, n_bootstrap=200)
    ours = corpus_chrf(hyps, per_hyp, word_order=2, n_bootstrap=200)
    assert ours.score == theirs.score
    # float32 in sacreBLEU (its bootstrap scores chrF in float32 arithmetic), and here
    assert (ours.mean, ours.ci) == (float(theirs._mean), float(theirs._ci))
    signature = metric.get_signature().format()
    assert _version_free(ours.signature) == _version_free(signature)
    assert "|bs:200|seed:12345|" in ours.signature
    assert ours.format(1).replace(ours.signature, "S") == theirs.format(1, signature="S")
    estimate = bleukit.bootstrap_ci(hyps, per_hyp, n_bootstrap=200, options=ChrfOptions(word_order=2))
    assert (ours.mean, ours.ci) == tuple(estimate)


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
