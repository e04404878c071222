"""The compiled TER kernel: the Python reference's table on random input, threads, strict argument
checks, sizes at its limits, str subclasses, the GIL released, Ctrl-C during a long call, and the
dispatcher's engine choice."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shared_data import read_lines
from strategies import sentences

from bleukit.metrics.ter import extract, reference
from bleukit.metrics.ter.options import TER_OPTION_NAMES, TerOptions

REPO = Path(__file__).resolve().parents[3]
needs_kernel = pytest.mark.skipif(not extract.kernel_available(), reason="the TER kernel is not built")
kernel = extract._kernel


DEFAULT = TerOptions()
ALPHABET = "aZ09.,-'s &;qutmplgQ\n\t、一あア．!?()\"ΣΟİß\x85\u2028\xa0\u3000😀{}~/"


def _native(hyps, refs, options=DEFAULT, threads=1):
    table = np.empty((len(hyps), 3), np.int64)
    kernel.statistics(hyps, refs, options.normalized, options.no_punct, options.asian_support,
                      options.case_sensitive, table, threads)
    return table


def _random_corpus(seed, n, max_words=40, vocabulary=12):
    rng = random.Random(seed)
    words = [f"w{k}" for k in range(vocabulary)]
    hyps, refs = [], []
    for _ in range(n):
        hyp = rng.choices(words, k=rng.randint(0, max_words))
        hyps.append(" ".join(hyp))
        sentence_refs = []
        for _ in range(rng.randint(1, 3)):
            ref = hyp[:] if rng.random() < 0.7 else rng.choices(words, k=rng.randint(0, max_words))
            for _ in range(rng.randint(0, 4)):  # a few block moves and substitutions
                if len(ref) > 2:
                    i, j = sorted(rng.sample(range(len(ref)), 2))
                    ref = ref[:i] + ref[j:] + ref[i:j]
                    ref[rng.randrange(len(ref))] = rng.choice(words)
            sentence_refs.append(" ".join(ref))
        refs.append(sentence_refs)
    return hyps, refs


# --------------------------------------------------------------------------------------------
# the reference's table


@needs_kernel
@pytest.mark.parametrize("seed", range(3))
def test_random_corpora_give_the_reference_table(seed):
    hyps, refs = _random_corpus(seed, 60)
    expected = reference.ter_statistics(hyps, refs)
    np.testing.assert_array_equal(_native(hyps, refs), expected)
    np.testing.assert_array_equal(_native(hyps, refs, threads=3), expected)


@needs_kernel
@settings(max_examples=200, deadline=None)
@given(hyp=sentences(max_words=20), refs=st.lists(sentences(max_words=20), min_size=1, max_size=3),
       flags=st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans()))
def test_random_text_gives_the_reference_table(hyp, refs, flags):
    options = TerOptions(**dict(zip(TER_OPTION_NAMES, flags)))
    np.testing.assert_array_equal(_native([hyp], [refs], options), reference.ter_statistics([hyp], [refs], options))


@needs_kernel
@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list(ALPHABET)), max_size=30),
       flags=st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans()), as_reference=st.booleans())
def test_kernel_words_equal_the_python_tokenizer(text, flags, as_reference):
    """Characters aimed at every rule of tercom's normalisation (entities, possessives, digits
    around . , -, CJK and full-width punctuation, whitespace str.split() knows)."""
    from bleukit.metrics.ter.tokenizer import TercomTokenizer

    tokenizer = TercomTokenizer(TerOptions(**dict(zip(TER_OPTION_NAMES, flags))))
    expected = tokenizer.reference_words(text) if as_reference else tokenizer.hypothesis_words(text)
    assert kernel.words(text, *flags, as_reference) == expected


# --------------------------------------------------------------------------------------------
# threads


@needs_kernel
@pytest.mark.parametrize("threads", [2, 3, 0])
def test_threads_give_the_same_table_on_real_data(shared_data, threads):
    folder = shared_data / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.Online-A.en")
    refs = [list(r) for r in zip(read_lines(folder / "ref.A.en"), read_lines(folder / "ref.B.en"))]
    one = extract.ter_statistics(hyps, refs)
    np.testing.assert_array_equal(extract.ter_statistics(hyps, refs, threads=threads), one)


@needs_kernel
def test_more_threads_than_sentences():
    np.testing.assert_array_equal(_native(["a b", "c"], [["b a"], ["d"]], threads=64),
                                  _native(["a b", "c"], [["b a"], ["d"]]))
    assert _native([], [], threads=8).shape == (0, 3)


def test_the_python_engine_takes_threads(monkeypatch):
    monkeypatch.setenv("BLEUKIT_ENGINE", "python")
    hyps, refs = _random_corpus(4, 50)
    np.testing.assert_array_equal(extract.ter_statistics(hyps, refs, threads=2), reference.ter_statistics(hyps, refs))


# --------------------------------------------------------------------------------------------
# argument checks (every one before any work)


@needs_kernel
def test_kernel_rejects_bad_arguments():
    ok = dict(normalized=False, no_punct=False, asian_support=False, case_sensitive=False)

    def call(hyps=("a",), refs=(["a"],), flags=None, out=None, threads=1):
        flags = dict(ok, **(flags or {}))
        out = np.empty((len(hyps), 3), np.int64) if out is None else out
        kernel.statistics(hyps, refs, *flags.values(), out, threads)
        return out

    assert call().tolist() == [[0, 1, 1]]
    for name in TER_OPTION_NAMES:
        with pytest.raises(TypeError, match=f"{name} must be a bool, got int"):
            call(flags={name: 1})
    with pytest.raises(TypeError, match="threads must be an int, got float"):
        call(threads=1.0)
    with pytest.raises(TypeError, match="threads must be an int, got bool"):
        call(threads=True)
    for bad in (0, -1):
        with pytest.raises(ValueError, match="threads must be >= 1"):
            call(threads=bad)
    with pytest.raises(ValueError, match="threads is out of range"):
        call(threads=2**80)
    with pytest.raises(TypeError, match=r"hypotheses\[1\] must be a str, got bytes"):
        call(hyps=["a", b"b"], refs=[["a"], ["b"]])
    with pytest.raises(TypeError, match=r"references\[0\]\[1\] must be a str, got NoneType"):
        call(refs=[["a", None]])
    with pytest.raises(TypeError, match=r"references\[0\] must be a list of str, got str"):
        call(refs=["abc"])
    with pytest.raises(ValueError, match=r"references\[0\] is empty"):
        call(refs=[[]])
    with pytest.raises(TypeError, match="must be sequences"):
        call(hyps="a", out=np.empty((1, 3), np.int64))
    with pytest.raises(TypeError, match="must be sequences"):
        call(hyps=5, out=np.empty((1, 3), np.int64))
    with pytest.raises(ValueError, match="1 hypotheses but 2 reference lists"):
        call(refs=[["a"], ["b"]])
    with pytest.raises(ValueError, match="out must hold 1 rows"):
        call(out=np.empty((2, 3), np.int64))
    with pytest.raises(TypeError, match="out must be a C-contiguous, aligned int64"):
        call(out=np.empty((1, 3), np.float64))
    with pytest.raises((TypeError, ValueError, BufferError), match="contiguous"):
        call(out=np.empty((1, 6), np.int64)[:, ::2])
    misaligned = np.frombuffer(bytearray(8 * 4), dtype=np.uint8)[1:25].view(np.int64).reshape(1, 3)
    with pytest.raises(TypeError, match="aligned"):
        call(out=misaligned)
    readonly = np.empty((1, 3), np.int64)
    readonly.flags.writeable = False
    with pytest.raises((TypeError, ValueError, BufferError)):
        call(out=readonly)
    with pytest.raises(TypeError, match="text must be a str, got bytes"):
        kernel.words(b"a", False, False, False, False, False)
    with pytest.raises(TypeError, match="reference must be a bool, got int"):
        kernel.words("a", False, False, False, False, 1)
    # a bad item late in the corpus fails before the first sentence is worked on
    out = np.full((3000, 3), -7, np.int64)
    with pytest.raises(TypeError, match=r"references\[2999\]\[0\] must be a str"):
        call(hyps=["a b"] * 3000, refs=[["b a"]] * 2999 + [[3]], out=out)
    assert (out == -7).all()


@pytest.mark.parametrize("engine", ["native", "python"])
def test_both_engines_reject_bad_input_alike(engine, monkeypatch):
    if engine == "native" and not extract.kernel_available():
        pytest.skip("the TER kernel is not built")
    monkeypatch.setenv("BLEUKIT_ENGINE", engine)
    cases = [
        ((["a", 3], [["a"], ["b"]]), TypeError, r"hypotheses\[1\] must be a str, got int"),
        ((["a"], [["a", None]]), TypeError, r"references\[0\]\[1\] must be a str, got NoneType"),
        ((["a"], ["a"]), TypeError, r"references\[0\] must be a list of str, got str"),
        ((["a"], [[]]), ValueError, r"references\[0\] is empty"),
        ((["a"], [["a"], ["b"]]), ValueError, "got 1 hypotheses but 2 reference lists"),
        (("a", [["a"]]), TypeError, "must be sequences"),
        ((iter(["a"]), [["a"]]), TypeError, "must be sequences"),
    ]
    for args, error, message in cases:
        with pytest.raises(error, match=message):
            extract.ter_statistics(*args)
    with pytest.raises(TypeError, match="options must be a TerOptions"):
        extract.ter_statistics(["a"], [["a"]], {"normalized": True})
    with pytest.raises(ValueError, match="threads must be >= 0"):
        extract.ter_statistics(["a"], [["a"]], threads=-1)


@needs_kernel
def test_a_segment_over_the_limit_fails_before_any_work():
    too_long = "a" * (kernel.MAX_SEGMENT_CHARS + 1)
    with pytest.raises(OverflowError, match="longer than"):
        _native(["a", "b"], [["a"], [too_long]])


# --------------------------------------------------------------------------------------------
# input that must neither crash nor hang


class WeirdStr(str):
    def lower(self):
        return "nonsense"

    def split(self, *args):
        return ["nonsense"]

    def rstrip(self, *args):
        return "nonsense"


@pytest.mark.parametrize("engine", ["native", "python"])
def test_str_subclasses_are_read_as_their_value(engine, monkeypatch):
    if engine == "native" and not extract.kernel_available():
        pytest.skip("the TER kernel is not built")
    monkeypatch.setenv("BLEUKIT_ENGINE", engine)
    texts = ["The Cat sat .", "İSTANBUL Ünïcode", ""]
    for options in (TerOptions(), TerOptions(normalized=True, no_punct=True)):
        plain = extract.ter_statistics(texts, [[t.upper()] for t in texts], options)
        weird = extract.ter_statistics([WeirdStr(t) for t in texts], [[WeirdStr(t.upper())] for t in texts], options)
        np.testing.assert_array_equal(weird, plain)


@needs_kernel
@pytest.mark.slow
@pytest.mark.timeout(120)
def test_long_and_degenerate_sentences():
    rng = random.Random(1)
    many = " ".join(f"w{rng.randrange(50)}" for _ in range(10_000))
    same = " ".join(["a"] * 10_000)
    cases = [
        (same, [same]),  # identical: no error, no candidate
        (same, [" ".join(["a"] * 9_000)]),  # all-identical words, 1000 deletions
        (" ".join(["a"] * 9_000 + ["b"] * 1_000), [" ".join(["b"] * 1_000 + ["a"] * 9_000)]),
        ("a", [many]),  # a band as wide as the reference (ratio 10000)
        (many, ["a"]),
        (many, [""]),
        ("", [many]),
    ]
    hyps = [h for h, _ in cases]
    refs = [r for _, r in cases]
    table = _native(hyps, refs)
    assert table[0].tolist() == [0, 10_000, 1] and table[1].tolist() == [1_000, 9_000, 1]
    assert table[5].tolist() == [10_000, 0, 1] and table[6].tolist() == [10_000, 10_000, 1]
    np.testing.assert_array_equal(table[[0, 1, 3, 4, 5, 6]], reference.ter_statistics(
        [hyps[k] for k in (0, 1, 3, 4, 5, 6)], [refs[k] for k in (0, 1, 3, 4, 5, 6)]))


@needs_kernel
@pytest.mark.timeout(300)
def test_ten_thousand_shuffled_words_finish():
    """A 10k-word hypothesis against its own words shuffled in blocks: many long shifts, up to the
    candidate cap, over a band of 10k rows (the Python reference would take minutes)."""
    rng = random.Random(2)
    words = [f"w{rng.randrange(300)}" for _ in range(10_000)]
    blocks = [words[i:i + 7] for i in range(0, len(words), 7)]
    for k in range(0, len(blocks) - 3, 5):  # swap neighbouring blocks: shifts within reach
        blocks[k], blocks[k + 2] = blocks[k + 2], blocks[k]
    shuffled = [w for b in blocks for w in b]
    start = time.perf_counter()
    table = _native([" ".join(words)], [[" ".join(shuffled)]])
    assert 0 < table[0, 0] <= 10_000 and table[0, 1] == 10_000
    assert time.perf_counter() - start < 120


# --------------------------------------------------------------------------------------------
# the GIL and Ctrl-C


@needs_kernel
def test_the_gil_is_released_while_the_kernel_works():
    hyps, refs = _random_corpus(9, 4000, max_words=30)
    started = threading.Event()
    spins = 0

    def work():
        started.set()
        _native(hyps, refs)

    worker = threading.Thread(target=work)
    worker.start()
    started.wait()
    start = time.perf_counter()
    while worker.is_alive():
        spins += 1  # runs only while the worker does not hold the GIL
    elapsed = time.perf_counter() - start
    worker.join()
    assert elapsed > 0.05 and spins > 1000, (elapsed, spins)


INTERRUPT = """
import os, random, signal, threading, time
import numpy as np
from bleukit.metrics.ter import _kernel
kind = {kind!r}
rng = random.Random(0)
if kind == "one long sentence":
    words = [f"w{{rng.randrange(40)}}" for _ in range(60000)]
    hyps, refs = [" ".join(words)], [[" ".join(words[30000:] + words[:30000])]]
