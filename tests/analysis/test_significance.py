"""Bootstrap CIs and paired tests: sacreBLEU 2.6's numbers (recorded and live), resampling identities, bad input."""

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU
from sacrebleu.significance import PairedTest, _bootstrap_resample, _paired_bs_test
from shared_data import read_lines
from strategies import corpora

import bleukit
from bleukit import resampling
from bleukit.analysis import significance
from bleukit.analysis.significance import draws as numpy_draws
from bleukit.metrics.bleu import formula
from bleukit.metrics.bleu.formula import NUMPY_WEAK_SCALARS
from bleukit.metrics.bleu.libm import COMPENSATED_SUM
from bleukit.metrics.bleu.options import BleuOptions
from bleukit.metrics.chrf import ChrfOptions

WMT17 = ["LIUM-NMT.4900", "online-B.0", "uedin-nmt.4722", "KIT.4950", "online-A.0"]
# Every number equals sacreBLEU's with ==: scores, p-values, and the bootstrap means and intervals,
# which sacreBLEU computes from float32 sums (bleukit does the same float32 arithmetic).


@pytest.fixture(scope="module")
def wmt17(shared_data):
    folder = shared_data / "wmt17-en-de"
    systems = {name: read_lines(folder / f"hyp.{name}.de") for name in WMT17}
    return systems, read_lines(folder / "ref.de"), json.loads((folder / "paired_tests_expected.json").read_text())


@pytest.fixture(scope="module")
def wmt22(shared_data):
    folder = shared_data / "wmt22-de-en"
    names = ["JDExploreAcademy", "Online-A", "LT22"]
    systems = {name: read_lines(folder / f"hyp.{name}.en") for name in names}
    streams = [read_lines(folder / "ref.A.en"), read_lines(folder / "ref.B.en")]
    return systems, streams


def _assert_matches(ours, theirs_score, theirs_p, theirs_mean, theirs_ci):
    assert ours.score == theirs_score
    assert ours.p_value == theirs_p
    if theirs_mean is None:
        assert ours.mean is None and ours.ci is None
    else:
        assert (ours.mean, ours.ci) == (theirs_mean, theirs_ci)


@pytest.mark.skipif(COMPENSATED_SUM, reason="recorded on a Python whose sum() adds left to right (before 3.12)")
@pytest.mark.parametrize(
    "key",
    [
        # sacreBLEU's bootstrap precisions are float32 arithmetic with numpy 2, float64 with numpy 1
        pytest.param(key, marks=pytest.mark.skipif(not NUMPY_WEAK_SCALARS, reason="recorded with numpy 2"))
        for key in ["none/bs/2000", "13a/bs/1000"]
    ]
    + ["none/ar/10000", "13a/ar/10000"],
)
def test_recorded_paired_tests_reproduced(wmt17, key):
    systems, refs, expected = wmt17
    tokenize, method, n = key.split("/")
    out = bleukit.paired_test(systems, refs, method=method, n_samples=int(n), tokenize=tokenize)
    assert [r.name for r in out] == WMT17
    for r in out:
        e = expected[key][r.name]
        _assert_matches(r, e["score"], e["p_value"], e["mean"], e["ci"])
        assert r.result.signature.startswith(f"nrefs:1|{method}:{n}|seed:12345|case:mixed|eff:no|tok:{tokenize}|")


def _sacrebleu_paired(named, streams, method, n, seed, monkeypatch, **options):
    monkeypatch.setenv("SACREBLEU_SEED", "none" if seed is None else str(seed))
    metric = BLEU(references=streams, **options)
    sigs, scores = PairedTest(named, {"BLEU": metric}, None, test_type=method, n_samples=n)()
    return sigs["BLEU"].format(), scores["BLEU"]


def _without_version(signature):
    return "|".join(f for f in signature.split("|") if not f.startswith("version:"))


LIVE_CASES = [
    # (method, n, seed, options, lines)
    ("bs", 300, 12345, {"tokenize": "intl"}, 800),
    ("bs", 200, 7, {"tokenize": "char", "lowercase": True}, 400),
    ("bs", 250, 2024, {"smooth_method": "floor", "smooth_value": 0.5}, 600),
    ("ar", 500, 12345, {"tokenize": "intl"}, 800),
    ("ar", 300, 99, {"tokenize": "none", "smooth_method": "add-k"}, 500),
    ("ar", 200, 3, {"lowercase": True, "effective_order": True}, 300),
]


