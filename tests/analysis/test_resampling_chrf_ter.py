"""chrF's and TER's bootstrap takes the compiled draws and sums
(:func:`bleukit.resampling.bootstrap_sums`) scored by their vectorised formulas, and gives numpy's
route's numbers and sacreBLEU's (``==``, and chrF's float32 scores as float32); TER with three
references a sentence, whose float32 sums round, falls back to numpy's route. Their approximate
randomization stays on numpy's route (faster there, once numpy is loaded: see
:mod:`bleukit.analysis.significance.draws`).

Each test makes numpy's bootstrap draws fail where the compiled route must be taken, so the route
taken is observed, not assumed.
"""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import CHRF, TER
from sacrebleu.significance import PairedTest
from shared_data import read_lines

import bleukit
from bleukit import _native, resampling
from bleukit.analysis import significance
from bleukit.analysis.ranking import compare_systems
from bleukit.analysis.significance import draws as numpy_draws
from bleukit.metrics.bleu.options import BleuOptions
from bleukit.metrics.chrf.options import ChrfOptions
from bleukit.metrics.ter import TerOptions

KERNEL = _native.load_kernel(resampling.KERNEL)
needs_kernel = pytest.mark.skipif(KERNEL is None, reason="BLEUKIT_NO_NATIVE build")
WMT17 = ["LIUM-NMT.4900", "online-B.0", "uedin-nmt.4722"]
WMT22 = ["JDExploreAcademy", "LT22", "Online-A"]
LINES = 400
pytestmark = pytest.mark.usefixtures("sacrebleu_edits_once")


@pytest.fixture(autouse=True)
def _sacrebleu_seed(monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)  # its default seed, 12345, as bleukit's
    monkeypatch.delenv("BLEUKIT_ENGINE", raising=False)


@pytest.fixture(scope="module")
def wmt17(shared_data):
    folder = shared_data / "wmt17-en-de"
    return [(n, read_lines(folder / f"hyp.{n}.de")[:LINES]) for n in WMT17], read_lines(folder / "ref.de")[:LINES]


@pytest.fixture(scope="module")
def wmt22(shared_data):
    """Three systems and, per sentence, the two references and (a third, for TER's rounded
    averages) the lines of a fourth system."""
    folder = shared_data / "wmt22-de-en"
    systems = [(n, read_lines(folder / f"hyp.{n}.en")[:LINES]) for n in WMT22[:2]]
    a, b = (read_lines(folder / f"ref.{k}.en")[:LINES] for k in "AB")
    third = read_lines(folder / f"hyp.{WMT22[2]}.en")[:LINES]
    return systems, [a, b, third]


def _no_numpy_draws(monkeypatch):
    """Numpy's bootstrap draws fail: whatever still works took the compiled ones."""

    def refuse(*args, **kwargs):
        raise AssertionError("numpy's route was taken")

    monkeypatch.setattr(numpy_draws, "_draw_indices", refuse)


def _numpy_route(monkeypatch):
    """Back to numpy's draws, and the compiled ones declined (no generator)."""
    monkeypatch.undo()
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    monkeypatch.setattr(resampling, "generator", lambda seed: None)


def _per_sentence(streams):
    return [list(refs) for refs in zip(*streams)]


def _run(systems, refs, options, n_bs=300, n_ar=301):
    """Every bootstrap and randomization entry point, with their numbers (dtype included)."""
    done = []
    stats = [bleukit.corpus_statistics(h, refs, options=options) for _, h in systems]
    matrix = significance.bootstrap_matrix(stats, options, n_bs, 7)
    scores = significance.bootstrap_scores(stats[1], options, n_bs, 3)
    return (
        bleukit.paired_test(systems, refs, n_samples=n_bs, seed=4, options=options, correction="holm",
                            progress=done.append),
        bleukit.paired_test(systems, refs, method="ar", n_samples=n_ar, seed=6, options=options),
        significance.bootstrap_result(systems[1][1], refs, options, n_bs, 9),
        tuple(bleukit.bootstrap_ci(systems[0][1], refs, n_bootstrap=200, seed=5, options=options)),
        compare_systems(systems, refs, method="bs", n_samples=n_bs, options=options).comparisons,
        compare_systems(systems, refs, method="ar", n_samples=n_ar, options=options).comparisons,
        (matrix.dtype, matrix.tolist()), (scores.dtype, scores.tolist()), sum(done),
    )


@needs_kernel
@pytest.mark.parametrize("options", [ChrfOptions(), ChrfOptions(word_order=2, lowercase=True),
                                     ChrfOptions(eps_smoothing=True, char_order=4, beta=1), TerOptions(),
                                     TerOptions(normalized=True, case_sensitive=True),
                                     BleuOptions(weights=(0.5, 0.5, 0.0, 0.0))],
                         ids=["chrf", "chrf++", "chrf-eps", "ter", "ter-normalized", "bleu-weights"])
