"""The match explanation must agree with the statistics (and so with sacreBLEU) exactly."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU
from shared_data import read_lines

from bleukit import BleuOptions, corpus_statistics, sentence_bleu, sentence_scores_from_statistics
from bleukit.analysis.explain import explain_bleu, explain_tokens
from bleukit.metrics.bleu.statistics import sentence_row


def _sacrebleu_row(hyp, refs, options):
    """sacreBLEU's own statistics for one sentence (the oracle for the counts)."""
    bleu = BLEU(tokenize=options.tokenize, lowercase=options.lowercase, max_ngram_order=options.max_ngram_order)
    s = bleu.corpus_score([hyp], [[r] for r in refs])
    return [s.sys_len, s.ref_len] + list(s.counts) + list(s.totals)


def _check_highlights(ex):
    """Highlights say exactly what was counted: per n-gram, `matched` occurrences are marked."""
    for order in ex.orders:
        n = order.order
        assert order.matched == sum(m.matched for m in order.ngrams)
        assert order.total == sum(m.hyp_count for m in order.ngrams) == max(ex.hyp_len - n + 1, 0)
        for m in order.ngrams:
            assert m.matched == min(m.hyp_count, m.ref_count)
            assert len(m.hyp_positions) == m.hyp_count
            for start in m.hyp_positions:
                assert tuple(ex.hypothesis_tokens[start : start + n]) == m.ngram
            assert len(m.matched_positions) == m.matched
            assert set(m.matched_positions) <= set(m.hyp_positions)
    # per order, the highlighted unigrams are exactly the counted ones
    unigram_levels = ex.hyp_levels(1)
    for m in ex.orders[0].ngrams:
        assert sum(1 for i in m.hyp_positions if unigram_levels[i]) == m.matched
    # the summary level of a token is the highest order whose counted matches cover it
    per_order = [ex.hyp_levels(o.order) for o in ex.orders]
    assert ex.hyp_match_order == tuple(max(levels) for levels in zip(*per_order)) or ex.hyp_len == 0
    for k in range(len(ex.reference_tokens)):
        per_order = [ex.ref_levels(k, o.order) for o in ex.orders]
        if ex.reference_tokens[k]:
            assert ex.ref_match_order[k] == tuple(max(levels) for levels in zip(*per_order))


def test_clipping_is_reported_and_highlighted_once():
    ex = explain_bleu("the the the the", "the cat", options=BleuOptions(max_ngram_order=2))
    the = ex.orders[0].ngrams[0]
    assert (the.ngram, the.hyp_count, the.ref_count, the.matched, the.clipped) == (("the",), 4, 1, 1, 3)
    assert ex.orders[1].ngrams[0].matched == 0
    assert ex.hyp_match_order == (1, 0, 0, 0)
    assert ex.ref_match_order == ((1, 0),)
    assert ex.row == _sacrebleu_row("the the the the", ["the cat"], BleuOptions(max_ngram_order=2))


def test_clipped_unigram_is_shown_inside_the_longer_match():
    ex = explain_bleu("the the the cat", "the cat", options=BleuOptions(max_ngram_order=2))
    assert ex.hyp_levels(1) == (0, 0, 1, 1)
    assert ex.hyp_levels(2) == (0, 0, 2, 2)
    assert ex.ref_levels(0, 1) == (1, 1)
    with pytest.raises(ValueError, match="order must be"):
        ex.hyp_levels(3)


def test_clip_is_the_best_single_reference_not_the_sum():
    ex = explain_bleu("a a a b", ["a b", "a a c"], options=BleuOptions(max_ngram_order=1))
    a = ex.orders[0].ngrams[0]
    assert (a.hyp_count, a.ref_count, a.matched) == (3, 2, 2)
    assert ex.ref_match_order == ((1, 1), (1, 1, 0))
    assert ex.row == _sacrebleu_row("a a a b", ["a b", "a a c"], BleuOptions(max_ngram_order=1))


def test_tokenizer_and_lowercase_are_those_of_the_score():
    hyp, ref = "Hello, World!", "hello world!"
    ex = explain_bleu(hyp, ref, options=BleuOptions(tokenize="13a", lowercase=True))
    assert ex.hypothesis_tokens == ("hello", ",", "world", "!")
    assert ex.hyp_match_order == (1, 0, 2, 2)
    ex_none = explain_bleu(hyp, ref, options=BleuOptions(tokenize="none"))
    assert ex_none.hypothesis_tokens == ("Hello,", "World!")
    assert ex_none.orders[0].matched == 0


