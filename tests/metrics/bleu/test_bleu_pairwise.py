"""Pairwise sentence BLEU (bleukit.pairwise): every (i, j) equals sacreBLEU's sentence_bleu of the pair."""

import importlib
import os
import subprocess
import sys

import numpy as np
import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU
from shared_data import REPO, read_lines
from strategies import sentences

import bleukit
from bleukit import _native
from bleukit import pairwise as pw
from bleukit.metrics.bleu import pairs
from bleukit.metrics.bleu.kernel import KERNEL

TOKENIZERS = ["13a", "intl", "zh", "char", "none"]
SMOOTHING = [("none", None), ("floor", None), ("floor", 0.5), ("add-k", None), ("add-k", 2), ("exp", None)]
NATIVE = _native.load_kernel(KERNEL) is not None

# Duplicates, empty and blank strings, case pairs, punctuation, numbers, CJK, non-BMP, entities.
SENTENCES = [
    "The cat sat on the mat.",
    "the cat sat on the mat",
    "The cat sat on the mat.",
    "",
    "   ",
    "A dog ran, the cat sat; U.S. 1,000.50 &amp; 3-4.",
    "İstanbul STRASSE Straße ÉCOLE école — «guillemets» …",
    "北京欢迎你，中文标点。ＡＢＣ１２３ 😀👍🏽 𠀀",
    "the the the cat cat",
    "cat",
]


def _expected(hyps, refs, **opts):
    metric = BLEU(**opts)
    return np.array([[metric.sentence_score(h, [r]).score for r in refs] for h in hyps])


@pytest.mark.parametrize("tokenize", TOKENIZERS)
@pytest.mark.parametrize("smooth_method,smooth_value", SMOOTHING)
@pytest.mark.parametrize("effective_order", [True, False])
def test_every_tokenizer_and_smoothing_equal_sacrebleu(tokenize, smooth_method, smooth_value, effective_order):
    opts = dict(
        tokenize=tokenize, smooth_method=smooth_method, smooth_value=smooth_value, effective_order=effective_order
    )
    hyps, refs = SENTENCES, SENTENCES[::-1][:7]
    ours = bleukit.pairwise_bleu(hyps, refs, **opts)
    assert ours.dtype == np.float64 and ours.shape == (len(hyps), len(refs))
    np.testing.assert_allclose(ours, _expected(hyps, refs, **opts), rtol=0, atol=1e-9)


@pytest.mark.parametrize("order", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("lowercase", [False, True])
def test_orders_and_lowercase_equal_sacrebleu(order, lowercase, engine):
    opts = dict(max_ngram_order=order, lowercase=lowercase)
    ours = bleukit.pairwise_bleu(SENTENCES, SENTENCES, **opts)
    np.testing.assert_allclose(ours, _expected(SENTENCES, SENTENCES, effective_order=True, **opts), rtol=0, atol=1e-9)


def test_sides_without_any_ngram(engine):
    for hyps, refs in ((["a", ""], ["", "  "]), ([""], ["a b"]), (["", " "], ["", " "])):
        theirs = [[sacrebleu.sentence_bleu(h, [r]).score for r in refs] for h in hyps]
        np.testing.assert_array_equal(bleukit.pairwise_bleu(hyps, refs), theirs)


def test_ngram_weights_equal_our_sentence_scores(german, engine):
    # sacreBLEU has no n-gram weights: the reference is our own per-pair sentence_bleu_scores
    hyps, refs = german[0][:12], german[1][:9]
    opts = dict(weights=[0.4, 0.3, 0.2, 0.1], smooth_method="floor")
    flat = bleukit.sentence_bleu_scores([h for h in hyps for _ in refs], [r for _ in hyps for r in refs], **opts)
    np.testing.assert_allclose(bleukit.pairwise_bleu(hyps, refs, **opts).ravel(), flat, rtol=0, atol=1e-9)


def test_defaults_are_sentence_bleu_defaults(engine):
    ours = bleukit.pairwise_bleu(SENTENCES[:6], SENTENCES[4:])
    theirs = [[sacrebleu.sentence_bleu(h, [r]).score for r in SENTENCES[4:]] for h in SENTENCES[:6]]
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)


@pytest.fixture(scope="module")
def german(shared_data):
    lines = read_lines(shared_data / "wmt17-en-de" / "hyp.uedin-nmt.4722.de")
    return lines[:70], read_lines(shared_data / "wmt17-en-de" / "ref.de")[30:85]