@pytest.mark.parametrize("method,n,seed,options,lines", LIVE_CASES)
def test_paired_equals_sacrebleu_two_references(wmt22, monkeypatch, method, n, seed, options, lines):
    systems, streams = wmt22
    named = [(name, hyps[:lines]) for name, hyps in systems.items()]
    streams = [s[:lines] for s in streams]
    sig, theirs = _sacrebleu_paired(named, streams, method, n, seed, monkeypatch, **options)
    refs = bleukit.references_from_streams(streams)
    ours = bleukit.paired_test(named, refs, method=method, n_samples=n, seed=seed, **options)
    assert [r.name for r in ours] == [name for name, _ in named]
    for r, t in zip(ours, theirs):
        _assert_matches(r, t.score, t.p_value, t.mean, t.ci)
        assert _without_version(r.result.signature) == _without_version(sig)


def test_paired_bs_with_a_missing_reference_and_default_samples(wmt17, monkeypatch):
    systems, refs, _ = wmt17
    lines = 300
    named = [(name, systems[name][:lines]) for name in WMT17[:3]]
    second = [None if i % 7 == 0 else r.lower() for i, r in enumerate(refs[:lines])]
    streams = [refs[:lines], second]
    sig, theirs = _sacrebleu_paired(named, streams, "bs", 0, 5, monkeypatch)
    ours = bleukit.paired_test(named, bleukit.references_from_streams(streams), seed=5)
    for r, t in zip(ours, theirs):
        _assert_matches(r, t.score, t.p_value, t.mean, t.ci)
    assert "nrefs:var|bs:1000|seed:5|" in sig and ours[1].result.signature.startswith("nrefs:var|bs:1000|seed:5|")


def test_identical_systems_get_sacrebleus_smallest_p_value(wmt17, monkeypatch):
    # sacreBLEU counts strictly larger differences: a copy of the baseline is never "as different".
    systems, refs, _ = wmt17
    hyps = systems[WMT17[0]][:200]
    named = [("a", hyps), ("copy", list(hyps))]
    for method in ("bs", "ar"):
        _, theirs = _sacrebleu_paired(named, [refs[:200]], method, 100, 12345, monkeypatch)
        ours = bleukit.paired_test(named, refs[:200], method=method, n_samples=100)
        assert ours[1].p_value == theirs[1].p_value == 1 / 101


def test_seed_zero_seeds_the_comparisons(wmt17):
    # sacreBLEU passes `seed if seed else None` to its comparisons, so SACREBLEU_SEED=0 leaves
    # them unseeded; bleukit seeds them with 0, which is what sacreBLEU's comparison function
    # computes when it is handed seed=0.
    systems, refs, _ = wmt17
    lines = 300
    named = [(name, systems[name][:lines]) for name in WMT17[:2]]
    ours = bleukit.paired_test(named, refs[:lines], n_samples=200, seed=0)
    again = bleukit.paired_test(named, refs[:lines], n_samples=200, seed=0)
    assert [r.p_value for r in ours] == [r.p_value for r in again]
    metric = BLEU()
    bl_stats = metric._extract_corpus_statistics(named[0][1], [refs[:lines]])
    bl_result = metric._aggregate_and_compute(bl_stats)
    _, theirs = _paired_bs_test(
        {"BLEU": (bl_stats, bl_result)},
        named[1][0],
        named[1][1],
        [refs[:lines]],
        {"BLEU": metric},
        n_samples=200,
        seed=0,
    )
    _assert_matches(ours[1], theirs["BLEU"].score, theirs["BLEU"].p_value, theirs["BLEU"].mean, theirs["BLEU"].ci)
    assert "|bs:200|seed:0|" in ours[1].result.signature


def test_unseeded_runs(wmt17):
    systems, refs, _ = wmt17
    named = [(name, systems[name][:100]) for name in WMT17[:2]]
    for method in ("bs", "ar"):
        out = bleukit.paired_test(named, refs[:100], method=method, n_samples=50, seed=None)
        assert 0 < out[1].p_value <= 1
        assert f"|{method}:50|seed:none|" in out[1].result.signature
    r = bleukit.corpus_bleu(named[0][1], refs[:100], n_bootstrap=20, seed=None)
    assert "|bs:20|seed:none|" in r.signature and r.mean > 0


