"""Translation edit rate (TER), exactly as sacreBLEU 2.6 computes it (tercom's shifts and all).

The pieces, each in its own module:

- :mod:`.metric`: :class:`TER`, the protocol's methods, and :data:`METRIC`, its one instance;
- :mod:`.options`: :class:`TerOptions` (tercom's four switches) and the signature string;
- :mod:`.tokenizer`: tercom's normalisation and tokenisation (:class:`TercomTokenizer`);
- :mod:`.reference`: the pure-Python edit distance with block shifts, the exact reference;
- :mod:`.extract`: the integer counts of a batch from the compiled kernel when it is built;
- :mod:`.statistics`: :class:`TerStatistics`, the protocol's table (edits, average reference length);
- :mod:`.formula`: corpus and sentence scores from a table;
- :mod:`.result`: :class:`TerResult`.

Lower is better: ``METRIC.higher_is_better`` is ``False``, which paired tests and rankings read.

>>> from bleukit.metrics.ter import METRIC, TerOptions
>>> options = TerOptions()
>>> stats = METRIC.statistics(["the cat sat on the mat"], [["the mat the cat sat on"]], options)
>>> METRIC.result(stats, options).score
16.666666666666664
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import lazy_attributes

if TYPE_CHECKING:
    from .metric import METRIC, TER
    from .options import TerOptions
    from .result import TerResult
    from .statistics import TerStatistics

__all__ = ["TER", "METRIC", "TerOptions", "TerStatistics", "TerResult"]

# The package imports a module when one of its names is first used: the command line imports
# every metric's cli.py to build its parser, and needs no other metric's options, formula or table.
__getattr__, __dir__ = lazy_attributes(__name__, {
    "TER": "metric",
    "METRIC": "metric",
    "TerOptions": "options",
    "TerStatistics": "statistics",
    "TerResult": "result",
})
