"""The bootstrap resampling scheme that lm-evaluation-harness and lighteval share (lighteval took it
from the harness), done on statistics rows: the same resamples, each scored from summed rows.

Both draw ``iters // chunk`` chunks of ``chunk = min(1000, iters)`` resamples, chunk ``i`` with
``random.Random(i).choices(population, k=len(population))``, and rescore the corpus metric on every
resample; here each resample's statistics are summed and scored by the metric's formula, so the
scores are the same numbers at a small fraction of the cost.

>>> from bleukit.metrics.bleu import BleuOptions
>>> from bleukit.pipeline import corpus_statistics
>>> table = corpus_statistics(["a b c d", "a b c e", "x y"], ["a b c d", "a b c d", "x y"], options=BleuOptions())
>>> [round(s, 2) for s in harness_bootstrap_scores(table, BleuOptions(), 3)]
[64.68, 61.6, 73.34]
"""

from __future__ import annotations

import random
from typing import List

import numpy as np

from bleukit.analysis.significance import resampled_scores
from bleukit.inputs import check_count
from bleukit.metrics.base import MetricOptions, Statistics

__all__ = ["harness_bootstrap_scores", "harness_indices"]

#: resamples per seeded chunk in both harnesses
CHUNK = 1000


def harness_indices(n_rows: int, chunk: int, resamples: int) -> np.ndarray:
    """The harnesses' resamples of chunk ``chunk``: ``random.Random(chunk).choices(range(n_rows),
    k=n_rows)`` ``resamples`` times, drawn at once: numpy's legacy generator is the same Mersenne
    Twister and its doubles are CPython's ``random()`` (53 bits from two words), so starting it
    from the state ``random.Random(chunk)`` has gives the same numbers; ``choices`` takes
    ``floor(random() * n)``.

    >>> draws = random.Random(3)
    >>> harness_indices(5, 3, 2).tolist() == [draws.choices(range(5), k=5) for _ in range(2)]
    True
    """
    state = random.Random(chunk).getstate()[1]
    generator = np.random.RandomState()
    generator.set_state(("MT19937", np.array(state[:-1], dtype=np.uint32), state[-1], 0, 0.0))
    return np.floor(generator.random_sample((resamples, n_rows)) * float(n_rows)).astype(np.int64)


def harness_bootstrap_scores(statistics: Statistics, options: MetricOptions, iters: int) -> List[float]:
    """The corpus score of each of the harnesses' resamples for ``iters`` (in their order; fewer
    than ``iters`` when it is not a multiple of 1000 above 1000, as theirs)."""
    iters = check_count(iters, "the number of bootstrap resamples (bootstrap_iters)")
    chunk = min(CHUNK, iters)
    scores: List[float] = []
    for i in range(iters // chunk):
        scores.extend(resampled_scores(statistics, harness_indices(len(statistics), i, chunk), options).tolist())
    return scores
