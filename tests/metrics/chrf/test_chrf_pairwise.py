"""chrF's pairwise scores beyond the harness's table (tests/metrics/test_pairwise.py checks them
against sacreBLEU's sentence chrF): the kernel against its Python twin, random text, the public
``bleukit.pairwise_chrf``/``pairwise_statistics`` with ``ChrfOptions``, ``mbr_select(options=
ChrfOptions(...))`` and its reference aggregation."""

from __future__ import annotations

import glob
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from metrics.chrf.chrf_cases import corpora, corpus
from metrics.harness import PAIR_CANDS, PAIR_REFS
from sacrebleu.metrics import CHRF
from shared_data import read_lines
from strategies import sentences

import bleukit
from bleukit.metrics.chrf import extract
from bleukit.metrics.chrf.formula import sentence_scores
from bleukit.metrics.chrf.options import ChrfOptions
from bleukit.pairwise import pairwise_statistics

OPTIONS = [
    ChrfOptions(),
    ChrfOptions(word_order=2),
    ChrfOptions(word_order=2, lowercase=True, beta=1),
    ChrfOptions(char_order=3, whitespace=True, eps_smoothing=True, beta=0.5),
]


CANDS, REFS = list(PAIR_CANDS), list(PAIR_REFS)


def _sacre(cands, refs, **options):
    metric = CHRF(**options)
    return np.array([[metric.sentence_score(c, [r]).score for r in refs] for c in cands])


def _pool(n: int, seed: int = 0):
    hyps, streams, _ = corpus("wmt22-de-en", "hyp.Online-A.en", "ref.A.en+ref.B.en")
    rng = random.Random(seed)
    return rng.sample(hyps + streams[0] + streams[1], n)


def test_the_python_twins_blocks_give_the_whole_matrix(monkeypatch):
    """The Python engine scores the matrix in blocks of hypotheses (2**16 pairs each, so its memory
    stays bounded): blocks of any size, the last one short, give sacreBLEU's matrix. A mutant that
    wrote a block's rows in the wrong place or scored one pair per block survived every other test
    (tools/mutation.py, chrf.extract), none of which has more than one block."""
    monkeypatch.setenv("BLEUKIT_ENGINE", "python")
    expected = _sacre(CANDS, REFS).tolist()
    for pairs in (1, len(REFS), 2 * len(REFS) + 1, 1 << 16):
        monkeypatch.setattr(extract, "_PYTHON_BLOCK_PAIRS", pairs)
        assert extract.pairwise_chrf(CANDS, REFS, ChrfOptions()).tolist() == expected, pairs


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


def test_pairwise_statistics_are_sacrebleus_rows(engine):
    options = ChrfOptions(word_order=2)
    table = pairwise_statistics(CANDS, REFS, options=options)
    metric = CHRF(word_order=2)
    assert table.shape == (len(CANDS), len(REFS), options.columns) and table.dtype == np.int64
    for i, cand in enumerate(CANDS):
        for j, ref in enumerate(REFS):
            assert table[i, j].tolist() == metric._extract_corpus_statistics([cand], [[ref]])[0]
    scores = bleukit.sentence_scores_from_statistics(
        bleukit.ChrfStatistics(table.reshape(-1, options.columns), np.ones(table.shape[0] * table.shape[1]), 6, 2),
        options,
    )
    assert scores.reshape(table.shape[:2]).tolist() == bleukit.pairwise_chrf(CANDS, REFS, word_order=2).tolist()


def test_public_function_names_bad_input():
    with pytest.raises(TypeError, match="unknown CHRF option"):
        bleukit.pairwise_chrf(CANDS, REFS, tokenize="13a")
    with pytest.raises(ValueError, match="char_order must be between 1"):
        bleukit.pairwise_chrf(CANDS, REFS, char_order=0)
    with pytest.raises(TypeError, match="single str"):
        bleukit.pairwise_chrf("a b", REFS)
    with pytest.raises(TypeError, match=r"references\[1\] must be a str"):
        bleukit.pairwise_chrf(CANDS, ["a", None])
    with pytest.raises(TypeError, match="either options= or option keywords"):
        pairwise_statistics(CANDS, REFS, options=ChrfOptions(), tokenize="13a")


