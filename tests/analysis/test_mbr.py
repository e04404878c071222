"""MBR selection (bleukit.mbr_select): utilities, weights, n-best, ties, batches, aggregation."""

import glob
import random

import numpy as np
import pandas as pd
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


def test_mathematically_equal_utilities_are_bit_equal_and_the_lowest_index_wins(shared_data):
    # Candidate B is candidate A with words swapped in pairs (a bijection of the vocabulary), and
    # every pseudo-reference comes with its image under the same swap, at the same weight: B scores
    # against the image of each reference as A against the reference, so their expected utilities
    # are equal. A BLAS dot product summed them in another order and broke some ties by rounding.
    tok = bleukit.get_tokenizer("13a")
    sentences = [tok(line) for line in read_lines(shared_data / "wmt17-en-de" / "ref.de")[:300]]
    vocabulary = sorted({w for s in sentences for w in s.split()})
    swap = {}
    for a, b in zip(vocabulary[0::2], vocabulary[1::2]):
        swap[a], swap[b] = b, a

    def image(sentence):
        return " ".join(swap.get(w, w) for w in sentence.split())

    rng = random.Random(7)
    for _ in range(60):
        a = rng.choice(sentences)
        refs = rng.sample(sentences, rng.randint(2, 9))
        pairs = [(r, w) for r in refs for w in [rng.choice([1.0, 2.0, 0.5, 3.0])]]
        pseudo = [(r, w) for r, w in pairs] + [(image(r), w) for r, w in pairs]
        rng.shuffle(pseudo)
        for cands in ([a, image(a)], [image(a), a]):
            for weights in (None, [w for _, w in pseudo]):
                pick = bleukit.mbr_select(cands, [r for r, _ in pseudo], weights, nbest=2, tokenize="none")
                assert pick.utilities[0] == pick.utilities[1]
                assert pick.indices == [0, 1]


def test_weights_whose_sum_overflows_are_uniform():
    uniform = bleukit.mbr_select(CANDS)
    for big in ([1e308] * 5, [np.finfo(np.float64).max] * 5):
        pick = bleukit.mbr_select(CANDS, weights=big)
        np.testing.assert_array_equal(pick.utilities, uniform.utilities)
        assert pick.indices == uniform.indices
    for bad in ([float("nan")] + [1.0] * 4, [float("inf")] + [1.0] * 4, [-1.0] + [1.0] * 4):
        with pytest.raises(ValueError, match="finite and >= 0"):
            bleukit.mbr_select(CANDS, weights=bad)
    with pytest.raises(ValueError, match="NaN or \\+inf"):
        bleukit.mbr_select(CANDS, weights=[float("nan")] + [0.0] * 4, log_weights=True)


@pytest.mark.parametrize(
    "make, error, message",
    [
        (set, TypeError, "candidates must be an ordered sequence.*set"),
        (lambda c: dict(enumerate(c)), TypeError, "candidates must be a list of strings.*got a dict"),
        (lambda c: pd.DataFrame({"text": c}), TypeError, "got a DataFrame"),
        (lambda c: c[0], TypeError, "got a single str"),
    ],
)
def test_unordered_or_keyed_candidates_are_named_on_every_path(make, error, message):
    # A set said "'set' object is not subscriptable", a dict "KeyError: 0", a DataFrame its column.
    distinct = CANDS[:4]
    with pytest.raises(error, match=message):
        bleukit.mbr_select(make(distinct))
    with pytest.raises(error, match=message.replace("candidates", "pseudo_references")):
        bleukit.mbr_select(distinct, make(distinct))
    with pytest.raises(error, match=message.replace("candidates", r"candidates\[1\]")):
        bleukit.mbr_select([distinct, make(distinct)])
    with pytest.raises(error, match=message.replace("candidates", r"pseudo_references\[1\]")):
        bleukit.mbr_select([distinct, distinct], [distinct, make(distinct)])


def test_generators_are_read_once_on_every_path():
    one = bleukit.mbr_select(CANDS, CANDS[:3], [1, 2, 3], threads=0)
    got = bleukit.mbr_select((c for c in CANDS), (r for r in CANDS[:3]), (w for w in [1, 2, 3]))
    assert got.indices == one.indices and got.selected == one.selected
    np.testing.assert_array_equal(got.utilities, one.utilities)
    batch = bleukit.mbr_select(iter([iter(CANDS), (c for c in CANDS[:3])]), iter([None, iter(CANDS[:2])]))
    one_by_one = [bleukit.mbr_select(CANDS), bleukit.mbr_select(CANDS[:3], CANDS[:2])]
    assert [p.selected for p in batch] == [p.selected for p in one_by_one]
    # threads=0 means every core, as everywhere
    np.testing.assert_array_equal(bleukit.mbr_select(CANDS, threads=0).utilities, bleukit.mbr_select(CANDS).utilities)


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
