"""The seed examples of the textbook functions, on token lists and the 0-1 scale."""

import math

import pytest

from bleukit import bleu_score, bleu_unigram

EXACT = 1e-12


def test_unigram_seed_example():
    cand = "the cat sat on the mat".split()
    ref = "the cat is on the mat".split()
    assert bleu_unigram(cand, ref) == pytest.approx(5 / 6, abs=EXACT)
    assert round(bleu_unigram(cand, ref), 4) == 0.8333


def test_unigram_empty_candidate_is_zero():
    assert bleu_unigram([], "the cat".split()) == 0.0


def test_unigram_clips_repeated_words():
    # "the" seven times against a reference holding it twice: precision 2/7, no brevity penalty
    assert bleu_unigram(["the"] * 7, "the cat is on the mat too".split()) == pytest.approx(2 / 7, abs=EXACT)


def test_unigram_brevity_penalty():
    # 2 of 2 words match, but the candidate is shorter than the 4-word reference
    assert bleu_unigram(["the", "cat"], "the cat sat down".split()) == pytest.approx(math.exp(1 - 4 / 2), abs=EXACT)


def test_bleu_score_seed_bigram_example():
    assert bleu_score(["a", "b", "c", "d"], [["a", "b", "x", "d"]], max_n=2) == pytest.approx(0.5, abs=EXACT)


def test_bleu_score_identical_six_tokens():
    sent = "the cat sat on the mat".split()
    assert bleu_score(sent, [list(sent)], max_n=4) == pytest.approx(1.0, abs=EXACT)


def test_bleu_score_two_references():
    cand = "the quick brown fox".split()
    refs = ["the quick red fox".split(), "a slow red fox".split()]
    # unigrams 3/4 (brown unmatched), bigrams 1/3 ("the quick"): sqrt(1/4)
    assert bleu_score(cand, refs, max_n=2) == pytest.approx(0.5, abs=EXACT)


def test_bleu_score_zero_cases():
    assert bleu_score([], [["a", "b"]]) == 0.0
    # no 4-gram match → 0, the textbook definition (no smoothing)
    assert bleu_score("a b c d e".split(), ["a b c x e".split()], max_n=4) == 0.0
    assert bleu_score(["x", "y"], [["a", "b"]], max_n=1) == 0.0


def test_bleu_score_uses_closest_reference_length():
    cand = "a b c".split()
    # references of length 3 and 10: the closest (3) is used, so no brevity penalty
    assert bleu_score(cand, [list("abcdefghij"), ["a", "b", "c"]], max_n=1) == pytest.approx(1.0, abs=EXACT)


def test_bleu_score_works_on_integer_tokens():
    assert bleu_score([1, 2, 3, 4], [[1, 2, 9, 4]], max_n=2) == pytest.approx(0.5, abs=EXACT)


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: bleu_score("a b", [["a"]]), TypeError),
        (lambda: bleu_score(["a"], []), ValueError),
        (lambda: bleu_score(["a"], ["a b"]), TypeError),
        (lambda: bleu_score(["a"], [["a"]], max_n=0), ValueError),
        (lambda: bleu_unigram(["a"], "a"), TypeError),
    ],
)
def test_bad_input(call, error):
    with pytest.raises(error):
        call()


def test_inputs_not_mutated():
    cand = ["a", "b"]
    refs = [["a", "b"], ["b"]]
    bleu_score(cand, refs, max_n=2)
    assert cand == ["a", "b"] and refs == [["a", "b"], ["b"]]
