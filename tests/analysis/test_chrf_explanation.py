"""bleukit.explain_chrf (in bleukit.analysis.chrf_explanation): the matched character and word n-grams of a
sentence, per order, whose counts are sacreBLEU's statistics row and whose score is its sentence chrF."""

from __future__ import annotations

import pytest
from sacrebleu.metrics import CHRF
from shared_data import load_corpus

from bleukit import BleuOptions, ChrfOptions
from bleukit.analysis.chrf_explanation import explain_chrf

CASES = [
    ("The cat sat on the mat.", ["The cat is on the mat.", "A cat sat on a mat."]),
    ("the the the cat", ["the cat"]),
    ("(hi) 'x' . ,, end.", ["hi x end", "(hi) x end."]),
    ("", ["", "x"]),
    ("abc", [""]),
    ("東京は日本の首都です。", ["日本の首都は東京です。"]),
    ("It is raining", ["It is raining", "It is raining"]),  # a tie keeps the first
]
OPTIONS = [
    ChrfOptions(),
    ChrfOptions(word_order=2),
    ChrfOptions(char_order=3, word_order=1, whitespace=True),
    ChrfOptions(lowercase=True, beta=1, eps_smoothing=True, word_order=2),
]


def _sacrebleu(options: ChrfOptions) -> CHRF:
    return CHRF(**options.to_dict())


@pytest.mark.parametrize("options", OPTIONS, ids=["chrF", "chrF++", "c3w1ws", "lc-b1-eps"])
@pytest.mark.parametrize("hyp, refs", CASES)
def test_row_reference_and_score_are_sacrebleus(hyp, refs, options):
    metric = _sacrebleu(options)
    ex = explain_chrf(hyp, refs, options=options)
    assert ex.row == metric._extract_corpus_statistics([hyp], [[r] for r in refs])[0]
    assert ex.row == metric._extract_corpus_statistics([hyp], [[refs[ex.reference_index]]])[0]
    assert ex.score == metric.sentence_score(hyp, refs).score
    assert len(ex.orders) == options.char_order + options.word_order
    for order in ex.orders:
        assert order.matched == sum(m.matched for m in order.ngrams)
        assert order.hyp_total in (0, sum(m.hyp_count for m in order.ngrams))
        assert all(m.matched == min(m.hyp_count, m.ref_count) for m in order.ngrams)
        assert all(len(m.ngram) == order.n for m in order.ngrams if order.kind == "char")
        assert all(len(m.ngram.split(" ")) == order.n for m in order.ngrams if order.kind == "word")


def test_ties_and_the_kept_reference():
    assert explain_chrf("It is raining", ["It is raining", "It is raining"]).reference_index == 0
    ex = explain_chrf("the cat", ["a dog", "the cats"], options=ChrfOptions(word_order=2))
    assert ex.reference_index == 1 and ex.references == ("a dog", "the cats")
    assert explain_chrf("the cat", [None, "the cat"]).references == ("the cat",)


def test_real_sentences_equal_sacrebleus_rows(shared_data):
    hyps, refs, streams = load_corpus(shared_data, "wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en")
    options = ChrfOptions(word_order=2)
    metric = _sacrebleu(options)
    rows = metric._extract_corpus_statistics(hyps[:400], [s[:400] for s in streams])
    for i in range(0, 400, 7):
        ex = explain_chrf(hyps[i], refs[i], options=options)
        assert ex.row == rows[i] and ex.score == metric._compute_f_score(rows[i])


def test_json_and_table():
    ex = explain_chrf("ab b", ["b ab"], options=ChrfOptions(char_order=2, word_order=1))
    d = ex.to_dict()
    assert d["row"] == ex.row and d["reference_index"] == 0 and d["score"] == ex.score
    assert [(o["kind"], o["n"]) for o in d["orders"]] == [("char", 1), ("char", 2), ("word", 1)]
    assert d["orders"][0]["ngrams"] == [
        {"ngram": "a", "hyp_count": 1, "ref_count": 1, "matched": 1},
        {"ngram": "b", "hyp_count": 2, "ref_count": 2, "matched": 2},
    ]
    assert ex.statistics().rows.tolist() == [ex.row]


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="hypothesis must be a str"):
        explain_chrf(["a"], "a")
    with pytest.raises(ValueError, match="holds no reference"):
        explain_chrf("a", [None])
    with pytest.raises(TypeError, match="options must be a"):
        explain_chrf("a", "a", options={"word_order": 2})
    with pytest.raises(TypeError, match="options must be a ChrfOptions"):
        explain_chrf("a", "a", options=BleuOptions())
    with pytest.raises(TypeError, match="not both"):
        explain_chrf("a", "a", options=ChrfOptions(), word_order=2)
