"""The native statistics kernel against the Python reference engine and against sacreBLEU.

Every comparison is on the integer statistics rows (the kernel's whole output), per sentence, so a
difference in a single n-gram count of a single sentence fails. The public API is also checked
under both engines (``BLEUKIT_ENGINE``), and the fallback when the kernel is missing.
"""

from __future__ import annotations

import functools
import os
import random
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU

import bleukit
from bleukit import BleuOptions, _native
from bleukit.engine import text_statistics

from conftest import read_lines

REPO = Path(__file__).resolve().parents[1]
NATIVE_TOKENIZERS = ["13a", "intl", "zh", "char", "none"]

# A build without the kernel is only acceptable when asked for explicitly; otherwise `make test`
# would quietly test the Python engine twice.
if not _native.available() and not os.environ.get("BLEUKIT_NO_NATIVE"):
    pytest.fail(
        f"{_native.unavailable_reason}; run `pip install -e .` (or set BLEUKIT_NO_NATIVE=1 to "
        "test a build without it)",
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
    """Kernel rows == Python reference rows (== sacreBLEU rows when every hyp has len(refs[0]))."""
    options = BleuOptions(tokenize=tokenize, lowercase=lowercase, max_ngram_order=order)
    native = _native.native_text_statistics(hyps, refs, options)
    reference = python_rows(hyps, refs, options)
    # the kernel's one-pass mteval form (13a, zh) against its rule-by-rule form
    rules = _native.native_text_statistics(hyps, refs, options, _direct=False)
    for i in range(len(hyps)):
        assert native.rows[i].tolist() == reference[i].tolist(), (tokenize, lowercase, hyps[i], refs[i])
        assert rules.rows[i].tolist() == reference[i].tolist(), (tokenize, lowercase, hyps[i], refs[i])
    assert native.nrefs.tolist() == [len(r) for r in refs]
    if oracle:
        theirs = sacrebleu_rows(hyps, refs, tokenize, lowercase, order)
        np.testing.assert_array_equal(native.rows, theirs)


@pytest.fixture(params=["native", "python"])
def engine(request, monkeypatch):
    if request.param == "native" and not _native.available():
        pytest.skip("BLEUKIT_NO_NATIVE build")
    monkeypatch.setenv("BLEUKIT_ENGINE", request.param)
    return request.param


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
        ["".join(f"w{i}{ws}" for i, ws in enumerate(UNICODE_WHITESPACE)),
         "".join(UNICODE_WHITESPACE) + "a" + "".join(UNICODE_WHITESPACE) + "b,c"],
        [[" ".join(f"w{i}" for i in range(len(UNICODE_WHITESPACE)))],
         ["a b , c" + "".join(UNICODE_WHITESPACE)]],
    ),
    "only punctuation or digits": (
        ["...,,,--!!?", "1,000.000-3 42 .5 5. ,7", "", "   ", "&amp;&lt;&gt;&quot;", "--", "0-0-0-"],
        [["...,,,--!!?"], ["1,000.000 - 3 42"], [""], ["."], ["& < > \""], ["-"], ["0 - 0 - 0 -"]],
    ),
    "many references": (
        ["the cat sat on the mat , and the dog sat too"],
        [[f"the {w} sat on the mat and the dog {v}" for w in ("cat", "dog", "cow") for v in range(20)]],
    ),
    "n-grams repeated hundreds of times": (
        ["the cat " * 400 + "the", "a a a a " * 150],
        [["the cat " * 150, "cat the " * 300], ["a " * 230, "a b " * 400]],
    ),
    "13a markup and line breaks": (
        ["<skipped> a-\nb c\nd &amp;lt; &amp;amp; <skip-\nped> e&quot;", "x&gtg; &lt;&gt;"],
        [["a b c d &lt; &amp; <skipped> e \""], ["x > g ; < >"]],
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
token_texts = st.lists(st.sampled_from(["the", "a", "cat", ".", ",", "1", "-", "A", "中", "&amp;", "İ"]),
                       max_size=25).map(" ".join)
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


mteval_texts = st.lists(st.sampled_from(list("0123456789.,-' aA\t(/") + ["中", "\u3000", "&amp;"]),
                        max_size=30).map("".join)


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
    assert ours.score == pytest.approx(theirs.score, abs=1e-9, rel=0)
    assert ours.counts == theirs.counts and ours.totals == theirs.totals
    scores = bleukit.sentence_scores(hyps, refs)
    single = BLEU(effective_order=True)
    expected = [single.sentence_score(h, [r[0]]).score for h, r in zip(hyps, refs)]
    np.testing.assert_allclose(scores, expected, atol=1e-9, rtol=0)
    assert bleukit.sentence_bleu(hyps[3], refs[3]).score == pytest.approx(expected[3], abs=1e-9, rel=0)


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
    # in tests/test_expected_scores.py, on both engines.
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


def test_character_table_matches_the_python_tokenizers():
    """Spot checks that the table is the regex package's view (a different Unicode version of
    unicodedata would disagree on some of these, regex is what sacreBLEU uses)."""
    import regex

    table = _native.character_table()
    rng = random.Random(3)
    for cp in rng.sample(range(0x110000), 3000) + [ord(c) for c in "中,.-0a€’²½٣$\u2001\u2a6d"]:
        c = chr(cp)
        assert bool(table[cp] & 1) == bool(regex.fullmatch(r"\p{P}", c)), hex(cp)
        assert bool(table[cp] & 2) == bool(regex.fullmatch(r"\p{S}", c)), hex(cp)
        assert bool(table[cp] & 4) == bool(regex.fullmatch(r"\p{N}", c)), hex(cp)
        assert bool(table[cp] & 8) == bleukit.tokenizers.is_chinese_char(c), hex(cp)
    # The mteval classes are read off ASCII only; no other code point may match them.
    from bleukit.tokenizers import _MTEVAL_RULES

    every = "".join(map(chr, range(0x110000)))
    punct = {m.start() for m in _MTEVAL_RULES[0][0].finditer(every)}
    digits = {m.start() // 2 for m in _MTEVAL_RULES[3][0].finditer("-".join(every) + "-")}
    assert punct == {cp for cp in range(128) if table[cp] & 16}
    assert digits == {cp for cp in range(128) if table[cp] & 32} == set(range(48, 58))
    assert not any(b & 48 for b in table[128:])


def _run(code: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        cwd=REPO,
        timeout=120,
    )


def test_fallback_when_the_kernel_is_missing():
    # None in sys.modules makes `import bleukit._native_kernel` fail as an unbuilt one would.
    proc = _run(
        """
        import sys, warnings
        sys.modules["bleukit._native_kernel"] = None
        import bleukit
        print(bleukit.engine_name())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            print(round(bleukit.corpus_bleu(["a b c d ."], ["a b c d ."]).score, 6))
            bleukit.corpus_bleu(["x"], ["x"])
        print(len(caught), caught[0].message)
        """,
        BLEUKIT_ENGINE="",
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "python"
    assert lines[1] == "100.0"
    assert lines[2].startswith("1 bleukit: the native kernel is not built")
    proc = _run(
        """
        import sys
        sys.modules["bleukit._native_kernel"] = None
        import bleukit
        bleukit.corpus_bleu(["a"], ["a"])
        """,
        BLEUKIT_ENGINE="native",
    )
    assert proc.returncode != 0 and "BLEUKIT_ENGINE=native, but the native kernel is not built" in proc.stderr


def test_build_without_a_compiler_still_succeeds(tmp_path):
    """setup.py's optional build: a failing compiler gives a notice, not a failed install."""
    pytest.importorskip("setuptools", reason="building needs setuptools in this environment")
    shutil.copy(REPO / "setup.py", tmp_path / "setup.py")
    shutil.copytree(REPO / "csrc", tmp_path / "csrc")  # with its sub-folders (csrc/metrics/ter)
    (tmp_path / "src" / "bleukit").mkdir(parents=True)
    proc = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "CC": "/bin/false", "LDSHARED": "/bin/false"},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "bleukit: native kernel not built" in proc.stderr
    assert not list((tmp_path / "out").rglob("*.so"))


@pytest.mark.slow
def test_pip_install_without_a_compiler_falls_back(tmp_path):
    """`pip install .` of a clean tree with a broken compiler: installs, notices, runs on Python."""
    pytest.importorskip("setuptools", reason="building without isolation needs setuptools here")
    src = tmp_path / "src"
    src.mkdir()
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=REPO, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    kernel_sources = [str(p.relative_to(REPO)) for p in (REPO / "csrc").rglob("*") if p.is_file()]
    for name in ("setup.py", "src/bleukit/_native.py", *kernel_sources):  # the working copy
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_bytes((REPO / name).read_bytes())
    target = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-v", "--no-deps", "--no-build-isolation",
         "--target", str(target), "."],
        cwd=src, capture_output=True, text=True, timeout=300,
        env={**os.environ, "CC": "/bin/false", "LDSHARED": "/bin/false"},
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "bleukit: native kernel not built" in proc.stdout + proc.stderr
    assert not list(target.rglob("*.so"))  # none of the kernels
    # The editable install of this checkout is a meta-path finder that would win over PYTHONPATH.
    check = _run(
        """
        import sys
        sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
        import bleukit
        print(bleukit.__file__)
        print(bleukit.engine_name(), round(bleukit.corpus_bleu(["a b c d ."], ["a b c d ."]).score, 6))
        """,
        PYTHONPATH=str(target), BLEUKIT_ENGINE="",
    )
    assert check.returncode == 0, check.stderr
    where, result = check.stdout.splitlines()
    assert where.startswith(str(target))
    assert result == "python 100.0"


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
    from bleukit.statistics import count_statistics

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
    refs = [[np.where(rng.random(len(h)) < 0.6, h, rng.integers(0, 40, len(h))),
             rng.integers(0, 40, size=rng.integers(1, 300))] for h in hyps]
    native = flat_ids_statistics(hyps, refs, 4)
    as_text = lambda ids: " ".join(map(str, ids))  # noqa: E731
    expected = sacrebleu_rows([as_text(h) for h in hyps], [[as_text(r) for r in rs] for rs in refs], "none")
    np.testing.assert_array_equal(native.rows, expected)


@needs_kernel
def test_flat_ids_kernel_rejects_bad_layouts():
    flat = _native.native_flat_ids_statistics
    assert flat(np.array([1, 2, 3, 1, 2]), np.array([3, 2]), np.array([0, 0]), 1, 2).rows.tolist() == [
        [3, 2, 2, 1, 3, 2]]
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
