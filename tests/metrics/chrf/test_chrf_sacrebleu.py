"""chrF and chrF++ on all the real data, compared with sacreBLEU 2.6's CHRF, on both engines.

Tables must equal sacreBLEU's per-sentence statistics (the row of the reference it keeps), corpus
and sentence scores must be ``==`` its scores.

The two large grids (every system and reference set; every option combination) read sacreBLEU's
statistics from a stored oracle (``chrf_oracle.py``, ``tests/oracles/stored/chrf.json``) and run its
formula live on them; the option grid runs the compiled engine on all its cases and the Python engine
on an all-pairs subset. The other tests run sacreBLEU live, whole: one system per dataset, and every
option family (``test_other_orders_and_float_betas``), so a changed peer is caught without a refresh.
"""

from __future__ import annotations

import numpy as np
import pytest
import stored_oracles
from designs import FULL_GRIDS, all_pairs_design, uncovered_pairs
from metrics.chrf import chrf_oracle
from metrics.chrf.chrf_cases import corpora, corpus, sacrebleu_table
from sacrebleu.metrics import CHRF

from bleukit.metrics.chrf import extract
from bleukit.metrics.chrf.formula import corpus_score, sentence_scores
from bleukit.metrics.chrf.options import ChrfOptions

CASES = corpora()


def _compare(metric, table, opts, their_stats, their_score):
    """bleukit's table and scores against sacreBLEU's statistics and its formula on them."""
    assert table.tolist() == their_stats
    assert corpus_score(table, opts) == their_score
    # sacreBLEU's sentence score is its formula on the sentence's row
    ours = sentence_scores(table, opts)
    assert ours.tolist() == [metric._compute_f_score(row) for row in their_stats]
    return ours


