"""BLEU's exp, log and sum are Python's own, bit for bit (issue 20: numpy's SIMD exp/log differ from
libm in the last bit on AVX-512 CPUs, and Python 3.12's sum is compensated), on both engines, and
the compiled vector functions check their arguments and honour Ctrl-C."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
import sacrebleu
from shared_data import REPO, load_corpus

import bleukit
from bleukit import _native
from bleukit.metrics.bleu import libm

needs_kernel = pytest.mark.skipif(_native.load_kernel(libm.KERNEL) is None, reason="BLEUKIT_NO_NATIVE build")


def _c_exp(v: float) -> float:
    try:
        return math.exp(v)
    except OverflowError:
        return math.inf


def _c_log(v: float) -> float:
    return math.log(v) if v > 0 else (-math.inf if v == 0 else math.nan)


def _values() -> np.ndarray:
    rng = np.random.default_rng(20)
    return np.concatenate([
        rng.uniform(-745, 710, 20_000),  # the whole range of exp
        rng.uniform(-1, 1, 20_000),  # where BLEU's brevity penalty and mean log live
        np.log(rng.uniform(1e-6, 100, 20_000)),
        rng.uniform(0, 100, 20_000),  # precisions
        [0.0, -0.0, 1.0, -1.0, 710.0, 800.0, -800.0, 5e-324, math.inf, -math.inf, math.nan, 1e308],
    ])


def _same(got: np.ndarray, want: list) -> bool:
    want_arr = np.array(want)
    return bool(np.array_equal(got, want_arr, equal_nan=True))


def test_exp_and_log_are_maths_own(engine):
    x = _values()
    assert _same(libm.exp(x), [_c_exp(v) for v in x.tolist()])
    assert _same(libm.log(x), [_c_log(v) for v in x.tolist()])
    # any shape, any input dtype; the input is left alone
    grid = x[:120].reshape(3, 4, 10).copy()
    assert _same(libm.exp(grid), np.array([_c_exp(v) for v in grid.ravel().tolist()]).reshape(3, 4, 10))
    assert np.array_equal(grid, x[:120].reshape(3, 4, 10))
    assert libm.log(np.arange(1, 4)).tolist() == [math.log(1), math.log(2), math.log(3)]


@pytest.mark.parametrize("seed", range(5))
def test_python_sum_is_the_builtin_sum(seed):
    rng = np.random.default_rng(seed)
    terms = np.concatenate([
        np.log(rng.uniform(1e-3, 100, (6, 5000))),
        rng.choice([1e16, -1e16, 1.0, 3e-5, -2.5, 1e100, -1e100], (6, 5000)),
    ], axis=1)
    got = libm.python_sum(terms)
    want = [sum(terms[:, j].tolist()) for j in range(terms.shape[1])]
    assert got.tolist() == want
    # The probe says which sum this Python has.
    assert libm.COMPENSATED_SUM == (sys.version_info >= (3, 12) and sys.implementation.name == "cpython")


def test_python_sum_on_torch():
    torch = pytest.importorskip("torch")
    terms = np.log(np.random.default_rng(1).uniform(1e-3, 100, (4, 300)))
    assert libm.python_sum(torch.from_numpy(terms)).tolist() == libm.python_sum(terms).tolist()


def test_cpu_tensors_are_scored_exactly_as_numpy_arrays(engine):
    torch = pytest.importorskip("torch")
    from bleukit.metrics.bleu.formula import score_table

    rng = np.random.default_rng(3)
    totals = rng.integers(1, 60, (2000, 1)) - np.arange(4)[None, :]
    rows = np.concatenate([totals[:, :1], rng.integers(1, 60, (2000, 1)), rng.integers(0, 30, (2000, 4)), totals], 1)
    rows[:, 2:6] = np.minimum(rows[:, 2:6], np.maximum(totals, 0))
    rows[:, 6:] = np.maximum(totals, 0)
    options = bleukit.BleuOptions(smooth_method="floor", smooth_value=0.3).sentence_level()
    want = score_table(rows, options)
    got = score_table(torch.from_numpy(rows), options)
    assert isinstance(got.score, torch.Tensor) and got.score.dtype == torch.float64
    assert got.score.tolist() == want.score.tolist() and got.precisions.tolist() == want.precisions.tolist()


def test_sentence_bleu_of_the_issue(engine):
    """The issue's example: 41.113361690051974 with numpy's exp, sacreBLEU says 41.11336169005198."""
    hyp, refs = "Da war der Handschlag, ja.", ["Es gab den Handschlag, ja."]
    assert bleukit.sentence_bleu(hyp, refs).score == sacrebleu.sentence_bleu(hyp, refs).score


@pytest.mark.slow
def test_every_sentence_score_of_a_real_system(engine, shared_data):
    """online-A.0's 3004 sentence scores (219 differed by <= 2.8e-14 with numpy's exp/log)."""
    hyps, refs, _ = load_corpus(shared_data, "wmt17-en-de", "hyp.online-A.0.de", "ref.de")
    theirs = [sacrebleu.sentence_bleu(h, r).score for h, r in zip(hyps, refs)]
    assert bleukit.sentence_bleu_scores(hyps, refs).tolist() == theirs
    assert [bleukit.sentence_bleu(h, r).score for h, r in zip(hyps[:300], refs[:300])] == theirs[:300]


def test_sentence_scores_of_a_real_system_fast(engine, shared_data):
    hyps, refs, _ = load_corpus(shared_data, "wmt17-en-de", "hyp.online-A.0.de", "ref.de")
    theirs = [sacrebleu.sentence_bleu(h, r).score for h, r in zip(hyps[:600], refs[:600])]
    assert bleukit.sentence_bleu_scores(hyps[:600], refs[:600]).tolist() == theirs


# --------------------------------------------------------------------------------------------
# the compiled vector functions


@needs_kernel
@pytest.mark.parametrize("name", ["exp", "log"])
def test_kernel_checks_every_argument_first(name):
    fn = getattr(_native.load_kernel(libm.KERNEL), name)
    x = np.linspace(0.5, 2, 10)
    out = np.empty(10)
    fn(x, out)
    assert out.tolist() == [getattr(math, name)(v) for v in x.tolist()]
    fn(out, out)  # in place
    with pytest.raises(TypeError, match="float64"):
        fn(x.astype(np.float32), out)
    with pytest.raises(TypeError, match="float64"):
        fn(x, np.empty(10, np.int64))
    with pytest.raises((TypeError, ValueError), match="contiguous"):
        fn(np.linspace(0, 1, 20)[::2], out)
    with pytest.raises(ValueError, match="as many items"):
        fn(x, np.empty(9))
    with pytest.raises(ValueError, match="overlap"):
        buf = np.linspace(0.5, 2, 11)
        fn(buf[:10], buf[1:])
    frozen = np.empty(10)
    frozen.flags.writeable = False
    with pytest.raises((TypeError, ValueError, BufferError)):
        fn(x, frozen)
    with pytest.raises(TypeError):
        fn([1.0, 2.0], out)
    with pytest.raises(TypeError):
        fn(x)
    fn(np.empty(0), np.empty(0))


INTERRUPT = """
import os, signal, threading, time, numpy as np
from bleukit import _native
from bleukit.metrics.bleu import libm
kernel = _native.load_kernel(libm.KERNEL)
x = np.random.default_rng(0).uniform(0.1, 2.0, 40_000_000)
out = np.empty_like(x)
def fire():
    global fired
    fired = time.perf_counter()
    os.kill(os.getpid(), signal.SIGINT)
threading.Timer(0.3, fire).start()
try:
    for _ in range(200):
        kernel.log(x, out)
    print("finished", 0)
except KeyboardInterrupt:
    print("interrupted", time.perf_counter() - fired)
"""


@needs_kernel
def test_ctrl_c_stops_a_long_vector_promptly():
    proc = subprocess.run([sys.executable, "-c", INTERRUPT], capture_output=True, text=True, timeout=240, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-2000:]
    what, seconds = proc.stdout.split()[-2:]
    assert what == "interrupted", proc.stdout
    assert float(seconds) < 2.0, proc.stdout
