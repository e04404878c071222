"""The chrF kernel against its Python twin, and on hostile input: threads, argument checks, the GIL
released while it counts, Ctrl-C during a long call, inputs never mutated."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from metrics.chrf.chrf_cases import corpora, corpus

from bleukit import _native
from bleukit.metrics.chrf import extract, reference
from bleukit.metrics.chrf.formula import beta_factors
from bleukit.metrics.chrf.options import ChrfOptions

REPO = Path(__file__).resolve().parents[3]
needs_kernel = pytest.mark.skipif(not extract.available(), reason="the chrF kernel is not built")


def _kernel():
    return _native.load_kernel(extract.KERNEL)


PUNCT = "".join(sorted(reference.PUNCTUATION))


@needs_kernel
@pytest.mark.skipif(not corpora(), reason="real MT data not found (set BLEUKIT_SHARED_DATA)")
@pytest.mark.parametrize(
    "options",
    [
        ChrfOptions(),
        ChrfOptions(word_order=2, lowercase=True),
        ChrfOptions(char_order=3, word_order=3, whitespace=True, beta=1),
    ],
    ids=["chrF", "chrF++lc", "c3w3ws"],
)
def test_kernel_equals_the_reference_on_real_data(options):
    for dataset, hyp, refs in [
        ("wmt22-en-zh", "hyp.LanguageX.zh", "ref.A.zh+ref.B.zh"),
        ("kftt-en-ja", "hyp.ja", "ref.ja"),
    ]:
        hyps, _, per_hyp = corpus(dataset, hyp, refs)
        native = extract.chrf_statistics(hyps, per_hyp, options)
        assert native.tolist() == reference.chrf_statistics(hyps, per_hyp, options).tolist()


def _mixed_corpus(n: int):
    hyps = [f"The cat {i % 97} sat on the mat , {i % 13} İx" for i in range(n)]
    refs = [
        [f"the cat {i % 89} sat on a mat , {i % 13}"] if i % 3 else [f"a cat {i % 7}", "", f"The cat {i}"]
        for i in range(n)
    ]
    return hyps, refs


@needs_kernel
@pytest.mark.parametrize("threads", [2, 3, 0])
def test_threads_give_the_same_table(threads):
    hyps, refs = _mixed_corpus(5003)
    before = [list(r) for r in refs]
    for options in (ChrfOptions(), ChrfOptions(word_order=2, lowercase=True)):
        one = extract.chrf_statistics(hyps, refs, options)
        many = extract.chrf_statistics(hyps, refs, options, threads=threads)
        np.testing.assert_array_equal(many, one)
        np.testing.assert_array_equal(
            extract.pairwise_chrf(hyps[:300], hyps[:200], options, threads=threads),
            extract.pairwise_chrf(hyps[:300], hyps[:200], options),
        )
    assert refs == before  # not mutated


@needs_kernel
def test_threads_span_several_batches():
    """More text than one batch per thread (4M code points each): the batches tile the table."""
    hyp = "The quick brown fox jumps over the lazy dog again and again. " * 20
    hyps = [hyp[: 600 + i % 600] for i in range(12000)]
    refs = [[hyp[i % 50 : 900]] for i in range(12000)]
    options = ChrfOptions(char_order=3)
    np.testing.assert_array_equal(
        extract.chrf_statistics(hyps, refs, options, threads=2), extract.chrf_statistics(hyps, refs, options)
    )
    assert (
        extract.chrf_statistics(hyps[-3:], refs[-3:], options).tolist()
        == reference.chrf_statistics(hyps[-3:], refs[-3:], options).tolist()
    )


def _call(hyps, refs, options=None, out=None, threads=1, **over):
    options = ChrfOptions() if options is None else options
    args = dict(
        zip(
            ["char_order", "word_order", "lowercase", "whitespace", "eps_smoothing", "factor", "one_plus"],
            [
                options.char_order,
                options.word_order,
                options.lowercase,
                options.whitespace,
                options.eps_smoothing,
                *beta_factors(options),
            ],
        )
    )
    punct = over.pop("punct", PUNCT)
    args.update(over)
    out = np.empty((len(hyps), 3 * (args["char_order"] + args["word_order"])), np.int64) if out is None else out
    _kernel().statistics(hyps, refs, *args.values(), punct, out, threads)
    return out


@needs_kernel
def test_statistics_entry_point_rejects_bad_arguments():
    assert _call(["ab"], [["ab"]], ChrfOptions(char_order=1)).tolist() == [[2, 2, 2]]
    with pytest.raises(ValueError, match="char_order must be in"):
        _call(["a"], [["a"]], char_order=0, out=np.empty((1, 0), np.int64))
    with pytest.raises(ValueError, match="char_order must be in"):
        _call(["a"], [["a"]], word_order=-1, out=np.empty((1, 15), np.int64))
    with pytest.raises(ValueError, match="factor"):
        _call(["a"], [["a"]], factor=float("nan"))
    with pytest.raises(ValueError, match="factor"):
        _call(["a"], [["a"]], one_plus=float("inf"))
    with pytest.raises(TypeError):
        _call(["a"], [["a"]], lowercase=1)  # a bool, not an int
    with pytest.raises(ValueError, match="threads must be between 1 and"):
        _call(["a"], [["a"]], threads=0)
    with pytest.raises(ValueError, match="out must hold 18 values"):
        _call(["a"], [["a"]], out=np.empty((2, 18), np.int64))
    with pytest.raises(TypeError, match="writable, C-contiguous, aligned int64"):
        _call(["a"], [["a"]], out=np.empty((1, 18), np.float64))
    with pytest.raises((TypeError, ValueError, BufferError)):
        _call(["a"], [["a"]], out=np.empty((1, 36), np.int64)[:, ::2])
    readonly = np.empty((1, 18), np.int64)
    readonly.flags.writeable = False
    with pytest.raises((TypeError, ValueError, BufferError)):
        _call(["a"], [["a"]], out=readonly)
    with pytest.raises(TypeError, match=r"hypotheses\[1\] must be a str, got bytes"):
        _call(["a", b"b"], [["a"], ["b"]])
    with pytest.raises(TypeError, match=r"references\[0\]\[1\] must be a str, got NoneType"):
        _call(["a"], [["a", None]])
    with pytest.raises(TypeError, match=r"references\[0\] must be a list of str, got str"):
        _call(["a"], ["abc"])
    with pytest.raises(TypeError, match="must be sequences"):
        _call("a", [["a"]])
    with pytest.raises(ValueError, match=r"references\[0\] is empty"):
        _call(["a"], [[]])
    with pytest.raises(ValueError, match="1 hypotheses but 2 reference lists"):
        _call(["a"], [["a"], ["b"]])
    with pytest.raises(ValueError, match="punctuation must hold ASCII"):
        _call(["a"], [["a"]], punct="é")
    with pytest.raises(TypeError, match="punctuation must be a str"):
        _call(["a"], [["a"]], punct=None)
    # a bad item late in the input fails before any row is written
    out = np.full((3, 18), -7, np.int64)
    with pytest.raises(TypeError, match=r"references\[2\]\[0\]"):
        _call(["a", "b", "c"], [["a"], ["b"], [3]], out=out)
    assert (out == -7).all()


def test_the_python_engine_reports_the_same_errors(monkeypatch):
    monkeypatch.setenv("BLEUKIT_ENGINE", "python")
    with pytest.raises(TypeError, match=r"references\[0\]\[1\] must be a str, got NoneType"):
        extract.chrf_statistics(["a"], [["a", None]], ChrfOptions())
    with pytest.raises(ValueError, match=r"references\[0\] is empty"):
        extract.chrf_statistics(["a"], [[]], ChrfOptions())
    with pytest.raises(ValueError, match="1 hypotheses but 2 reference lists"):
        extract.chrf_statistics(["a"], [["a"], ["b"]], ChrfOptions())
    with pytest.raises(TypeError, match="options must be a ChrfOptions"):
        extract.chrf_statistics(["a"], [["a"]], {"beta": 2})
    with pytest.raises(ValueError, match="threads must be >= 0"):
        extract.chrf_statistics(["a"], [["a"]], ChrfOptions(), threads=-1)


@needs_kernel
def test_pairwise_entry_point_rejects_bad_arguments():
    o = ChrfOptions()
    args = (o.char_order, o.word_order, False, False, False, *beta_factors(o), PUNCT)
    with pytest.raises(ValueError, match="scores_out, rows_out or both"):
        _kernel().pairwise(["a"], ["b"], *args, None, None, 1)
    with pytest.raises(ValueError, match="scores_out must hold 2 values"):
        _kernel().pairwise(["a"], ["b", "c"], *args, np.empty(1), None, 1)
    with pytest.raises(TypeError, match="scores_out must be a writable, C-contiguous, aligned float64"):
        _kernel().pairwise(["a"], ["b"], *args, np.empty(1, np.int64), None, 1)
    with pytest.raises(TypeError, match=r"references\[1\] must be a str"):
        _kernel().pairwise(["a"], ["b", 1], *args, np.empty(2), None, 1)
    with pytest.raises(TypeError, match="sequences of str"):
        _kernel().pairwise("ab", ["b"], *args, np.empty(2), None, 1)


@needs_kernel
def test_the_kernel_releases_the_gil_while_it_counts():
    hyps, refs = _mixed_corpus(200_000)
    options = ChrfOptions(word_order=2)
    started = threading.Event()
    spins = 0

    def work():
        started.set()
        extract.chrf_statistics(hyps, refs, options)

    worker = threading.Thread(target=work)
    worker.start()
    started.wait()
    start = time.perf_counter()
    while worker.is_alive():
        spins += 1  # runs only while the worker does not hold the GIL
    elapsed = time.perf_counter() - start
    worker.join()
    assert elapsed > 0.05 and spins > 1000, (elapsed, spins)


INTERRUPT = textwrap.dedent("""
    import os, signal, threading, time
    from bleukit.metrics.chrf import extract
    from bleukit.metrics.chrf.options import ChrfOptions
    hyp = "The quick brown fox , 1,000.5 jumps over the lazy dog - again and again ; ok ?" * 2
    ref = "A quick brown fox jumps over a lazy dog again , 1,000.5 and again ; fine ." * 2
    kind = {kind!r}
    options = ChrfOptions(word_order=2, lowercase=True)
    extract.chrf_statistics(["a"], [["a"]], options)
    def fire():
        global fired
        fired = time.perf_counter()
        os.kill(os.getpid(), signal.SIGINT)
    threading.Timer(0.4, fire).start()
    start = time.perf_counter()
    try:
        for _ in range(50):
            if kind == "one long sentence":
                extract.chrf_statistics([hyp * 100000], [[ref * 100000]], options)
            elif kind == "threads":
                extract.chrf_statistics([hyp] * 2_000_000, [[ref]] * 2_000_000, options, threads=2)
            elif kind == "pairwise":
                pool = [hyp[i % 40:] + str(i) for i in range(3000)]
                extract.pairwise_chrf(pool, pool, options, threads=2)
            else:
                extract.chrf_statistics([hyp] * 2_000_000, [[ref]] * 2_000_000, options)
        print("finished", time.perf_counter() - start)
    except KeyboardInterrupt:
        print("interrupted", time.perf_counter() - fired)
