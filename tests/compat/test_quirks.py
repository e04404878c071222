"""The quirks bleukit.compat reproduces on purpose, one by one (live comparisons are in
test_live.py, the real-data rows in test_expected.py)."""

import json
import sys
import warnings

import numpy as np
import pytest

import bleukit
from bleukit.compat import gleu, hf_evaluate, moses, nltk, torchmetrics

SF = nltk.SmoothingFunction()


def test_nltk_method0_gives_a_tiny_number_not_zero_and_warns():
    with pytest.warns(nltk.NltkQuirkWarning, match="4-gram"):
        score = nltk.sentence_bleu([["a", "b", "c", "d"]], ["a", "b", "c", "e"])
    assert 0 < score < 1e-70
    assert score == pytest.approx(0.75**0.25 * (2 / 3) ** 0.25 * 0.5**0.25 * sys.float_info.min**0.25, rel=1e-12)


def test_nltk_no_unigram_match_returns_int_zero_and_list_weights_a_list():
    assert nltk.corpus_bleu([[["a"]]], [["b"]]) == 0 and type(nltk.corpus_bleu([[["a"]]], [["b"]])) is int
    assert nltk.corpus_bleu([[["a"]]], [["b"]], weights=[(1.0,), (0.5, 0.5)]) == [0, 0]
    out = nltk.corpus_bleu([[["a", "b"]]], [["a", "b"]], weights=[(1.0,), (0.5, 0.5)])
    assert out == [1.0, 1.0]


def test_nltk_max1_denominators_and_their_warning():
    refs = [[["a", "b", "c", "d", "e"]], [["x"]]]
    hyps = [["a", "b", "c", "d", "e"], ["x"]]
    with pytest.warns(nltk.NltkQuirkWarning, match=r"max\(1, n-grams\)"):
        score = nltk.corpus_bleu(refs, hyps)
    # bigrams: 4 of 4 + a denominator of 1 for the one-word sentence: 4/5, etc.
    assert score == pytest.approx((1 * 4 / 5 * 3 / 4 * 2 / 3) ** 0.25, rel=1e-12)


def test_nltk_method5_exceeds_one_and_method6_asserts_on_trigrams():
    hyp = ["a", "b", "c", "d"]
    assert nltk.sentence_bleu([hyp], hyp, smoothing_function=SF.method5) > 1
    with pytest.raises(AssertionError, match="bigrams"):
        # bigrams match, trigrams do not: NLTK's assertion is about p_3 though it says bigrams
        nltk.sentence_bleu([["a", "b", "x", "c", "d"]], ["a", "b", "c", "d"], smoothing_function=SF.method6)


