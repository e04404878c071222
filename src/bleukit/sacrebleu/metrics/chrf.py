"""sacreBLEU's ``CHRF`` and ``CHRFScore`` on bleukit's chrF (:mod:`bleukit.metrics.chrf`).

>>> chrf = CHRF(word_order=2)
>>> print(chrf.corpus_score(["The cat sat on the mat."], [["The cat is on the mat."]]))
chrF2++ = 69.44
"""

from __future__ import annotations

from typing import Any, ClassVar, Dict, Optional, Sequence, Type, Union

from ...metrics.chrf import ChrfOptions, ChrfResult
from ...metrics.chrf.options import DEFAULT_BETA, DEFAULT_CHAR_ORDER, DEFAULT_WORD_ORDER
from .base import Metric, Score

__all__ = ["CHRF", "CHRFScore"]


class CHRFScore(Score):
    """sacreBLEU's ``CHRFScore``: ``score``, ``char_order``, ``word_order``, ``beta`` and the name
    (``chrF2``, ``chrF2++``).

    >>> CHRFScore(50.0, 6, 2, 2).name
    'chrF2++'
    """

    def __init__(self, score: float, char_order: int, word_order: int, beta: Union[int, float]) -> None:
        self.beta = beta
        self.char_order = char_order
        self.word_order = word_order
        super().__init__(ChrfOptions(char_order=char_order, word_order=word_order, beta=beta).name, score)

    @classmethod
    def _from_result(cls, result: ChrfResult) -> "CHRFScore":
        # the result names itself: no options object to build (a sentence_chrf call's cost)
        score = cls.__new__(cls)
        score.beta, score.char_order, score.word_order = result.beta, result.char_order, result.word_order
        Score.__init__(score, result.name, result.score)
        return score


class CHRF(Metric):
    """sacreBLEU's ``CHRF`` (``word_order=2`` is chrF++): the same arguments, defaults and attributes,
    bleukit's numbers (equal). ``references`` (streams) are kept for ``corpus_score(hyps, None)``."""

    CHAR_ORDER = DEFAULT_CHAR_ORDER
    WORD_ORDER = DEFAULT_WORD_ORDER
    BETA = DEFAULT_BETA
    _OPTIONS_TYPE: ClassVar[Type[ChrfOptions]] = ChrfOptions
    _SCORE_TYPE: ClassVar[Type[CHRFScore]] = CHRFScore

    def __init__(
        self,
        char_order: int = CHAR_ORDER,
        word_order: int = WORD_ORDER,
        beta: int = BETA,
        lowercase: bool = False,
        whitespace: bool = False,
        eps_smoothing: bool = False,
        references: Optional[Sequence[Sequence[Optional[str]]]] = None,
    ) -> None:
        super().__init__()
        self.beta = beta
        self.char_order = char_order
        self.word_order = word_order
        self.order = char_order + word_order
        self.lowercase = lowercase
        self.whitespace = whitespace
        self.eps_smoothing = eps_smoothing
        self._options()  # bad values fail here
        if references is not None:
            self._ref_cache = self._cache_references(references)

    def _option_keywords(self) -> Dict[str, Any]:
        return {
            "char_order": self.char_order,
            "word_order": self.word_order,
            "beta": self.beta,
            "lowercase": self.lowercase,
            "whitespace": self.whitespace,
            "eps_smoothing": self.eps_smoothing,
        }
