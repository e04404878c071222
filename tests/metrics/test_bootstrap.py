"""Bootstrap and paired significance tests of every metric are sacreBLEU's float32 arithmetic,
compared live with ``==`` through the harness: its ``--confidence`` estimates (mean, interval, the
printed line, the signature), ``paired_test`` against its ``PairedTest``, and the float32 formula
each resample is scored with (row by row, value and type).

sacreBLEU sums each resample's statistics in float32 and hands the float32 numbers to its formula,
where (numpy 2) quotients and sums are float32 and the scores numpy float32, except where the
formula returns a Python float (chrF's ``0.0`` or its Python ``eps``; TER's ``100.0``/``0.0`` for a
zero length). bleukit's float32 twin of each formula must give the value and the type.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from metrics.harness import Corpus, MetricCase, MetricTester
from sacrebleu.metrics import CHRF, TER

import bleukit
from bleukit.metrics.chrf.float32 import float32_sums_scores as chrf_float32_scores
from bleukit.metrics.chrf.options import ChrfOptions
from bleukit.metrics.ter import METRIC as TER_METRIC
from bleukit.metrics.ter import TerOptions
from bleukit.metrics.ter.formula import float32_sums_scores as ter_float32_scores


@pytest.fixture(autouse=True)
def _sacrebleu_seed(monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)  # its default seed, 12345, as bleukit's


def _corpus(hyp: str, refs: str = "ref.A.en+ref.B.en", lines: int = 300) -> Corpus:
    return Corpus("wmt22-de-en", hyp, refs, lines)


# (case, resamples)
ESTIMATES = [
    (MetricCase("chrf", {}, corpus=_corpus("hyp.LT22.en", lines=400)), 300),
    (MetricCase("chrf", {"word_order": 2, "lowercase": True}, corpus=_corpus("hyp.LT22.en", lines=400)), 300),
    (MetricCase("chrf", {"word_order": 2}, corpus=_corpus("hyp.LT22.en")), 200),
    # the references as bleukit.references_from_streams makes them
    (MetricCase("ter", {}, corpus=_corpus("hyp.LT22.en"), ref_layout="from_streams"), 300),
    (MetricCase("ter", {"normalized": True, "case_sensitive": True}, corpus=_corpus("hyp.LT22.en"),
                ref_layout="from_streams"), 300),
]


@pytest.mark.parametrize("case, n", [pytest.param(case, n, id=f"{case.id}-bs{n}") for case, n in ESTIMATES])
def test_bootstrap_estimates_are_sacrebleus(case, n, each_engine):
    MetricTester(case, each_engine).check_bootstrap(n)


def test_chrf_bootstrap_scores_are_float32_as_sacrebleus():
    hyps, refs, _ = ESTIMATES[0][0].inputs()
    options = ChrfOptions()
    scores = bleukit.bootstrap_scores(bleukit.corpus_statistics(hyps, refs, options=options), options, n_bootstrap=300)
    assert scores.dtype == np.float32  # as sacreBLEU's, and so its mean


# (baseline case, the other systems of the paired test, method, samples)
PAIRED = [
    (MetricCase("chrf", {}, corpus=_corpus("hyp.LT22.en", "ref.A.en")),
     ["hyp.Online-A.en", "hyp.JDExploreAcademy.en"], "bs", 500),
    # fewer edits is better: sacreBLEU's test reads the sign the same way; the TER cases run on
    # the default engine (TER's pure-Python engine is test_ter_vs_sacrebleu.py's)
    (MetricCase("ter", {}, corpus=_corpus("hyp.Online-A.en", "ref.B.en"), engines="default", name="A"),
     ["hyp.LT22.en"], "ar", 200),
    (MetricCase("ter", {}, corpus=_corpus("hyp.Online-A.en", "ref.B.en"), engines="default", name="A"),
     ["hyp.LT22.en"], "bs", 200),
]


def _system_name(case: MetricCase, file: str) -> str:
    """The TER table names its systems as the user's (A, LT22), the chrF one by file name."""
    return file if case.metric == "chrf" else file.split(".")[1].replace("Online-", "")


@pytest.mark.parametrize("case, others, method, n", [
    pytest.param(case, others, method, n, id=f"{case.id}-{method}{n}") for case, others, method, n in PAIRED])