def _check(dataset, hyp, refs, options: dict, lines=None, sentence_sample=50):
    """Against sacreBLEU run live, its public sentence_score on a sample of lines too."""
    metric, their_stats, their_score = sacrebleu_table(dataset, hyp, refs, tuple(sorted(options.items())), lines)
    hyps, streams, per_hyp = corpus(dataset, hyp, refs, lines)
    opts = ChrfOptions(**options)
    table = extract.chrf_statistics(hyps, per_hyp, opts)
    assert table.dtype == np.int64 and table.shape == (len(hyps), opts.columns)
    ours = _compare(metric, table, opts, their_stats, their_score)
    for i in range(0, len(hyps), max(1, len(hyps) // sentence_sample)):
        assert ours[i] == metric.sentence_score(hyps[i], [s[i] for s in streams]).score


def _check_stored(dataset, hyp, refs, options: dict, lines=None):
    """Against sacreBLEU's stored statistics; its formula (corpus and sentence scores) runs live."""
    hyps, _, per_hyp = corpus(dataset, hyp, refs, lines)
    opts = ChrfOptions(**options)
    table = extract.chrf_statistics(hyps, per_hyp, opts)
    assert table.dtype == np.int64 and table.shape == (len(hyps), opts.columns)
    stored_oracles.check("chrf", chrf_oracle.case(dataset, hyp, refs, options, lines), {"statistics": table.tolist()})
    metric = CHRF(**options)
    their_stats = table.tolist()  # sacreBLEU's, checked
    _compare(metric, table, opts, their_stats, metric._aggregate_and_compute(their_stats).score)


QUICK = [
    ("wmt17-en-de", "hyp.online-A.0.de", "ref.de"),
    ("wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en"),
    ("wmt22-en-zh", "hyp.Online-B.zh", "ref.A.zh+ref.B.zh"),
    ("kftt-en-ja", "hyp.ja", "ref.ja"),
]


@pytest.mark.skipif(not CASES, reason="real MT data not found (set BLEUKIT_SHARED_DATA)")
@pytest.mark.parametrize("dataset, hyp, refs", QUICK, ids=["/".join(c) for c in QUICK])
@pytest.mark.parametrize("word_order", [0, 2], ids=["chrF", "chrF++"])
def test_one_system_per_dataset(each_engine, dataset, hyp, refs, word_order):
    for _ in each_engine():  # sacreBLEU's whole-corpus run once for both engines (sacrebleu_table caches)
        _check(dataset, hyp, refs, dict(word_order=word_order))


def _use_engine(monkeypatch, engine_name):
    if engine_name == "native" and not extract.available():
        pytest.skip("the chrF kernel is not built")
    monkeypatch.setenv("BLEUKIT_ENGINE", engine_name)


def _system_row(dataset, hyp, refs, word_order):
    return (dataset, refs.count("+") + 1, word_order, refs, hyp)


# The Python engine on a covering design of the every-system grid: every pair of (dataset, number
# of references, chrF or chrF++), every reference set and every system with its dataset, and every
# reference set with each word order. The compiled engine runs every case.
_SYSTEM_ROWS = [_system_row(*c, w) for c in CASES for w in chrf_oracle.WORD_ORDERS]
SYSTEM_PAIRS = [(0, 1), (0, 2), (1, 2), (0, 3), (0, 4), (2, 3)]
SYSTEM_DESIGN = set(all_pairs_design(_SYSTEM_ROWS, SYSTEM_PAIRS)) if CASES else set()
SYSTEM_CASES = [
    pytest.param(engine, *c, w, id=f"{engine}-{'/'.join(c)}-{'chrF++' if w else 'chrF'}")
    for c in CASES
    for w in chrf_oracle.WORD_ORDERS
    for engine in ("native", "python")
    if engine == "native" or FULL_GRIDS or _system_row(*c, w) in SYSTEM_DESIGN
]


@pytest.mark.skipif(not CASES, reason="real MT data not found (set BLEUKIT_SHARED_DATA)")
def test_python_engine_system_design_covers_every_pair():
    assert len(SYSTEM_DESIGN) <= len(_SYSTEM_ROWS) // 2, (len(SYSTEM_DESIGN), len(_SYSTEM_ROWS))
    assert not uncovered_pairs(SYSTEM_DESIGN, _SYSTEM_ROWS, SYSTEM_PAIRS)


@pytest.mark.slow
@pytest.mark.skipif(not CASES, reason="real MT data not found (set BLEUKIT_SHARED_DATA)")
@pytest.mark.parametrize("engine_name, dataset, hyp, refs, word_order", SYSTEM_CASES)
def test_every_system_and_reference_set(monkeypatch, engine_name, dataset, hyp, refs, word_order):
    _use_engine(monkeypatch, engine_name)
    _check_stored(dataset, hyp, refs, dict(word_order=word_order))


def _grid_row(corpus, options):
    return (corpus, *options.values())


# The pure-Python engine (the reference and fallback) runs the option grid on an all-pairs design:
# every value pair of every two options (the corpus counted as one) occurs in it. The compiled engine
# runs all 192 cases; both are checked against the same stored sacreBLEU statistics.
_GRID_ROWS = [_grid_row(c, o) for c in range(len(chrf_oracle.GRID_CORPORA)) for o in chrf_oracle.GRID]
PYTHON_DESIGN = set(all_pairs_design(_GRID_ROWS))
GRID_CASES = [
    pytest.param(engine, *corpus, options, id=f"{engine}-{name}-{chrf_oracle.options_id(options)}")
    for c, (corpus, name) in enumerate(zip(chrf_oracle.GRID_CORPORA, ["de-en", "en-zh"]))
    for options in chrf_oracle.GRID
    for engine in ("native", "python")
    if engine == "native" or FULL_GRIDS or _grid_row(c, options) in PYTHON_DESIGN
]


def test_python_engine_design_covers_every_pair():
    assert len(PYTHON_DESIGN) <= 12
    assert not uncovered_pairs(PYTHON_DESIGN, _GRID_ROWS)


@pytest.mark.slow
@pytest.mark.skipif(not CASES, reason="real MT data not found (set BLEUKIT_SHARED_DATA)")
@pytest.mark.parametrize("engine_name, dataset, hyp, refs, options", GRID_CASES)
def test_option_grid(monkeypatch, engine_name, dataset, hyp, refs, options):
    """Every combination of the options on the first 250 lines of two two-reference corpora."""
    _use_engine(monkeypatch, engine_name)
    _check_stored(dataset, hyp, refs, options, lines=chrf_oracle.GRID_LINES)


OTHER_OPTIONS = [
    dict(char_order=1),
    dict(char_order=3, word_order=1),
    dict(char_order=4, word_order=3),
    dict(beta=0),
    dict(beta=0.5),
    dict(beta=2.5, word_order=2),
    dict(beta=1.0, eps_smoothing=True),
    dict(beta=10, lowercase=True),
    dict(char_order=8, whitespace=True, word_order=2),
]


@pytest.mark.skipif(not CASES, reason="real MT data not found (set BLEUKIT_SHARED_DATA)")
@pytest.mark.parametrize("options", OTHER_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_other_orders_and_float_betas(engine, options):
    _check("wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en", options, lines=400, sentence_sample=10)
    _check("kftt-en-ja", "hyp.ja", "ref.ja", options, lines=300, sentence_sample=10)


def test_missing_references(engine):
    """A reference missing (None in sacreBLEU's streams) is simply absent from references[i]."""
    hyps, (ref_a, ref_b), _ = corpus("wmt22-de-en", "hyp.JDExploreAcademy.en", "ref.A.en+ref.B.en", 600)
    ref_b = [None if i % 3 == 0 else r for i, r in enumerate(ref_b)]
    ref_a = [None if i % 7 == 1 and i % 3 else r for i, r in enumerate(ref_a)]  # never both
    per_hyp = [[r for r in pair if r is not None] for pair in zip(ref_a, ref_b)]
    for word_order in (0, 2):
        metric = CHRF(word_order=word_order)
        opts = ChrfOptions(word_order=word_order)
        table = extract.chrf_statistics(hyps, per_hyp, opts)
        assert table.tolist() == metric._extract_corpus_statistics(hyps, [ref_a, ref_b])
        assert corpus_score(table, opts) == metric.corpus_score(hyps, [ref_a, ref_b]).score


def test_formula_on_torch_tensors_equals_numpy():
    torch = pytest.importorskip("torch")
    hyps, _, per_hyp = corpus("wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en", 500)
    for options in (ChrfOptions(), ChrfOptions(word_order=2, eps_smoothing=True, beta=1)):
        table = extract.chrf_statistics(hyps, per_hyp, options)
        scores = sentence_scores(torch.from_numpy(table), options)
        assert scores.dtype == torch.float64
        assert scores.numpy().tolist() == sentence_scores(table, options).tolist()
        assert corpus_score(torch.from_numpy(table), options) == corpus_score(table, options)
