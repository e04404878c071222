"""The result of a TER computation: score, the edits and reference length it came from, the signature.

>>> from bleukit.metrics.ter import METRIC, TerOptions
>>> options = TerOptions()
>>> result = METRIC.result(METRIC.statistics(["a b c d"], [["c d a b"]], options), options)
>>> result.name, result.score, result.num_edits, result.ref_length
('TER', 25.0, 1, 4.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional

from ..base import MetricResult

__all__ = ["TerResult"]


@dataclass(frozen=True)
class TerResult(MetricResult):
    """TER in percent (lower is better; above 100 when there are more edits than reference words),
    with sacreBLEU's ``TERScore`` fields: ``num_edits`` (total fewest edits) and ``ref_length``
    (the sum of the sentences' average reference lengths, a float as sacreBLEU adds them)."""

    score: float
    num_edits: int
    ref_length: float
    signature: str
    options: Any = field(default=None, repr=False, compare=False)
    #: Bootstrap estimate of the mean and the half-width of its 95% interval; ``None`` without one.
    mean: Optional[float] = None
    ci: Optional[float] = None

    @property
    def name(self) -> str:
        """``TER``, as sacreBLEU names it."""
        return "TER"

    def to_dict(self) -> Dict[str, Any]:
        """Plain JSON-ready dictionary of every field (``mean``/``ci`` only with a bootstrap).

        >>> from bleukit.metrics.ter import METRIC, TerOptions
        >>> opts = TerOptions()
        >>> METRIC.result(METRIC.statistics(["a"], [["b"]], opts), opts).to_dict()["num_edits"]
        1
        """
        out: Dict[str, Any] = {
            "name": self.name,
            "score": self.score,
            "num_edits": self.num_edits,
            "ref_length": self.ref_length,
            "signature": self.signature,
        }
        if self.mean is not None:
            out["mean"], out["ci"] = self.mean, self.ci
        return out
