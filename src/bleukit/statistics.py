"""Moved to :mod:`bleukit.metrics.bleu.statistics` (the table type of every metric is
:class:`bleukit.metrics.base.Statistics`). This module keeps the old import path for one release.

>>> from bleukit.statistics import BleuStatistics, count_statistics
>>> count_statistics([[1, 2]], [[[1, 2]]], 1).rows.tolist()
[[2, 2, 2, 2]]
"""

from .metrics.bleu.statistics import *  # noqa: F401,F403
from .metrics.bleu.statistics import __all__  # noqa: F401
