"""Bad input gets a clear error naming the problem; good input is never mutated or truncated."""

import copy

import numpy as np
import pytest

import bleukit
from bleukit import corpus_bleu

HYPS = ["the cat sat", "a dog ran"]
REFS = ["the cat sat down", ["a dog ran", None, "the dog ran"]]


def test_mismatched_lengths_explain_the_layout():
    with pytest.raises(ValueError) as err:
        bleukit.corpus_bleu(HYPS, ["only one reference"])
    msg = str(err.value)
    assert "2 hypotheses but 1 reference entries" in msg
    assert "references[i]" in msg and "references_from_streams" in msg


def test_sacrebleu_streams_are_recognised():
    hyps = ["the cat sat on the mat", "a dog ran in the park"]
    streams = [list(hyps)]  # sacreBLEU layout: one stream of two lines
    with pytest.raises(ValueError, match="looks like sacreBLEU-style reference streams"):
        bleukit.corpus_bleu(hyps, streams)
    # ... and the suggested conversion gives the right answer
    fixed = bleukit.corpus_bleu(hyps, bleukit.references_from_streams(streams))
    assert fixed.score == pytest.approx(100.0)


def test_never_truncates_long_references():
    with pytest.raises(ValueError, match="1 hypotheses but 3"):
        bleukit.corpus_bleu(["a"], ["a", "b", "c"])


def test_hypotheses_as_one_string():
    with pytest.raises(TypeError, match="got a single str; wrap one sentence in a list"):
        bleukit.corpus_bleu("the cat sat", ["the cat sat"])
    with pytest.raises(TypeError, match="single str"):
        bleukit.sentence_bleu_scores("the cat sat", ["the cat sat"])