def test_empty_hypothesis_and_missing_references():
    ex = explain_bleu("", ["x y", None, "z"])
    assert ex.row == [0, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    assert len(ex.reference_tokens) == 2 and ex.hyp_match_order == ()
    assert ex.statistics().nrefs.tolist() == [2]


def test_statistics_score_like_sentence_bleu():
    hyp, refs = "It is raining today.", ["It rains today.", "Today it is raining."]
    opts = BleuOptions(effective_order=True)
    ex = explain_bleu(hyp, refs, options=opts)
    score = sentence_scores_from_statistics(ex.statistics(), opts)[0]
    assert score == pytest.approx(sentence_bleu(hyp, refs).score, abs=1e-12)


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="hypothesis must be a str"):
        explain_bleu(["a"], "a")
    with pytest.raises(ValueError, match="no reference"):
        explain_bleu("a", [None])
    with pytest.raises(ValueError, match="None"):
        explain_bleu("a", None)
    with pytest.raises(TypeError, match="BleuOptions"):
        explain_bleu("a", "a", options={"tokenize": "13a"})
    with pytest.raises(ValueError, match="max_ngram_order"):
        explain_tokens(["a"], [["a"]], 0)
    with pytest.raises(ValueError, match="at least one reference"):
        explain_tokens(["a"], [], 2)


def test_inputs_are_not_mutated():
    refs = ["a b", None, "b a"]
    kept = copy.deepcopy(refs)
    explain_bleu("a b a", refs)
    assert refs == kept


def test_to_dict_is_json_ready():
    import json

    d = explain_bleu("the cat sat", ["the cat sat down"]).to_dict()
    assert json.loads(json.dumps(d)) == d
    assert [o["matched"] for o in d["orders"]] == [3, 2, 1, 0]
    assert d["orders"][2]["ngrams"][0] == {
        "ngram": "the cat sat",
        "hyp_count": 1,
        "ref_count": 1,
        "matched": 1,
        "hyp_positions": [0],
        "matched_positions": [0],
    }


tokens = st.lists(st.sampled_from("abcde"), max_size=12)


@settings(max_examples=300, deadline=None)
@given(hyp=tokens, refs=st.lists(tokens, min_size=1, max_size=3), order=st.integers(1, 5))
def test_agrees_with_the_reference_counter(hyp, refs, order):
    ex = explain_tokens(hyp, refs, order)
    assert ex.row == sentence_row(hyp, refs, order)
    _check_highlights(ex)
    for k, ref in enumerate(refs):
        assert len(ex.ref_match_order[k]) == len(ref)
        for j, level in enumerate(ex.ref_match_order[k]):
            if level:  # a highlighted reference token lies in an n-gram the hypothesis also has
                assert any(
                    tuple(ref[s : s + level]) in {m.ngram for m in ex.orders[level - 1].ngrams}
                    for s in range(max(0, j - level + 1), j + 1)
                )


@pytest.mark.parametrize(
    "folder, hyp_file, ref_files, tokenize, lowercase",
    [
        ("wmt22-de-en", "hyp.Online-A.en", ["ref.A.en", "ref.B.en"], "13a", False),
        ("wmt22-de-en", "hyp.LT22.en", ["ref.A.en"], "intl", True),
        ("wmt22-en-zh", "hyp.LanguageX.zh", ["ref.A.zh", "ref.B.zh"], "zh", False),
        ("wmt17-en-de", "hyp.online-A.0.de", ["ref.de"], "char", False),
    ],
)
def test_agrees_with_corpus_statistics_on_real_data(shared_data, folder, hyp_file, ref_files, tokenize, lowercase):
    n = 150  # a slice keeps this fast; the counter itself is checked on whole files elsewhere
    hyps = read_lines(shared_data / folder / hyp_file)[:n]
    streams = [read_lines(shared_data / folder / r)[:n] for r in ref_files]
    refs = [list(r) for r in zip(*streams)]
    opts = BleuOptions(tokenize=tokenize, lowercase=lowercase)
    stats = corpus_statistics(hyps, refs, options=opts)
    for i, (hyp, ref) in enumerate(zip(hyps, refs)):
        ex = explain_bleu(hyp, ref, options=opts)
        assert ex.row == stats.rows[i].tolist()
        _check_highlights(ex)
    # and the statistics themselves are sacreBLEU's (spot check of a few lines)
    for i in (0, n // 2, n - 1):
        assert explain_bleu(hyps[i], refs[i], options=opts).row == _sacrebleu_row(hyps[i], refs[i], opts)


def test_explanations_print_readably():
    """repr is one short line, str a small table (it printed as one nested blob: issue 20)."""
    ex = explain_bleu("Da war der Handschlag, ja. " * 20, ["Es gab den Handschlag, ja."])
    assert "\n" not in repr(ex) and len(repr(ex)) < 200
    assert repr(ex).startswith("MatchExplanation(hypothesis='Da war der Handschlag , ja . Da ...'")
    assert "matched/total per order=[4/140, 3/139, 2/138, 1/137]" in repr(ex)
    lines = str(ex).splitlines()
    assert lines[0].startswith("hypothesis   Da war der Handschlag") and lines[0].endswith("(140 tokens)")
    assert lines[1] == "reference 1  Es gab den Handschlag , ja .  (7 tokens)"
    assert lines[3].split()[:3] == ["1", "4/140", "2.86%"]
    assert lines[3].endswith("Handschlag (1 of 20) | , (1 of 20) | ja (1 of 20) | . (1 of 20)")
    assert lines[6].endswith("Handschlag , ja . (1 of 20)") and len(lines) == 3 + ex.max_ngram_order
    assert len(repr(ex.orders[0])) < 80