def test_real_data_equals_sacrebleu_and_statistics(german, engine):
    hyps, refs = german
    ours = bleukit.pairwise_bleu(hyps, refs)
    rng = np.random.default_rng(0)
    for i, j in zip(rng.integers(0, len(hyps), 300), rng.integers(0, len(refs), 300)):
        assert ours[i, j] == pytest.approx(sacrebleu.sentence_bleu(hyps[i], [refs[j]]).score, abs=1e-9, rel=0)
    table = bleukit.pairwise_statistics(hyps, refs)
    assert table.dtype == np.int64 and table.shape == (len(hyps), len(refs), 10)
    flat_h = [h for h in hyps for _ in refs]
    flat_r = [r for _ in hyps for r in refs]
    options = bleukit.BleuOptions()
    want = bleukit.corpus_statistics(flat_h, flat_r, options=options).rows
    np.testing.assert_array_equal(table.reshape(-1, 10), want)
    np.testing.assert_allclose(ours.ravel(), bleukit.sentence_bleu_scores(flat_h, flat_r), rtol=0, atol=1e-9)


@pytest.mark.skipif(not NATIVE, reason="the pairwise kernel is not built")
def test_compiled_loop_equals_python_loop(german, monkeypatch):
    hyps, refs = german
    hyps = hyps + hyps[:5]  # repeated rows and columns go through the expansion too
    out = {}
    for name in ("python", "native"):
        monkeypatch.setenv("BLEUKIT_ENGINE", name)
        assert pw.pairwise_engine() == name
        out[name] = (
            bleukit.pairwise_bleu(hyps, refs + refs[:3], max_ngram_order=5),
            bleukit.pairwise_statistics(hyps, hyps, lowercase=True),
        )
    assert np.array_equal(out["python"][0], out["native"][0])
    assert np.array_equal(out["python"][1], out["native"][1])
    monkeypatch.setenv("BLEUKIT_ENGINE", "native")
    assert np.array_equal(bleukit.pairwise_bleu(hyps, refs, threads=3), bleukit.pairwise_bleu(hyps, refs))


def test_small_blocks_give_the_same_matrix(german, engine, monkeypatch):
    hyps, refs = german
    whole = bleukit.pairwise_bleu(hyps, refs)
    monkeypatch.setattr(pairs, "_BLOCK_PAIRS", 7)  # blocks of one hypothesis row, smaller than a row
    assert np.array_equal(bleukit.pairwise_bleu(hyps, refs), whole)
    monkeypatch.setattr(pairs, "_BLOCK_PAIRS", 1 << 16)
    monkeypatch.setattr(pairs, "_NUMPY_PAIRS", 300)  # the numpy loop in chunks of a few rows (or one)
    assert np.array_equal(bleukit.pairwise_bleu(hyps, refs), whole)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    hyps=st.lists(sentences(max_words=8), min_size=1, max_size=4),
    refs=st.lists(sentences(max_words=8), min_size=1, max_size=4),
    tokenize=st.sampled_from(TOKENIZERS),
    order=st.integers(1, 5),
    lowercase=st.booleans(),
)
def test_property_random_text_equals_sacrebleu(hyps, refs, tokenize, order, lowercase):
    opts = dict(tokenize=tokenize, max_ngram_order=order, lowercase=lowercase)
    ours = bleukit.pairwise_bleu(hyps, refs + hyps[:1], **opts)
    np.testing.assert_allclose(ours, _expected(hyps, refs + hyps[:1], effective_order=True, **opts), rtol=0, atol=1e-9)


def test_ja_mecab_when_installed():
    pytest.importorskip("MeCab")
    pytest.importorskip("ipadic")
    sents = ["猫がマットの上に座った。", "犬が走った。", "猫が座った。"]
    ours = bleukit.pairwise_bleu(sents, sents, tokenize="ja-mecab")
    np.testing.assert_allclose(
        ours, _expected(sents, sents, tokenize="ja-mecab", effective_order=True), rtol=0, atol=1e-9
    )


# ---------------------------------------------------------------------------- token ids


def _as_text(ids):
    return " ".join(str(i) for i in ids)


ID_HYPS = [[5, 6, 7, 8, 9], [5, 6, 7], [], [10, 10, 10, 5], [5, 6, 7, 8, 9], [123456789012, 5]]
ID_REFS = [[5, 6, 7, 8], [10, 10, 5, 6, 7], [], [9, 8, 7, 6, 5], [123456789012, 5, 6]]


def test_ids_equal_sacrebleu_none_tokenizer(engine):
    ours = bleukit.pairwise_bleu_ids(ID_HYPS, ID_REFS, max_ngram_order=3, smooth_method="floor")
    theirs = _expected(
        [_as_text(h) for h in ID_HYPS],
        [_as_text(r) for r in ID_REFS],
        tokenize="none",
        max_ngram_order=3,
        smooth_method="floor",
        effective_order=True,
    )
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)