@pytest.mark.parametrize(
    "hyps, refs, error, pattern",
    [
        (["ok", 3], ["a", "b"], TypeError, r"hypotheses\[1\] must be a str, got int"),
        (["ok", None], ["a", "b"], TypeError, r"hypotheses\[1\] must be a str, got NoneType"),
        ([b"bytes"], ["a"], TypeError, r"hypotheses\[0\] must be a str, got bytes"),
        (["ok"], [3], TypeError, r"references\[0\] must be a str or a list of str"),
        (["ok"], [["a", 3]], TypeError, r"references\[0\]\[1\] must be a str or None, got int"),
        ([], [], ValueError, "empty corpus"),
        (["ok"], [None], ValueError, r"references\[0\] is None"),
        (["ok"], [[]], ValueError, r"references\[0\] holds no reference"),
        (["ok"], [[None, None]], ValueError, r"references\[0\] holds no reference"),
        (["ok"], "ok", TypeError, "references must be a list of strings, got a single str"),
        (None, ["a"], TypeError, "hypotheses must be a list of strings, got None"),
        ({"a": 1}, ["a"], TypeError, "got a dict"),
    ],
)
def test_bad_corpus_input(hyps, refs, error, pattern):
    with pytest.raises(error, match=pattern):
        bleukit.corpus_bleu(hyps, refs)


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        (dict(tokenize="moses"), ValueError, "unknown tokenize='moses'; choose one of 13a"),
        (dict(tokenize=13), TypeError, "tokenize must be a tokenizer name \\(str\\)"),
        (dict(smooth_method="laplace"), ValueError, "unknown smooth_method='laplace'"),
        (dict(smooth_value=-1.0, smooth_method="floor"), ValueError, "smooth_value must be a finite number >= 0"),
        (dict(smooth_value="0.1", smooth_method="floor"), TypeError, "smooth_value must be a number"),
        (dict(max_ngram_order=0), ValueError, "max_ngram_order must be >= 1"),
        (dict(max_ngram_order=2.0), TypeError, "max_ngram_order must be an int"),
        (dict(weights=[0.5, 0.5]), ValueError, "weights has 2 values but max_ngram_order is 4"),
        (dict(weights=[0.25, 0.25, 0.25, -0.25]), ValueError, r"weights\[3\] must be a finite number >= 0"),
        (dict(weights=[0, 0, 0, 0]), ValueError, "weights must not all be zero"),
        (dict(weights="0.25"), TypeError, "weights must be a sequence"),
        (dict(lowercase="yes"), TypeError, "lowercase must be a bool"),
        (dict(effective_order=1), TypeError, "effective_order must be a bool"),
    ],
)
def test_bad_options(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        bleukit.corpus_bleu(["a b"], ["a b"], **kwargs)
    with pytest.raises(error, match=pattern):
        bleukit.sentence_bleu("a b", "a b", **kwargs)


def test_sentence_bleu_bad_input():
    with pytest.raises(TypeError, match="hypothesis must be a str.*sentence_bleu_scores"):
        bleukit.sentence_bleu(["a", "b"], ["a", "b"])
    with pytest.raises(ValueError, match="references holds no reference"):
        bleukit.sentence_bleu("a", [])
    with pytest.raises(TypeError, match=r"references\[0\] must be a str or None"):
        bleukit.sentence_bleu("a", [1])


def test_streams_of_different_lengths():
    with pytest.raises(ValueError, match=r"different lengths: \[2, 1\]"):
        bleukit.references_from_streams([["a", "b"], ["a"]])
    with pytest.raises(TypeError, match=r"streams\[0\] must be a list"):
        bleukit.references_from_streams(["ab"])


def test_missing_tokenizer_extra_names_it(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "MeCab", None)
    with pytest.raises(ImportError, match=r"bleukit\[ja\]"):
        bleukit.corpus_bleu(["a"], ["a"], tokenize="ja-mecab")
    monkeypatch.setitem(sys.modules, "mecab_ko", None)
    with pytest.raises(ImportError, match=r"bleukit\[ko\]"):
        bleukit.corpus_bleu(["a"], ["a"], tokenize="ko-mecab")


def test_inputs_are_not_mutated():
    hyps, refs = list(HYPS), copy.deepcopy(REFS)
    bleukit.corpus_bleu(hyps, refs, smooth_method="add-k")
    bleukit.sentence_bleu_scores(hyps, refs)
    assert hyps == HYPS and refs == REFS


def test_a_list_read_in_place_keeps_its_entries(engine):
    # corpus_bleu hands a caller's list to BLEU's kernel without a copy of its own; the kernel
    # replaces entries of other types (a numpy array, a deque) by checked lists in its private
    # copy only, never in the caller's list
    import collections

    import sacrebleu

    hyps = ["the cat sat on the mat", "a dog ran far", "it is raining today", "the sun is out"]
    refs = [("the cat sat on a mat", "a cat sat on the mat"), np.array(["a dog ran far away", "the dog ran"]),
            collections.deque(["it rains today", "it is raining now"]), ["the sun is out", "sun out"]]
    entries = list(refs)
    result = corpus_bleu(hyps, refs)
    assert all(a is b for a, b in zip(refs, entries)) and len(refs) == 4
    streams = [[str(entry[k]) for entry in entries] for k in range(2)]
    assert result.score == sacrebleu.corpus_bleu(hyps, streams).score


def test_accepts_tuples_generators_and_numpy_strings():
    expected = bleukit.corpus_bleu(HYPS, REFS).score
    assert bleukit.corpus_bleu(tuple(HYPS), tuple(REFS)).score == expected
    assert bleukit.corpus_bleu((h for h in HYPS), iter(REFS)).score == expected
    assert bleukit.corpus_bleu(np.array(HYPS), REFS).score == expected


def test_empty_strings_are_valid_segments():
    # An empty hypothesis scores 0 against anything; an empty reference is a reference of length 0.
    result = bleukit.corpus_bleu(["", "a b"], ["a b", ""])
    assert result.sys_len == 2 and result.ref_len == 2 and result.score == 0.0


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


# As many streams as hypotheses (issue 20): the same shape as per-hypothesis references.


def _streams_and_per_hypothesis(shared_data, dataset, hyp, refs, lines):
    from shared_data import load_corpus

    hyps, per_hyp, streams = load_corpus(shared_data, dataset, hyp, refs)
    return [hyps[i] for i in lines], [[s[i] for i in lines] for s in streams], [per_hyp[i] for i in lines]


def test_as_many_streams_as_hypotheses_are_warned_about_with_the_fix(shared_data):
    import sacrebleu

    from bleukit.inputs import ReferenceLayoutWarning

    hyps, streams, per_hyp = _streams_and_per_hypothesis(
        shared_data, "wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en", [3, 17]
    )
    assert len(streams) == len(hyps) == 2
    entry_points = (
        bleukit.corpus_bleu,
        bleukit.sentence_bleu_scores,
        lambda h, r: bleukit.bootstrap_ci(h, r, n_bootstrap=5),
        bleukit.corpus_chrf,  # chrF takes the same check
        bleukit.sentence_chrf_scores,
        lambda h, r: bleukit.bootstrap_ci(h, r, n_bootstrap=5, options=bleukit.ChrfOptions()),
    )
    for score in entry_points:
        with pytest.warns(ReferenceLayoutWarning, match=r"references_from_streams\(references\)"):
            score(hyps, streams)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the per-hypothesis layout and the converted streams: no warning
        assert bleukit.corpus_bleu(hyps, per_hyp).score == sacrebleu.corpus_bleu(hyps, streams).score
        assert bleukit.corpus_bleu(hyps, bleukit.references_from_streams(streams)).score == (
            sacrebleu.corpus_bleu(hyps, streams).score
        )
    evaluate = pytest.importorskip("evaluate")
    for name in ("bleukit", "chrf"):
        with pytest.warns(ReferenceLayoutWarning):
            evaluate.load(bleukit.metric_path(name)).compute(predictions=hyps, references=streams)


@pytest.mark.parametrize(
    "dataset, hyp, refs",
    [("wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en"), ("wmt22-en-zh", "hyp.Online-B.zh", "ref.A.zh+ref.B.zh")],
)
def test_stream_detection_on_real_pairs_never_bothers_per_hypothesis_input(shared_data, dataset, hyp, refs):
    """2 x 2 is the hardest case (two pairs to compare): on 500 random line pairs the streams are
    recognised nearly always, the same references per hypothesis never."""
    import random
    import warnings

    from bleukit.inputs import warn_if_streams

    rng = random.Random(20)
    found = alarms = 0
    for _ in range(500):
        lines = rng.sample(range(1984), 2)
        _, streams, per_hyp = _streams_and_per_hypothesis(shared_data, dataset, hyp, refs, lines)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            warn_if_streams(streams, 2)
            found += len(seen)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            warn_if_streams(per_hyp, 2)
            alarms += len(seen)
    assert alarms == 0 and found >= 0.85 * 500, (found, alarms)


def test_stream_detection_costs_one_look_on_common_input():
    from bleukit.inputs import warn_if_streams

    class Refuses(list):
        def __getitem__(self, i):
            if i != 0:
                raise AssertionError("looked past the first entry")
            return super().__getitem__(i)

    warn_if_streams(Refuses(["a", "b", "c"]), 3)  # strings: per hypothesis for sure
    warn_if_streams(Refuses([["a"], ["b"], ["c"]]), 3)  # one reference each: not n of them
