"""Self-BLEU (bleukit.self_bleu): each definition against a loop of sacreBLEU calls on real data,
the multi-reference statistics against sacreBLEU's own, the exact mean, token ids, bad input."""

import copy
import random
import statistics

import numpy as np
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU, CHRF
from shared_data import read_lines

import bleukit
from bleukit.analysis.diversity import exact_mean, self_bleu, self_bleu_ids
from bleukit.metrics import fast
from bleukit.metrics.chrf import ChrfOptions


@pytest.fixture(scope="module")
def texts(shared_data):
    """60 real German sentences from several systems, some of them twice, and an empty one."""
    folder = shared_data / "wmt17-en-de"
    pool = read_lines(folder / "hyp.online-A.0.de") + read_lines(folder / "hyp.uedin-nmt.4722.de")
    picked = random.Random(7).sample(pool, 56)
    return picked + picked[:3] + [""]


def _others(texts, i):
    return texts[:i] + texts[i + 1 :]


def _sacre_sentence(hypothesis, references, **opts):
    """sacreBLEU's sentence BLEU with these options (sentence_bleu's effective order unless given)."""
    return BLEU(**{"effective_order": True, **opts}).sentence_score(hypothesis, references).score


def _assert_bleu_scores(ours, ours_by_sentence_bleu, theirs):
    """``ours == theirs`` (sacreBLEU), except where bleukit's own sentence_bleu differs from sacreBLEU by
    the last bit of numpy's exp/log on this CPU (the exactness work removes that): there Self-BLEU
    must still equal bleukit's sentence_bleu bit for bit. Where the two formulas agree, this is ``==``."""
    assert list(ours) == list(ours_by_sentence_bleu)
    for a, b in zip(ours_by_sentence_bleu, theirs):
        assert a == b or abs(a - b) <= 2 * np.spacing(b), (a, b)


OPTIONS = [
    {},
    {"tokenize": "intl", "lowercase": True},
    {"tokenize": "char", "max_ngram_order": 3},
    {"smooth_method": "floor", "smooth_value": 0.2},
    {"smooth_method": "none", "effective_order": False},
]


@pytest.mark.parametrize("opts", OPTIONS)
def test_sentence_definition_is_the_mean_of_sacrebleu_sentence_bleu_against_all_others(texts, opts):
    theirs = [_sacre_sentence(t, _others(texts, i), **opts) for i, t in enumerate(texts)]
    ours_loop = [bleukit.sentence_bleu(t, _others(texts, i), **opts).score for i, t in enumerate(texts)]
    r = self_bleu(texts, **opts)
    assert r.definition == "sentence" and r.n_texts == len(texts)
    _assert_bleu_scores(r.scores.tolist(), ours_loop, theirs)
    assert r.score == statistics.mean(ours_loop)
    if ours_loop == theirs:
        assert r.score == statistics.mean(theirs)
    assert r.signature == bleukit.sentence_bleu(texts[0], _others(texts, 0), **opts).signature


@pytest.mark.parametrize("opts", OPTIONS[:3])
def test_statistics_equal_sacrebleus_multi_reference_statistics(texts, opts):
    """The rows (exact integers) are sacreBLEU's own statistics of each text against the rest."""
    metric = BLEU(**{k: v for k, v in opts.items() if k != "effective_order"})
    options = bleukit.BleuOptions(**opts)
    table = fast.self_statistics(bleukit.metrics.get_metric("bleu"), texts, options)
    for i, t in enumerate(texts):
        theirs = metric._extract_corpus_statistics([t], [[o] for o in _others(texts, i)])[0]
        assert table.rows[i].tolist() == [int(x) for x in theirs]
    assert table.nrefs.tolist() == [len(texts) - 1] * len(texts)


def test_corpus_definition_is_sacrebleu_corpus_bleu_with_all_others_as_references(texts):
    streams = [list(s) for s in zip(*(_others(texts, i) for i in range(len(texts))))]
    theirs = sacrebleu.corpus_bleu(texts, streams)
    r = self_bleu(texts, definition="corpus")
    assert r.corpus.counts == theirs.counts and r.corpus.totals == theirs.totals
    assert (r.corpus.sys_len, r.corpus.ref_len) == (theirs.sys_len, theirs.ref_len)
    ours = bleukit.corpus_bleu(texts, [_others(texts, i) for i in range(len(texts))])
    _assert_bleu_scores([r.score], [ours.score], [theirs.score])
    assert r.signature == ours.signature and r.scores is None


def test_pairwise_definition_is_the_mean_over_ordered_pairs(texts, engine):
    pairs = [(i, j) for i in range(len(texts)) for j in range(len(texts)) if i != j]
    theirs = [_sacre_sentence(texts[i], [texts[j]]) for i, j in pairs]
    matrix = bleukit.pairwise_bleu(texts, texts)
    ours_loop = [float(matrix[i, j]) for i, j in pairs]
    _assert_bleu_scores(ours_loop, ours_loop, theirs)
    r = self_bleu(texts, definition="pairwise")
    assert r.score == statistics.mean(ours_loop)
    if ours_loop == theirs:
        assert r.score == statistics.mean(theirs)
    assert r.signature.startswith("nrefs:1|")


