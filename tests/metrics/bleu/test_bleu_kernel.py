"""The native statistics kernel against the Python reference engine and against sacreBLEU.

Every comparison is on the integer statistics rows (the kernel's whole output), per sentence, so a
difference in a single n-gram count of a single sentence fails. The public API is also checked
under both engines (``BLEUKIT_ENGINE``); the fallback when the kernel is missing is in tests/kernel/test_build.py.
"""

from __future__ import annotations

import functools
import os
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU
from shared_data import read_lines

import bleukit
from bleukit import BleuOptions
from bleukit.metrics.bleu import kernel as _native
from bleukit.metrics.bleu.extract import preprocess, text_statistics

NATIVE_TOKENIZERS = ["13a", "intl", "zh", "char", "none"]
# tests/kernel/test_fuzz.py reruns this file with the kernels built under ASan/UBSan: there the
# kernel is checked against the Python reference, and sacreBLEU's rows, already compared in the plain
# run, are left out (its zh tokenizer builds strings a character at a time, which ASan's allocator
# turns from under a second into over a minute on the long lines below).
SANITIZER_RUN = os.environ.get("BLEUKIT_SANITIZER_RUN") == "1"

# A build without the kernel is only acceptable when asked for explicitly; otherwise `make test`
# would quietly test the Python engine twice.
if not _native.available() and not os.environ.get("BLEUKIT_NO_NATIVE"):
    pytest.fail(
        f"{_native.unavailable_reason}; run `pip install -e .` (or set BLEUKIT_NO_NATIVE=1 to test a build without it)",
        pytrace=False,
    )
needs_kernel = pytest.mark.skipif(not _native.available(), reason="BLEUKIT_NO_NATIVE build")

#: Every character str.split()/str.rstrip() treat as whitespace.
UNICODE_WHITESPACE = [chr(c) for c in range(0x110000) if chr(c).isspace()]


@functools.lru_cache(maxsize=None)
def _sacrebleu(tokenize: str, lowercase: bool, order: int) -> BLEU:
    return BLEU(tokenize=tokenize, lowercase=lowercase, max_ngram_order=order)


def sacrebleu_rows(hyps, refs, tokenize, lowercase=False, order=4) -> np.ndarray:
    """sacreBLEU's own per-sentence statistics (references given per hypothesis, same count)."""
    streams = [list(s) for s in zip(*refs)]
    rows = _sacrebleu(tokenize, lowercase, order)._extract_corpus_statistics(hyps, streams)
    return np.array(rows, dtype=np.int64)


def python_rows(hyps, refs, options) -> np.ndarray:
    old = os.environ.get("BLEUKIT_ENGINE")
    os.environ["BLEUKIT_ENGINE"] = "python"
    try:
        return text_statistics(hyps, refs, options).rows
    finally:
        if old is None:
            del os.environ["BLEUKIT_ENGINE"]
        else:
            os.environ["BLEUKIT_ENGINE"] = old


def assert_three_agree(hyps, refs, tokenize, lowercase=False, order=4, oracle=True):
    """Kernel rows == Python reference rows (== sacreBLEU rows when every hyp has len(refs[0])).

    For 13a and zh the kernel tokenizes in one pass where no two of '.' and ',' are adjacent, and
    applies the mteval rules one by one elsewhere; the Python reference always applies the rules
    one by one, so this compares the one-pass form with the rules wherever it applies."""
    options = BleuOptions(tokenize=tokenize, lowercase=lowercase, max_ngram_order=order)
    native = _native.native_text_statistics(hyps, refs, options)
    reference = python_rows(hyps, refs, options)
    for i in range(len(hyps)):
        assert native.rows[i].tolist() == reference[i].tolist(), (tokenize, lowercase, hyps[i], refs[i])
    assert native.nrefs.tolist() == [len(r) for r in refs]
    if oracle and not SANITIZER_RUN:
        theirs = sacrebleu_rows(hyps, refs, tokenize, lowercase, order)
        np.testing.assert_array_equal(native.rows, theirs)


