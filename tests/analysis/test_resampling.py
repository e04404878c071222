"""The bootstrap and approximate randomization without numpy (bleukit.resampling, csrc/resample/resample.c,
csrc/metrics/bleu/float32.c): numpy's draws and coin flips, exact sums, sacreBLEU's float32 scores
and exact scores, each compared with numpy's route with ==."""

import json
import os
import random
import statistics
import subprocess
import sys
from array import array

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared_data import read_lines

import bleukit
from bleukit import _native, resampling
from bleukit.analysis import significance
from bleukit.analysis.significance import draws as numpy_draws
from bleukit.metrics.bleu import formula, libm
from bleukit.metrics.bleu.options import BleuOptions

KERNEL = _native.load_kernel(resampling.KERNEL)
BLEU_KERNEL = _native.load_kernel(libm.KERNEL)
needs_kernels = pytest.mark.skipif(KERNEL is None or BLEU_KERNEL is None, reason="BLEUKIT_NO_NATIVE build")
WMT17 = ["LIUM-NMT.4900", "online-B.0", "uedin-nmt.4722", "KIT.4950", "online-A.0"]
SEEDS = [0, 1, 12345, 2**32 - 1, 2**32, 2**64 + 5, 2**200 + 17, 987654321987654321]


@pytest.fixture(scope="module")
def wmt17(shared_data):
    folder = shared_data / "wmt17-en-de"
    return [(name, read_lines(folder / f"hyp.{name}.de")) for name in WMT17], read_lines(folder / "ref.de")


@needs_kernels
@pytest.mark.parametrize("seed", SEEDS)
def test_draws_are_numpys_call_after_call(seed):
    ours, theirs = KERNEL.Generator(resampling.seed_words(seed)), np.random.default_rng(seed)
    for high in [1, 2, 3, 7, 3004, 10**6, 2**31, 2**32 - 1]:
        for size in [1, 5, 1000, 3, 0]:  # odd sizes leave half a 64-bit output for the next call
            out = np.full(size, -1, dtype=np.int64)
            ours.integers(high, out)
            assert out.tolist() == theirs.integers(0, high, size=size, dtype=np.int64).tolist()