@pytest.mark.parametrize("options", [ChrfOptions(), ChrfOptions(word_order=2)], ids=["chrF", "chrF++"])
def test_mbr_utilities_are_mean_sentence_chrf(engine, options):
    kw = {"word_order": options.word_order}
    pick = bleukit.mbr_select(CANDS, options=options)
    # the expectation over distinct pseudo-references (equal ones' weights add up): the last bit may differ
    np.testing.assert_allclose(pick.utilities, _sacre(CANDS, CANDS, **kw).mean(axis=1), rtol=1e-14, atol=0)
    assert pick.index == int(np.argmax(pick.utilities))
    weights = [0.1, 0.2, 0.3, 0.4]
    picked = bleukit.mbr_select(CANDS, REFS, weights=weights, nbest=3, options=options)
    expected = _sacre(CANDS, REFS, **kw) @ np.array(weights)
    np.testing.assert_allclose(picked.utilities, expected, rtol=1e-14, atol=0)
    assert picked.indices == list(np.argsort(-expected, kind="stable")[:3])
    batch = bleukit.mbr_select([CANDS, REFS], options=options)
    assert [b.index for b in batch] == [pick.index, bleukit.mbr_select(REFS, options=options).index]


def test_mbr_keywords_stay_bleus_and_options_are_used_as_given():
    with pytest.raises(TypeError, match="either options= or option keywords"):
        bleukit.mbr_select(CANDS, options=ChrfOptions(), word_order=2)
    with pytest.raises(TypeError, match="unknown BLEU option"):
        bleukit.mbr_select(CANDS, word_order=2)


def test_aggregation_with_one_pseudo_reference_is_its_sentence_chrf(engine):
    """One expected reference of one (or one repeated) pseudo-reference is that reference: exact."""
    options = ChrfOptions(word_order=2)
    for ref in REFS:
        exact = _sacre(CANDS, [ref], word_order=2)[:, 0]
        assert bleukit.mbr_select(CANDS, [ref], aggregate=True, options=options).utilities.tolist() == exact.tolist()
        repeated = bleukit.mbr_select(CANDS, [ref] * 4, aggregate=True, options=options).utilities
        assert repeated.tolist() == exact.tolist()


def test_aggregation_is_sacrebleus_formula_on_the_mean_counts():
    """The expected reference's counts are the weighted means of sacreBLEU's own n-gram counts;
    sacreBLEU's F-score of the resulting (fractional) statistics is the utility."""
    from sacrebleu.metrics.helpers import extract_all_char_ngrams, extract_word_ngrams

    options = ChrfOptions(word_order=2)
    metric = CHRF(word_order=2)
    weights = np.array([0.1, 0.2, 0.3, 0.4])
    expected_utilities = []
    ref_counts = []
    for ref in REFS:
        counts = extract_all_char_ngrams(ref, 6, False)
        words = metric._remove_punctuation(ref)
        counts += [extract_word_ngrams(words, n) for n in (1, 2)]
        ref_counts.append(counts)
    for cand in CANDS:
        row = []
        hyp = extract_all_char_ngrams(cand, 6, False) + [
            extract_word_ngrams(metric._remove_punctuation(cand), n) for n in (1, 2)
        ]
        for o in range(8):
            mean = {}
            for w, counts in zip(weights.tolist(), ref_counts):
                for gram, c in counts[o].items():
                    mean[gram] = mean.get(gram, 0.0) + w * c
            total = 0.0
            for w, counts in zip(weights.tolist(), ref_counts):
                total += w * sum(counts[o].values())
            matches = 0.0
            for gram, c in hyp[o].items():
                if mean.get(gram):
                    matches += min(c, mean[gram])
            row += [sum(hyp[o].values()) if total > 0 else 0, total, matches]
        expected_utilities.append(metric._compute_f_score(row))
    got = bleukit.mbr_select(CANDS, REFS, weights=weights, aggregate=True, options=options).utilities
    assert got.tolist() == expected_utilities


def test_aggregation_is_a_close_approximation_on_real_data(shared_data):
    folder = shared_data / "wmt17-en-de"
    files = sorted(glob.glob(str(folder / "hyp.*"))) + [str(folder / "ref.de")]
    columns = [read_lines(f) for f in files]
    batch = [[c[i] for c in columns] for i in range(200)]
    options = ChrfOptions(word_order=2)
    exact = bleukit.mbr_select(batch, options=options)
    approx = bleukit.mbr_select(batch, aggregate=True, options=options)
    agree = np.mean([e.index == a.index for e, a in zip(exact, approx)])
    best = np.mean([e.utilities[e.index] for e in exact])
    chosen = np.mean([e.utilities[a.index] for e, a in zip(exact, approx)])
    average = np.mean([e.utilities.mean() for e in exact])
    assert agree >= 0.85, agree  # measured 0.93
    assert best - chosen < 0.2, best - chosen  # chrF++ points of expected utility lost (measured 0.03)
    assert chosen - average > 4, chosen - average  # far better than a random pick (measured 5.8)
    assert any(not np.allclose(e.utilities, a.utilities) for e, a in zip(exact, approx))  # it is approximate