def test_paired_tests_are_sacrebleus(case, others, method, n, each_engine):
    hyps, _, _ = case.inputs()
    systems = {_system_name(case, case.corpus.hyp): hyps}
    for other in others:
        systems[_system_name(case, other)] = Corpus(case.corpus.dataset, other, case.corpus.refs,
                                                    case.corpus.lines).load()[0]
    MetricTester(case, each_engine).check_paired(systems, method, n)


def _chrf_rows(options: ChrfOptions, rng: random.Random, n: int) -> np.ndarray:
    """Rows of float32 sums: empty sides, no matches, small counts, and counts past 2**24 where
    float32 no longer holds every integer."""
    rows = []
    for _ in range(n):
        row = []
        for _ in range(options.order):
            hyp = rng.choice([0, 0, 1, 2, 5, rng.randint(0, 10**6), rng.randint(0, 3 * 10**7)])
            ref = rng.choice([0, 1, 3, rng.randint(0, 10**6), rng.randint(0, 3 * 10**7)])
            match = rng.randint(0, min(hyp, ref)) if rng.random() < 0.8 else 0
            row += [hyp, ref, match]
        rows.append(row)
    return np.array(rows, dtype=np.float32)


def _ter_rows(rng: random.Random, n: int) -> np.ndarray:
    """[edits, length] sums: zero lengths, fractions, large counts."""
    return np.array(
        [[rng.choice([0, 1, 7, rng.randint(0, 10**6)]), rng.choice([0.0, 2.5, rng.random() * 10**5, 1 / 3])]
         for _ in range(n)],
        dtype=np.float32,
    )


def _chrf(options):
    opts = ChrfOptions(**options)
    return (_chrf_rows(opts, random.Random(len(options)), 3000), lambda rows: chrf_float32_scores(rows, opts),
            lambda row: CHRF(**options)._compute_f_score(list(row)), 300)


def _ter():
    theirs = TER()
    return (_ter_rows(random.Random(7), 3000), ter_float32_scores,
            lambda row: theirs._compute_score_from_stats(row).score, 200)


# metric, options: the rows, bleukit's float32 scores, sacreBLEU's score of a row, rows checked one by one
FLOAT32 = [
    ("chrf", {}),
    ("chrf", {"word_order": 2}),
    ("chrf", {"char_order": 3, "beta": 1, "eps_smoothing": True}),
    ("chrf", {"char_order": 2, "word_order": 1, "beta": 3, "eps_smoothing": True}),
    ("chrf", {"char_order": 2, "word_order": 2, "beta": 0.3}),
    ("chrf", {"char_order": 1, "beta": 0.5, "eps_smoothing": True}),
    ("ter", {}),
]


@pytest.mark.parametrize("metric, options", [
    pytest.param(m, o, id=f"{m}-" + (",".join(f"{k}={v}" for k, v in o.items()) or "default")) for m, o in FLOAT32])
def test_float32_scores_are_sacrebleus_value_and_type(metric, options):
    rows, ours, theirs, singles = _chrf(options) if metric == "chrf" else _ter()
    want = [theirs(row) for row in rows]
    got = ours(rows)
    assert got.tolist() == [float(w) for w in want]
    # the array's type is that of np.array(sacreBLEU's scores): float32 unless one is a Python float
    assert got.dtype == np.array(want).dtype
    for row, w in zip(rows[:singles], want):
        one = ours(row[None, :])
        assert (one.dtype == np.float32) == isinstance(w, np.float32) and one[0] == w


def test_float32_scores_check_the_width():
    with pytest.raises(ValueError, match=r"shape \(rows, 18\)"):
        chrf_float32_scores(np.zeros((2, 17), np.float32), ChrfOptions())
    with pytest.raises(ValueError, match=r"shape \(rows, 2\)"):
        ter_float32_scores(np.zeros((1, 3), np.float32))


def test_ter_float32_rows_are_sacrebleus_array():
    hyps, refs = ["a b c d", "x y", "the cat"], [["a c b", "a b c d e"], ["x"], ["a cat", "the cat", "cat"]]
    table = TER_METRIC.statistics(hyps, refs, TerOptions())
    theirs = TER()._extract_corpus_statistics(hyps, [[r[j] if j < len(r) else None for r in refs] for j in range(3)])
    assert TER_METRIC.float32_rows(table.rows, TerOptions()).tolist() == np.array(theirs, dtype="float32").tolist()