@pytest.mark.parametrize(
    "seed,options,lines",
    [(12345, {}, 3004), (1, {"tokenize": "intl", "lowercase": True}, 500), (42, {"smooth_method": "none"}, 50)],
)
def test_confidence_equals_sacrebleu(wmt17, monkeypatch, seed, options, lines):
    systems, refs, _ = wmt17
    hyps = systems["online-B.0"][:lines]
    monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    metric = BLEU(**options)
    theirs = metric.corpus_score(hyps, [refs[:lines]], n_bootstrap=300)
    their_sig = metric.get_signature()
    ours = bleukit.corpus_bleu(hyps, refs[:lines], n_bootstrap=300, seed=seed, **options)
    assert (ours.score, ours.mean, ours.ci) == (theirs.score, theirs._mean, theirs._ci)
    assert _without_version(ours.signature) == _without_version(their_sig.format())
    assert ours.format(score_only=True) == theirs.format(score_only=True)
    their_line = theirs.format(signature=their_sig.format())
    assert ours.format().split(" = ", 1)[1] == their_line.split(" = ", 1)[1]
    assert bleukit.bootstrap_ci(hyps, refs[:lines], n_bootstrap=300, seed=seed, **options) == (ours.mean, ours.ci)
    stats = bleukit.corpus_statistics(hyps, refs[:lines], options=BleuOptions(**options))
    assert bleukit.bootstrap_ci(stats, n_bootstrap=300, seed=seed, **options) == (ours.mean, ours.ci)


def test_resamples_are_scored_as_sacrebleu_scores_them(wmt22, monkeypatch):
    """bootstrap_scores gives sacreBLEU's own resample scores (float32 sums, float32 precisions),
    element for element; resampled_scores gives the exact corpus scores of the same resamples."""
    systems, streams = wmt22
    hyps, refs = systems["LT22"][:400], [s[:400] for s in streams]
    metric = BLEU(tokenize="char", lowercase=True)
    stats = metric._extract_corpus_statistics(hyps, refs)
    monkeypatch.setenv("SACREBLEU_SEED", "7")
    _, theirs = _bootstrap_resample(stats, metric, 200)
    options = BleuOptions(tokenize="char", lowercase=True)
    table = bleukit.corpus_statistics(hyps, bleukit.references_from_streams(refs), options=options)
    ours = significance.bootstrap_scores(table, options, n_bootstrap=200, seed=7)
    assert ours.tolist() == [t.score for t in theirs]
    idxs = np.random.default_rng(7).choice(len(stats), size=(200, len(stats)), replace=True)
    exact = [metric._compute_score_from_stats(s.sum(0)).score for s in np.array(stats, dtype=np.int64)[idxs]]
    assert significance.resampled_scores(table, idxs, options).tolist() == exact
    # float32 sums are why the two differ (with numpy 2 they differ for most resamples)
    if type(np.float32(1) * 1.0) is np.float32:
        assert ours.tolist() != exact


@pytest.mark.parametrize("smooth_method,smooth_value", [("exp", None), ("floor", 0.1), ("add-k", 0.3), ("none", None)])
def test_float32_sums_past_2_24_are_sacrebleus(monkeypatch, smooth_method, smooth_value):
    """Statistics so large that float32 sums round (a corpus of > 16.7M tokens): each resample is
    summed in float32 in sacreBLEU's order, and the scores, mean and interval are its own."""
    rng = np.random.default_rng(3)
    n = 60
    totals = rng.integers(2_000_000, 4_000_000, (n, 1)) - np.arange(4)[None, :]
    counts = (totals * rng.uniform(0.2, 0.7, (n, 4))).astype(np.int64)
    sys_len = totals[:, :1]
    ref_len = sys_len + rng.integers(-500_000, 500_000, (n, 1))
    rows = np.concatenate([sys_len, ref_len, counts, totals], axis=1)
    metric = BLEU(smooth_method=smooth_method, smooth_value=smooth_value)
    monkeypatch.setenv("SACREBLEU_SEED", "11")
    _, theirs = _bootstrap_resample(rows.tolist(), metric, 50)
    options = BleuOptions(smooth_method=smooth_method, smooth_value=smooth_value)
    table = bleukit.BleuStatistics(rows, np.ones(n, dtype=np.int64), 4)
    ours = significance.bootstrap_scores(table, options, n_bootstrap=50, seed=11)
    assert ours.tolist() == [t.score for t in theirs]
    mean, ci = bleukit.bootstrap_ci(table, n_bootstrap=50, seed=11, options=options)
    score = bleukit.score_statistics(table, options)
    score_theirs = metric._aggregate_and_compute(rows.tolist())
    score_theirs.estimate_ci(theirs)
    assert (score.score, mean, ci) == (score_theirs.score, score_theirs._mean, score_theirs._ci)


