"""chrF and chrF++ (Popović 2015, 2017) exactly as sacreBLEU 2.x computes them.

- :mod:`.metric`: :class:`CHRF`, the protocol's methods, and :data:`METRIC`, its one instance;
- :mod:`.options`: :class:`ChrfOptions` (``word_order=2`` is chrF++), with sacreBLEU's defaults from
  :mod:`.defaults`;
- :mod:`.statistics`: :class:`ChrfStatistics`, per order the hypothesis, reference and matched
  n-grams of the best reference;
- :mod:`.extract`: text → table (the compiled kernel, or :mod:`.reference`, its pure-Python twin),
  and pairwise statistics and scores;
- :mod:`.aggregate`: reference aggregation (scores against one expected reference, for MBR);
- :mod:`.formula`: the F-score on numpy or torch arrays, vectorised over rows;
- :mod:`.result`: :class:`ChrfResult`.

>>> from bleukit.metrics.chrf import METRIC, ChrfOptions
>>> options = ChrfOptions(word_order=2)
>>> stats = METRIC.statistics(["The cat sat on the mat."], [["The cat is on the mat."]], options)
>>> round(METRIC.result(stats, options).score, 4)
69.437
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import lazy_attributes

if TYPE_CHECKING:
    from .metric import CHRF, METRIC
    from .options import ChrfOptions
    from .result import ChrfResult
    from .statistics import ChrfStatistics

__all__ = ["CHRF", "METRIC", "ChrfOptions", "ChrfStatistics", "ChrfResult"]

# The package imports a module when one of its names is first used: the command line imports
# every metric's cli.py to build its parser, and needs no other metric's options, formula or table.
__getattr__, __dir__ = lazy_attributes(__name__, {
    "CHRF": "metric",
    "METRIC": "metric",
    "ChrfOptions": "options",
    "ChrfStatistics": "statistics",
    "ChrfResult": "result",
})
