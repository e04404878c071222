"""chrF and chrF++ (Popović 2015, 2017) exactly as sacreBLEU 2.x computes them.

- :mod:`.options`: :class:`ChrfOptions` (sacreBLEU's defaults; ``word_order=2`` is chrF++);
- :mod:`.statistics`: :class:`ChrfStatistics`, per order the hypothesis, reference and matched
  n-grams of the best reference;
- :mod:`.extract`: text → table (the compiled kernel, or :mod:`.reference`, its pure-Python twin),
  and pairwise statistics and scores;
- :mod:`.aggregate`: reference aggregation (scores against one expected reference, for MBR);
- :mod:`.formula`: the F-score on numpy or torch arrays, vectorised over rows;
- :mod:`.result`: :class:`ChrfResult`.

>>> options = ChrfOptions(word_order=2)
>>> stats = METRIC.statistics(["The cat sat on the mat."], [["The cat is on the mat."]], options)
>>> round(METRIC.result(stats, options).score, 4)
69.437
"""

from __future__ import annotations

from typing import Any, ClassVar, Dict, List, Tuple, Type

import numpy as np

from ..base import Metric
from . import aggregate
from .extract import chrf_statistics, pairwise_chrf, pairwise_chrf_statistics
from .formula import sentence_scores
from .options import ChrfOptions
from .result import ChrfResult
from .statistics import ChrfStatistics, column_names

__all__ = ["CHRF", "METRIC", "ChrfOptions", "ChrfStatistics", "ChrfResult"]

#: Pairs scored per block when choosing each text's best other text (bounds the scores in memory).
_SELF_BLOCK_PAIRS = 1 << 22


class CHRF(Metric[ChrfOptions, ChrfStatistics, ChrfResult]):
    """chrF through the metric protocol (one instance: :data:`METRIC`)."""

    name: ClassVar[str] = "chrf"
    options_type: ClassVar[Type[ChrfOptions]] = ChrfOptions
    statistics_type: ClassVar[Type[ChrfStatistics]] = ChrfStatistics

    def columns(self, options: ChrfOptions) -> Tuple[str, ...]:
        return column_names(options.char_order, options.word_order)

    def layout(self, options: ChrfOptions) -> Dict[str, Any]:
        return {"char_order": options.char_order, "word_order": options.word_order}

    def score_name(self, options: ChrfOptions) -> str:
        return options.name

    def statistics(
        self, hypotheses: List[str], references: List[List[str]], options: ChrfOptions, *, threads: int = 1
    ) -> ChrfStatistics:
        rows = chrf_statistics(hypotheses, references, options, threads=threads)
        nrefs = np.fromiter((len(r) for r in references), dtype=np.int64, count=len(references))
        return ChrfStatistics(rows, nrefs, options.char_order, options.word_order)

    def scores(self, rows: Any, options: ChrfOptions) -> Any:
        return sentence_scores(rows, options)

    def pairwise_scores(
        self, hypotheses: List[str], references: List[str], options: ChrfOptions, *, threads: int = 1
    ) -> np.ndarray:
        # Each sentence's n-grams counted once, then the pairs (the kernel's pairwise loop).
        scores: np.ndarray = pairwise_chrf(hypotheses, references, options, threads=threads)
        return scores

    def self_statistics(self, texts: List[str], options: ChrfOptions, *, threads: int = 1) -> ChrfStatistics:
        # sacreBLEU keeps the statistics of the first reference with the best sentence score, which
        # is the first best off-diagonal entry of a row of the pairwise matrix (each text counted
        # once there); then one statistics pass over the n chosen pairs.
        n = len(texts)
        best = np.empty(n, dtype=np.int64)
        step = max(1, _SELF_BLOCK_PAIRS // n)
        for i0 in range(0, n, step):
            i1 = min(n, i0 + step)
            scores = pairwise_chrf(texts[i0:i1], texts, options, threads=threads)
            scores[np.arange(i1 - i0), np.arange(i0, i1)] = -np.inf
            best[i0:i1] = scores.argmax(axis=1)
        rows = chrf_statistics(texts, [[texts[j]] for j in best.tolist()], options, threads=threads)
        return ChrfStatistics(rows, np.full(n, n - 1, dtype=np.int64), options.char_order, options.word_order)

    def pairwise_statistics(
        self, hypotheses: List[str], references: List[str], options: ChrfOptions, *, threads: int = 1
    ) -> np.ndarray:
        rows: np.ndarray = pairwise_chrf_statistics(hypotheses, references, options, threads=threads)
        return rows

    def aggregate_scores(
        self, hypotheses: List[str], references: List[str], ref_weights: np.ndarray, options: ChrfOptions
    ) -> np.ndarray:
        return aggregate.aggregate_scores(hypotheses, references, ref_weights, options)

    def result(self, statistics: ChrfStatistics, options: ChrfOptions) -> ChrfResult:
        self.check_statistics(statistics, options)
        return self._results(statistics.summed(), options)[0]

    def sentence_results(self, statistics: ChrfStatistics, options: ChrfOptions) -> List[ChrfResult]:
        self.check_statistics(statistics, options)
        return self._results(statistics, options)

    def _results(self, stats: ChrfStatistics, options: ChrfOptions) -> List[ChrfResult]:
        signatures: Dict[int, str] = {}
        out = []
        scores = np.asarray(sentence_scores(stats.rows, options)).tolist()
        for score, row, nrefs in zip(scores, stats.rows.tolist(), stats.nrefs.tolist()):
            if nrefs not in signatures:
                signatures[nrefs] = options.signature(nrefs if nrefs >= 0 else "var")
            out.append(ChrfResult(
                score=score, char_order=options.char_order, word_order=options.word_order, beta=options.beta,
                hyp_ngrams=row[0::3], ref_ngrams=row[1::3], matches=row[2::3],
                signature=signatures[nrefs], options=options,
            ))
        return out


#: The chrF metric.
METRIC = CHRF()