def test_ids_padded_arrays_and_tensors(engine):
    torch = pytest.importorskip("torch")
    width = max(map(len, ID_HYPS))
    padded = np.array([h + [0] * (width - len(h)) for h in ID_HYPS])
    expected = bleukit.pairwise_bleu_ids(ID_HYPS, ID_HYPS)
    np.testing.assert_array_equal(bleukit.pairwise_bleu_ids(padded, padded, pad_id=0), expected)
    host = bleukit.pairwise_bleu_ids(torch.tensor(padded), torch.tensor(padded), pad_id=0)
    assert isinstance(host, torch.Tensor) and host.dtype == torch.float64
    np.testing.assert_array_equal(host.numpy(), expected)
    # the torch-ops code (what runs on a GPU), here on the CPU
    for hyp_in, ref_in in ((torch.tensor(padded), torch.tensor(padded)), ([torch.tensor(h) for h in ID_HYPS], ID_HYPS)):
        on_device = bleukit.pairwise_bleu_ids(hyp_in, ref_in, pad_id=0, backend="torch")
        np.testing.assert_allclose(on_device.numpy(), expected, rtol=0, atol=1e-9)


@pytest.mark.parametrize("backend", ["auto", "numpy", "torch"])
def test_ids_are_checked_as_the_ids_package_checks_them(backend):
    # pairwise_bleu_ids had its own np.asarray / .to(torch.int64): uint64 ids >= 2**63 wrapped,
    # floats were truncated, a bool was the id 1, a list pad_id compared position by position.
    torch = pytest.importorskip("torch")
    big = np.array([[2**63 + 5, 7, 8]], dtype=np.uint64)
    with pytest.raises(ValueError, match=r"2\*\*63"):
        bleukit.pairwise_bleu_ids(big, np.array([[5, 7, 8]], dtype=np.uint64), backend=backend)
    with pytest.raises(ValueError, match=r"2\*\*63"):
        bleukit.pairwise_bleu_ids([[1, 2]], [big[0]], backend=backend)
    for floats in (np.array([[1.5, 2.0]]), torch.tensor([[1.0, 2.0]])):
        with pytest.raises(TypeError, match="integer token ids"):
            bleukit.pairwise_bleu_ids(floats, [[1, 2]], backend=backend)
    with pytest.raises(TypeError, match="bool"):
        bleukit.pairwise_bleu_ids([[True, 2, 3]], [[1, 2, 3]], backend=backend)
    for pad in (True, "1", 1.5, [0, 1.5]):
        with pytest.raises(TypeError, match="pad_id"):
            bleukit.pairwise_bleu_ids([[1, 2, 3]], [[1, 2, 3]], pad_id=pad, backend=backend)
    # several pad ids: each dropped wherever it occurs, as in sentence_bleu_ids (rows of any length)
    hyps, refs = [[1, 2], [4, 1, 5, 6, 9]], [[1, 2, 9], [4, 5, 6], [9, 9, 4, 5]]
    got = bleukit.pairwise_bleu_ids(hyps, refs, pad_id=[1, 9], backend=backend)
    want = np.array([[bleukit.ids.sentence_bleu_ids([h], [r], pad_id=[1, 9])[0] for r in refs] for h in hyps])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)
    stripped = [[t for t in x if t not in (1, 9)] for x in hyps], [[t for t in x if t not in (1, 9)] for x in refs]
    padded = bleukit.pairwise_bleu_ids(hyps, refs, pad_id=[1, 9])
    np.testing.assert_array_equal(bleukit.pairwise_bleu_ids(*stripped), padded)
    # a reversed view (negative strides) scores as its copy, on every backend
    grid = np.arange(24).reshape(4, 6) % 5
    view = grid[:, ::-1]
    np.testing.assert_allclose(
        np.asarray(bleukit.pairwise_bleu_ids(view, view[::-1], pad_id=0, backend=backend)),
        np.asarray(bleukit.pairwise_bleu_ids(view.copy(), view[::-1].copy(), pad_id=0, backend=backend)),
        rtol=0, atol=0,
    )


