"""sacreBLEU's ``TER`` and ``TERScore`` on bleukit's TER (:mod:`bleukit.metrics.ter`).

>>> ter = TER()
>>> print(ter.corpus_score(["the cat sat on the mat"], [["the mat the cat sat on"]]))
TER = 16.67
>>> ter.get_signature().format(short=True)  # doctest: +ELLIPSIS
'#:1|c:lc|t:tercom|nr:no|pn:yes|as:no|v:bleukit-...'
"""

from __future__ import annotations

from typing import Any, ClassVar, Dict, Optional, Sequence, Type

from ...metrics.ter import TerOptions, TerResult
from ..tokenizers.tokenizer_ter import TercomTokenizer
from .base import Metric, Score

__all__ = ["TER", "TERScore"]


class TERScore(Score):
    """sacreBLEU's ``TERScore``: ``score`` (lower is better), ``num_edits`` (the total of each
    sentence's fewest edits, an int) and ``ref_length`` (the total average reference length).

    >>> s = TERScore(25.0, 1.0, 4.0)
    >>> s.name, s.num_edits, s.ref_length
    ('TER', 1, 4.0)
    """

    def __init__(self, score: float, num_edits: float, ref_length: float) -> None:
        super().__init__("TER", score)
        self.num_edits = int(num_edits)
        self.ref_length = ref_length

    @classmethod
    def _from_result(cls, result: TerResult) -> "TERScore":
        return cls(result.score, result.num_edits, result.ref_length)


class TER(Metric):
    """sacreBLEU's ``TER``: the same arguments (tercom's ``normalized``, ``no_punct``,
    ``asian_support``, ``case_sensitive``), defaults and attributes (``tokenizer``,
    ``tokenizer_signature``), bleukit's numbers (equal, edits included). ``references`` (streams)
    are kept for ``corpus_score(hyps, None)``.
    """

    _OPTIONS_TYPE: ClassVar[Type[TerOptions]] = TerOptions
    _SCORE_TYPE: ClassVar[Type[TERScore]] = TERScore

    def __init__(
        self,
        normalized: bool = False,
        no_punct: bool = False,
        asian_support: bool = False,
        case_sensitive: bool = False,
        references: Optional[Sequence[Sequence[Optional[str]]]] = None,
    ) -> None:
        super().__init__()
        self.no_punct = no_punct
        self.normalized = normalized
        self.asian_support = asian_support
        self.case_sensitive = case_sensitive
        self._options()  # bad values fail here
        self.tokenizer = TercomTokenizer(
            normalized=normalized, no_punct=no_punct, asian_support=asian_support, case_sensitive=case_sensitive
        )
        self.tokenizer_signature = self.tokenizer.signature()
        if references is not None:
            self._ref_cache = self._cache_references(references)

    def _option_keywords(self) -> Dict[str, Any]:
        return {
            "normalized": self.normalized,
            "no_punct": self.no_punct,
            "asian_support": self.asian_support,
            "case_sensitive": self.case_sensitive,
        }
