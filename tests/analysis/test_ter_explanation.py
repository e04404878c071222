"""bleukit.explain_ter (in bleukit.analysis.ter_explanation): the edits of a sentence to each
reference, the closest one, its shifts and word operations; the row is the statistics table's row,
the edits are sacreBLEU's and the score its sentence TER."""

from __future__ import annotations

import random

import pytest
from sacrebleu.metrics import TER
from sacrebleu.metrics.lib_ter import translation_edit_rate
from shared_data import load_corpus

import bleukit
from bleukit import BleuOptions, TerOptions
from bleukit.analysis.ter_explanation import explain_ter
from bleukit.metrics.ter.reference import edit_trace, edits, ter_statistics

CASES = [
    ("the cat sat on the mat", ["the mat the cat sat on", "a cat sat on a mat"]),
    ("It is raining today.", ["It rains today.", "today it is raining"]),
    ("", ["", "x y"]),
    ("a b c", [""]),
    ("Hello, world! Isn't it?", ["hello world , isn't it ?"]),
    ("東京は日本の首都です。", ["日本の首都は東京です。"]),
    ("same", ["same", "same"]),  # a tie keeps the first
]
OPTIONS = [
    TerOptions(),
    TerOptions(normalized=True),
    TerOptions(no_punct=True, case_sensitive=True),
    TerOptions(asian_support=True, normalized=True),
]


def _check_operations(ex):
    ref = ex.reference_words[ex.reference_index]
    assert [i for _, i, _ in ex.operations if i >= 0] == list(range(len(ex.shifted_words)))
    assert [j for _, _, j in ex.operations if j >= 0] == list(range(len(ref)))
    for name, i, j in ex.operations:
        if name in ("match", "substitute"):
            assert (ex.shifted_words[i] == ref[j]) == (name == "match")
        else:
            assert (name, i >= 0, j >= 0) in (("insert", False, True), ("delete", True, False))
    assert sorted(ex.shifted_words) == sorted(ex.hypothesis_words)
    assert len(ex.shifts) + sum(op != "match" for op, _, _ in ex.operations) == ex.num_edits


@pytest.mark.parametrize("options", OPTIONS, ids=["default", "norm", "nopunct-cs", "asian"])
@pytest.mark.parametrize("hyp, refs", CASES)
def test_row_edits_and_score_are_sacrebleus(hyp, refs, options):
    ex = explain_ter(hyp, refs, options=options)
    assert list(ex.row) == ter_statistics([hyp], [refs], options).tolist()[0]
    assert ex.num_edits == int(bleukit.corpus_statistics([hyp], [refs], options=options).rows[0][0])
    theirs = TER(**options.to_dict())
    assert ex.edits_per_reference == tuple(
        translation_edit_rate(list(ex.hypothesis_words), list(words))[0] for words in ex.reference_words
    )
    assert ex.score == theirs.sentence_score(hyp, refs).score
    assert ex.score == bleukit.sentence_ter(hyp, refs, **options.to_dict()).score
    assert ex.reference_index == ex.edits_per_reference.index(min(ex.edits_per_reference))
    _check_operations(ex)


def test_real_sentences(shared_data):
    hyps, refs, streams = load_corpus(shared_data, "wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en")
    stats = bleukit.corpus_statistics(hyps[:300], refs[:300], options=TerOptions())
    for i in range(0, 300, 11):
        ex = explain_ter(hyps[i], refs[i])
        assert ex.num_edits == int(stats.rows[i][0])
        assert ex.score == bleukit.sentence_ter(hyps[i], refs[i]).score
        _check_operations(ex)


def test_traces_count_the_edits():
    rng = random.Random(7)
    for _ in range(500):
        hyp = [rng.choice("abcde") for _ in range(rng.randint(0, 15))]
        ref = [rng.choice("abcde") for _ in range(rng.randint(0, 15))]
        assert edit_trace(hyp, ref).edits == edits(hyp, ref) == translation_edit_rate(hyp, ref)[0]


def test_keywords_json_and_text():
    ex = explain_ter("A b", ["a c"], case_sensitive=True)
    assert ex.options == TerOptions(case_sensitive=True) and ex.num_edits == 2
    d = ex.to_dict()
    assert d["row"] == list(ex.row) and d["score"] == ex.score and d["reference_index"] == 0
    assert [o["operation"] for o in d["operations"]] == ["substitute", "substitute"]
    assert "TER = 100.00 (2 edits / 2 reference words)" in str(ex)


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="hypothesis must be a str"):
        explain_ter(["a"], "a")
    with pytest.raises(ValueError, match="no reference"):
        explain_ter("a", [None])
    with pytest.raises(TypeError, match="options must be a TerOptions"):
        explain_ter("a", "a", options=BleuOptions())
    with pytest.raises(TypeError, match="not both"):
        explain_ter("a", "a", options=TerOptions(), normalized=True)
    with pytest.raises(TypeError, match="unknown TER option"):
        explain_ter("a", "a", tokenize="13a")
