"""The result of a chrF computation: score, the n-gram counts it came from, and the signature.

>>> from bleukit.metrics.chrf import METRIC, ChrfOptions
>>> options = ChrfOptions(char_order=2, word_order=1)
>>> result = METRIC.result(METRIC.statistics(["a cat sat"], [["a cat sat"]], options), options)
>>> result.name, round(result.score, 6), result.matches
('chrF2+', 100.0, [7, 6, 3])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

from ..base import MetricResult

__all__ = ["ChrfResult"]


@dataclass(frozen=True)
class ChrfResult(MetricResult):
    """chrF (or chrF++) on the 0-100 scale (sacreBLEU's ``CHRFScore`` fields) with the summed
    statistics it came from.

    ``hyp_ngrams``, ``ref_ngrams`` and ``matches`` hold, per order (character orders 1..char_order,
    then word orders 1..word_order), the hypothesis n-grams, the reference n-grams and the matched
    (clipped) n-grams: the column sums of the statistics table, sacreBLEU's ``[hyp, ref, match]``
    triples unzipped. A hypothesis n-gram of an order its reference has none of is not counted
    (sacreBLEU's rule), so ``hyp_ngrams`` can be less than the hypothesis holds.
    """

    score: float
    char_order: int
    word_order: int
    beta: Union[int, float]
    hyp_ngrams: List[int]
    ref_ngrams: List[int]
    matches: List[int]
    signature: str
    options: Any = field(default=None, repr=False, compare=False)
    #: Bootstrap estimate of the mean and the half-width of its 95% interval; ``None`` without one.
    mean: Optional[float] = None
    ci: Optional[float] = None

    @property
    def name(self) -> str:
        """``chrF<beta>`` with one ``+`` per word order (``chrF2++``), as sacreBLEU names it."""
        return f"chrF{self.beta}" + "+" * self.word_order

    @property
    def precisions(self) -> List[float]:
        """Per order, matched over hypothesis n-grams in percent (0 for an order with none).

        >>> from bleukit.metrics.chrf import METRIC, ChrfOptions
        >>> opts = ChrfOptions(char_order=2)
        >>> METRIC.result(METRIC.statistics(["ab"], [["abc"]], opts), opts).precisions
        [100.0, 100.0]
        """
        return [100.0 * m / h if h else 0.0 for m, h in zip(self.matches, self.hyp_ngrams)]

    @property
    def recalls(self) -> List[float]:
        """Per order, matched over reference n-grams in percent (0 for an order with none).

        >>> from bleukit.metrics.chrf import METRIC, ChrfOptions
        >>> opts = ChrfOptions(char_order=2)
        >>> METRIC.result(METRIC.statistics(["ab"], [["abc"]], opts), opts).recalls
        [66.66666666666667, 50.0]
        """
        return [100.0 * m / r if r else 0.0 for m, r in zip(self.matches, self.ref_ngrams)]

    def to_dict(self) -> Dict[str, Any]:
        """Plain JSON-ready dictionary of every field (``mean``/``ci`` only with a bootstrap).

        >>> from bleukit.metrics.chrf import METRIC, ChrfOptions
        >>> opts = ChrfOptions()
        >>> sorted(METRIC.result(METRIC.statistics(["a"], [["a"]], opts), opts).to_dict())[:5]
        ['beta', 'char_order', 'hyp_ngrams', 'matches', 'name']
        """
        out: Dict[str, Any] = {
            "name": self.name,
            "score": self.score,
            "char_order": self.char_order,
            "word_order": self.word_order,
            "beta": self.beta,
            "hyp_ngrams": list(self.hyp_ngrams),
            "ref_ngrams": list(self.ref_ngrams),
            "matches": list(self.matches),
            "signature": self.signature,
        }
        if self.mean is not None:
            out["mean"], out["ci"] = self.mean, self.ci
        return out
