"""BLEU (Papineni et al., 2002) exactly as sacreBLEU 2.x computes it: the first metric of the protocol.

- :mod:`.options`: :class:`BleuOptions`, every BLEU option with its default, and the signature;
- :mod:`.statistics`: :class:`BleuStatistics` (``sys_len, ref_len, counts 1..N, totals 1..N``)
  and the pure-Python reference counter;
- :mod:`.extract`: text → table (the compiled kernel in :mod:`.kernel`, or the reference);
- :mod:`.formula`: the formula on numpy or torch arrays, vectorised over rows;
- :mod:`.result`: :class:`BleuResult`.

Token ids become tables in :mod:`bleukit.ids`, pairs of sentences in :mod:`bleukit.pairwise`.

>>> options = BleuOptions().sentence_level()
>>> stats = METRIC.statistics(["the cat sat"], [["the cat sat down"]], options)
>>> round(METRIC.result(stats, options).score, 4)
71.6531
"""

from __future__ import annotations

from typing import Any, ClassVar, Dict, List, Tuple, Type

import numpy as np

from ..base import Metric
from . import pairs
from .extract import text_statistics
from .formula import score_table
from .kernel import uses_native
from .options import BleuOptions
from .result import BleuResult
from .statistics import BleuStatistics, column_names

__all__ = ["BLEU", "METRIC", "BleuOptions", "BleuStatistics", "BleuResult"]


def _number(x: float) -> Any:
    x = float(x)
    return int(x) if x.is_integer() else x


class BLEU(Metric[BleuOptions, BleuStatistics, BleuResult]):
    """BLEU through the metric protocol (one instance: :data:`METRIC`)."""

    name: ClassVar[str] = "bleu"
    options_type: ClassVar[Type[BleuOptions]] = BleuOptions
    statistics_type: ClassVar[Type[BleuStatistics]] = BleuStatistics

    def columns(self, options: BleuOptions) -> Tuple[str, ...]:
        return column_names(options.max_ngram_order)

    def layout(self, options: BleuOptions) -> Dict[str, Any]:
        return {"max_ngram_order": options.max_ngram_order}

    def chunks_in_threads(self, options: BleuOptions) -> bool:
        # Only the kernel releases the GIL; the Python engine counts in one thread.
        return uses_native(options)

    def statistics(
        self, hypotheses: List[str], references: List[List[str]], options: BleuOptions, *, threads: int = 1
    ) -> BleuStatistics:
        return text_statistics(hypotheses, references, options)

    def scores(self, rows: Any, options: BleuOptions) -> Any:
        return score_table(rows, options).score

    def pairwise_scores(
        self, hypotheses: List[str], references: List[str], options: BleuOptions, *, threads: int = 1
    ) -> np.ndarray:
        # Each distinct sentence counted once, an inverted index, the compiled pair loop (.pairs).
        scores: np.ndarray = pairs.scores(pairs.text_pairs(hypotheses, references, options), options, threads)
        return scores

    def pairwise_statistics(
        self, hypotheses: List[str], references: List[str], options: BleuOptions, *, threads: int = 1
    ) -> np.ndarray:
        counted = pairs.text_pairs(hypotheses, references, options)
        tables = counted.tables
        rows: np.ndarray = pairs.expand(
            pairs.block_rows(tables, 0, len(tables.hyp_len), pairs.pair_kernel(), threads), counted)
        return rows

    def aggregate_scores(
        self, hypotheses: List[str], references: List[str], ref_weights: np.ndarray, options: BleuOptions
    ) -> np.ndarray:
        counted = pairs.text_pairs(hypotheses, references, options)
        # Equal references were counted once: their weights add up.
        weights = np.bincount(counted.ref_index, weights=ref_weights, minlength=len(counted.tables.ref_len))
        scores: np.ndarray = pairs.aggregate_scores(counted, weights, options)[counted.hyp_index]
        return scores

    def self_statistics(self, texts: List[str], options: BleuOptions, *, threads: int = 1) -> BleuStatistics:
        # Each distinct text counted once; every clip from three numbers per n-gram (.pairs.self_rows).
        rows = pairs.self_rows(pairs.text_pairs(texts, texts, options))
        return BleuStatistics(rows, np.full(len(texts), len(texts) - 1, dtype=np.int64), options.max_ngram_order)

    def result(self, statistics: BleuStatistics, options: BleuOptions) -> BleuResult:
        self.check_statistics(statistics, options)
        return self._results(statistics.summed(), options)[0]

    def sentence_results(self, statistics: BleuStatistics, options: BleuOptions) -> List[BleuResult]:
        # One call of the formula for every row (not one per row).
        self.check_statistics(statistics, options)
        return self._results(statistics, options)

    def _results(self, stats: BleuStatistics, options: BleuOptions) -> List[BleuResult]:
        out = score_table(stats.rows, options)
        signatures: Dict[int, str] = {}
        results = []
        columns = zip(out.score.tolist(), out.counts.tolist(), out.totals.tolist(), out.precisions.tolist(),
                      out.bp.tolist(), stats.sys_len.tolist(), stats.ref_len.tolist(), stats.nrefs.tolist())
        for score, counts, totals, precisions, bp, sys_len, ref_len, nrefs in columns:
            if nrefs not in signatures:
                signatures[nrefs] = options.signature(nrefs if nrefs >= 0 else "var")
            results.append(BleuResult(
                score=score, counts=[_number(c) for c in counts], totals=[_number(t) for t in totals],
                precisions=precisions, bp=bp, sys_len=sys_len, ref_len=ref_len, signature=signatures[nrefs],
                options=options,
            ))
        return results


#: The BLEU metric.
METRIC = BLEU()
