"""Moved to :mod:`bleukit.metrics.bleu.options` (BLEU is now the first metric of the metric protocol).

This module keeps the old import path working for one release.

>>> from bleukit.options import BleuOptions
>>> BleuOptions().tokenize
'13a'
"""

from .metrics.bleu.options import *  # noqa: F401,F403
from .metrics.bleu.options import __all__  # noqa: F401
