"""sacreBLEU's metric classes (``sacrebleu.metrics``) on bleukit's metric protocol.

Each is a module of its own built on :mod:`.base`: the metric class (sacreBLEU's arguments and
attributes, turned into bleukit options) and its score class (sacreBLEU's fields, from bleukit's
result).

>>> sorted(METRICS)
['BLEU', 'CHRF', 'TER']
"""

from .bleu import BLEU, BLEUScore
from .chrf import CHRF, CHRFScore
from .ter import TER, TERScore

__all__ = ["BLEU", "BLEUScore", "CHRF", "CHRFScore", "TER", "TERScore", "METRICS"]

METRICS = {
    "BLEU": BLEU,
    "CHRF": CHRF,
    "TER": TER,
}
