"""One option path: BleuOptions' fields, checks, sentence-level defaults and signature, the same
from every entry point and equal to sacreBLEU's."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sacrebleu
from small_corpus import HYPS, REFS, sacre_corpus

import bleukit
from bleukit import BleuOptions, corpus_bleu, corpus_statistics
from bleukit.metrics.bleu.options import OPTION_NAMES


def test_option_names_are_the_dataclass_fields_and_round_trip():
    assert OPTION_NAMES == (
        "tokenize",
        "lowercase",
        "smooth_method",
        "smooth_value",
        "max_ngram_order",
        "weights",
        "effective_order",
    )
    opts = BleuOptions(
        tokenize="intl", smooth_method="floor", smooth_value=0.2, max_ngram_order=3, weights=[1, 2, 3], lowercase=True
    )
    assert BleuOptions(**opts.to_dict()) == opts
    assert BleuOptions.from_keywords(opts.to_dict()) == opts


def test_sentence_level_is_effective_order_and_matches_sacrebleu_sentence_defaults():
    opts = BleuOptions(smooth_method="floor", lowercase=True)
    sent = opts.sentence_level()
    assert sent.effective_order and sent.smooth_method == "floor" and sent.lowercase
    assert sent.sentence_level() is sent
    assert BleuOptions.from_keywords({}, sentence=True) == BleuOptions().sentence_level()
    got = bleukit.sentence_scores_from_statistics(corpus_statistics(HYPS, REFS, options=opts), sent)
    want = [sacrebleu.sentence_bleu(h, r, smooth_method="floor", lowercase=True).score for h, r in zip(HYPS, REFS)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def test_unknown_option_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="unknown BLEU option.*smoothing.*known: tokenize"):
        BleuOptions.from_keywords({"smoothing": "exp"})


@pytest.mark.parametrize(
    "order, exc", [(0, ValueError), (-1, ValueError), (2.0, TypeError), (True, TypeError), ("4", TypeError)]
)
def test_max_ngram_order_has_one_check_everywhere(order, exc):
    messages = set()
    for call in (lambda: BleuOptions(max_ngram_order=order), lambda: bleukit.explain_tokens(["a"], [["a"]], order)):
        with pytest.raises(exc) as info:
            call()
        messages.add(str(info.value))
    assert len(messages) == 1  # the same words from every entry point


def test_signature_shows_a_smoothing_value_only_where_sacrebleu_does():
    for method, value in [("exp", 0), ("exp", None), ("none", 0.3), ("floor", 0.2), ("add-k", None)]:
        ours = corpus_bleu(HYPS, REFS, smooth_method=method, smooth_value=value).signature
        metric = sacrebleu.BLEU(smooth_method=method, smooth_value=value)
        metric.corpus_score(HYPS, [[r[0] for r in REFS]])
        theirs = str(metric.get_signature())
        smooth = [f for f in theirs.split("|") if f.startswith("smooth:")]
        assert smooth == [f for f in ours.split("|") if f.startswith("smooth:")]


def test_fraction_and_numpy_smooth_values_are_taken_as_floats():
    for value in (Fraction(1, 10), np.float32(0.25), np.int64(2)):
        opts = BleuOptions(smooth_method="floor", smooth_value=value)
        assert type(opts.smooth_value) is float and opts.smooth_value == float(value)
        got = corpus_bleu(HYPS, REFS, smooth_method="floor", smooth_value=value)
        want = sacre_corpus(HYPS, REFS, smooth_method="floor", smooth_value=float(value))
        assert got.signature.split("|")[4] == f"smooth:floor[{float(value):.2f}]"
        assert math.isclose(got.score, want.score, abs_tol=1e-9)


@pytest.mark.parametrize("weights", [{1: 1.0, 2: 1.0}, {0.5, 0.25}, "ab"])
def test_unordered_or_text_weights_are_rejected(weights):
    with pytest.raises(TypeError, match="weights must be a sequence"):
        BleuOptions(max_ngram_order=2, weights=weights)


def test_a_tiny_weight_on_a_zero_precision_order_gives_zero():
    hyps, refs = ["a b c d"], ["a b c e"]  # no 4-gram matches
    for w in (1e-12, 1e-3, 1.0):
        assert corpus_bleu(hyps, refs, weights=[1, 1, 1, w], smooth_method="none").score == 0.0
    # A zero weight really leaves the order out: the geometric mean of the first three.
    got = corpus_bleu(hyps, refs, weights=[1, 1, 1, 0], smooth_method="none").score
    want = sacre_corpus(hyps, [refs], smooth_method="none", max_ngram_order=3).score
    assert math.isclose(got, want, rel_tol=1e-12)