""")


@needs_kernel
@pytest.mark.slow
@pytest.mark.parametrize("kind", ["many sentences", "one long sentence", "threads", "pairwise"])
def test_ctrl_c_stops_a_long_call_promptly(kind):
    proc = subprocess.run(
        [sys.executable, "-c", INTERRUPT.format(kind=kind)], capture_output=True, text=True, timeout=300, cwd=REPO
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    what, seconds = proc.stdout.split()[-2:]
    assert what == "interrupted", proc.stdout
    # ~10 ms of work between checks; the margin is for a 2-core machine busy with other work
    assert float(seconds) < 2.0, proc.stdout


def test_engine_name_follows_bleukit_engine(monkeypatch):
    monkeypatch.setenv("BLEUKIT_ENGINE", "python")
    assert extract.engine_name() == "python"
    monkeypatch.setenv("BLEUKIT_ENGINE", "fast")
    with pytest.raises(ValueError, match="BLEUKIT_ENGINE"):
        extract.engine_name()
    monkeypatch.delenv("BLEUKIT_ENGINE")
    assert extract.engine_name() == ("native" if extract.available() else "python")


@needs_kernel
def test_large_alphabets_take_the_hashed_pair_table():
    """A hypothesis with thousands of distinct characters and words (prefix ids x alphabet over
    the direct table's 2**18 slots) goes through the hash table: the same rows as the reference."""
    rng = np.random.default_rng(5)
    alphabet = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
    hyp = "".join(rng.choice(alphabet, 6000))
    ref = hyp[1000:5000] + "".join(rng.choice(alphabet, 2000))
    words_h = " ".join(hyp[i : i + 3] for i in range(0, 6000, 3))
    words_r = " ".join(ref[i : i + 3] for i in range(0, 6000, 3))
    for options in (ChrfOptions(), ChrfOptions(char_order=4, word_order=3)):
        hyps, refs = [hyp, words_h], [[ref, hyp[:10]], [words_r]]
        assert (
            extract.chrf_statistics(hyps, refs, options).tolist()
            == reference.chrf_statistics(hyps, refs, options).tolist()
        )
        assert (
            extract.pairwise_chrf_statistics(hyps, [ref, words_r], options).tolist()
            == reference.pairwise_chrf_statistics(hyps, [ref, words_r], options).tolist()
        )