# --------------------------------------------------------------------------------------------
# cases aimed at the kernel


def _corpus(seed: int, n: int, words: int = 20):
    rng = random.Random(seed)
    vocab = ["the", "The", "cat", "a", "1,000", "3.5", "-", "2-3", "U.S.", "(x)", "don't", "é", "Ω"]
    vocab += [f"w{i}" for i in range(40)]
    hyps, refs = [], []
    for _ in range(n):
        h = [rng.choice(vocab) for _ in range(rng.randint(0, words))]
        r = [w if rng.random() < 0.6 else rng.choice(vocab) for w in h]
        hyps.append(" ".join(h) + rng.choice(["", ".", " !", "?"]))
        refs.append([" ".join(r) + "."])
    return hyps, refs


KERNEL_CASES = {
    "very long line": (
        [" ".join(f"w{i % 997}," if i % 7 == 0 else f"x{i % 311}" for i in range(30000)) + "."],
        [[" ".join(f"x{i % 311}" for i in range(25000)) + " ."]],
    ),
    "non-BMP characters": (
        ["𠀀𠀁 𝐀𝐁𝐂 😀👍🏽 𝟘𝟙 𐄇𐄈 𓀀, ok.", "\U0010fffd \U00020000-\U0002a6d6"],
        [["𠀀 𠀁 𝐀𝐁𝐂 😀 👍🏽 𝟘𝟙 ok."], ["\U0010fffd \U00020000"]],
    ),
    "every Unicode whitespace": (
        [
            "".join(f"w{i}{ws}" for i, ws in enumerate(UNICODE_WHITESPACE)),
            "".join(UNICODE_WHITESPACE) + "a" + "".join(UNICODE_WHITESPACE) + "b,c",
        ],
        [[" ".join(f"w{i}" for i in range(len(UNICODE_WHITESPACE)))], ["a b , c" + "".join(UNICODE_WHITESPACE)]],
    ),
    "only punctuation or digits": (
        ["...,,,--!!?", "1,000.000-3 42 .5 5. ,7", "", "   ", "&amp;&lt;&gt;&quot;", "--", "0-0-0-"],
        [["...,,,--!!?"], ["1,000.000 - 3 42"], [""], ["."], ['& < > "'], ["-"], ["0 - 0 - 0 -"]],
    ),
    "many references": (
        ["the cat sat on the mat , and the dog sat too"],
        [[f"the {w} sat on the mat and the dog {v}" for w in ("cat", "dog", "cow") for v in range(20)]],
    ),
    "n-grams repeated hundreds of times": (
        ["the cat " * 400 + "the", "a a a a " * 150],
        [["the cat " * 150, "cat the " * 300], ["a " * 230, "a b " * 400]],
    ),
    "dot runs beside digits and bare ampersands": (
        ["wait... 1..2 x,.9 3.., ..4 a..b R&D & co &am &amp &ampx; &gt", "tom & jerry... 5...6 ,,7 8,, &quot &lt;..1"],
        [["wait . . . 1 . . 2 x , .9 & co"], ["tom & jerry . . . 5 &quot < . . 1"]],
    ),
    "13a markup and line breaks": (
        ["<skipped> a-\nb c\nd &amp;lt; &amp;amp; <skip-\nped> e&quot;", "x&gtg; &lt;&gt;"],
        [['a b c d &lt; &amp; <skipped> e "'], ["x > g ; < >"]],
    ),
    "lowercasing special cases": (
        ["İstanbul ΣΑΣ ΌΣΟΣ ẞtraße Ǆemal ﬁne ĲSSEL Ⅻ 𐐀", "KELVIN \u212a ANGSTROM \u212b"],
        [["i̇stanbul σασ όσος ßtraße ǆemal ﬁne ĳssel ⅻ 𐐨"], ["kelvin k angstrom å"]],
    ),
    "zh ranges and quirks": (
        ["我喜欢BLEU。“引号”€5 ‘x’ ⺀⿰ ㈠ ㍿ 、。", "中文，标点：１２３ＡＢＣ ☃ ✂ \u2001\u2a6d"],
        [["我 喜 欢 BLEU 。 “ 引 号 ” € 5"], ["中 文 ， 标 点 ： １２３ＡＢＣ"]],
    ),
    "lone surrogates": (["a \ud800 b\udfff c,"], [["a \ud800 b\udfff c ,"]]),
    "random corpus": _corpus(0, 300),
}


