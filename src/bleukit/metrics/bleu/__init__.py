"""BLEU (Papineni et al., 2002) exactly as sacreBLEU 2.x computes it: the first metric of the protocol.

- :mod:`.metric`: :class:`BLEU`, the protocol's methods, and :data:`METRIC`, its one instance;
- :mod:`.options`: :class:`BleuOptions`, every BLEU option with its default, and the signature;
- :mod:`.statistics`: :class:`BleuStatistics` (``sys_len, ref_len, counts 1..N, totals 1..N``)
  and the pure-Python reference counter;
- :mod:`.extract`: text → table (the compiled kernel in :mod:`.kernel`, or the reference);
- :mod:`.formula`: the formula on numpy or torch arrays, vectorised over rows;
- :mod:`.result`: :class:`BleuResult`.

Token ids become tables in :mod:`bleukit.ids`, pairs of sentences in :mod:`bleukit.pairwise`.

>>> from bleukit.metrics.bleu import METRIC, BleuOptions
>>> options = BleuOptions().sentence_level()
>>> stats = METRIC.statistics(["the cat sat"], [["the cat sat down"]], options)
>>> round(METRIC.result(stats, options).score, 4)
71.6531
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import lazy_attributes

if TYPE_CHECKING:
    from .metric import BLEU, METRIC
    from .options import BleuOptions
    from .result import BleuResult
    from .statistics import BleuStatistics

__all__ = ["BLEU", "METRIC", "BleuOptions", "BleuStatistics", "BleuResult"]

# The package imports a module when one of its names is first used: the command line imports
# every metric's cli.py to build its parser, and needs no other metric's options, formula or table.
__getattr__, __dir__ = lazy_attributes(__name__, {
    "BLEU": "metric",
    "METRIC": "metric",
    "BleuOptions": "options",
    "BleuStatistics": "statistics",
    "BleuResult": "result",
})
