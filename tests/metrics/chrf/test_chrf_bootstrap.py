"""chrF's bootstrap is sacreBLEU's float32 arithmetic, compared live with ``==``.

sacreBLEU sums each resample's statistics in float32 and hands the float32 numbers to its chrF
formula, where (numpy 2) quotients and sums are float32 and the scores are numpy float32, except
where the formula returns a Python ``0.0`` or adds its Python ``eps``. The formula's float32 twin
must give its value and its type row by row, and the bootstrap estimates built on it (mean,
interval, p-value) must equal sacreBLEU's.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from metrics.chrf.chrf_cases import corpus
from sacrebleu.metrics import CHRF as SacreCHRF
from sacrebleu.significance import PairedTest

import bleukit
from bleukit.metrics.chrf.float32 import float32_sums_scores
from bleukit.metrics.chrf.options import ChrfOptions

OPTIONS = [
    {},
    {"word_order": 2},
    {"char_order": 3, "beta": 1, "eps_smoothing": True},
    {"char_order": 2, "word_order": 1, "beta": 3, "eps_smoothing": True},
    {"char_order": 2, "word_order": 2, "beta": 0.3},
    {"char_order": 1, "beta": 0.5, "eps_smoothing": True},
]


def _rows(options: ChrfOptions, rng: random.Random, n: int) -> np.ndarray:
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


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_float32_scores_are_sacrebleus_value_and_type(options):
    opts, theirs = ChrfOptions(**options), SacreCHRF(**options)
    rows = _rows(opts, random.Random(len(options)), 3000)
    want = [theirs._compute_f_score(list(row)) for row in rows]
    got = float32_sums_scores(rows, opts)
    assert got.tolist() == [float(w) for w in want]
    # the array's type is that of np.array(sacreBLEU's scores): float32 unless one is a Python float
    assert got.dtype == np.array(want).dtype
    for row, w in zip(rows[:300], want):
        one = float32_sums_scores(row[None, :], opts)
        assert (one.dtype == np.float32) == isinstance(w, np.float32) and one[0] == w


def test_float32_scores_check_the_width():
    with pytest.raises(ValueError, match=r"shape \(rows, 18\)"):
        float32_sums_scores(np.zeros((2, 17), np.float32), ChrfOptions())


@pytest.mark.parametrize("options", [{}, {"word_order": 2, "lowercase": True}], ids=["chrF", "chrF++"])
def test_bootstrap_estimates_equal_sacrebleus(engine, options):
    hyps, streams, per_hyp = corpus("wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en", 400)
    theirs = SacreCHRF(**options).corpus_score(hyps, streams, n_bootstrap=300)
    ours = bleukit.corpus_chrf(hyps, per_hyp, n_bootstrap=300, **options)
    assert (ours.score, ours.mean, ours.ci) == (theirs.score, float(theirs._mean), float(theirs._ci))
    scores = bleukit.bootstrap_scores(
        bleukit.corpus_statistics(hyps, per_hyp, options=ChrfOptions(**options)), ChrfOptions(**options),
        n_bootstrap=300,
    )
    assert scores.dtype == np.float32  # as sacreBLEU's, and so its mean


def test_paired_bootstrap_equals_sacrebleus(engine):
    systems = []
    for name in ("hyp.LT22.en", "hyp.Online-A.en", "hyp.JDExploreAcademy.en"):
        hyps, streams, per_hyp = corpus("wmt22-de-en", name, "ref.A.en", 300)
        systems.append((name, hyps))
    _, theirs = PairedTest(systems, {"chrF2": SacreCHRF(references=streams)}, streams, "bs", 500)()
    ours = bleukit.paired_test(dict(systems), per_hyp, method="bs", n_samples=500, options=ChrfOptions())
    assert [(r.result.score, r.p_value, r.mean, r.ci) for r in ours] == [
        (t.score, t.p_value, None if t.mean is None else float(t.mean), None if t.ci is None else float(t.ci))
        for t in theirs["chrF2"]
    ]