def test_corpus_bleu_without_bootstrap_has_no_estimate():
    r = bleukit.corpus_bleu(["a b c d"], ["a b c d"])
    assert r.mean is None and r.ci is None and "mean" not in r.to_dict()
    assert "(μ" not in r.format() and "bs:" not in r.signature
    boot = bleukit.corpus_bleu(["a b c d", "a b c"], ["a b c d", "a b c d"], n_bootstrap=10)
    assert boot.to_dict()["mean"] == boot.mean and boot.to_dict()["ci"] == boot.ci
    assert boot.score == bleukit.corpus_bleu(["a b c d", "a b c"], ["a b c d", "a b c d"]).score


def test_one_resample_is_a_plain_score_as_in_sacrebleu(wmt17):
    # sacreBLEU bootstraps only when n_bootstrap > 1; one resample used to print "(μ = … ± 0.00)".
    systems, refs, _ = wmt17
    hyps, refs = next(iter(systems.values()))[:50], refs[:50]
    metric = BLEU()
    theirs = metric.corpus_score(hyps, [refs], n_bootstrap=1)
    ours = bleukit.corpus_bleu(hyps, refs, n_bootstrap=1)
    assert ours.mean is None and ours.ci is None and "bs:" not in ours.signature
    assert ours.format(signature=False) == theirs.format()
    assert ours.signature.rsplit("|", 1)[0] == metric.get_signature().format().rsplit("|", 1)[0]
    # ... for every metric: the shared helper returns the result as it is
    for options in (BleuOptions(), ChrfOptions()):
        stats = bleukit.corpus_statistics(hyps, refs, options=options)
        plain = bleukit.score_statistics(stats, options)
        assert significance.with_bootstrap(plain, stats, options, 1, 12345) is plain


@pytest.mark.parametrize("n_rows", [1, 7, 33, 3004])
@pytest.mark.parametrize("chunk", [1, 100, 4096])
def test_chunked_draws_equal_one_sacrebleu_call(monkeypatch, n_rows, chunk):
    monkeypatch.setattr(numpy_draws, "_CHUNK", chunk)
    n = 45
    drawn = np.concatenate(list(numpy_draws._draw_indices(n_rows, n, 12345)))
    assert drawn.tolist() == np.random.default_rng(12345).choice(n_rows, size=(n, n_rows), replace=True).tolist()
    rng = np.random.default_rng(12345)
    flips = np.concatenate(
        [
            rng.integers(2, size=(k, n_rows), dtype=bool)
            for k in numpy_draws._chunks(n, n_rows, chunk, numpy_draws._BOOL_BITS)
        ]
    )
    assert flips.tolist() == np.random.default_rng(12345).integers(2, size=(n, n_rows), dtype=bool).tolist()


def test_chunk_size_does_not_change_results(wmt17, monkeypatch):
    systems, refs, _ = wmt17
    named = [(name, systems[name][:120]) for name in WMT17]
    full = {m: bleukit.paired_test(named, refs[:120], method=m, n_samples=150) for m in ("bs", "ar")}
    monkeypatch.setattr(numpy_draws, "_CHUNK", 500)
    monkeypatch.setattr(resampling, "CHUNK", 500)
    monkeypatch.setattr(resampling, "CALL_DRAWS", 500)
    monkeypatch.setattr(resampling, "CALL_FLIPS", 700)
    monkeypatch.setattr(numpy_draws, "_CHUNK_FLIPS", 700)
    for m in ("bs", "ar"):
        assert bleukit.paired_test(named, refs[:120], method=m, n_samples=150) == full[m]