@pytest.mark.parametrize("opts", [{}, {"word_order": 2}, {"beta": 1, "lowercase": True}])
def test_self_chrf_every_definition_equals_sacrebleu(texts, opts):
    small = texts[:25]
    chrf = CHRF(**opts)
    options = ChrfOptions(**opts)
    loop = [chrf.sentence_score(t, _others(small, i)).score for i, t in enumerate(small)]
    r = self_bleu(small, options=options)
    assert r.scores.tolist() == loop and r.score == statistics.mean(loop) and r.name == f"Self-{options.name}"
    streams = [list(s) for s in zip(*(_others(small, i) for i in range(len(small))))]
    assert self_bleu(small, options=options, definition="corpus").score == chrf.corpus_score(small, streams).score
    pairwise = [chrf.sentence_score(small[i], [small[j]]).score for i in range(25) for j in range(25) if i != j]
    assert self_bleu(small, options=options, definition="pairwise").score == statistics.mean(pairwise)


def test_the_generic_multi_reference_path_gives_the_same_rows(texts):
    """The table route of self_statistics (every text against the list of the others) is what
    BLEU's clip maxima and chrF's best reference compute faster (their fast paths)."""
    import dataclasses

    for options in (bleukit.BleuOptions(), ChrfOptions(word_order=2)):
        metric = bleukit.metrics.metric_for(options)
        assert metric.fast is not None and metric.fast.self_statistics is not None
        own = fast.self_statistics(metric, texts[:30], options)
        table_route = copy.copy(metric)
        table_route.fast = dataclasses.replace(metric.fast, self_statistics=None)  # the same metric, no such path
        assert own == fast.self_statistics(table_route, texts[:30], options)


def test_repeated_texts_are_references_of_their_copies():
    texts = ["the cat sat", "the cat sat", "a dog"]
    r = self_bleu(texts)
    assert r.scores.tolist()[:2] == [sacrebleu.sentence_bleu("the cat sat", ["the cat sat", "a dog"]).score] * 2
    assert self_bleu(["x y z", "x y z"]).score == sacrebleu.sentence_bleu("x y z", ["x y z"]).score


def test_token_ids_equal_text_with_tokenize_none(texts):
    rng = np.random.default_rng(3)
    seqs = [rng.integers(1, 30, size=rng.integers(0, 12)).tolist() for _ in range(40)] + [[5, 6, 7]] * 2
    as_text = [" ".join(map(str, s)) for s in seqs]
    for definition in ("sentence", "corpus", "pairwise"):
        ours = self_bleu_ids(seqs, definition=definition)
        text = self_bleu(as_text, definition=definition, tokenize="none")
        assert ours.score == text.score and ours.signature.split("|")[0] == text.signature.split("|")[0]
    width = max(len(s) for s in seqs)
    padded = np.array([s + [0] * (width - len(s)) for s in seqs])
    assert self_bleu_ids(padded, pad_id=0).score == self_bleu(as_text, tokenize="none").score
    torch = pytest.importorskip("torch")
    assert self_bleu_ids(torch.tensor(padded), pad_id=0).score == self_bleu(as_text, tokenize="none").score


def test_result_fields_and_json():
    r = self_bleu(["a b c d", "a b c e", "x"])
    d = r.to_dict()
    assert d["score"] == r.score and d["scores"] == r.scores.tolist() and d["metric"] == "bleu"
    assert r.format().startswith("Self-BLEU (sentence, 3 texts)|nrefs:2|") and float(r) == r.score
    c = self_bleu(["a b c d", "a b c e", "x"], definition="corpus").to_dict()
    assert c["corpus"]["name"] == "BLEU" and "scores" not in c


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1, max_size=40))
def test_exact_mean_is_statistics_mean(values):
    assert exact_mean(values) == statistics.mean(values)


def test_exact_mean_on_extremes():
    tiny = [5e-324, 1e-310, -5e-324, 2.5e-308]
    huge = [1.7e308, 1.7e308, -1.0, 3.0]
    assert exact_mean(tiny) == statistics.mean(tiny) and exact_mean(huge) == statistics.mean(huge)
    with pytest.raises(ValueError, match="not finite"):
        exact_mean([1.0, float("nan")])


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: self_bleu(["only one"]), ValueError, "at least 2 texts"),
        (lambda: self_bleu([]), ValueError, "empty corpus"),
        (lambda: self_bleu("a b"), TypeError, "single str"),
        (lambda: self_bleu(["a", 3]), TypeError, r"texts\[1\] must be a str"),
        (lambda: self_bleu(["a", "b"], definition="mean"), ValueError, "unknown Self-BLEU definition"),
        (lambda: self_bleu(["a", "b"], options=ChrfOptions(), tokenize="13a"), TypeError, "not both"),
        (lambda: self_bleu_ids([[1, 2]]), ValueError, "at least 2 sequences"),
        (lambda: self_bleu_ids([[1.5, 2.0], [1.0]]), TypeError, "integer token ids"),
    ],
)
def test_bad_input_is_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_inputs_are_not_mutated():
    texts = ["b a", "a b", "a b"]
    before = list(texts)
    self_bleu(texts, definition="pairwise")
    assert texts == before