def test_the_compiled_route_is_numpys_route(wmt17, monkeypatch, options):
    """With one reference a sentence every bootstrap takes the compiled draws (numpy's fail) and
    gives numpy's route's numbers; chrF's bootstrap scores stay float32 on both. (The
    randomizations run on numpy's route both times.)"""
    systems, refs = wmt17
    _no_numpy_draws(monkeypatch)
    compiled = _run(systems, refs, options)
    _numpy_route(monkeypatch)
    assert _run(systems, refs, options) == compiled
    if isinstance(options, ChrfOptions):
        assert compiled[6][0] == np.float32 and compiled[7][0] == np.float32


@needs_kernel
@pytest.mark.parametrize("metric", ["chrf", "ter"])
def test_the_compiled_route_is_sacrebleus(wmt17, wmt22, metric):
    """paired_test (bs on the compiled route, ar) and --confidence on the compiled route are
    sacreBLEU's, with one reference (WMT17) and two (WMT22: TER's averages are halves, summed
    exactly in float32)."""
    peer, options = (CHRF, ChrfOptions()) if metric == "chrf" else (TER, TerOptions())
    for systems, streams in (wmt17[0], [wmt17[1]]), (wmt22[0], wmt22[1][:2]):
        refs = _per_sentence(streams)
        with pytest.MonkeyPatch.context() as patch:
            _no_numpy_draws(patch)
            for method, n in ("bs", 200), ("ar", 300):
                ours = bleukit.paired_test(systems, refs, method=method, n_samples=n, options=options)
                _, theirs = PairedTest(systems, {"m": peer(references=streams)}, None, test_type=method,
                                       n_samples=n)()
                (name,) = [k for k in theirs if k != "System"]
                expected = [(t.score, t.p_value, None if t.mean is None else float(t.mean),
                             None if t.ci is None else float(t.ci)) for t in theirs[name]]
                assert [(r.score, r.p_value, r.mean, r.ci) for r in ours] == expected, (method, len(streams))
            one = significance.bootstrap_result(systems[0][1], refs, options, 150, 12345)
            their_one = peer().corpus_score(systems[0][1], streams, n_bootstrap=150)
            assert (one.mean, one.ci) == (float(their_one._mean), float(their_one._ci))
            if metric == "chrf":  # float32 estimates, as sacreBLEU's
                assert isinstance(their_one._mean, np.float32)


@needs_kernel
def test_ter_with_three_references_falls_back_for_the_bootstrap(wmt22, monkeypatch):
    """TER's averages over three references are rounded thirds in float32, whose sums round:
    the bootstrap falls back to numpy's route, with sacreBLEU's numbers."""
    systems, streams = wmt22
    refs = _per_sentence(streams)
    options = TerOptions()
    drawn = []
    real = numpy_draws._draw_indices
    monkeypatch.setattr(numpy_draws, "_draw_indices", lambda *a: drawn.append(a) or real(*a))
    ours = bleukit.paired_test(systems, refs, n_samples=200, options=options)
    assert len(drawn) == 1  # numpy's route
    _, theirs = PairedTest(systems, {"m": TER(references=streams)}, None, test_type="bs", n_samples=200)()
    assert [(r.score, r.p_value, r.mean, r.ci) for r in ours] == \
        [(t.score, t.p_value, None if t.mean is None else float(t.mean), None if t.ci is None else float(t.ci))
         for t in theirs["TER"]]
    stats = [bleukit.corpus_statistics(h, refs, options=options) for _, h in systems]
    assert numpy_draws._float32_table(stats, options) is None


@needs_kernel
def test_the_compiled_route_declines_what_it_cannot_sum_exactly(wmt17, monkeypatch):
    """No seed (numpy's entropy), and sums past 2**24 (float32 rounds them): numpy's route."""
    systems, refs = wmt17
    drawn = []
    real = numpy_draws._draw_indices
    monkeypatch.setattr(numpy_draws, "_draw_indices", lambda *a: drawn.append(a) or real(*a))
    bleukit.paired_test(systems, refs, n_samples=20, seed=None, options=ChrfOptions())
    from bleukit.metrics.chrf.statistics import ChrfStatistics
    from bleukit.metrics.ter.statistics import UNIT, TerStatistics

    options = ChrfOptions()
    huge = ChrfStatistics(np.full((8, 3 * options.order), 2**21, dtype=np.int64), np.ones(8, dtype=np.int64),
                          options.char_order, options.word_order)
    assert significance.bootstrap_scores(huge, options, 3, 1).dtype == np.float32
    long = TerStatistics(np.array([[1, 2**21 * UNIT]] * 8), np.ones(8, dtype=np.int64))
    assert len(significance.bootstrap_scores(long, TerOptions(), 3, 1)) == 3
    assert len(drawn) == 3
