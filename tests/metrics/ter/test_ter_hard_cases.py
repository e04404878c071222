"""TER's corner cases against live sacreBLEU 2.6.0, both engines: generated word lists (Hypothesis)
and hand-made sentences that reach every rule of the search (the widened beam, the band cutting
long sentences, repeated words and ties, the shift-candidate cap, empty sides, Unicode,
punctuation only)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from metrics.ter.ter_oracle import memoized_edit_rate
from sacrebleu.metrics import TER
from strategies import sentences

from bleukit.metrics.ter import extract, reference
from bleukit.metrics.ter.formula import corpus_ter, sentence_ters
from bleukit.metrics.ter.options import TER_OPTION_NAMES, TerOptions
from bleukit.metrics.ter.statistics import from_counts

CASE_SENSITIVE = TerOptions(case_sensitive=True)


def sacrebleu_edits(hyp, ref):
    """sacreBLEU's edits, computed once per pair for both engines' runs (it is slow on long sentences)."""
    return memoized_edit_rate(list(hyp), list(ref))[0]


@pytest.fixture(params=["native", "python"])
def engine(request, monkeypatch):
    if request.param == "native" and not extract.kernel_available():
        pytest.skip("the TER kernel is not built")
    monkeypatch.setenv("BLEUKIT_ENGINE", request.param)
    return request.param


def _edits_both_ways(hyp_words, ref_words):
    """Our edits for one pair of word lists, from the engine in force (words chosen so that the
    tokenizer keeps them: lowercase ASCII without punctuation)."""
    table = extract.ter_statistics([" ".join(hyp_words)], [[" ".join(ref_words)]], CASE_SENSITIVE)
    return int(table[0, 0])


DEFAULT = TerOptions()


def _check_against_sacrebleu(hyps, refs_per_hyp, options=DEFAULT):
    """Statistics, corpus and sentence scores of a batch equal sacreBLEU's."""
    combo = options.to_dict()
    metric = TER(**combo)
    n_refs = max(len(r) for r in refs_per_hyp)
    streams = [[refs[k] if k < len(refs) else None for refs in refs_per_hyp] for k in range(n_refs)]
    expected = metric._extract_corpus_statistics(hyps, streams)
    table = extract.ter_statistics(hyps, refs_per_hyp, options)
    assert table[:, 0].tolist() == [row[0] for row in expected]
    assert (table[:, 1] / table[:, 2]).tolist() == [row[1] for row in expected]
    assert corpus_ter(from_counts(table).rows) == metric.corpus_score(hyps, streams).score
    scores = sentence_ters(from_counts(table).rows)
    for i, refs in enumerate(refs_per_hyp):
        assert scores[i] == metric.sentence_score(hyps[i], refs).score


# --------------------------------------------------------------------------------------------
# generated


word_lists = st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f"]), max_size=30)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hyp=word_lists, ref=word_lists, vocabulary=st.integers(1, 6))
def test_generated_word_lists(engine, hyp, ref, vocabulary):
    """Small vocabularies make many equal blocks: many candidates, ties, repeated shifts."""
    keep = "abcdef"[:vocabulary]
    hyp = [w for w in hyp if w in keep]
    ref = [w for w in ref if w in keep]
    expected = sacrebleu_edits(hyp, ref)
    assert reference.edits(hyp, ref) == expected
    assert _edits_both_ways(hyp, ref) == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hyp=sentences(), refs=st.lists(sentences(), min_size=1, max_size=3),
       flags=st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans()))
def test_generated_text_with_every_option(engine, hyp, refs, flags):
    """Text aimed at the tokenizers (entities, numbers, CJK, odd whitespace) with random options."""
    _check_against_sacrebleu([hyp], [refs], TerOptions(**dict(zip(TER_OPTION_NAMES, flags))))


# --------------------------------------------------------------------------------------------
# hand-made


def _words(rng, n, vocabulary):
    return [f"w{rng.randrange(vocabulary)}" for _ in range(n)]


