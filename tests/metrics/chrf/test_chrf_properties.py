"""Random and hand-picked text aimed at chrF's rules, compared with live sacreBLEU on both engines:
whitespace removal, the chrF++ punctuation split, Unicode (combining marks, astral characters,
lowercasing that changes the length), empty strings, several references with ties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import CHRF
from strategies import corpora

from bleukit.metrics.chrf import extract, reference
from bleukit.metrics.chrf.formula import corpus_score, sentence_scores
from bleukit.metrics.chrf.options import ChrfOptions

# Words aimed at the punctuation split: leading, trailing, both ends, punctuation alone or
# doubled, non-ASCII punctuation (never split), and the one-character words kept whole.
PUNCT_WORDS = [
    "(hi)",
    "'x'",
    ".",
    ",,",
    "end.",
    "...",
    "(a",
    "b)",
    "-",
    "--x",
    "x--",
    "«a»",
    "¿b?",
    "“c”",
    "a.b",
    "!",
    "'",
    "e.g.",
    "$5",
    "5%",
    "#tag",
    "@me",
    "a]",
    "[b",
    "~",
    "İ.",
    "Straße,",
    "😀!",
]
WHITESPACE = [
    " ",
    "\t",
    "\n",
    "\x0b",
    "\x0c",
    "\r",
    "\x1c",
    "\x1d",
    "\x1e",
    "\x1f",
    "\x85",
    "\xa0",
    "\u1680",
    "\u2000",
    "\u2007",
    "\u200a",
    "\u2028",
    "\u2029",
    "\u202f",
    "\u205f",
    "\u3000",
    "\u200b",
    "\ufeff",
    "\u180e",
]  # the last three are not whitespace to str.split()
UNICODE = ["e\u0301", "é", "İ", "ΣΑΣ", "ﬁ", "ẞ", "K", "Å", "𝔸𝔹", "😀", "👍🏽", "𠀀", "ǅ", "Ⅻ", "\ud800", "ß"]

piece = st.one_of(st.sampled_from(PUNCT_WORDS), st.sampled_from(UNICODE), st.sampled_from(["a", "ab", "the", "cat"]))


@st.composite
def rule_text(draw):
    parts = draw(st.lists(st.tuples(piece, st.sampled_from(WHITESPACE + [""])), max_size=8))
    return "".join(p + s for p, s in parts)


options_st = st.builds(
    ChrfOptions,
    char_order=st.integers(1, 7),
    word_order=st.integers(0, 3),
    beta=st.one_of(st.integers(0, 4), st.sampled_from([0.5, 1.5, 2.0, 3.25])),
    lowercase=st.booleans(),
    whitespace=st.booleans(),
    eps_smoothing=st.booleans(),
)


def _sacrebleu(options: ChrfOptions) -> CHRF:
    return CHRF(
        char_order=options.char_order,
        word_order=options.word_order,
        beta=options.beta,
        lowercase=options.lowercase,
        whitespace=options.whitespace,
        eps_smoothing=options.eps_smoothing,
    )


def _compare(hyps, streams, options: ChrfOptions):
    metric = _sacrebleu(options)
    per_hyp = [[s[i] for s in streams if s[i] is not None] for i in range(len(hyps))]
    theirs = metric._extract_corpus_statistics(hyps, streams)
    for engine in (["native"] if extract.available() else []) + ["python"]:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("BLEUKIT_ENGINE", engine)
            table = extract.chrf_statistics(hyps, per_hyp, options)
        assert table.tolist() == theirs, engine
    assert corpus_score(table, options) == metric.corpus_score(hyps, streams).score
    ours = sentence_scores(table, options)
    for i, hyp in enumerate(hyps):
        assert ours[i] == metric.sentence_score(hyp, [s[i] for s in streams]).score


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), options=options_st)
def test_rule_text_against_sacrebleu(data, options):
    n = data.draw(st.integers(1, 4))
    n_refs = data.draw(st.integers(1, 3))
    hyps = [data.draw(rule_text()) for _ in range(n)]
    streams = [[data.draw(st.one_of(rule_text(), st.sampled_from(hyps))) for _ in range(n)] for _ in range(n_refs)]
    _compare(hyps, streams, options)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=corpora(), options=options_st)
def test_mt_like_corpora_with_missing_references(corpus, options):
    hyps, streams = corpus
    _compare(hyps, streams, options)


@settings(max_examples=100, deadline=None)
@given(text=rule_text())
def test_split_words_is_sacrebleus_punctuation_rule(text):
    assert reference.split_words(text) == CHRF(word_order=2)._remove_punctuation(text)


@pytest.mark.parametrize(
    "hyp, refs",
    [
        ("", [""]),
        ("", ["a b"]),
        ("a b", [""]),
        ("   ", ["\u3000"]),
        ("a", ["", "a"]),
        ("", ["", ""]),
        ("x", ["x y", "y x"]),  # equal statistics
    ],
)
@pytest.mark.parametrize("word_order", [0, 2])
@pytest.mark.parametrize("eps_smoothing", [False, True])
def test_empty_and_blank_strings(hyp, refs, word_order, eps_smoothing):
    _compare([hyp], [[r] for r in refs], ChrfOptions(word_order=word_order, eps_smoothing=eps_smoothing))


@pytest.mark.parametrize("beta", [1, 2])
def test_ties_keep_the_first_reference(engine, beta):
    """Different rows with the same f-score: sacreBLEU keeps the first such reference."""
    options = ChrfOptions(char_order=1, beta=1)
    hyp, short, long = "aabb", "ab", "aabbxxxx"  # P=1/2, R=1 against P=1, R=1/2: F equal for beta=1
    a = extract.chrf_statistics([hyp, hyp], [[short, long], [long, short]], options)
    assert a.tolist() == [[4, 2, 2], [4, 8, 4]]
    assert (
        sentence_scores(np.array([[4, 2, 2], [4, 8, 4]]), options).tolist()[0]
        == sentence_scores(np.array([[4, 8, 4]]), options).tolist()[0]
    )
    _compare([hyp, hyp], [[short, long], [long, short]], ChrfOptions(char_order=1, beta=beta))


def test_whitespace_is_what_str_split_splits_on(engine):
    for ch in WHITESPACE:
        for whitespace in (False, True):
            options = ChrfOptions(char_order=2, word_order=1, whitespace=whitespace)
            row = extract.chrf_statistics([f"a{ch}b"], [["ab"]], options)[0].tolist()
            removed = not whitespace and ch.isspace()
            assert row[:3] == [2 if removed else 3, 2, 2], repr(ch)
            assert row[6] == (2 if ch.isspace() else 1), repr(ch)  # words


def test_lowercase_changes_length(engine):
    """'İ'.lower() is two code points: n-grams are counted on the lowercased text."""
    options = ChrfOptions(char_order=3, lowercase=True, word_order=2)
    _compare(["İstanbul İİ", "ΣΑΣ straße"], [["i̇stanbul i̇i̇", "σας STRASSE"]], options)
    assert extract.chrf_statistics(["İ"], [["i̇"]], options)[0, :3].tolist() == [2, 2, 2]


class Weird(str):
    def lower(self):
        return "zzz"

    def split(self, *args):
        return ["nonsense"]


def test_str_subclasses_are_read_as_their_value(engine):
    options = ChrfOptions(lowercase=True, word_order=2)
    texts = ["The Cat sat.", "İstanbul ΣΑΣ", ""]
    plain = extract.chrf_statistics(texts, [[t.upper()] for t in texts], options)
    weird = extract.chrf_statistics([Weird(t) for t in texts], [[Weird(t.upper())] for t in texts], options)
    assert weird.tolist() == plain.tolist()
