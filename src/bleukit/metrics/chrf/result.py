"""The result of a chrF computation: score, the options that name it, and the signature.

>>> from bleukit.metrics.chrf import METRIC, ChrfOptions
>>> options = ChrfOptions(word_order=2)
>>> result = METRIC.result(METRIC.statistics(["a cat sat"], [["a cat sat"]], options), options)
>>> result.name, round(result.score, 6)
('chrF2++', 100.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Union

from ..base import MetricResult

__all__ = ["ChrfResult"]


@dataclass(frozen=True)
class ChrfResult(MetricResult):
    """chrF (or chrF++) on the 0-100 scale (sacreBLEU's ``CHRFScore`` fields)."""

    score: float
    char_order: int
    word_order: int
    beta: Union[int, float]
    signature: str
    options: Any = field(default=None, repr=False, compare=False)
    #: Bootstrap estimate of the mean and the half-width of its 95% interval; ``None`` without one.
    mean: Optional[float] = None
    ci: Optional[float] = None

    @property
    def name(self) -> str:
        """``chrF<beta>`` with one ``+`` per word order (``chrF2++``), as sacreBLEU names it."""
        return f"chrF{self.beta}" + "+" * self.word_order

    def to_dict(self) -> Dict[str, Any]:
        """Plain JSON-ready dictionary of every field (``mean``/``ci`` only with a bootstrap).

        >>> from bleukit.metrics.chrf import METRIC, ChrfOptions
        >>> opts = ChrfOptions()
        >>> sorted(METRIC.result(METRIC.statistics(["a"], [["a"]], opts), opts).to_dict())
        ['beta', 'char_order', 'name', 'score', 'signature', 'word_order']
        """
        out: Dict[str, Any] = {
            "name": self.name,
            "score": self.score,
            "char_order": self.char_order,
            "word_order": self.word_order,
            "beta": self.beta,
            "signature": self.signature,
        }
        if self.mean is not None:
            out["mean"], out["ci"] = self.mean, self.ci
        return out