def test_a_widened_beam(engine):
    """A reference over 50 times longer than the hypothesis: half the ratio exceeds the beam width
    of 25, so the beam is widened (else consecutive rows of the band would not overlap)."""
    rng = random.Random(3)
    for n, m in ((1, 60), (2, 120), (3, 200), (2, 101)):
        ref = _words(rng, m, 8)
        hyp = [ref[5], ref[m // 2]][:n] + _words(rng, max(0, n - 2), 8)
        band = reference._Band(len(hyp), len(ref))
        if n > 1:  # a middle row is wider than the unwidened beam's 2 x 25 columns
            assert band.hi[1] - band.lo[1] > 2 * reference.BEAM_WIDTH
        assert _edits_both_ways(hyp, ref) == sacrebleu_edits(hyp, ref)
        assert _edits_both_ways(ref, hyp) == sacrebleu_edits(ref, hyp)


# The slow cases' sacreBLEU edits take seconds a pair: both engines' runs on one worker share them
# (``sacrebleu_edits`` caches), instead of each worker computing them again.
SHARED_PEER = pytest.mark.xdist_group("ter-hard-cases")


@pytest.mark.slow
@SHARED_PEER
def test_long_sentences_cut_by_the_band(engine):
    """Sentences of 60 to 140 words: the band (51 columns) is narrower than a row, so cells far
    from the diagonal are unreachable, and shifted blocks travel far."""
    rng = random.Random(11)
    for n in (60, 90, 140):
        ref = _words(rng, n, 40)
        hyp = ref[n // 2:] + ref[: n // 2]  # the halves swapped: a shift of more than 10 words
        hyp[3] = "x"
        band = reference._Band(len(hyp), len(ref))
        assert band.hi[n // 2] - band.lo[n // 2] == 2 * reference.BEAM_WIDTH
        assert _edits_both_ways(hyp, ref) == sacrebleu_edits(hyp, ref)
        long_ref = ref + _words(rng, n // 3, 40)
        assert _edits_both_ways(hyp, long_ref) == sacrebleu_edits(hyp, long_ref)


def test_repeated_words_and_ties(engine):
    cases = [
        ("a a a a a a", "a a a"),
        ("a a b a a b a a", "b a a b a a a a"),
        ("the the the cat the the", "cat the the the the the"),
        ("x y x y x y z", "z x y x y x y"),
        ("a b a b a b", "b a b a b a"),
        ("a b c a b c a b c", "c b a c b a c b a"),
    ]
    for hyp, ref in cases:
        assert _edits_both_ways(hyp.split(), ref.split()) == sacrebleu_edits(hyp.split(), ref.split())
    _check_against_sacrebleu([h for h, _ in cases], [[r, h] for h, r in cases])


@pytest.mark.slow
@SHARED_PEER
def test_the_shift_candidate_cap(engine, monkeypatch):
    """Sentences whose search tries more than 1000 candidates: the cap changes their edits, and
    both engines stop where sacreBLEU stops (its best shift of that search is not applied)."""
    rng = random.Random(5)
    capped = 0
    for _ in range(6):
        hyp = _words(rng, 45, 3)
        ref = hyp[:]
        rng.shuffle(ref)
        expected = sacrebleu_edits(hyp, ref)
        assert _edits_both_ways(hyp, ref) == expected
        with monkeypatch.context() as m:
            m.setattr(reference, "MAX_SHIFT_CANDIDATES", 10**9)
            capped += reference.edits(hyp, ref) != expected
    assert capped > 0  # the cap did decide some of these


def test_empty_sides(engine):
    hyps = ["", "", "one two", "one two three", "   ", "\t"]
    refs = [[""], ["a b c"], [""], ["", "one three"], ["x"], ["  ", ""]]
    _check_against_sacrebleu(hyps, refs)
    _check_against_sacrebleu(hyps, refs, TerOptions(normalized=True, no_punct=True))
    assert extract.ter_statistics([""], [[""]]).tolist() == [[0, 0, 1]]
    assert sentence_ters(from_counts(extract.ter_statistics(["a"], [[""]])).rows).tolist() == [100.0]


def test_unicode(engine):
    hyps = ["İstanbul ΟΔΟΣ straße", "北京欢迎你 。", "😀 👍🏽 e\u0301cole", "ΣΑΣ σας", "ǅemal Ǆ ǆ", "ﬁne ＡＢＣ",
            "\U00020000\U00020001 x", "a\u2028b\x85c\u3000d"]
    refs = [["istanbul οδος STRASSE"], ["北京 欢迎 你。"], ["😀 école 👍"], ["σας ΣΑΣ"], ["ǆemal ǆ"], ["fine abc"],
            ["x \U00020000"], ["a b c d"]]
    for options in (TerOptions(), TerOptions(case_sensitive=True), TerOptions(normalized=True, asian_support=True),
                    TerOptions(normalized=True, no_punct=True, asian_support=True, case_sensitive=True)):
        _check_against_sacrebleu(hyps, refs, options)


def test_punctuation_only(engine):
    hyps = ["...", "!?", "( ) \" ; :", "&quot;&amp;&lt;&gt;", "、。！", "- - -", "'s", ".,.,"]
    refs = [["."], ["? !"], ["()"], ["\"&<>"], ["。、"], ["-"], ["'s"], [","]]
    for flags in ((False, False, False, False), (True, False, False, False), (False, True, False, False),
                  (True, True, True, False), (False, True, True, True)):
        _check_against_sacrebleu(hyps, refs, TerOptions(**dict(zip(TER_OPTION_NAMES, flags))))


def test_inputs_are_not_modified(engine):
    hyps = ["a b", "c d e"]
    refs = [["b a"], ("c", "d e")]
    before = (list(hyps), [list(r) if isinstance(r, list) else r for r in refs])
    extract.ter_statistics(hyps, refs)
    assert (hyps, refs) == before


def test_table_dtype_and_shape(engine):
    table = extract.ter_statistics(["a", "b c"], [["a"], ["c", "b c d"]])
    assert table.dtype == np.int64 and table.shape == (2, 3)
    assert extract.ter_statistics([], []).shape == (0, 3)
