"""TER's bootstrap is sacreBLEU's float32 arithmetic, compared live with ``==``.

sacreBLEU resamples ``np.array(stats, dtype="float32")`` of its rows ``[edits, average reference
length]`` (the length a float, rounded to float32), sums each resample in float32 and scores the
sums in float32 (``100 * (edits / length)``), or with its Python ``100.0``/``0.0`` where the length
is 0. bleukit's table holds the lengths as exact fractions; its bootstrap gives sacreBLEU's float32
rows (``Metric.float32_rows``) and scores (``Metric.float32_scores``).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from sacrebleu.metrics import TER as SacreTER
from shared_data import SHARED_DATA, read_lines

import bleukit
from bleukit.metrics.ter import METRIC, TerOptions
from bleukit.metrics.ter.formula import float32_sums_scores


def test_float32_scores_are_sacrebleus_value_and_type():
    rng = random.Random(7)
    rows = np.array(
        [[rng.choice([0, 1, 7, rng.randint(0, 10**6)]), rng.choice([0.0, 2.5, rng.random() * 10**5, 1 / 3])]
         for _ in range(3000)],
        dtype=np.float32,
    )
    theirs = SacreTER()
    want = [theirs._compute_score_from_stats(row).score for row in rows]
    got = float32_sums_scores(rows)
    assert got.tolist() == [float(w) for w in want] and got.dtype == np.array(want).dtype
    for row, w in zip(rows[:200], want):
        one = float32_sums_scores(row[None, :])
        assert one[0] == w and (one.dtype == np.float32) == isinstance(w, np.float32)
    with pytest.raises(ValueError, match=r"shape \(rows, 2\)"):
        float32_sums_scores(np.zeros((1, 3), np.float32))


def test_float32_rows_are_sacrebleus_array():
    hyps, refs = ["a b c d", "x y", "the cat"], [["a c b", "a b c d e"], ["x"], ["a cat", "the cat", "cat"]]
    table = METRIC.statistics(hyps, refs, TerOptions())
    theirs = SacreTER()._extract_corpus_statistics(hyps, [[r[j] if j < len(r) else None for r in refs]
                                                          for j in range(3)])
    assert METRIC.float32_rows(table.rows, TerOptions()).tolist() == np.array(theirs, dtype="float32").tolist()


@pytest.mark.parametrize("options", [{}, {"normalized": True, "case_sensitive": True}], ids=["default", "norm-case"])
def test_bootstrap_estimates_equal_sacrebleus(engine, options):
    folder = SHARED_DATA / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.LT22.en")[:300]
    streams = [read_lines(folder / f"ref.{k}.en")[:300] for k in "AB"]
    theirs = SacreTER(**options).corpus_score(hyps, streams, n_bootstrap=300)
    ours = bleukit.corpus_ter(hyps, bleukit.references_from_streams(streams), n_bootstrap=300, **options)
    assert (ours.score, ours.mean, ours.ci) == (theirs.score, float(theirs._mean), float(theirs._ci))
