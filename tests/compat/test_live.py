"""Differential property tests of bleukit.compat against the installed originals (NLTK,
torchmetrics, sacreBLEU), on random text and token lists."""

import copy
import math
import os
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import corpora

from bleukit.compat import gleu, nltk, presets, torchmetrics

CASES = settings(
    max_examples=int(os.environ.get("BLEUKIT_COMPAT_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# A small vocabulary so that n-grams of every order match often; empty sentences included.
tokens = st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=0, max_size=9)


@st.composite
def token_corpora(draw):
    n = draw(st.integers(1, 4))
    hyps = [draw(tokens) for _ in range(n)]
    refs = [[draw(tokens) for _ in range(draw(st.integers(1, 3)))] for _ in range(n)]
    return refs, hyps


weights = st.one_of(
    st.just((0.25, 0.25, 0.25, 0.25)),
    st.lists(st.sampled_from([0.1, 0.2, 0.25, 0.5, 1.0]), min_size=1, max_size=5).map(tuple),
    st.lists(st.lists(st.sampled_from([0.2, 0.5, 1.0]), min_size=1, max_size=5).map(tuple), min_size=2, max_size=3),
)


def _same(a, b):
    if isinstance(b, list):
        return isinstance(a, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if b == 0:
        return a == 0 and type(a) is type(b)
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=0.0)


def _run(fn, *args, **kwargs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)
    except Exception as err:  # the original's exceptions are part of its behaviour
        return type(err)


@CASES
@given(
    data=token_corpora(),
    w=weights,
    method=st.integers(0, 7),
    auto_reweigh=st.booleans(),
    params=st.fixed_dictionaries(
        {"epsilon": st.sampled_from([0.1, 0.5]), "alpha": st.sampled_from([5, 2.5]), "k": st.sampled_from([5, 3])}
    ),
)
def test_nltk_corpus_bleu(data, w, method, auto_reweigh, params):
    bleu_score = pytest.importorskip("nltk.translate.bleu_score")
    refs, hyps = data
    theirs = getattr(bleu_score.SmoothingFunction(**params), f"method{method}")
    ours = getattr(nltk.SmoothingFunction(**params), f"method{method}")
    want = _run(bleu_score.corpus_bleu, refs, hyps, w, theirs, auto_reweigh)
    got = _run(nltk.corpus_bleu, refs, hyps, w, ours, auto_reweigh)
    if isinstance(want, type):
        assert got is want
    else:
        assert _same(got, want), (got, want)
    # NLTK's own smoothing object is accepted too (its parameters are read off it)
    again = _run(nltk.corpus_bleu, refs, hyps, w, theirs, auto_reweigh)
    assert again is want if isinstance(want, type) else _same(again, want)


@CASES
@given(data=token_corpora(), method=st.integers(0, 7))
def test_nltk_sentence_bleu(data, method):
    bleu_score = pytest.importorskip("nltk.translate.bleu_score")
    refs, hyps = data
    theirs = getattr(bleu_score.SmoothingFunction(), f"method{method}")
    want = _run(bleu_score.sentence_bleu, refs[0], hyps[0], smoothing_function=theirs)
    got = _run(
        nltk.sentence_bleu, refs[0], hyps[0], smoothing_function=getattr(nltk.SmoothingFunction(), f"method{method}")
    )
    assert got is want if isinstance(want, type) else _same(got, want), (got, want)


@CASES
@given(data=token_corpora(), lens=st.sampled_from([(1, 4), (1, 1), (2, 3), (1, 6)]))
def test_nltk_corpus_gleu(data, lens):
    gleu_score = pytest.importorskip("nltk.translate.gleu_score")
    refs, hyps = data
    assert gleu.corpus_gleu(refs, hyps, *lens) == gleu_score.corpus_gleu(refs, hyps, *lens)


@CASES
@given(data=corpora(max_refs=3), smooth=st.booleans(), n_gram=st.integers(1, 4))
def test_torchmetrics_bleu_score(data, smooth, n_gram):
    tm = pytest.importorskip("torchmetrics.functional.text")
    hyps, streams = data
    refs = [[r for r in rs if r is not None] or [""] for rs in zip(*streams)]
    want = _run(tm.bleu_score, hyps, refs, n_gram=n_gram, smooth=smooth)
    got = _run(torchmetrics.bleu_score, hyps, refs, n_gram=n_gram, smooth=smooth)
    assert float(got) == float(want) and got.dtype == want.dtype


@CASES
@given(
    data=corpora(max_refs=3),
    smooth=st.booleans(),
    lowercase=st.booleans(),
    tokenize=st.sampled_from(["13a", "intl", "zh", "char", "none"]),
)
def test_torchmetrics_sacre_bleu_score(data, smooth, lowercase, tokenize):
    tm = pytest.importorskip("torchmetrics.functional.text")
    hyps, streams = data
    refs = [[r for r in rs if r is not None] or [""] for rs in zip(*streams)]
    want = tm.sacre_bleu_score(hyps, refs, smooth=smooth, lowercase=lowercase, tokenize=tokenize)
    got = torchmetrics.sacre_bleu_score(hyps, refs, smooth=smooth, lowercase=lowercase, tokenize=tokenize)
    assert float(got) == float(want)


@CASES
@given(data=corpora(max_refs=1))
def test_torchmetrics_module_batches(data):
    tm = pytest.importorskip("torchmetrics.text")
    hyps, streams = data
    refs = [[r if r is not None else ""] for r in streams[0]]
    theirs, ours = tm.BLEUScore(smooth=True), torchmetrics.BLEUScore(smooth=True)
    half = len(hyps) // 2
    for part in (slice(0, half), slice(half, None)):
        if hyps[part]:
            assert float(ours(hyps[part], refs[part])) == float(theirs(hyps[part], refs[part]))
    assert float(ours.compute()) == float(theirs.compute())


# torchmetrics' own tests (test_bleu.py: test_bleu_empty_functional, test_bleu_empty_class) score an
# empty list where a sentence belongs as an empty sentence: 0, not an error. With other entries too.
EMPTY_ENTRIES = [
    ([[]], [[[]]]),
    ([()], [[()]]),
    ([[], "a b c d"], [["a b"], ["a b c d", []]]),
    (["a b c d e", "a b c d"], [[[]], ["a b c d"]]),
]


@pytest.mark.parametrize("preds, target", EMPTY_ENTRIES)
def test_torchmetrics_empty_list_entries_are_empty_sentences(preds, target):
    tm = pytest.importorskip("torchmetrics")
    before = copy.deepcopy((preds, target))
    want = tm.functional.text.bleu_score(preds, target)
    assert float(torchmetrics.bleu_score(preds, target)) == float(want)
    assert float(torchmetrics.BLEUScore()(preds, target)) == float(tm.text.BLEUScore()(preds, target))
    want = tm.functional.text.sacre_bleu_score(preds, target)
    assert float(torchmetrics.sacre_bleu_score(preds, target)) == float(want)
    assert (preds, target) == before  # read, not rewritten


def test_torchmetrics_other_non_strings_are_still_named():
    with pytest.raises(TypeError, match=r"preds\[0\] must be a str \(or an empty list, an empty sentence\), got int"):
        torchmetrics.bleu_score([0], [["a"]])
    with pytest.raises(TypeError, match=r"target\[0\]\[0\] must be a str.*got list"):
        torchmetrics.bleu_score(["a"], [[["a"]]])


texts = st.lists(st.sampled_from(["a", "b", "c", " ", "ab", "a b", "b c a"]), min_size=0, max_size=4).map("".join)


@CASES
@given(
    hyps=st.lists(texts, min_size=1, max_size=4),
    data=st.data(),
    smooth=st.booleans(),
    functional=st.booleans(),
    tokenize=st.sampled_from(["13a", "char", "none"]),
)
def test_torchmetrics_reads_a_str_target_as_characters(hyps, data, smooth, functional, tokenize):
    # torchmetrics 1.9's BLEUScore.update, SacreBLEUScore and sacre_bleu_score iterate a str
    # target entry as characters (one reference each); reproduced, with bleukit's quirk warning.
    tm = pytest.importorskip("torchmetrics")
    entry = st.one_of(texts, st.lists(texts, min_size=1, max_size=2))
    target = [data.draw(entry) for _ in hyps]
    if functional:
        want = _run(tm.functional.text.sacre_bleu_score, hyps, target, smooth=smooth, tokenize=tokenize)
        got = _run(torchmetrics.sacre_bleu_score, hyps, target, smooth=smooth, tokenize=tokenize)
    else:
        theirs, ours = tm.text.BLEUScore(smooth=smooth), torchmetrics.BLEUScore(smooth=smooth)
        want = _run(lambda: (theirs.update(hyps, target), theirs.compute())[1])
        got = _run(lambda: (ours.update(hyps, target), ours.compute())[1])
    if isinstance(want, type):  # an empty str entry: torchmetrics fails on min() of no lengths
        assert want is ValueError and got is ValueError
    else:
        assert float(got) == float(want)
    if any(isinstance(t, str) and len(t) > 1 for t in target) and not isinstance(want, type):
        with pytest.warns(torchmetrics.TorchmetricsQuirkWarning, match=r"target\[\d+\] is a str"):
            torchmetrics.BLEUScore().update(hyps, target)
    # bleu_score wraps a str entry in a list, in both
    wrapped = [t or [""] for t in target]
    assert float(torchmetrics.bleu_score(hyps, wrapped)) == float(tm.functional.text.bleu_score(hyps, wrapped))


@CASES
@given(data=corpora(max_refs=1), tok=st.sampled_from(["intl", "13a"]))
def test_t5_preset_equals_sacrebleu(data, tok):
    sacrebleu = pytest.importorskip("sacrebleu")
    hyps, streams = data
    refs = [r if r is not None else "" for r in streams[0]]
    want = sacrebleu.corpus_bleu(
        hyps,
        [refs],
        smooth_method="exp",
        smooth_value=0.0,
        force=False,
        lowercase=False,
        tokenize=tok,
        use_effective_order=False,
    ).score
    assert presets.t5_bleu(refs, hyps, tokenizer=tok)["bleu"] == want
    # streams, as T5 passes a list of lists
    assert presets.t5_bleu([refs], hyps, tokenizer=tok)["bleu"] == want