@needs_kernel
@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("tokenize", NATIVE_TOKENIZERS)
@pytest.mark.parametrize("case", sorted(KERNEL_CASES))
def test_kernel_case(case, tokenize, lowercase):
    hyps, refs = KERNEL_CASES[case]
    same_count = len({len(r) for r in refs}) == 1
    assert_three_agree(hyps, refs, tokenize, lowercase, oracle=same_count)


def _long_line(seed: int, chars: int) -> str:
    """A line of `chars` characters where punctuation, symbols, digits, '.', ',' and '-' meet
    spaces and each other in every way (what the rules and the cuts between slices look at)."""
    rng = random.Random(seed)
    pieces = [
        "a",
        "b",
        "Z",
        "7",
        "0",
        " ",
        " ",
        "  ",
        "\t",
        ".",
        ",",
        "-",
        "!",
        "(",
        ")",
        "'",
        "$",
        "€",
        "½",
        "中",
        "&amp;",
        "é",
        "Ω",
        "\u2001",
        "\U0001d400",
    ]
    out, n = [], 0
    while n < chars:
        piece = rng.choice(pieces)
        out.append(piece)
        n += len(piece)
    return "".join(out)


@needs_kernel
@pytest.mark.parametrize("tokenize", NATIVE_TOKENIZERS)
def test_lines_longer_than_a_poll_slice(tokenize):
    """Lines of 40k-70k characters: every pass over them runs in slices of 2^14 (intl cuts the
    line into pieces between slices), and the result is the one of the whole line at once."""
    hyps = [_long_line(seed, 40_000 + 10_000 * seed) for seed in range(4)]
    refs = [[_long_line(seed + 10, 50_000)] for seed in range(4)]
    assert_three_agree(hyps, refs, tokenize)
    assert_three_agree([h.replace(" ", "") for h in hyps], refs, tokenize)  # no cut anywhere


@needs_kernel
@pytest.mark.parametrize("order", [1, 2, 3, 5, 9])
def test_kernel_any_order(order):
    hyps, refs = _corpus(1, 60, words=14)
    for tokenize in NATIVE_TOKENIZERS:
        assert_three_agree(hyps, refs, tokenize, order=order)


# --------------------------------------------------------------------------------------------
# property-based differential tests

