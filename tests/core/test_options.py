"""The core's shared seams: one option path, the statistics accumulator, the report model, and
the input/option checks that used to give silent wrong numbers."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sacrebleu

import bleukit
from bleukit import BleuOptions, BleuStatistics, StatisticsAccumulator, corpus_bleu, corpus_statistics
from bleukit.options import OPTION_NAMES

HYPS = ["The cat sat on the mat.", "It is raining today.", "Good morning, everyone!", "x"]
REFS = [["The cat sat on the mat."], ["It rains today.", "It is raining now."], ["Good morning!"], ["y z"]]


def sacre_corpus(hyps, refs, **kw):
    width = max(len(r) for r in refs)
    streams = [[r[k] if k < len(r) else None for r in refs] for k in range(width)]
    return sacrebleu.BLEU(**kw).corpus_score(hyps, streams)


# ------------------------------------------------------------------------------------ options


def test_option_names_are_the_dataclass_fields_and_round_trip():
    assert OPTION_NAMES == ("tokenize", "lowercase", "smooth_method", "smooth_value",
                            "max_ngram_order", "weights", "effective_order")
    opts = BleuOptions(tokenize="intl", smooth_method="floor", smooth_value=0.2, max_ngram_order=3,
                       weights=[1, 2, 3], lowercase=True)
    assert BleuOptions(**opts.to_dict()) == opts
    assert BleuOptions.from_keywords(opts.to_dict()) == opts


def test_sentence_level_is_effective_order_and_matches_sacrebleu_sentence_defaults():
    opts = BleuOptions(smooth_method="floor", lowercase=True)
    sent = opts.sentence_level()
    assert sent.effective_order and sent.smooth_method == "floor" and sent.lowercase
    assert sent.sentence_level() is sent
    assert BleuOptions.from_keywords({}, sentence=True) == BleuOptions().sentence_level()
    got = bleukit.sentence_scores_from_statistics(corpus_statistics(HYPS, REFS, opts), sent)
    want = [sacrebleu.sentence_bleu(h, r, smooth_method="floor", lowercase=True).score for h, r in zip(HYPS, REFS)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def test_unknown_option_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="unknown BLEU option.*smoothing.*known: tokenize"):
        BleuOptions.from_keywords({"smoothing": "exp"})


@pytest.mark.parametrize("order, exc", [(0, ValueError), (-1, ValueError), (2.0, TypeError), (True, TypeError), ("4", TypeError)])
def test_max_ngram_order_has_one_check_everywhere(order, exc):
    messages = set()
    for call in (lambda: BleuOptions(max_ngram_order=order),
                 lambda: bleukit.explain_tokens(["a"], [["a"]], order)):
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


# ------------------------------------------------------------------------------------- inputs


def test_a_set_of_hypotheses_is_rejected_not_scored_in_random_order():
    with pytest.raises(TypeError, match="set has no order"):
        corpus_bleu({"a b", "c d"}, ["a b", "c d"])
    with pytest.raises(TypeError, match="set has no order"):
        corpus_bleu(["a b"], frozenset({"a b"}))


def test_a_dataframe_is_rejected_instead_of_scoring_its_column_names():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"hyp": ["a b", "c d"]})
    with pytest.raises(TypeError, match=r"DataFrame; pass one column"):
        corpus_bleu(frame, ["a b", "c d"])
    # One column (a Series) is an ordered sequence of strings and is fine.
    assert corpus_bleu(frame["hyp"], ["a b", "c d"]).score == corpus_bleu(["a b", "c d"], ["a b", "c d"]).score


def test_statistics_tables_compare_by_value():
    a = corpus_statistics(HYPS, REFS, BleuOptions())
    b = corpus_statistics(list(HYPS), [list(r) for r in REFS], BleuOptions())
    assert a == b and not (a != b)
    assert a != a[:2] and a != corpus_statistics(HYPS, REFS, BleuOptions(max_ngram_order=3))
    assert (a == "not a table") is False


# -------------------------------------------------------------------------------- accumulator


@pytest.mark.parametrize("split", [1, 2, 3])
def test_accumulated_batches_equal_the_one_pass_score_and_sacrebleu(split):
    opts = BleuOptions(smooth_method="floor", lowercase=True)
    acc = StatisticsAccumulator(opts, extras=["tokens"])
    for start in range(0, len(HYPS), split):
        acc.add_text(HYPS[start:start + split], REFS[start:start + split], tokens=start)
    result = acc.result()
    assert result == corpus_bleu(HYPS, REFS, smooth_method="floor", lowercase=True)
    assert math.isclose(result.score, sacre_corpus(HYPS, REFS, smooth_method="floor", lowercase=True).score, abs_tol=1e-9)
    assert acc.n_rows == len(HYPS) and acc.counters == {"tokens": sum(range(0, len(HYPS), split))}
    assert result.signature.split("|")[0] == "nrefs:var"


def test_accumulator_keeps_a_common_reference_count_and_merges():
    opts = BleuOptions()
    left, right = StatisticsAccumulator(opts), StatisticsAccumulator(opts)
    left.add_text(["a b c"], [["a b c", "a"]])
    right.add(corpus_statistics(["d e"], [["d e", "f"]], opts))
    left.merge(right)
    assert left.result() == corpus_bleu(["a b c", "d e"], [["a b c", "a"], ["d e", "f"]])
    assert left.result().signature.startswith("nrefs:2|")


def test_accumulator_errors_name_the_problem():
    acc = StatisticsAccumulator(BleuOptions())
    with pytest.raises(ValueError, match="empty corpus"):
        acc.result()
    with pytest.raises(ValueError, match="max_ngram_order=2"):
        acc.add(corpus_statistics(["a"], ["a"], BleuOptions(max_ngram_order=2)))
    with pytest.raises(TypeError, match="unknown counter"):
        acc.add_text(["a"], ["a"], tokens=1)
    with pytest.raises(TypeError, match="BleuStatistics"):
        acc.add([[1, 1, 1, 0, 0, 0, 1, 0, 0, 0]])
    with pytest.raises(ValueError, match="different options"):
        acc.merge(StatisticsAccumulator(BleuOptions(lowercase=True)))


def test_all_reduce_without_torch_distributed_changes_nothing():
    acc = StatisticsAccumulator(BleuOptions())
    acc.add_text(HYPS, REFS)
    before = acc.result()
    acc.all_reduce()
    assert acc.result() == before


# ------------------------------------------------------------------------------------- report


def test_report_rows_equal_sacrebleu_sentence_scores_and_the_statistics():
    opts = BleuOptions(tokenize="intl", max_ngram_order=3)
    report = bleukit.score_report(HYPS, REFS, opts)
    assert report.result == corpus_bleu(HYPS, REFS, tokenize="intl", max_ngram_order=3)
    stats = corpus_statistics(HYPS, REFS, opts)
    for s, row, hyp, refs in zip(report.sentences, stats.rows.tolist(), HYPS, REFS):
        want = sacrebleu.BLEU(tokenize="intl", max_ngram_order=3, effective_order=True).sentence_score(hyp, refs).score
        assert math.isclose(s.bleu, want, abs_tol=1e-9)
        assert [s.sys_len, s.ref_len, *s.counts, *s.totals] == row
        assert s.hypothesis == hyp and list(s.references) == refs
    data = report.to_dict()
    assert data["sentence_signature"] == opts.sentence_level().signature(stats.nrefs_signature)
    assert BleuOptions(**data["options"]) == BleuOptions(tokenize="intl", max_ngram_order=3)
    assert data["sentences"][1]["references"] == REFS[1]


def test_tokenizer_signature_always_comes_from_the_tokenizer():
    mecab = pytest.importorskip("MeCab")  # noqa: F841
    opts = BleuOptions(tokenize="ja-mecab")
    sig = bleukit.get_tokenizer("ja-mecab").signature()
    assert sig != "ja-mecab" and f"tok:{sig}|" in opts.signature(1)
    assert f"tok:{sig}|" in bleukit.score_report(["猫"], ["猫"], opts).sentence_signature
