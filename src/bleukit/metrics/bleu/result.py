"""The result of a BLEU computation: score, its parts and the signature that makes it reproducible.

>>> from bleukit import corpus_bleu
>>> result = corpus_bleu(["the cat sat on the mat"], ["the cat sat on the mat"])
>>> round(result.score, 6), result.counts, result.bp
(100.0, [6, 5, 4, 3], 1.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

from ..base import MetricResult

__all__ = ["BleuResult"]

Number = Union[int, float]


@dataclass(frozen=True)
class BleuResult(MetricResult):
    """BLEU on the 0-100 scale with the statistics it came from (sacreBLEU's ``BLEUScore`` fields)."""

    score: float
    counts: List[Number]
    totals: List[Number]
    precisions: List[float]
    bp: float
    sys_len: int
    ref_len: int
    signature: str
    options: Any = field(default=None, repr=False, compare=False)
    #: Bootstrap estimate of the score's mean and the half-width of its 95% interval
    #: (``corpus_bleu(..., n_bootstrap=N)`` or a paired bootstrap test); ``None`` otherwise.
    mean: Optional[float] = None
    ci: Optional[float] = None

    @property
    def ratio(self) -> float:
        """Hypothesis length over reference length (0 when there is no reference text)."""
        return self.sys_len / self.ref_len if self.ref_len else 0.0

    @property
    def name(self) -> str:
        return "BLEU"

    def format(self, width: int = 2, score_only: bool = False, signature: bool = True) -> str:
        """sacreBLEU's one-line summary.

        >>> from bleukit import corpus_bleu
        >>> print(corpus_bleu(["a b c d"], ["a b c d"]).format(signature=False))
        BLEU = 100.00 100.0/100.0/100.0/100.0 (BP = 1.000 ratio = 1.000 hyp_len = 4 ref_len = 4)

        With a bootstrap estimate the score reads ``score (μ = mean ± ci)``, in the score-only form
        too, exactly as sacreBLEU's ``--confidence`` prints it:

        >>> r = corpus_bleu(["a b c d", "a b c e"], ["a b c d", "a b c d"], n_bootstrap=10)
        >>> r.format(score_only=True)
        '72.31 (μ = 68.39 ± 25.00)'
        """
        return super().format(width, score_only, signature)

    def verbose_text(self) -> str:
        """The precisions, brevity penalty, length ratio and lengths, as sacreBLEU prints them.

        >>> from bleukit import corpus_bleu
        >>> corpus_bleu(["a b"], ["a b c"]).verbose_text()
        '100.0/100.0/0.0/0.0 (BP = 0.607 ratio = 0.667 hyp_len = 2 ref_len = 3)'
        """
        precisions = "/".join(f"{p:.1f}" for p in self.precisions)
        return (
            f"{precisions} (BP = {self.bp:.3f} ratio = {self.ratio:.3f} "
            f"hyp_len = {self.sys_len:d} ref_len = {self.ref_len:d})"
        )

    def to_dict(self) -> Dict[str, Any]:
        """Plain JSON-ready dictionary of every field.

        >>> from bleukit import corpus_bleu
        >>> sorted(corpus_bleu(["a"], ["a"]).to_dict())[:4]
        ['bp', 'counts', 'name', 'precisions']

        ``mean`` and ``ci`` are included only when a bootstrap estimate was made.
        """
        out = {
            "name": self.name,
            "score": self.score,
            "counts": list(self.counts),
            "totals": list(self.totals),
            "precisions": list(self.precisions),
            "bp": self.bp,
            "ratio": self.ratio,
            "sys_len": self.sys_len,
            "ref_len": self.ref_len,
            "signature": self.signature,
        }
        if self.mean is not None:
            out["mean"] = self.mean
            out["ci"] = self.ci
        return out