def test_ids_torch_ops_on_real_sentences(german):
    torch = pytest.importorskip("torch")
    hyps, refs = german
    vocab = {}
    encode = lambda s: [vocab.setdefault(t, len(vocab) + 1) for t in s.split()]  # noqa: E731
    h_ids, r_ids = [encode(h) for h in hyps[:20]], [encode(r) for r in refs[:15]]
    expected = bleukit.pairwise_bleu([_as_text(h) for h in h_ids], [_as_text(r) for r in r_ids], tokenize="none")
    np.testing.assert_allclose(bleukit.pairwise_bleu_ids(h_ids, r_ids), expected, rtol=0, atol=1e-9)
    on_torch = bleukit.pairwise_bleu_ids(
        [torch.tensor(h) for h in h_ids], [torch.tensor(r) for r in r_ids], backend="torch"
    )
    np.testing.assert_allclose(on_torch.numpy(), expected, rtol=0, atol=1e-9)


# ---------------------------------------------------------------------------- bad input


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="hypotheses must be a list"):
        bleukit.pairwise_bleu("a b", ["a"])
    with pytest.raises(ValueError, match="references is empty"):
        bleukit.pairwise_bleu(["a"], [])
    with pytest.raises(TypeError, match=r"references\[1\] must be a str"):
        bleukit.pairwise_bleu(["a"], ["a", None])
    with pytest.raises(ValueError, match="threads"):
        bleukit.pairwise_bleu(["a"], ["a"], threads=-1)
    # 0: every core, as everywhere
    assert (
        bleukit.pairwise_bleu(["a b"], ["a c"], threads=0).tolist() == bleukit.pairwise_bleu(["a b"], ["a c"]).tolist()
    )
    with pytest.raises(ValueError, match="unknown tokenize"):
        bleukit.pairwise_bleu(["a"], ["a"], tokenize="13b")
    with pytest.raises(ValueError, match="1-D"):
        bleukit.pairwise_bleu_ids([[[1, 2]]], [[1]])
    with pytest.raises(TypeError, match="integer token ids"):
        bleukit.pairwise_bleu_ids([[1.5, 2.0]], [[1]])
    with pytest.raises(ValueError, match="backend"):
        bleukit.pairwise_bleu_ids([[1]], [[1]], backend="jax")
    hyps = ["a b", "c"]
    bleukit.pairwise_bleu(hyps, hyps)
    assert hyps == ["a b", "c"]


@pytest.mark.skipif(not NATIVE, reason="the pairwise kernel is not built")
def test_kernel_checks_its_arrays():
    kernel = importlib.import_module(KERNEL)
    tables = pairs.text_pairs(["a b a", "b c"], ["a b", "c"], bleukit.BleuOptions(max_ngram_order=2)).tables
    args = [
        tables.hyp_ptr,
        tables.hyp_gid,
        tables.hyp_ord,
        tables.hyp_cnt,
        tables.post_ptr,
        tables.post_ref,
        tables.post_cnt,
    ]
    out = np.empty((2, 2, 2), dtype=np.int64)
    kernel.pair_matches(*args, 0, 2, 2, 2, out, 1)
    assert out.tolist() == [[[2, 1], [0, 0]], [[1, 0], [1, 0]]]  # "a b a" vs "a b": a once, b once, "a b"
    wide = np.full((2, 2, 5), 7, dtype=np.int64)  # matches written into columns 1..2 of 5, the rest zeroed
    kernel.pair_matches(*args, 0, 2, 2, 2, wide, 1, 5, 1)
    np.testing.assert_array_equal(wide[:, :, 1:3], out)
    assert not wide[:, :, [0, 3, 4]].any()
    with pytest.raises(ValueError, match="within width"):
        kernel.pair_matches(*args, 0, 2, 2, 2, wide, 1, 5, 4)
    bad_gid = args.copy()
    bad_gid[1] = tables.hyp_gid + 100
    with pytest.raises(ValueError, match="hyp_gid"):
        kernel.pair_matches(*bad_gid, 0, 2, 2, 2, out, 1)
    with pytest.raises(ValueError, match="range"):
        kernel.pair_matches(*args, 0, 3, 2, 2, out, 1)
    with pytest.raises(ValueError, match="out must hold"):
        kernel.pair_matches(*args, 0, 2, 2, 2, np.empty(3, dtype=np.int64), 1)
    with pytest.raises(ValueError, match="post_ref"):
        kernel.pair_matches(*args, 0, 2, 1, 2, np.empty((2, 1, 2), dtype=np.int64), 1)
    bad_ptr = args.copy()
    bad_ptr[0] = tables.hyp_ptr[::-1].copy()
    with pytest.raises(ValueError, match="hyp_ptr"):
        kernel.pair_matches(*bad_ptr, 0, 2, 2, 2, out, 1)
    # every array is an int64 buffer: other dtypes are not reinterpreted
    as_float = args.copy()
    as_float[3] = tables.hyp_cnt.astype(np.float64)
    with pytest.raises(TypeError, match="hyp_cnt must be a C-contiguous, aligned int64 array"):
        kernel.pair_matches(*as_float, 0, 2, 2, 2, out, 1)
    with pytest.raises(TypeError, match="out must be a C-contiguous, aligned int64 array"):
        kernel.pair_matches(*args, 0, 2, 2, 2, out.astype(np.int32), 1)
    with pytest.raises(TypeError, match="first_out must be"):
        kernel.unique_rows(np.zeros((2, 2), np.int64), 2, np.zeros(2, np.float64), np.zeros(2, np.int64))