def test_nltk_corpus_smoothing_sees_only_the_last_pair():
    refs = [[["a", "b", "c", "d", "e", "f"]], [["x", "y"]]]
    hyps = [["a", "b", "c", "d", "e", "f"], ["x", "y"]]
    with pytest.warns(nltk.NltkQuirkWarning, match="last sentence pair"):
        a = nltk.corpus_bleu(refs, hyps, smoothing_function=SF.method5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = nltk.corpus_bleu(refs[::-1], hyps[::-1], smoothing_function=SF.method5)
    assert a != b  # the same corpus in another order scores differently


def test_nltk_auto_reweigh_only_for_the_default_tuple():
    assert nltk.sentence_bleu([["a", "b"]], ["a", "b"], auto_reweigh=True) == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert nltk.sentence_bleu([["a", "b"]], ["a", "b"], weights=[0.25] * 4, auto_reweigh=True) < 1e-70


def test_evaluate_bleu_shortest_reference_and_smoothing_of_unigrams():
    out = hf_evaluate.bleu(["a b c d e"], [["a b c d e", "a b c"]])
    assert out["reference_length"] == 3  # sacreBLEU would take the closest, 5
    assert bleukit.corpus_bleu(["a b c d e"], [["a b c d e", "a b c"]]).ref_len == 5
    smoothed = hf_evaluate.bleu(["a b"], ["a c"], smooth=True)
    assert smoothed["precisions"] == [2 / 3, 1 / 2, 1 / 1, 1 / 1]  # unigrams get +1 too


def test_evaluate_bleu_empty_input_is_a_value_error():
    with pytest.raises(ValueError, match="empty input"):
        hf_evaluate.bleu([], [])
    with pytest.raises(ValueError, match="all translations are empty"):
        hf_evaluate.bleu([""], ["a"])


def test_gleu_takes_the_best_single_reference():
    # clipping across references (BLEU) would match both words; GLEU matches each reference alone
    assert gleu.sentence_gleu([["a", "x"], ["y", "b"]], ["a", "b"]) == 1 / 3


def test_multi_bleu_chops_the_unterminated_last_line():
    ref_ok, ref_cut = b"a b c d\n", b"a b c d"
    multi = moses.multi_bleu(b"a b c d\n", [ref_ok])
    assert multi.startswith("BLEU = 100.00")
    assert "ref_len=3" in moses.multi_bleu(b"a b c d\n", [ref_cut])  # "d" was chopped
    # multi-bleu.perl chops a byte: the last UTF-8 character becomes a broken word
    assert "hyp_len=1" in moses.multi_bleu("Straß".encode(), ["Straß\n"])
    # the detok script decodes first, so it drops the whole character
    assert moses.multi_bleu_detok("Straße", ["Straß\n"]).startswith("BLEU = 0.00, 100.0")


def test_multi_bleu_lowercases_ascii_only_and_detok_all_of_unicode():
    hyp, ref = ["ÉCOLE A B C"], [["école a b c"]]
    assert moses.multi_bleu(hyp, ref, lowercase=True).startswith("BLEU = 0.00, 75.0/66.7/50.0/0.0")
    assert moses.multi_bleu_detok(hyp, ref, lowercase=True).startswith("BLEU = 100.00")


def test_moses_whitespace_rules():
    # multi-bleu.perl splits on ASCII whitespace only: a no-break space joins words
    assert "hyp_len=1" in moses.multi_bleu(["a\u00a0b"], [["a b"]])
    # the detok script uses Perl's \s, which (unlike Python's str.split) does not contain U+001C
    assert "hyp_len=1" in moses.multi_bleu_detok(["a\x1cb"], [["a b"]])
    assert bleukit.corpus_bleu(["a\x1cb"], ["a b"]).sys_len == 2


def test_moses_missing_reference_line_counts_9999():
    assert "ref_len=10000" in moses.multi_bleu(["a", "b"], [["a"]])


def test_torchmetrics_ties_go_to_the_first_listed_reference():
    torch = pytest.importorskip("torch")
    # hypothesis of 4 words, references of 5 and 3: both 1 away; first listed (5) gives a brevity penalty
    got = torchmetrics.bleu_score(["a b c d"], [["a b c d e", "a b c"]])
    assert got.dtype == torch.float32
    assert float(got) == pytest.approx(np.exp(1 - 5 / 4), rel=1e-6)
    assert float(torchmetrics.bleu_score(["a b c d"], [["a b c", "a b c d e"]])) == 1.0


def test_torchmetrics_no_match_in_an_order_is_zero_even_with_smoothing():
    pytest.importorskip("torch")
    assert float(torchmetrics.bleu_score(["a b c d"], [["a x b y c z d"]], smooth=True)) == 0.0


def test_torchmetrics_counts_stay_exact_past_two_to_the_24():
    # torchmetrics adds counts into float32, where 2**24 + 1 == 2**24 ...
    assert np.float32(2**24) + np.float32(1) == np.float32(2**24)
    # ... here they are int64 until the final formula
    counts = torchmetrics._Counts(1)
    counts.numerator[:] = 2**24
    counts.add([["a"]], [[["a"]]])
    assert int(counts.numerator[0]) == 2**24 + 1


def test_variant_table_is_json_and_text():
    table = bleukit.compare_variants(["The cat sat on the mat."], ["The cat sat on the mat!"])
    data = json.loads(json.dumps(table.to_dict()))
    names = [r["name"] for r in data["rows"]]
    assert names[0] == "sacreBLEU" and "multi-bleu.perl" in names and "GLEU (google_bleu)" in names
    assert all(r["note"] for r in data["rows"])
    text = table.format()
    assert all(name in text for name in names)
    by_name = {r.name: r.score for r in table.rows}
    assert by_name["multi-bleu.perl"] < by_name["multi-bleu-detok.perl"]  # "mat." vs "mat!" as words


def test_token_list_functions_refuse_strings():
    with pytest.raises(TypeError, match="token lists"):
        nltk.sentence_bleu(["the cat"], "the cat")
    with pytest.raises(TypeError, match="token lists"):
        gleu.sentence_gleu(["the cat"], ["the", "cat"])
