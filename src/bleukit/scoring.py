"""Moved to :mod:`bleukit.metrics.bleu.formula`; the statistics → result services are in
:mod:`bleukit.pipeline`. This module keeps the old import path for one release.

>>> import numpy as np
>>> from bleukit.scoring import score_table
>>> from bleukit import BleuOptions
>>> score_table(np.array([[4, 4, 3, 1, 4, 3]]), BleuOptions(max_ngram_order=2)).score.round(6)
array([50.])
"""

from .metrics.bleu.formula import *  # noqa: F401,F403
from .metrics.bleu.formula import __all__  # noqa: F401