else:
    sentence = " ".join(f"w{{rng.randrange(20)}}" for _ in range(30))
    other = " ".join(f"w{{rng.randrange(20)}}" for _ in range(30))
    hyps, refs = [sentence] * 400000, [[other]] * 400000
threads = 2 if kind == "threads" else 1
out = np.empty((len(hyps), 3), np.int64)
def fire():
    global fired
    fired = time.perf_counter()
    os.kill(os.getpid(), signal.SIGINT)
threading.Timer(0.5, fire).start()
start = time.perf_counter()
try:
    for _ in range(20):
        _kernel.statistics(hyps, refs, False, False, False, False, out, threads)
    print("finished", time.perf_counter() - start)
except KeyboardInterrupt:
    print("interrupted", time.perf_counter() - fired)
"""


@needs_kernel
@pytest.mark.parametrize("kind", ["many sentences", "one long sentence", "threads"])
def test_ctrl_c_stops_a_long_call_promptly(kind):
    proc = subprocess.run([sys.executable, "-c", INTERRUPT.format(kind=kind)], capture_output=True, text=True,
                          timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-2000:]
    what, seconds = proc.stdout.split()[-2:]
    assert what == "interrupted", proc.stdout
    # a few ms of work between checks; the margin is for a 2-core machine busy with other work
    assert float(seconds) < 2.0, proc.stdout


# --------------------------------------------------------------------------------------------
# the engine choice


def test_engine_choice(monkeypatch):
    monkeypatch.setenv("BLEUKIT_ENGINE", "python")
    assert extract.ter_engine() == "python"
    monkeypatch.setenv("BLEUKIT_ENGINE", "fortran")
    with pytest.raises(ValueError, match="BLEUKIT_ENGINE"):
        extract.ter_engine()
    monkeypatch.delenv("BLEUKIT_ENGINE")
    assert extract.ter_engine() == ("native" if extract.kernel_available() else "python")
    from bleukit import _native

    # the loader's record of a kernel that failed to import, as an unbuilt one leaves it
    monkeypatch.setitem(_native._loaded, extract.KERNEL, (None, "the TER kernel is not built (test)"))
    monkeypatch.setattr(_native, "_warned", True)
    assert extract.ter_engine() == "python"
    monkeypatch.setenv("BLEUKIT_ENGINE", "native")
    with pytest.raises(RuntimeError, match="the TER kernel is not built"):
        extract.ter_engine()
    if os.environ.get("BLEUKIT_NO_NATIVE") is None:
        monkeypatch.setenv("BLEUKIT_ENGINE", "python")
        np.testing.assert_array_equal(extract.ter_statistics(["a b"], [["b a"]]), [[1, 2, 1]])