@pytest.mark.parametrize("method", ["bs", "ar"])
def test_progress_counts_every_sample(wmt17, monkeypatch, method):
    systems, refs, _ = wmt17
    monkeypatch.setattr(numpy_draws, "_CHUNK", 5000)
    monkeypatch.setattr(resampling, "CHUNK", 5000)
    monkeypatch.setattr(resampling, "CALL_DRAWS", 5000)  # the compiled routes' calls
    monkeypatch.setattr(resampling, "CALL_FLIPS", 5000)
    monkeypatch.setattr(numpy_draws, "_CHUNK_FLIPS", 5000)
    steps = []
    named = [(name, systems[name][:100]) for name in WMT17[:3]]
    bleukit.paired_test(named, refs[:100], method=method, n_samples=130, progress=steps.append)
    assert sum(steps) == 130 and len(steps) > 1


def test_products_are_exact_on_every_path():
    left = np.array([[1, 2], [0, 3]])
    small = np.array([[2**22, 1], [3, 2**21]])
    large = np.array([[2**40, 1], [3, 2**41]])
    exact = lambda a, b: (np.array(a, dtype=object) @ np.array(b, dtype=object)).tolist()  # noqa: E731
    assert numpy_draws._ExactProduct(small, 3 * 2**22).dtype == np.float32
    assert numpy_draws._ExactProduct(small, 3 * 2**22)(left).tolist() == exact(left, small)
    assert numpy_draws._ExactProduct(large, 3 * 2**41).dtype == np.float64
    assert numpy_draws._ExactProduct(large, 3 * 2**41)(left).tolist() == exact(left, large)
    huge = np.array([[2**62, 2**53 + 1]])
    out = numpy_draws._ExactProduct(huge, 2**62)(np.array([[1]]))
    assert out.dtype == np.int64 and out.tolist() == [[2**62, 2**53 + 1]]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=corpora(max_sentences=6), draws=st.data(), tokenize=st.sampled_from(["13a", "intl", "char"]))
def test_resampled_scores_equal_scoring_the_resampled_corpus(data, draws, tokenize):
    hyps, streams = data
    refs = bleukit.references_from_streams(streams)
    if any(all(r is None for r in rs) for rs in refs):
        return  # a sentence without any reference is rejected, resampled or not
    opts = BleuOptions(tokenize=tokenize)
    stats = bleukit.corpus_statistics(hyps, refs, options=opts)
    n = len(hyps)
    indices = np.array(
        draws.draw(st.lists(st.lists(st.integers(0, n - 1), min_size=n, max_size=n), min_size=1, max_size=4))
    )
    scores = significance.resampled_scores(stats, indices, opts)
    for row, score in zip(indices, scores):
        direct = bleukit.corpus_bleu([hyps[i] for i in row], [refs[i] for i in row], tokenize=tokenize)
        if getattr(formula, "libm", None) is not None:
            assert score == direct.score
        else:  # corpus_bleu scores its sums with math.exp/log, the arrays with numpy's (last bit on AVX-512)
            assert score == pytest.approx(direct.score, rel=1e-14, abs=1e-13)


