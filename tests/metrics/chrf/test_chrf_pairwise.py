"""Pairwise sentence chrF (every hypothesis against every single reference) against sacreBLEU's
sentence_score, and the kernel against its Python twin."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from metrics.chrf.chrf_cases import corpora, corpus
from sacrebleu.metrics import CHRF
from strategies import sentences

from bleukit.metrics.chrf import extract
from bleukit.metrics.chrf.formula import sentence_scores
from bleukit.metrics.chrf.options import ChrfOptions

OPTIONS = [
    ChrfOptions(),
    ChrfOptions(word_order=2),
    ChrfOptions(word_order=2, lowercase=True, beta=1),
    ChrfOptions(char_order=3, whitespace=True, eps_smoothing=True, beta=0.5),
]


def _pool(n: int, seed: int = 0):
    hyps, streams, _ = corpus("wmt22-de-en", "hyp.Online-A.en", "ref.A.en+ref.B.en")
    rng = random.Random(seed)
    return rng.sample(hyps + streams[0] + streams[1], n)


@pytest.mark.skipif(not corpora(), reason="real MT data not found (set BLEUKIT_SHARED_DATA)")
@pytest.mark.parametrize("options", OPTIONS, ids=["chrF", "chrF++", "chrF1++lc", "c3ws-eps"])
def test_pairwise_equals_sacrebleu_sentence_scores(engine, options):
    pool = _pool(60)
    pool[7] = pool[3]  # a repeated sentence
    pool[11] = ""
    hyps, refs = pool[:40], pool[25:]
    matrix = extract.pairwise_chrf(hyps, refs, options)
    metric = CHRF(
        char_order=options.char_order,
        word_order=options.word_order,
        beta=options.beta,
        lowercase=options.lowercase,
        whitespace=options.whitespace,
        eps_smoothing=options.eps_smoothing,
    )
    assert matrix.shape == (40, 35) and matrix.dtype == np.float64
    for i in range(0, 40, 3):
        for j in range(35):
            assert matrix[i, j] == metric.sentence_score(hyps[i], [refs[j]]).score, (i, j)
    rows = extract.pairwise_chrf_statistics(hyps, refs, options)
    for i, j in [(0, 0), (3, 5), (11, 2), (39, 34)]:
        assert rows[i, j].tolist() == metric._extract_corpus_statistics([hyps[i]], [[refs[j]]])[0]
    assert sentence_scores(rows.reshape(-1, options.columns), options).reshape(40, 35).tolist() == matrix.tolist()


@pytest.mark.skipif(not extract.available(), reason="the chrF kernel is not built")
@pytest.mark.skipif(not corpora(), reason="real MT data not found (set BLEUKIT_SHARED_DATA)")
@pytest.mark.parametrize("options", OPTIONS, ids=["chrF", "chrF++", "chrF1++lc", "c3ws-eps"])
def test_kernel_equals_the_python_twin(monkeypatch, options):
    pool = _pool(180, seed=1)
    native = extract.pairwise_chrf(pool, pool, options, threads=2)
    native_rows = extract.pairwise_chrf_statistics(pool[:70], pool, options)
    monkeypatch.setenv("BLEUKIT_ENGINE", "python")
    assert extract.pairwise_chrf(pool, pool, options).tolist() == native.tolist()
    assert extract.pairwise_chrf_statistics(pool[:70], pool, options).tolist() == native_rows.tolist()
    # the same list twice (MBR) and two equal lists give the same matrix
    monkeypatch.delenv("BLEUKIT_ENGINE")
    assert extract.pairwise_chrf(pool, list(pool), options).tolist() == native.tolist()


@settings(max_examples=60, deadline=None)
@given(
    hyps=st.lists(sentences(), min_size=1, max_size=5),
    refs=st.lists(sentences(), min_size=1, max_size=5),
    word_order=st.integers(0, 2),
    lowercase=st.booleans(),
)
def test_random_text_pairwise_equals_the_statistics_table(hyps, refs, word_order, lowercase):
    options = ChrfOptions(word_order=word_order, lowercase=lowercase)
    matrix = extract.pairwise_chrf(hyps, refs, options)
    for i, h in enumerate(hyps):
        table = extract.chrf_statistics([h] * len(refs), [[r] for r in refs], options)
        assert matrix[i].tolist() == sentence_scores(table, options).tolist()


def test_empty_sides(engine):
    assert extract.pairwise_chrf([], ["a"], ChrfOptions()).shape == (0, 1)
    assert extract.pairwise_chrf(["a"], [], ChrfOptions()).shape == (1, 0)
    with pytest.raises(TypeError, match="hypotheses must be a sequence of str"):
        extract.pairwise_chrf("abc", ["a"], ChrfOptions())
    with pytest.raises(TypeError, match=r"references\[1\] must be a str"):
        extract.pairwise_chrf(["a"], ["b", None], ChrfOptions())
