"""MBR selection (bleukit.mbr_select): utilities, weights, n-best, ties, batches, aggregation."""

import glob

import numpy as np
import pytest
import sacrebleu
from shared_data import read_lines

import bleukit

CANDS = ["the cat sat on the mat", "a cat sat on the mat", "the cat is on a mat", "dogs run", "the cat sat on the mat"]


def _matrix(cands, refs):
    return np.array([[sacrebleu.sentence_bleu(c, [r]).score for r in refs] for c in cands])


def test_utilities_are_mean_sentence_bleu_against_the_candidates():
    pick = bleukit.mbr_select(CANDS)
    np.testing.assert_allclose(pick.utilities, _matrix(CANDS, CANDS).mean(axis=1), rtol=0, atol=1e-9)
    assert pick.index == int(np.argmax(pick.utilities)) == 0
    assert pick.best == CANDS[0] and pick.indices == [0] and pick.selected == [CANDS[0]]


def test_separate_pseudo_references_and_probability_weights():
    refs = ["dogs run fast", "a cat sat on a mat", "dogs run"]
    w = [0.2, 0.3, 0.5]
    pick = bleukit.mbr_select(CANDS, refs, weights=w)
    np.testing.assert_allclose(pick.utilities, _matrix(CANDS, refs) @ np.array(w), rtol=0, atol=1e-9)
    assert pick.best == "dogs run"
    # unnormalised probabilities are normalised
    np.testing.assert_allclose(bleukit.mbr_select(CANDS, refs, weights=[2, 3, 5]).utilities, pick.utilities, atol=1e-12)


def test_log_probabilities_are_softmaxed_only_when_asked():
    refs = ["dogs run fast", "a cat sat on a mat", "dogs run"]
    logp = np.log([0.2, 0.3, 0.5]) - 7.0
    with_log = bleukit.mbr_select(CANDS, refs, weights=logp, log_weights=True)
    np.testing.assert_allclose(
        with_log.utilities, bleukit.mbr_select(CANDS, refs, weights=[0.2, 0.3, 0.5]).utilities, rtol=0, atol=1e-9
    )
    with pytest.raises(ValueError, match="log_weights=True"):
        bleukit.mbr_select(CANDS, refs, weights=logp)  # negative "probabilities": not guessed
    with pytest.raises(ValueError, match="all -inf"):
        bleukit.mbr_select(CANDS, refs, weights=[-np.inf] * 3, log_weights=True)
    # -inf removes a pseudo-reference
    only_two = bleukit.mbr_select(CANDS, refs, weights=[-np.inf, 0.0, 0.0], log_weights=True)
    np.testing.assert_allclose(only_two.utilities, bleukit.mbr_select(CANDS, refs[1:]).utilities, atol=1e-9)


def test_nbest_and_ties_take_the_lowest_index():
    pick = bleukit.mbr_select(CANDS, nbest=3)
    # candidates 0 and 4 are the same sentence: equal utilities, the lower index first
    assert pick.utilities[0] == pick.utilities[4]
    assert pick.indices[:2] == [0, 4]
    assert pick.indices == list(np.argsort(-pick.utilities, kind="stable")[:3])
    tied = bleukit.mbr_select(["x", "y", "z"], nbest=3)
    assert tied.indices == [0, 1, 2]
    with pytest.raises(ValueError, match="only 5 candidates"):
        bleukit.mbr_select(CANDS, nbest=6)
    with pytest.raises(ValueError, match="nbest"):
        bleukit.mbr_select(CANDS, nbest=0)


def test_batches_equal_one_call_per_source():
    batch = [CANDS, ["x y z", "x y", "x y z w"], ["eins zwei", "eins zwei drei"]]
    refs = [CANDS[:2], ["x y z"], ["eins zwei drei", "zwei"]]
    weights = [None, [1.0], [0.0, -1.0]]
    out = bleukit.mbr_select(batch, refs, weights, nbest=1, log_weights=True)
    assert isinstance(out, list) and len(out) == 3
    for k in range(3):
        one = bleukit.mbr_select(batch[k], refs[k], weights[k], log_weights=True)
        assert out[k].indices == one.indices
        np.testing.assert_array_equal(out[k].utilities, one.utilities)
    with pytest.raises(ValueError, match="one per source"):
        bleukit.mbr_select(batch, refs[:2])
    with pytest.raises(TypeError, match=r"candidates\[1\]"):
        bleukit.mbr_select([CANDS, ["ok", 3]])


def test_bad_weights_are_named():
    with pytest.raises(ValueError, match="one weight each"):
        bleukit.mbr_select(CANDS, weights=[1, 2])
    with pytest.raises(ValueError, match="sum to zero"):
        bleukit.mbr_select(CANDS, weights=[0] * 5)
    with pytest.raises(TypeError, match="log_weights must be a bool"):
        bleukit.mbr_select(CANDS, log_weights="yes")


def test_aggregation_with_one_pseudo_reference_is_exact():
    # one expected reference of a single (or repeated) pseudo-reference is that reference
    refs = ["the cat sat on a mat"]
    exact = bleukit.mbr_select(CANDS, refs)
    np.testing.assert_allclose(bleukit.mbr_select(CANDS, refs, aggregate=True).utilities, exact.utilities, atol=1e-9)
    np.testing.assert_allclose(
        bleukit.mbr_select(CANDS, refs * 3, aggregate=True).utilities, exact.utilities, atol=1e-9
    )


def test_aggregation_is_a_close_approximation_on_real_data(shared_data):
    # Each WMT17 source sentence: the 5 systems' German outputs and the reference as candidates.
    folder = shared_data / "wmt17-en-de"
    files = sorted(glob.glob(str(folder / "hyp.*"))) + [str(folder / "ref.de")]
    columns = [read_lines(f) for f in files]
    batch = [[c[i] for c in columns] for i in range(200)]
    exact = bleukit.mbr_select(batch)
    approx = bleukit.mbr_select(batch, aggregate=True)
    agree = np.mean([e.index == a.index for e, a in zip(exact, approx)])
    best = np.mean([e.utilities[e.index] for e in exact])
    chosen = np.mean([e.utilities[a.index] for e, a in zip(exact, approx)])
    average = np.mean([e.utilities.mean() for e in exact])
    assert agree >= 0.8  # measured 0.89
    assert best - chosen < 0.5  # BLEU points of expected utility lost (measured 0.06 on 200)
    assert chosen - average > 5  # far better than a random pick
    assert any(not np.allclose(e.utilities, a.utilities) for e, a in zip(exact, approx))  # it is approximate