@pytest.mark.parametrize(
    "call,error,message",
    [
        (lambda: bleukit.paired_test({"a": ["x"]}, ["x"]), ValueError, "at least 2 systems"),
        (lambda: bleukit.paired_test([("a", ["x"]), ("a", ["y"])], ["x"]), ValueError, "duplicate system name 'a'"),
        (
            lambda: bleukit.paired_test({"a": ["x", "y"], "b": ["x"]}, ["x", "y"]),
            ValueError,
            "system 'b' has 1 hypotheses",
        ),
        (lambda: bleukit.paired_test({"a": ["x"], "b": ["y"]}, ["x", "y"]), ValueError, "1 hypotheses but 2 reference"),
        (
            lambda: bleukit.paired_test({"a": ["x"], "b": ["y"]}, ["x"], n_samples=0),
            ValueError,
            "n_samples must be >= 1",
        ),
        (lambda: bleukit.paired_test({"a": ["x"], "b": ["y"]}, ["x"], method="t"), ValueError, "unknown method"),
        (lambda: bleukit.paired_test({"a": ["x"], "b": ["y"]}, ["x"], seed=-1), ValueError, "seed must be"),
        (lambda: bleukit.paired_test({"a": ["x"], "b": ["y"]}, ["x"], seed="1"), TypeError, "seed must be"),
        (lambda: bleukit.paired_test("ab", ["x"]), TypeError, r"systems must be a list of \(name, hypotheses\) pairs"),
        (lambda: bleukit.paired_test([("a", ["x"]), "b"], ["x"]), TypeError, r"systems\[1\] must be"),
        (lambda: bleukit.paired_test({"a": ["x"], "b": ["y"]}, ["x"], tokenize="nope"), ValueError, "unknown tokenize"),
        (lambda: bleukit.corpus_bleu(["x"], ["x"], n_bootstrap=0), ValueError, "n_bootstrap must be >= 1"),
        (lambda: bleukit.corpus_bleu(["x"], ["x"], n_bootstrap=2.5), TypeError, "n_bootstrap must be an int"),
        (lambda: bleukit.bootstrap_ci(["x"], ["x"], n_bootstrap=-3), ValueError, "n_bootstrap must be >= 1"),
        (lambda: bleukit.bootstrap_ci(["x"]), ValueError, "references are required"),
        (lambda: bleukit.bootstrap_ci(["x", "y"], ["x"]), ValueError, "2 hypotheses but 1 reference"),
    ],
)
def test_bad_input_is_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_statistics_input_checks():
    stats = bleukit.corpus_statistics(["a b"], ["a b"], options=BleuOptions(max_ngram_order=2))
    with pytest.raises(ValueError, match="not both"):
        bleukit.bootstrap_ci(stats, ["a b"], max_ngram_order=2)
    with pytest.raises(ValueError, match="max_ngram_order=2"):
        bleukit.bootstrap_ci(stats)
    with pytest.raises(ValueError, match="indices must lie"):
        significance.resampled_scores(stats, np.array([[1]]), BleuOptions(max_ngram_order=2))


def test_inputs_are_not_mutated():
    systems = {"a": ["x y", "z"], "b": ["x", "z w"]}
    refs = [["x y", None], "z w"]
    snapshot = json.dumps([systems, refs])
    out = bleukit.paired_test(systems, refs, n_samples=20)
    assert json.dumps([systems, refs]) == snapshot
    assert [r.name for r in out] == ["a", "b"] and out[0].score == out[0].result.score
    assert out[1].to_dict()["p_value"] == out[1].p_value


@pytest.mark.parametrize("n,width", [(20000, 1), (3004, 1), (3004, 2), (977, 7)])
def test_float32_sums_are_sacrebleus_per_resample_sums(n, width):
    """All resamples are summed at once, and each equals sacreBLEU's ``stats[idx].sum(0)`` of that
    resample: float32 values of every magnitude and fractions, where the order of the additions
    shows (one column: numpy's pairwise sum; several: row by row)."""
    rng = np.random.default_rng(width)
    block = (rng.random((n, width)) * 10.0 ** rng.integers(-3, 8, (n, width))).astype(np.float32)
    idx = rng.integers(0, n, size=(7, n))
    theirs = np.stack([block[i].sum(0) for i in idx])
    rows = np.zeros((n, 2 * width), dtype=np.int64)  # only the blocks are summed
    ours = numpy_draws._float32_sums(rows, idx, 2, [block, block[::-1].copy()])
    assert ours[:, 0].tolist() == theirs.tolist()
    assert ours[:, 1].tolist() == np.stack([block[::-1][i].sum(0) for i in idx]).tolist()


@pytest.mark.parametrize("seed", [0, 12345, None])
def test_coin_flips_are_numpys_bool_draws(seed):
    """Approximate randomization's flips, drawn as 32-bit words, are numpy's bool draws flip for
    flip, chunk after chunk (each call drops its last word's unused bits), and leave the stream
    where the bool draws leave it."""
    sequence = np.random.default_rng(seed).bit_generator.seed_seq
    theirs, ours = np.random.default_rng(sequence), np.random.default_rng(sequence)
    for k, n in [(32, 3004), (3, 7), (1, 33), (64, 1), (5, 100)]:
        expected = theirs.integers(2, size=(k, n), dtype=bool)
        flips = numpy_draws._coin_flips(ours, k, n)
        assert flips.dtype == np.float32 and flips.shape == (k, n)
        assert (flips == expected).all()
    assert ours.integers(0, 2**62) == theirs.integers(0, 2**62)