ALPHABET = (
    list("abcAB.,-&;<>/:!?()'\"0123456789 ")
    + ["&amp;", "&lt;", "&gt;", "&quot;", "<skipped>", "\n", "-\n", "İ", "Σ", "ß", "ﬁ", "é", "É"]
    + ["中", "文", "，", "。", "１", "Ａ", "€", "’", "“", "—", "…", "½", "²", "٣", "$", "+", "|"]
    + ["😀", "𠀀", "𝟘", "\u2001", "\u2a6d", "\u2f81", "\ud800"]
    + UNICODE_WHITESPACE
)
texts = st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join)
token_texts = st.lists(
    st.sampled_from(["the", "a", "cat", ".", ",", "1", "-", "A", "中", "&amp;", "İ"]), max_size=25
).map(" ".join)
segment = st.one_of(texts, token_texts, st.text(max_size=20))
PROPERTY = settings(
    max_examples=int(os.environ.get("BLEUKIT_PROPERTY_EXAMPLES", "500")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def corpus_with_refs(draw):
    n = draw(st.integers(1, 4))
    k = draw(st.integers(1, 3))
    hyps = [draw(segment) for _ in range(n)]
    refs = []
    for h in hyps:
        rs = []
        for _ in range(k):
            # A shuffled copy of the hypothesis makes higher orders match now and then.
            if draw(st.booleans()):
                words = h.split(" ")
                rs.append(" ".join(draw(st.permutations(words))))
            else:
                rs.append(draw(segment))
        refs.append(rs)
    return hyps, refs


mteval_texts = st.lists(st.sampled_from(list("0123456789.,-' aA\t(/") + ["中", "\u3000", "&amp;"]), max_size=30).map(
    "".join
)


@needs_kernel
@pytest.mark.parametrize("tokenize", ["13a", "zh"])
@PROPERTY
@given(hyps=st.lists(mteval_texts, min_size=1, max_size=4))
def test_mteval_one_pass_form_around_dots_digits_and_dashes(tokenize, hyps):
    """Digits, '.', ',' and '-' in every arrangement: where the rules' matches interact."""
    refs = [[h[::-1], h.replace(".", " . ")] for h in hyps]
    assert_three_agree(hyps, refs, tokenize)


@needs_kernel
@pytest.mark.parametrize("tokenize", NATIVE_TOKENIZERS)
@PROPERTY
@given(data=corpus_with_refs(), lowercase=st.booleans(), order=st.integers(1, 6))
def test_kernel_equals_reference_and_sacrebleu(tokenize, data, lowercase, order):
    hyps, refs = data
    assert_three_agree(hyps, refs, tokenize, lowercase, order)


# --------------------------------------------------------------------------------------------
# the public API on both engines, real data


def test_public_api_on_both_engines(engine):
    assert bleukit.engine_name() == engine
    hyps, refs = _corpus(2, 200)
    ours = bleukit.corpus_bleu(hyps, refs)
    theirs = BLEU().corpus_score(hyps, [[r[0] for r in refs]])
    assert ours.score == theirs.score
    assert ours.counts == theirs.counts and ours.totals == theirs.totals
    scores = bleukit.sentence_bleu_scores(hyps, refs)
    single = BLEU(effective_order=True)
    expected = [single.sentence_score(h, [r[0]]).score for h, r in zip(hyps, refs)]
    assert scores.tolist() == expected
    assert bleukit.sentence_bleu(hyps[3], refs[3]).score == expected[3]


@needs_kernel
@pytest.mark.parametrize(
    "folder,hyp,refs",
    [
        ("wmt17-en-de", "hyp.online-A.0.de", ["ref.de"]),
        ("wmt22-en-zh", "hyp.Online-B.zh", ["ref.A.zh", "ref.B.zh"]),
        ("wmt22-de-en", "hyp.LT22.en", ["ref.A.en", "ref.B.en"]),
        ("kftt-en-ja", "hyp.ja", ["ref.ja"]),
    ],
)
def test_real_data_rows_equal_sacrebleu(shared_data, folder, hyp, refs):
    # 1000 lines keep sacreBLEU's per-sentence pass short; whole files are scored (corpus level)
    # in tests/oracles/test_expected_scores.py (the Python engine on a covering design of the rows).
    hyps = read_lines(shared_data / folder / hyp)[:1000]
    streams = [read_lines(shared_data / folder / r)[:1000] for r in refs]
    per_hyp = [list(r) for r in zip(*streams)]
    for tokenize in NATIVE_TOKENIZERS:
        for lowercase in (False, True):
            options = BleuOptions(tokenize=tokenize, lowercase=lowercase)
            native = _native.native_text_statistics(hyps, per_hyp, options).rows
            np.testing.assert_array_equal(native, sacrebleu_rows(hyps, per_hyp, tokenize, lowercase))
    # The Python reference on a slice (it is the slow path; the full files run in the other tests)
    assert_three_agree(hyps[:300], per_hyp[:300], "13a", oracle=False)


# --------------------------------------------------------------------------------------------
# engine selection and the fallback


def test_engine_override_is_validated(monkeypatch):
    monkeypatch.setenv("BLEUKIT_ENGINE", "rust")
    with pytest.raises(ValueError, match="BLEUKIT_ENGINE"):
        bleukit.engine_name()


def test_mecab_tokenizers_stay_python():
    assert not _native.uses_native(BleuOptions(tokenize="ja-mecab"))
    assert not _native.uses_native(BleuOptions(tokenize="ko-mecab"))


@needs_kernel
def test_character_table_matches_the_python_tokenizers():
    """Spot checks that the table is the regex package's view (a different Unicode version of
    unicodedata would disagree on some of these, regex is what sacreBLEU uses)."""
    import regex

    k = _native._kernel
    bits = [k.CLS_P, k.CLS_S, k.CLS_N, k.CLS_ZH, k.CLS_13A, k.CLS_DIGIT]
    assert sorted(bits) == [1 << i for i in range(6)]  # one bit each
    table = _native.character_table()
    rng = random.Random(3)
    for cp in rng.sample(range(0x110000), 3000) + [ord(c) for c in "中,.-0a€’²½٣$\u2001\u2a6d"]:
        c = chr(cp)
        assert bool(table[cp] & k.CLS_P) == bool(regex.fullmatch(r"\p{P}", c)), hex(cp)
        assert bool(table[cp] & k.CLS_S) == bool(regex.fullmatch(r"\p{S}", c)), hex(cp)
        assert bool(table[cp] & k.CLS_N) == bool(regex.fullmatch(r"\p{N}", c)), hex(cp)
        assert bool(table[cp] & k.CLS_ZH) == bleukit.tokenizers.is_chinese_char(c), hex(cp)
    # The mteval classes are read off ASCII only; no other code point may match them.
    from bleukit.tokenizers.mteval import MTEVAL_RULES as _MTEVAL_RULES

    every = "".join(map(chr, range(0x110000)))
    punct = {m.start() for m in _MTEVAL_RULES[0][0].finditer(every)}
    digits = {m.start() // 2 for m in _MTEVAL_RULES[3][0].finditer("-".join(every) + "-")}
    assert punct == {cp for cp in range(128) if table[cp] & k.CLS_13A}
    assert digits == {cp for cp in range(128) if table[cp] & k.CLS_DIGIT} == set(range(48, 58))
    assert not any(b & (k.CLS_13A | k.CLS_DIGIT) for b in table[128:])


@needs_kernel
def test_tokenizer_codes_are_the_kernels():
    assert _native.NATIVE_TOKENIZERS == {
        name: getattr(_native._kernel, f"TOK_{name.upper()}") for name in _native.NATIVE_TOKENIZERS
    }


def test_character_table_needs_the_kernel(monkeypatch):
    monkeypatch.setattr(_native, "_kernel", None)
    monkeypatch.setattr(_native, "unavailable_reason", "the native kernel is not built (test)")
    monkeypatch.setattr(_native, "_table", None)
    monkeypatch.setattr(_native, "_full_table", None)
    with pytest.raises(RuntimeError, match="the native kernel is not built"):
        _native.character_table()


# --------------------------------------------------------------------------------------------
# token ids


ids_seq = st.lists(st.sampled_from([0, 1, 2, 3, -1, 2**63 - 1, -(2**63), 7, 50257]), max_size=30)


def flat_ids_statistics(hyps, refs, order):
    """The kernel's flat entry point on a nested batch (hyps[i], refs[i] a list of sequences)."""
    seqs = [s for h, rs in zip(hyps, refs) for s in [h, *rs]]
    owner = [i for i, rs in enumerate(refs) for _ in range(1 + len(rs))]
    tokens = np.concatenate([np.asarray(s, dtype=np.int64) for s in seqs]) if seqs else np.zeros(0, np.int64)
    lengths = np.array([len(s) for s in seqs], dtype=np.int64)
    return _native.native_flat_ids_statistics(tokens, lengths, np.array(owner, dtype=np.int64), len(hyps), order)


@needs_kernel
@PROPERTY
@given(
    data=st.lists(st.tuples(ids_seq, st.lists(ids_seq, min_size=1, max_size=4)), min_size=1, max_size=5),
    order=st.integers(1, 6),
)
def test_ids_kernel_equals_reference_counter(data, order):
    from bleukit.metrics.bleu.statistics import count_statistics

    hyps = [h for h, _ in data]
    refs = [r for _, r in data]
    flat = flat_ids_statistics(hyps, refs, order)
    np.testing.assert_array_equal(flat.rows, count_statistics(hyps, refs, order).rows)
    assert flat.nrefs.tolist() == [len(r) for r in refs]


@needs_kernel
def test_ids_kernel_equals_sacrebleu_on_long_sequences():
    """Ids written out as words and scored by sacreBLEU with tokenize='none' give the same rows."""
    rng = np.random.default_rng(5)
    hyps = [rng.integers(0, 40, size=rng.integers(0, 1500)) for _ in range(40)]
    refs = [
        [
            np.where(rng.random(len(h)) < 0.6, h, rng.integers(0, 40, len(h))),
            rng.integers(0, 40, size=rng.integers(1, 300)),
        ]
        for h in hyps
    ]
    native = flat_ids_statistics(hyps, refs, 4)
    as_text = lambda ids: " ".join(map(str, ids))  # noqa: E731
    expected = sacrebleu_rows([as_text(h) for h in hyps], [[as_text(r) for r in rs] for rs in refs], "none")
    np.testing.assert_array_equal(native.rows, expected)


@needs_kernel
def test_flat_ids_kernel_rejects_bad_layouts():
    flat = _native.native_flat_ids_statistics
    assert flat(np.array([1, 2, 3, 1, 2]), np.array([3, 2]), np.array([0, 0]), 1, 2).rows.tolist() == [
        [3, 2, 2, 1, 3, 2]
    ]
    with pytest.raises(ValueError, match="row 0 needs a hypothesis and at least one reference"):
        flat(np.array([1, 2]), np.array([2]), np.array([0]), 1, 2)
    with pytest.raises(ValueError, match="row 1 needs a hypothesis"):  # a row with no sequence at all
        flat(np.array([1, 2]), np.array([1, 1]), np.array([0, 0]), 2, 2)
    with pytest.raises(ValueError, match="not ordered by row or do not cover"):
        flat(np.array([1, 2, 3]), np.array([1, 1, 1]), np.array([0, 0, 1]), 1, 2)
    with pytest.raises(ValueError, match="not ordered by row or do not cover"):
        flat(np.array([1, 2, 3]), np.array([1, 1]), np.array([0, 0]), 1, 2)
    with pytest.raises(ValueError, match="lengths exceed the ids"):
        flat(np.array([1, 2]), np.array([1, 5]), np.array([0, 0]), 1, 2)
    with pytest.raises(ValueError, match="negative length"):
        flat(np.array([1, 2]), np.array([3, -1]), np.array([0, 0]), 1, 2)
    with pytest.raises(ValueError, match="inconsistent sizes"):
        flat(np.array([1, 2]), np.array([1, 1]), np.array([0]), 1, 2)


@needs_kernel
def test_the_character_table_of_each_call_decides_the_tokens():
    # The kernel keeps what it works out from a table's ASCII classes (and a workspace between
    # sentence_row calls): a call with other classes must tokenize by them, and the next call with
    # the real table by it again.
    kernel = _native._kernel
    table = _native.character_table(unicode_properties=False)
    altered = bytearray(table)
    altered[ord("!")] &= ~kernel.CLS_13A  # "!" no longer a token of its own
    check = _native.check_reference_entry
    line = "a!b c"

    def hyp_len(t: bytes) -> int:
        return kernel.sentence_row(line, [line], _native.NATIVE_TOKENIZERS["13a"], 0, 4, t, check)[0]

    assert [hyp_len(table), hyp_len(bytes(altered)), hyp_len(table)] == [4, 2, 4]
    assert len(preprocess(line, bleukit.get_tokenizer("13a"))) == 4  # the real table's count is the reference's
