"""chrF through the metric protocol: :class:`CHRF` and :data:`METRIC`, its one instance.

>>> from bleukit.metrics.chrf.metric import METRIC
>>> METRIC.name
'chrf'
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, ClassVar, Dict, List, Optional, Sequence, Tuple, Type

from ..base import Metric
from ..fast import FastPaths
from .formula import score_row, sentence_scores
from .options import ChrfOptions
from .result import ChrfResult
from .statistics import ChrfStatistics, column_names

if TYPE_CHECKING:
    import numpy as np

__all__ = ["CHRF", "METRIC", "FAST"]

#: Pairs scored per block when choosing each text's best other text (bounds the scores in memory).
_SELF_BLOCK_PAIRS = 1 << 22


@functools.lru_cache(maxsize=256)
def _signature(options: ChrfOptions, nrefs: int) -> str:
    return options.signature(nrefs if nrefs >= 0 else "var")


def _sentence_row(hypothesis: str, references: Any, options: ChrfOptions) -> Tuple[List[int], int]:
    from .extract import sentence_row

    return sentence_row(hypothesis, references, options)  # one kernel call: no table


def _pairwise_scores(hypotheses: List[str], references: List[str], options: ChrfOptions, threads: int) -> "np.ndarray":
    from .extract import pairwise_chrf

    # Each sentence's n-grams counted once, then the pairs (the kernel's pairwise loop).
    scores: np.ndarray = pairwise_chrf(hypotheses, references, options, threads=threads)
    return scores


def _self_statistics(texts: List[str], options: ChrfOptions, threads: int) -> ChrfStatistics:
    # sacreBLEU keeps the statistics of the first reference with the best sentence score, which
    # is the first best off-diagonal entry of a row of the pairwise matrix (each text counted
    # once there); then one statistics pass over the n chosen pairs.
    import numpy as np

    from .extract import chrf_statistics, pairwise_chrf

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


def _pairwise_statistics(
    hypotheses: List[str], references: List[str], options: ChrfOptions, threads: int
) -> "np.ndarray":
    from .extract import pairwise_chrf_statistics

    rows: np.ndarray = pairwise_chrf_statistics(hypotheses, references, options, threads=threads)
    return rows


def _aggregate_scores(
    hypotheses: List[str], references: List[str], ref_weights: "np.ndarray", options: ChrfOptions
) -> "np.ndarray":
    from . import aggregate

    return aggregate.aggregate_scores(hypotheses, references, ref_weights, options)


#: chrF's fast paths: one kernel call per sentence; pairs and Self-chrF from each sentence's
#: n-grams counted once; reference aggregation.
FAST = FastPaths(
    sentence_row=_sentence_row,
    pairwise_scores=_pairwise_scores,
    pairwise_statistics=_pairwise_statistics,
    self_statistics=_self_statistics,
    aggregate_scores=_aggregate_scores,
)


class CHRF(Metric[ChrfOptions, ChrfStatistics, ChrfResult]):
    """chrF through the metric protocol (one instance: :data:`METRIC`)."""

    name: ClassVar[str] = "chrf"
    options_type: ClassVar[Type[ChrfOptions]] = ChrfOptions
    statistics_type: ClassVar[Type[ChrfStatistics]] = ChrfStatistics
    fast: ClassVar[Optional[FastPaths]] = FAST

    def columns(self, options: ChrfOptions) -> Tuple[str, ...]:
        return column_names(options.char_order, options.word_order)

    def layout(self, options: ChrfOptions) -> Dict[str, Any]:
        return {"char_order": options.char_order, "word_order": options.word_order}

    def score_name(self, options: ChrfOptions) -> str:
        return options.name

    def statistics(
        self, hypotheses: List[str], references: Sequence[Any], options: ChrfOptions, *, threads: int = 1
    ) -> ChrfStatistics:
        import numpy as np

        from .extract import chrf_statistics

        rows = chrf_statistics(hypotheses, references, options, threads=threads)
        nrefs = np.fromiter((len(r) for r in references), dtype=np.int64, count=len(references))
        return ChrfStatistics(rows, nrefs, options.char_order, options.word_order)

    def row_result(self, row: Sequence[int], nrefs: int, options: ChrfOptions) -> ChrfResult:
        return ChrfResult(
            score=score_row(row, options), char_order=options.char_order, word_order=options.word_order,
            beta=options.beta, hyp_ngrams=list(row[0::3]), ref_ngrams=list(row[1::3]), matches=list(row[2::3]),
            signature=_signature(options, int(nrefs)), options=options,
        )

    def scores(self, rows: Any, options: ChrfOptions) -> Any:
        return sentence_scores(rows, options)

    def float32_scores(self, sums: np.ndarray, options: ChrfOptions) -> Any:
        # sacreBLEU's bootstrap goes on in float32 from its float32 sums: its scores are float32.
        from .float32 import float32_sums_scores

        return float32_sums_scores(sums, options)

    def result(self, statistics: ChrfStatistics, options: ChrfOptions) -> ChrfResult:
        self.check_statistics(statistics, options)
        return self._results(statistics.summed(), options)[0]

    def sentence_results(self, statistics: ChrfStatistics, options: ChrfOptions) -> List[ChrfResult]:
        self.check_statistics(statistics, options)
        return self._results(statistics, options)

    def _results(self, stats: ChrfStatistics, options: ChrfOptions) -> List[ChrfResult]:
        signatures: Dict[int, str] = {}
        out = []
        import numpy as np

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