def test_native_request_without_kernel_is_an_error(monkeypatch):
    expected = "native" if bleukit.engine_name() == "native" else "python"  # before BLEU's kernel goes
    monkeypatch.setitem(_native._loaded, KERNEL, (None, "the pairwise kernel is not built (test)"))
    monkeypatch.setenv("BLEUKIT_ENGINE", "python")
    assert pw.pairwise_engine() == "python"
    monkeypatch.delenv("BLEUKIT_ENGINE")
    assert pw.pairwise_engine() == "python"  # default: fall back quietly
    if expected == "native":
        monkeypatch.setenv("BLEUKIT_ENGINE", "native")
        with pytest.raises(RuntimeError, match="pairwise kernel is not built"):
            pw.pairwise_engine()


@pytest.mark.skipif(not NATIVE, reason="the pairwise kernel is not built")
def test_kernel_unique_rows():
    kernel = importlib.import_module(KERNEL)
    rows = np.random.default_rng(1).integers(0, 3, (500, 4)).astype(np.int64)
    first, inverse = np.empty(500, dtype=np.int64), np.empty(500, dtype=np.int64)
    k = kernel.unique_rows(rows, 4, first, inverse)
    assert k == len(np.unique(rows, axis=0))
    np.testing.assert_array_equal(rows[first[:k]][inverse], rows)
    assert list(first[:k]) == sorted(first[:k])  # first appearances, in order
    with pytest.raises(ValueError, match="whole rows"):
        kernel.unique_rows(rows, 3, first, inverse)
    with pytest.raises(ValueError, match="one entry per row"):
        kernel.unique_rows(rows, 4, first[:10], inverse)


LONG_PAIR_MATCHES = """
import importlib, os, signal, sys, threading, time
import numpy as np
kernel = importlib.import_module("bleukit.metrics.bleu._kernel")
# 2000 hypotheses of 2000 n-gram entries, each posted in all 500 references: 2e9 additions
n_hyp, n_ent, m, n_gid, order = 2000, 2000, 500, 64, 4
hyp_ptr = np.arange(n_hyp + 1, dtype=np.int64) * n_ent
hyp_gid = np.tile(np.arange(n_ent, dtype=np.int64) % n_gid, n_hyp)
hyp_ord = np.tile(np.arange(n_ent, dtype=np.int64) % order, n_hyp)
hyp_cnt = np.ones(n_hyp * n_ent, dtype=np.int64)
post_ptr = np.arange(n_gid + 1, dtype=np.int64) * m
post_ref = np.tile(np.arange(m, dtype=np.int64), n_gid)
post_cnt = np.ones(n_gid * m, dtype=np.int64)
out = np.empty((n_hyp, m, order), dtype=np.int64)
fired = []
def fire():
    fired.append(time.perf_counter())
    os.kill(os.getpid(), signal.SIGINT)
threading.Timer(0.3, fire).start()
start = time.perf_counter()
try:
    kernel.pair_matches(hyp_ptr, hyp_gid, hyp_ord, hyp_cnt, post_ptr, post_ref, post_cnt, 0, n_hyp, m, order, out,
                        int(sys.argv[1]))
    print("finished %.2f" % (time.perf_counter() - start))
except KeyboardInterrupt:
    print("interrupted %.1f" % ((time.perf_counter() - fired[0]) * 1e3))
"""


@pytest.mark.skipif(not NATIVE, reason="the pairwise kernel is not built")
@pytest.mark.slow
@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_a_long_pair_loop(threads):
    """One pair_matches call of seconds stops within tens of ms of SIGINT, with workers too
    (the loop used to run to its end: 1.9 s here)."""
    proc = subprocess.run(
        [sys.executable, "-c", LONG_PAIR_MATCHES, str(threads)], capture_output=True, text=True, timeout=240, cwd=REPO
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    what, value = proc.stdout.split()
    assert what == "interrupted", proc.stdout
    print(f"pair_matches, threads={threads}: SIGINT -> KeyboardInterrupt {value} ms (load {os.getloadavg()[0]:.2f})")
    assert float(value) < 1000, proc.stdout
