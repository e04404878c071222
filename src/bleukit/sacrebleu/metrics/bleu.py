"""sacreBLEU's ``BLEU`` and ``BLEUScore`` on bleukit's BLEU (:mod:`bleukit.metrics.bleu`).

>>> bleu = BLEU(trg_lang="zh")
>>> bleu.tokenize, bleu.corpus_score(["我喜欢猫。"], [["我喜欢狗。"]]).score
('zh', 42.72870063962342)
>>> BLEU.compute_bleu([9, 7, 5, 3], [10, 8, 6, 4], 11, 11).score
83.75922397086269
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar, Dict, List, Optional, Sequence, Type

import numpy as np

from ...metrics.bleu import METRIC, BleuOptions
from ...metrics.bleu.options import DEFAULT_MAX_NGRAM_ORDER, SMOOTH_DEFAULTS
from ...metrics.bleu.result import BleuResult
from ...metrics.bleu.statistics import BleuStatistics
from ...tokenizers import DEFAULT_TOKENIZER, TOKENIZERS, Tokenizer, get_tokenizer
from ...tokenizers.languages import TARGET_TOKENIZERS, tokenizer_for_language
from .base import Metric, Score, sacrelogger

__all__ = ["BLEU", "BLEUScore", "MAX_NGRAM_ORDER"]

#: The default largest n-gram order.
MAX_NGRAM_ORDER = DEFAULT_MAX_NGRAM_ORDER


class BLEUScore(Score):
    """sacreBLEU's ``BLEUScore``: ``score``, ``counts``, ``totals``, ``precisions``, ``bp``,
    ``sys_len``, ``ref_len``, ``ratio``, ``prec_str``.

    >>> print(BLEUScore(100.0, [4, 3, 2, 1], [4, 3, 2, 1], [100.0] * 4, 1.0, 4, 4))
    BLEU = 100.00 100.0/100.0/100.0/100.0 (BP = 1.000 ratio = 1.000 hyp_len = 4 ref_len = 4)
    """

    def __init__(
        self,
        score: float,
        counts: List[Any],
        totals: List[Any],
        precisions: List[float],
        bp: float,
        sys_len: int,
        ref_len: int,
    ) -> None:
        self._take(
            BleuResult(
                score=score,
                counts=counts,
                totals=totals,
                precisions=precisions,
                bp=bp,
                sys_len=sys_len,
                ref_len=ref_len,
                signature="",
            )
        )

    @classmethod
    def _from_result(cls, result: BleuResult) -> "BLEUScore":
        score = cls.__new__(cls)
        score._take(result)
        return score

    def _take(self, result: BleuResult) -> None:
        super().__init__(result.name, result.score)
        self.bp = result.bp
        self.counts = result.counts
        self.totals = result.totals
        self.sys_len = result.sys_len
        self.ref_len = result.ref_len
        self.precisions = result.precisions
        self.ratio = result.ratio if result.ref_len else 0  # sacreBLEU's int 0 without references
        self._verbose = result.verbose_text()
        self.prec_str = self._verbose.partition(" ")[0]


class BLEU(Metric):
    """sacreBLEU's ``BLEU``: the same arguments, defaults and attributes, bleukit's numbers (equal).

    ``tokenize=None`` picks the target language's tokenizer (``trg_lang``: ``zh``, ``ja-mecab``,
    ``ko-mecab``), else ``13a``; the tokenizers are :attr:`TOKENIZERS` (sacreBLEU's but ``spm``
    and ``spBLEU-1K``). ``references`` (streams) are kept for ``corpus_score(hyps, None)``.
    """

    SMOOTH_DEFAULTS: Dict[str, Optional[float]] = dict(SMOOTH_DEFAULTS)
    TOKENIZERS = TOKENIZERS.keys()
    TOKENIZER_DEFAULT = DEFAULT_TOKENIZER
    _TOKENIZER_MAP = TARGET_TOKENIZERS
    _OPTIONS_TYPE: ClassVar[Type[BleuOptions]] = BleuOptions
    _SCORE_TYPE: ClassVar[Type[BLEUScore]] = BLEUScore

    def __init__(
        self,
        lowercase: bool = False,
        force: bool = False,
        tokenize: Optional[str] = None,
        smooth_method: str = "exp",
        smooth_value: Optional[float] = None,
        max_ngram_order: int = MAX_NGRAM_ORDER,
        effective_order: bool = False,
        trg_lang: str = "",
        references: Optional[Sequence[Sequence[Optional[str]]]] = None,
    ) -> None:
        super().__init__()
        self._force = force
        self.trg_lang = trg_lang
        self.lowercase = lowercase
        self.smooth_value = smooth_value
        self.smooth_method = smooth_method
        self.max_ngram_order = max_ngram_order
        self.effective_order = effective_order
        # the one table of target languages, and sacreBLEU's advice to its logger
        self.tokenize = tokenizer_for_language(tokenize, trg_lang or None, warn=sacrelogger.warning)
        self._options()  # bad values fail here, as sacreBLEU's checks do
        if references is not None:
            self._ref_cache = self._cache_references(references)

    def _option_keywords(self) -> Dict[str, Any]:
        return {
            "tokenize": self.tokenize,
            "lowercase": self.lowercase,
            "smooth_method": self.smooth_method,
            "smooth_value": self.smooth_value,
            "max_ngram_order": self.max_ngram_order,
            "effective_order": self.effective_order,
        }

    @property
    def tokenizer(self) -> Tokenizer:
        """The tokenizer object (``tokenizer(line)`` gives the space-separated tokens)."""
        return _tokenizer(self.tokenize)

    @property
    def tokenizer_signature(self) -> str:
        """The ``tok:`` signature field (MeCab tokenizers add their version)."""
        options = self._options()
        assert isinstance(options, BleuOptions)
        return options.tokenizer_signature()

    @staticmethod
    def compute_bleu(
        correct: Sequence[int],
        total: Sequence[int],
        sys_len: int,
        ref_len: int,
        smooth_method: str = "none",
        smooth_value: Optional[float] = None,
        effective_order: bool = False,
        max_ngram_order: int = MAX_NGRAM_ORDER,
    ) -> BLEUScore:
        """BLEU from its statistics (matches and n-gram totals per order, lengths), by bleukit's formula.
        The counts are integers (a ``ValueError`` otherwise); the lists given are not modified."""
        options = BleuOptions(
            smooth_method=smooth_method,
            smooth_value=smooth_value,
            effective_order=effective_order,
            max_ngram_order=max_ngram_order,
        )
        for name, values in (("correct", correct), ("total", total)):
            if len(values) != max_ngram_order:
                raise ValueError(f"{name} has {len(values)} values, max_ngram_order is {max_ngram_order}")
        row = [sys_len, ref_len, *correct, *total]
        if any(float(v) != int(v) for v in row):
            raise ValueError(f"compute_bleu takes integer statistics, got {row}")
        table = BleuStatistics(np.array([[int(v) for v in row]]), np.ones(1), max_ngram_order=max_ngram_order)
        return BLEUScore._from_result(METRIC.result(table, options))

    def _check_system(self, hypotheses: List[str]) -> None:
        if not self._force and sum(1 for h in hypotheses if h.endswith(" .")) >= 100:
            sacrelogger.warning("That's 100 lines that end in a tokenized period ('.')")
            sacrelogger.warning("It looks like you forgot to detokenize your test data, which may hurt your score.")
            sacrelogger.warning(
                "If you insist your data is detokenized, or don't care, you can suppress this "
                "message with the `force` parameter."
            )

    def sentence_score(self, hypothesis: str, references: Sequence[Optional[str]]) -> BLEUScore:
        """BLEU of one sentence, with this object's options (sacreBLEU recommends ``effective_order``)."""
        if not self.effective_order:
            sacrelogger.warning("It is recommended to enable `effective_order` for sentence-level BLEU.")
        score: BLEUScore = super().sentence_score(hypothesis, references)
        return score


@functools.lru_cache(maxsize=None)
def _tokenizer(name: str) -> Tokenizer:
    return get_tokenizer(name)