def test_seed_words_are_the_seeds_32_bit_words():
    for seed in SEEDS:
        words = resampling.seed_words(seed)
        assert sum(w << (32 * i) for i, w in enumerate(words)) == seed and all(0 <= w < 2**32 for w in words)
        assert len(words) == max(1, -(-seed.bit_length() // 32))


@needs_kernels
@pytest.mark.parametrize("call,error,message", [
    (lambda g: g.integers(0, np.empty(3, np.int64)), ValueError, "high must lie in"),
    (lambda g: g.integers(2**32, np.empty(3, np.int64)), ValueError, "high must lie in"),
    (lambda g: g.integers(5, np.empty(3, np.int32)), TypeError, "int64"),
    (lambda g: g.integers(5, np.empty(3, np.int64)[::2]), (TypeError, ValueError, BufferError), None),
    (lambda g: g.integers(5, b"abcdefgh"), (TypeError, BufferError), None),
])
def test_generator_checks_its_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call(KERNEL.Generator([1]))


@needs_kernels
@pytest.mark.parametrize("entropy", [[], [-1], [2**32], ["1"], 5, [0] * 1025])
def test_generator_checks_its_entropy(entropy):
    with pytest.raises((ValueError, TypeError)):
        KERNEL.Generator(entropy)


@needs_kernels
# items up to 16383 are summed in 16-bit runs of 65535 // largest rows, larger ones in 32 bits
@pytest.mark.parametrize("largest", [0, 1000, 16383, 16384, 100_000])
@pytest.mark.parametrize("systems,width,n_rows,k,per", [(1, 1, 1, 1, 1), (1, 10, 3004, 7, 3004), (5, 10, 97, 13, 97),
                                                        (3, 7, 40, 9, 11), (2, 3, 5, 4, 0)])
def test_gather_sums_are_numpys(systems, width, n_rows, k, per, largest):
    rng = np.random.default_rng(systems * 1000 + width)
    table = rng.integers(0, largest + 1, size=(systems, n_rows, width), dtype=np.int64)
    table.flat[0] = largest  # the bound is reached
    indices = rng.integers(0, n_rows, size=(k, per), dtype=np.int64)
    out = np.full((k, systems, width), -7, dtype=np.int64)
    before = table.copy(), indices.copy()
    KERNEL.gather_sums(table, systems, width, indices, out)
    expected = np.stack([table[j][indices].sum(axis=1) for j in range(systems)], axis=1)
    assert out.tolist() == expected.tolist()
    assert np.array_equal(table, before[0]) and np.array_equal(indices, before[1])  # inputs untouched


def _generators(seed):
    """The compiled generator and numpy's for ``seed``, each with half a 64-bit output left over
    for what is drawn next."""
    ours, theirs = KERNEL.Generator(resampling.seed_words(seed)), np.random.default_rng(seed)
    ours.integers(7, np.empty(1, np.int64))
    theirs.integers(0, 7, size=1, dtype=np.int64)
    return ours, theirs


def _assert_the_streams_go_on_alike(ours, theirs):
    after = np.empty(9, np.int64)
    ours.integers(1000, after)
    assert after.tolist() == theirs.integers(0, 1000, size=9, dtype=np.int64).tolist()


@needs_kernels
@pytest.mark.parametrize("seed", [0, 12345, 2**64 + 5])
@pytest.mark.parametrize("largest", [0, 16383, 100_000])
# one row (numpy draws nothing for a range of one); resamples of a block and of several blocks
# (32768 draws a block), their count not a multiple of a block's; rows past a block (one resample each)
@pytest.mark.parametrize("systems,width,n_rows,k", [(1, 3, 1, 5), (1, 10, 3004, 87), (5, 10, 3004, 23),
                                                    (3, 7, 40, 1000), (2, 2, 40_000, 3)])
def test_resample_sums_are_numpys_draws_summed(systems, width, n_rows, k, largest, seed):
    largest = min(largest, (2**31 - 1) // n_rows)  # sums that could pass 2**31 are refused (next test)
    rng = np.random.default_rng(seed + largest)
    table = rng.integers(0, largest + 1, size=(systems, n_rows, width), dtype=np.int64)
    table.flat[-1] = largest
    ours, theirs = _generators(seed)
    out = np.full((k, systems, width), -7, dtype=np.int64)
    before = table.copy()
    ours.resample_sums(table, systems, width, out)
    draws = theirs.integers(0, n_rows, size=(k, n_rows), dtype=np.int64)
    assert out.tolist() == np.stack([table[j][draws].sum(axis=1) for j in range(systems)], axis=1).tolist()
    assert np.array_equal(table, before)
    _assert_the_streams_go_on_alike(ours, theirs)


@needs_kernels
def test_resample_sums_checks_everything_before_drawing():
    table = np.ones((4, 2), dtype=np.int64)
    out = np.empty((1, 2), dtype=np.int64)
    ours, theirs = KERNEL.Generator([3]), np.random.default_rng(3)
    refused = [
        (lambda: ours.resample_sums(-table, 1, 2, out), ValueError, "negative"),
        (lambda: ours.resample_sums(np.full((4, 2), 2**29, np.int64), 1, 2, out), ValueError, "2\\*\\*31"),
        (lambda: ours.resample_sums(table, 1, 2, np.empty(3, np.int64)), ValueError, "whole rows"),
        (lambda: ours.resample_sums(table, 3, 2, out), ValueError, "not 3 tables"),
        (lambda: ours.resample_sums(table, 1, 2, table[:1]), ValueError, "overlap"),
        (lambda: ours.resample_sums(table, 0, 2, out), ValueError, "positive"),
        (lambda: ours.resample_sums(table[:0], 1, 2, out), ValueError, "1 to 2\\*\\*32 - 1 rows"),
        (lambda: ours.resample_sums(table.astype(np.int32), 1, 2, out), TypeError, "int64"),
        (lambda: ours.resample_sums(table, 1, 2, np.empty((1, 2), np.float64)), TypeError, "int64"),
        (lambda: ours.resample_sums(table, 1, 2, out[:, ::2]), (TypeError, ValueError, BufferError), None),
    ]
    _assert_refused_without_drawing(refused, ours, theirs)


def _assert_refused_without_drawing(refused, ours, theirs):
    """Each call raises its error, and none of them drew from the generator."""
    for call, error, message in refused:
        with pytest.raises(error, match=message):
            call()
    drawn = np.empty(5, np.int64)
    ours.integers(4, drawn)
    assert drawn.tolist() == theirs.integers(0, 4, size=5, dtype=np.int64).tolist()


def _flip_sums(table, pairs, flips):
    """numpy's trial statistics: a' = flipped rows of a + the others of b, b' = the rest."""
    kept = (~flips).astype(np.int64)
    flipped = flips.astype(np.int64)
    return np.stack([np.stack([flipped @ table[a] + kept @ table[b], flipped @ table[b] + kept @ table[a]], axis=1)
                     for a, b in pairs], axis=1)


@needs_kernels
@pytest.mark.parametrize("seed", [0, 12345, 2**64 + 5])
# items up to 16383 in 16-bit subset sums (flushed every group at 16383), larger ones in 32 bits
@pytest.mark.parametrize("largest", [0, 1000, 16383, 16384, 100_000])
# one row; rows a multiple of 4 or not (the last group is partial); several pairs, a pair repeated,
# reversed and of a system with itself; trials past a block of 16
@pytest.mark.parametrize("systems,width,n_rows,pairs,k", [
    (2, 1, 1, [(0, 1)], 40), (2, 10, 3004, [(0, 1)], 37), (5, 10, 3004, [(0, 1), (0, 2), (0, 3), (0, 4)], 19),
    (3, 7, 41, [(0, 1), (2, 1), (1, 0), (0, 0), (0, 1)], 100), (2, 2, 40_000, [(1, 0)], 3)])
def test_randomization_sums_are_numpys_flips_summed(systems, width, n_rows, pairs, k, largest, seed):
    largest = min(largest, (2**31 - 1) // n_rows)  # sums that could pass 2**31 are refused (next test)
    rng = np.random.default_rng(seed + largest)
    table = rng.integers(0, largest + 1, size=(systems, n_rows, width), dtype=np.int64)
    table.flat[-1] = largest
    ours, theirs = _generators(seed)
    flat_pairs = np.array(pairs, dtype=np.int64).ravel()
    before = table.copy()
    # two calls, the first of whole 32-bit words of flips: numpy's one call, flip for flip
    first = np.full((32, len(pairs), 2, width), -7, dtype=np.int64)
    rest = np.full((k, len(pairs), 2, width), -7, dtype=np.int64)
    ours.randomization_sums(table, systems, width, flat_pairs, first)
    ours.randomization_sums(table, systems, width, flat_pairs, rest)
    flips = theirs.integers(2, size=(32 + k, n_rows), dtype=bool)
    assert np.concatenate([first, rest]).tolist() == _flip_sums(table, pairs, flips).tolist()
    assert np.array_equal(table, before)
    _assert_the_streams_go_on_alike(ours, theirs)


@needs_kernels
def test_randomization_sums_check_everything_before_drawing():
    table = np.ones((2, 4, 2), dtype=np.int64)
    pairs = np.array([0, 1], dtype=np.int64)
    out = np.empty((1, 1, 2, 2), dtype=np.int64)
    shared = np.zeros(4, dtype=np.int64)  # pairs (0, 0) in the first items of the output
    ours, theirs = KERNEL.Generator([3]), np.random.default_rng(3)
    refused = [
        (lambda: ours.randomization_sums(-table, 2, 2, pairs, out), ValueError, "negative"),
        (lambda: ours.randomization_sums(np.full((2, 4, 2), 2**29, np.int64), 2, 2, pairs, out), ValueError,
         "2\\*\\*31"),
        (lambda: ours.randomization_sums(table, 2, 2, np.array([0, 1, 1], np.int64), out), ValueError, "pairs"),
        (lambda: ours.randomization_sums(table, 2, 2, np.array([], np.int64), out), ValueError, "pairs"),
        (lambda: ours.randomization_sums(table, 2, 2, np.array([0, 2], np.int64), out), ValueError,
         "not a system"),
        (lambda: ours.randomization_sums(table, 2, 2, np.array([-1, 0], np.int64), out), ValueError,
         "not a system"),
        (lambda: ours.randomization_sums(table, 2, 2, pairs, np.empty(6, np.int64)), ValueError, "whole rows"),
        (lambda: ours.randomization_sums(table, 3, 2, pairs, out), ValueError, "not 3 tables"),
        (lambda: ours.randomization_sums(table, 2, 2, pairs, table[0]), ValueError, "overlap"),
        (lambda: ours.randomization_sums(table, 2, 2, shared[:2], shared), ValueError, "overlap"),
        (lambda: ours.randomization_sums(table, 0, 2, pairs, out), ValueError, "positive"),
        (lambda: ours.randomization_sums(table[:, :0], 2, 2, pairs, out), ValueError, "must have rows"),
        (lambda: ours.randomization_sums(table.astype(np.int32), 2, 2, pairs, out), TypeError, "int64"),
        (lambda: ours.randomization_sums(table, 2, 2, pairs.astype(np.int32), out), TypeError, "int64"),
        (lambda: ours.randomization_sums(table, 2, 2, pairs, out.astype(np.float64)), TypeError, "int64"),
        (lambda: ours.randomization_sums(table, 2, 2, pairs, out[..., ::2]), (TypeError, ValueError, BufferError),
         None),
    ]
    _assert_refused_without_drawing(refused, ours, theirs)


@pytest.mark.parametrize("engine", ["kernel", "python"])
# sums below 2**31 go to the kernel, larger ones (and any without it) to Python's int sums
@pytest.mark.parametrize("largest", [0, 16383, 100_000, 2**40])
@pytest.mark.parametrize("systems,width,n_rows", [(1, 1, 1), (5, 10, 3004), (3, 7, 40)])
def test_column_sums_are_numpys(monkeypatch, engine, largest, systems, width, n_rows):
    if engine == "kernel" and KERNEL is None:
        pytest.skip("BLEUKIT_NO_NATIVE build")
    if engine == "python":
        monkeypatch.setattr(_native, "kernel", lambda name: None)
    rng = np.random.default_rng(systems * 100 + width + largest % 97)
    table = rng.integers(0, largest + 1, size=(systems, n_rows, width), dtype=np.int64)
    table.flat[-1] = largest
    flat = array("q", table.tobytes())
    assert resampling.column_sums(flat, n_rows, systems) == table.sum(axis=1).tolist()
    assert flat.tobytes() == table.tobytes()  # input untouched


@needs_kernels
def test_gather_sums_refuses_what_it_cannot_sum_exactly():
    table = np.ones((4, 2), dtype=np.int64)
    out = np.empty((1, 2), dtype=np.int64)
    with pytest.raises(ValueError, match="outside the table"):
        KERNEL.gather_sums(table, 1, 2, np.array([0, 4], dtype=np.int64), out)
    with pytest.raises(ValueError, match="outside the table"):
        KERNEL.gather_sums(table, 1, 2, np.array([-1, 0], dtype=np.int64), out)
    with pytest.raises(ValueError, match="negative"):
        KERNEL.gather_sums(-table, 1, 2, np.array([0, 1], dtype=np.int64), out)
    big = np.full((4, 2), 2**30, dtype=np.int64)
    with pytest.raises(ValueError, match="2\\*\\*31"):
        KERNEL.gather_sums(big, 1, 2, np.array([0, 1, 2], dtype=np.int64), out)
    with pytest.raises(ValueError, match="whole rows"):
        KERNEL.gather_sums(table, 1, 2, np.array([0], dtype=np.int64), np.empty(3, dtype=np.int64))
    with pytest.raises(ValueError, match="resamples of equal size"):
        KERNEL.gather_sums(table, 1, 2, np.array([0, 1, 2], dtype=np.int64), np.empty((2, 2), dtype=np.int64))
    with pytest.raises(ValueError, match="not 3 tables"):
        KERNEL.gather_sums(table, 3, 2, np.array([0], dtype=np.int64), out)
    with pytest.raises(ValueError, match="overlap"):
        KERNEL.gather_sums(table, 1, 2, np.array([0], dtype=np.int64), table[:1])
    with pytest.raises(ValueError, match="positive"):
        KERNEL.gather_sums(table, 0, 2, np.array([0], dtype=np.int64), out)


@needs_kernels
def test_largest_item():
    assert KERNEL.largest_item(np.array([3, 9, 2], dtype=np.int64)) == 9
    assert KERNEL.largest_item(np.empty(0, dtype=np.int64)) == 0
    with pytest.raises(ValueError, match="item 1 is negative"):
        KERNEL.largest_item(np.array([3, -1, -2], dtype=np.int64))


def _random_sums(rng, order, rows, tops=()):
    out = []
    for _ in range(rows):
        top = rng.choice([0, 1, 2, 3, 5, 20, 1000, 60000, 2**24, *tops])
        totals = [rng.randint(0, top) if rng.random() < 0.9 else 0 for _ in range(order)]
        correct = [rng.randint(0, t) if rng.random() < 0.7 else 0 for t in totals]
        out.append([rng.randint(0, top), rng.randint(0, top)] + correct + totals)
    return out


OPTION_CASES = [
    dict(max_ngram_order=order, smooth_method=method, smooth_value=value, effective_order=eff)
    for order in (1, 2, 4, 6)
    for method, values in (("exp", [None]), ("none", [None]), ("floor", [None, 0.1, 3.0]), ("add-k", [None, 0.3, 2.5]))
    for value in values
    for eff in (False, True)
]


@needs_kernels
@pytest.mark.parametrize("weak", [True, False], ids=["numpy2", "numpy1"])
@pytest.mark.parametrize("compensated", [True, False], ids=["sum312", "sum39"])
def test_float32_scores_are_the_numpy_formulas(monkeypatch, weak, compensated):
    """The C formula against numpy's (score_float32_sums) for both numpys' arithmetic and both
    Pythons' sum(), on random sums up to 2**24 with every smoothing and order."""
    monkeypatch.setattr(formula, "_weak_scalars", lambda: weak)
    monkeypatch.setattr(libm, "COMPENSATED_SUM", compensated)
    rng = random.Random(7)
    for keywords in OPTION_CASES:
        options = BleuOptions(**keywords)
        rows = _random_sums(rng, options.max_ngram_order, 150)
        expected = formula.score_float32_sums(np.array(rows, dtype=np.float32), options).score.tolist()
        out = array("d", bytes(8 * len(rows)))
        BLEU_KERNEL.float32_scores(array("q", [v for r in rows for v in r]), options.max_ngram_order,
                                   formula.SMOOTH_CODES[options.smooth_method],
                                   float(options.resolved_smooth_value or 0.0), options.effective_order, weak,
                                   compensated, out)
        assert out.tolist() == expected, keywords


@needs_kernels
@pytest.mark.parametrize("compensated", [True, False], ids=["sum312", "sum39"])
def test_scores_are_the_numpy_formula(monkeypatch, compensated):
    """The C formula of integer statistics against BLEU's own (Metric.scores: numpy, libm's exp and
    log, Python's sum) for both Pythons' sum(), on random statistics up to 2**53, every smoothing
    and order: approximate randomization's trials score the same either way."""
    monkeypatch.setattr(libm, "COMPENSATED_SUM", compensated)
    rng = random.Random(11)
    for keywords in OPTION_CASES:
        options = BleuOptions(**keywords)
        rows = _random_sums(rng, options.max_ngram_order, 150, tops=[2**40, 2**53])
        expected = formula.table_scores(np.array(rows, dtype=np.int64), options).tolist()
        out = array("d", bytes(8 * len(rows)))
        BLEU_KERNEL.scores(array("q", [v for r in rows for v in r]), options.max_ngram_order,
                           formula.SMOOTH_CODES[options.smooth_method], float(options.resolved_smooth_value or 0.0),
                           options.effective_order, compensated, out)
        assert out.tolist() == expected, keywords
        if compensated == formula.COMPENSATED_SUM:
            native = formula.native_scores(array("q", [v for r in rows for v in r]), len(rows), options)
            assert native is not None and native.tolist() == expected


@needs_kernels
def test_scores_refuse_inexact_statistics_and_bad_arguments():
    out = array("d", [0.0])
    with pytest.raises(ValueError, match="2\\*\\*53"):
        BLEU_KERNEL.scores(array("q", [2**53 + 1, 1, 1, 1]), 1, 3, 0.0, False, True, out)
    with pytest.raises(ValueError, match="2\\*\\*53"):
        BLEU_KERNEL.scores(array("q", [1, 1, -1, 1]), 1, 3, 0.0, False, True, out)
    with pytest.raises(ValueError, match="rows of width"):
        BLEU_KERNEL.scores(array("q", [1, 1, 1]), 1, 3, 0.0, False, True, out)
    with pytest.raises(ValueError, match="order"):
        BLEU_KERNEL.scores(array("q", [1, 1]), 0, 3, 0.0, False, True, out)
    with pytest.raises(ValueError, match="smoothing code"):
        BLEU_KERNEL.scores(array("q", [1, 1, 1, 1]), 1, 9, 0.0, False, True, out)
    with pytest.raises(ValueError, match="finite"):
        BLEU_KERNEL.scores(array("q", [1, 1, 1, 1]), 1, 1, float("inf"), False, True, out)
    with pytest.raises(TypeError, match="float64"):
        BLEU_KERNEL.scores(array("q", [1, 1, 1, 1]), 1, 1, 0.0, False, True, array("f", [0.0]))


@needs_kernels
def test_float32_scores_refuse_inexact_sums_and_bad_arguments():
    out = array("d", [0.0])
    with pytest.raises(ValueError, match="2\\*\\*24"):
        BLEU_KERNEL.float32_scores(array("q", [2**24 + 1, 1, 1, 1]), 1, 3, 0.0, False, True, True, out)
    with pytest.raises(ValueError, match="2\\*\\*24"):
        BLEU_KERNEL.float32_scores(array("q", [-1, 1, 1, 1]), 1, 3, 0.0, False, True, True, out)
    with pytest.raises(ValueError, match="rows of width"):
        BLEU_KERNEL.float32_scores(array("q", [1, 1, 1]), 1, 3, 0.0, False, True, True, out)
    with pytest.raises(ValueError, match="order"):
        BLEU_KERNEL.float32_scores(array("q", [1, 1]), 0, 3, 0.0, False, True, True, out)
    with pytest.raises(ValueError, match="smoothing code"):
        BLEU_KERNEL.float32_scores(array("q", [1, 1, 1, 1]), 1, 9, 0.0, False, True, True, out)
    with pytest.raises(ValueError, match="finite"):
        BLEU_KERNEL.float32_scores(array("q", [1, 1, 1, 1]), 1, 1, float("nan"), False, True, True, out)
    with pytest.raises(TypeError, match="float64"):
        BLEU_KERNEL.float32_scores(array("q", [1, 1, 1, 1]), 1, 1, 0.0, False, True, True, array("f", [0.0]))


@needs_kernels
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_compiled_bootstrap_is_numpys_on_random_tables(data):
    """Differential: random tables, seeds, sample counts and options through the compiled route,
    against numpy's draws, float32 sums and numpy's formula (sacreBLEU's steps, written out)."""
    order = data.draw(st.integers(1, 5), "order")
    systems = data.draw(st.integers(1, 4), "systems")
    n_rows = data.draw(st.integers(1, 40), "rows")
    top = data.draw(st.sampled_from([1, 3, 50, 4000]), "largest item")
    values = data.draw(st.lists(st.integers(0, top), min_size=systems * n_rows * (2 + 2 * order),
                                max_size=systems * n_rows * (2 + 2 * order)), "table")
    seed = data.draw(st.integers(0, 2**80), "seed")
    n = data.draw(st.integers(1, 70), "samples")
    method = data.draw(st.sampled_from(["exp", "floor", "add-k", "none"]), "smoothing")
    options = BleuOptions(max_ngram_order=order, smooth_method=method, effective_order=data.draw(st.booleans()))
    columns = resampling.bootstrap_columns(array("q", values), n_rows, systems, options, n, seed)
    table = np.array(values, dtype=np.int64).reshape(systems, n_rows, 2 + 2 * order)
    draws = np.random.default_rng(seed).integers(0, n_rows, size=(n, n_rows), dtype=np.int64)
    for j in range(systems):
        sums = table[j].astype(np.float32)[draws].sum(axis=1)
        assert columns[j] == formula.score_float32_sums(sums, options).score.tolist()


def test_native_scores_decline_custom_weights():
    options = BleuOptions(weights=(0.5, 0.5, 0.0, 0.0))
    assert formula.native_float32_scores(array("q", bytes(80)), 1, options) is None
    assert formula.native_scores(array("q", bytes(80)), 1, options) is None


@needs_kernels
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_compiled_randomization_is_numpys_on_random_tables(data):
    """Differential: random tables, pairs, seeds, trial counts, thresholds and options through the
    compiled route, against numpy's coin flips, integer sums and BLEU's formula."""
    order = data.draw(st.integers(1, 5), "order")
    systems = data.draw(st.integers(1, 4), "systems")
    n_rows = data.draw(st.integers(1, 40), "rows")
    width = 2 + 2 * order
    top = data.draw(st.sampled_from([1, 3, 50, 4000, 20000]), "largest item")
    values = data.draw(st.lists(st.integers(0, top), min_size=systems * n_rows * width,
                                max_size=systems * n_rows * width), "table")
    pairs = data.draw(st.lists(st.tuples(st.integers(0, systems - 1), st.integers(0, systems - 1)), min_size=1,
                               max_size=4), "pairs")
    observed = data.draw(st.lists(st.sampled_from([0.0, 0.5, 3.0, 20.0]), min_size=len(pairs),
                                  max_size=len(pairs)), "observed")
    seed = data.draw(st.integers(0, 2**80), "seed")
    n = data.draw(st.integers(1, 200), "trials")
    method = data.draw(st.sampled_from(["exp", "floor", "add-k", "none"]), "smoothing")
    options = BleuOptions(max_ngram_order=order, smooth_method=method, effective_order=data.draw(st.booleans()))
    counts = resampling.randomization_counts(array("q", values), n_rows, systems, pairs, observed, options, n, seed)
    table = np.array(values, dtype=np.int64).reshape(systems, n_rows, width)
    sums = _flip_sums(table, pairs, np.random.default_rng(seed).integers(2, size=(n, n_rows), dtype=bool))
    scores = formula.table_scores(sums.reshape(-1, width), options).reshape(n, len(pairs), 2)
    assert counts == [int((np.abs(scores[:, q, 0] - scores[:, q, 1]) > observed[q]).sum()) for q in range(len(pairs))]


def test_numpy_version_is_read_without_importing_it():
    code = ("import sys; from bleukit.metrics.bleu import formula; v = formula.numpy_weak_scalars(); "
            "assert 'numpy' not in sys.modules; import numpy; print(v == formula._weak_scalars())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


@pytest.mark.parametrize("n", list(range(1, 140)) + [255, 256, 257, 999, 1000, 1001, 4096, 8192, 8193, 20001])
def test_pairwise_mean_is_numpys(n, engine):
    """On both engines: the compiled sum (native) and its Python twin (python)."""
    rng = random.Random(n)
    values = [rng.uniform(-1, 1) * rng.choice([1e-3, 1.0, 1e5]) for _ in range(n)]
    assert resampling.pairwise_mean(values) == float(np.mean(np.array(values)))
    ordered = sorted(values)
    assert resampling.pairwise_mean(ordered) == float(np.array(ordered).mean())
    if engine == "native" and n <= 8192:
        assert KERNEL.pairwise_sum(np.array(values)) == float(np.add.reduce(np.array(values)))


@needs_kernels
def test_pairwise_sum_checks_its_buffer():
    with pytest.raises(TypeError, match="float64"):
        KERNEL.pairwise_sum(array("f", [1.0]))
    assert KERNEL.pairwise_sum(array("d")) == 0.0


def test_estimates_are_the_numpy_ones():
    rng = random.Random(3)
    for n in (1, 2, 39, 40, 41, 1000, 2001):
        scores = [rng.uniform(20, 30) for _ in range(n)]
        ordered = np.sort(np.array(scores))
        lo, hi = n // 40, n - n // 40 - 1
        ci = float(0.5 * (ordered[hi] - ordered[lo]))
        assert resampling.estimate_ci(scores, paired=True) == (float(ordered.mean()), ci)
        assert resampling.estimate_ci(scores, paired=False) == (float(statistics.mean(scores)), ci)
        other = [s + rng.uniform(-2, 2) for s in scores]
        diffs = np.abs(np.array(other) - np.array(scores))
        for observed in (0.0, 0.5, 1.0, 5.0):
            centred = diffs - diffs.mean()
            expected = (int(np.sum(centred > observed)) + 1) / (n + 1)
            assert resampling.paired_p_value(scores, other, observed) == expected


def test_an_empty_mean_is_refused():
    for mean in (resampling.pairwise_mean, resampling.exact_mean):
        with pytest.raises(ValueError, match="no values"):
            mean([])


@pytest.mark.parametrize("n", [1, 2, 3, 10, 999, 1000, 5001])
def test_exact_mean_is_statistics_mean(n):
    rng = random.Random(n)
    for scale in ([1.0], [1.0, 1e-300, 1e300, 1e-5, 0.0], [-1.0, 1.0]):
        values = [rng.uniform(0, 100) * rng.choice(scale) for _ in range(n)]
        assert resampling.exact_mean(values) == statistics.mean(values)


def _routes(monkeypatch, name="bootstrap_columns"):
    """Records, for each bootstrap (or approximate randomization: ``randomization_counts``), whether
    the compiled route ran (True) or declined (False)."""
    routes = []
    real = getattr(resampling, name)

    def recording(*args, **kwargs):
        out = real(*args, **kwargs)
        routes.append(out is not None)
        return out

    monkeypatch.setattr(resampling, name, recording)
    return routes


@needs_kernels
@pytest.mark.parametrize("keywords", [{}, dict(smooth_method="floor", smooth_value=0.2), dict(smooth_method="add-k"),
                                      dict(effective_order=True, lowercase=True), dict(tokenize="none"),
                                      dict(max_ngram_order=2, tokenize="char")])
def test_compiled_route_equals_numpys_route(wmt17, monkeypatch, keywords):
    systems, refs = wmt17
    named = [(name, hyps[:400]) for name, hyps in systems[:3]]
    options = BleuOptions(**keywords)

    def run():
        return (bleukit.paired_test(named, refs[:400], n_samples=300, seed=4, options=options, correction="holm"),
                significance.bootstrap_result(named[1][1], refs[:400], options, 300, 9),
                bleukit.bootstrap_ci(named[2][1], refs[:400], n_bootstrap=200, seed=5, options=options))

    monkeypatch.delenv("BLEUKIT_ENGINE", raising=False)
    routes = _routes(monkeypatch)
    compiled = run()
    assert routes == [True, True, True]
    monkeypatch.setattr(resampling, "generator", lambda seed: None)  # numpy's draws and sums
    assert run() == compiled
    assert routes[3:] and True not in routes[3:]


@needs_kernels
@pytest.mark.parametrize("keywords", [{}, dict(smooth_method="floor", smooth_value=0.2), dict(smooth_method="add-k",
                                                                                             smooth_value=0.4),
                                      dict(effective_order=True, lowercase=True), dict(tokenize="none"),
                                      dict(max_ngram_order=2, tokenize="char")])
def test_compiled_randomization_equals_numpys_route(wmt17, monkeypatch, keywords):
    """Approximate randomization on the compiled route and on numpy's, with calls of a few trials
    each (whole 32-bit words of flips but the last), a correction and a progress bar."""
    systems, refs = wmt17
    named = [(name, hyps[:500]) for name, hyps in systems[:4]]
    options = BleuOptions(**keywords)
    # calls of 32 trials of 500 rows (37 would not be whole 32-bit words), on both routes
    monkeypatch.setattr(resampling, "CALL_FLIPS", 500 * 37)
    monkeypatch.setattr(numpy_draws, "_CHUNK_FLIPS", 500 * 37)

    def run():
        done = []
        out = bleukit.paired_test(named, refs[:500], method="ar", n_samples=301, seed=6, options=options,
                                  correction="holm", progress=done.append)
        assert sum(done) == 301 and len(done) > 1
        return out

    monkeypatch.delenv("BLEUKIT_ENGINE", raising=False)
    routes = _routes(monkeypatch, "randomization_counts")
    compiled = run()
    assert routes == [True]
    monkeypatch.setattr(resampling, "generator", lambda seed: None)  # numpy's flips and sums
    assert run() == compiled
    assert routes == [True, False]
    assert {r.result.signature.split("|")[1] for r in compiled} == {"ar:301"}


def test_compiled_randomization_declines_what_it_does_not_do(wmt17, monkeypatch):
    """Custom weights (no compiled formula), no seed (numpy's entropy), a metric without a compiled
    formula (chrF) and tables too large for the subset sums: numpy's route, the same numbers."""
    systems, refs = wmt17
    named = [(name, hyps[:200]) for name, hyps in systems[:3]]
    routes = _routes(monkeypatch, "randomization_counts")
    bleukit.paired_test(named, refs[:200], method="ar", n_samples=50, options=BleuOptions(weights=(0.5, 0.5, 0, 0)))
    bleukit.paired_test(named, refs[:200], method="ar", n_samples=50, seed=None)
    bleukit.paired_test(named, refs[:200], method="ar", n_samples=50, options=bleukit.ChrfOptions())
    assert True not in routes
    compiled = bleukit.paired_test(named, refs[:200], method="ar", n_samples=50)
    monkeypatch.setattr(resampling, "_RANDOMIZATION_ITEMS", 100)
    assert bleukit.paired_test(named, refs[:200], method="ar", n_samples=50) == compiled
    assert routes[-2:] == [KERNEL is not None, False]


def test_the_compiled_route_declines_what_it_does_not_do(wmt17, monkeypatch):
    """Custom weights (no compiled formula), no seed (numpy's entropy), sums past 2**24 (float32
    rounding): numpy's route, whose numbers other tests check against sacreBLEU."""
    systems, refs = wmt17
    named = [(name, hyps[:200]) for name, hyps in systems[:2]]
    routes = _routes(monkeypatch)
    bleukit.paired_test(named, refs[:200], n_samples=50, options=BleuOptions(weights=(0.5, 0.5, 0.0, 0.0)))
    bleukit.paired_test(named, refs[:200], n_samples=50, seed=None)
    long_line = " ".join(["word"] * 100_000)
    bleukit.bootstrap_ci([long_line] * 200, [long_line] * 200, n_bootstrap=5, tokenize="none")
    # past what 32-bit sums hold too: declined before any draw, not refused
    from bleukit.metrics.bleu import BleuStatistics

    huge = BleuStatistics(np.full((4, 10), 2**30, dtype=np.int64), np.ones(4, dtype=np.int64), 4)
    assert len(significance.bootstrap_scores(huge, BleuOptions(), 3, 1)) == 3
    assert True not in routes


def test_bootstrap_result_is_with_bootstrap_of_the_table(wmt17):
    systems, refs = wmt17
    hyps = systems[0][1][:300]
    options = BleuOptions()
    stats = bleukit.corpus_statistics(hyps, refs[:300], options=options)
    expected = significance.with_bootstrap(bleukit.score_statistics(stats, options), stats, options, 100, 3)
    assert significance.bootstrap_result(hyps, refs[:300], options, 100, 3) == expected
    assert significance.bootstrap_result(hyps, refs[:300], options, 1, 3) == bleukit.score_statistics(stats, options)
    with pytest.raises(ValueError, match="empty corpus"):
        significance.bootstrap_result([], [], options, 10, 3)


@needs_kernels
@pytest.mark.parametrize("flag,systems", [("--paired-bs", 3), ("--confidence", 1), ("--paired-ar", 3)])
def test_command_line_bootstrap_imports_no_numpy(shared_data, tmp_path, flag, systems):
    """The command line's bootstrap and approximate randomization run on the compiled route: numpy
    is never imported, and the output is sacreBLEU's (its JSON, but for the version)."""
    folder = shared_data / "wmt17-en-de"
    files = [str(folder / f"hyp.{name}.de") for name in WMT17[:systems]]
    argv = [str(folder / "ref.de"), "-i", *files, flag, "--paired-bs-n", "200", "--confidence-n", "200",
            "--paired-ar-n", "500"]
    env = {**os.environ, "SACREBLEU_SEED": "77"}
    env.pop("BLEUKIT_ENGINE", None)
    ours = subprocess.run([sys.executable, "-X", "importtime", "-m", "bleukit", *argv], capture_output=True,
                          text=True, env=env, check=True)
    imported = [line.split("|")[-1].strip() for line in ours.stderr.splitlines() if line.startswith("import time:")]
    assert "bleukit.resampling" in imported and not [m for m in imported if m.split(".")[0] == "numpy"]
    theirs = subprocess.run([sys.executable, "-m", "sacrebleu", *argv], capture_output=True, text=True, env=env,
                            check=True)

    def plain(text):
        return json.loads(text.replace("bleukit-" + bleukit.__version__, "V").replace("2.6.0", "V"))

    assert plain(ours.stdout) == plain(theirs.stdout)
