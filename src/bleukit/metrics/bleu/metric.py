"""BLEU through the metric protocol: :class:`BLEU` and :data:`METRIC`, its one instance.

>>> from bleukit.metrics.bleu.metric import METRIC
>>> METRIC.name
'bleu'
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, ClassVar, Dict, List, Optional, Sequence, Tuple, Type

from ..base import Metric
from ..fast import FastPaths
from .extract import one_sentence_row, summed_row, text_statistics
from .formula import native_float32_scores, native_scores, score_float32_sums, score_row, score_table, table_scores
from .kernel import native_systems_rows, native_systems_statistics, uses_native
from .options import BleuOptions
from .result import BleuResult
from .statistics import BleuStatistics, column_names

if TYPE_CHECKING:
    import numpy as np

__all__ = ["BLEU", "METRIC", "FAST"]


def _number(x: float) -> Any:
    x = float(x)
    return int(x) if x.is_integer() else x


@functools.lru_cache(maxsize=256)
def _signature(options: BleuOptions, nrefs: int) -> str:
    return options.signature(nrefs if nrefs >= 0 else "var")


def _systems_statistics(
    systems: List[List[str]], references: Sequence[Any], options: BleuOptions, threads: int
) -> List[BleuStatistics]:
    # the kernel tokenizes each sentence's references once for every system
    if uses_native(options):
        return native_systems_statistics(systems, references, options, threads)
    return [text_statistics(hyps, references, options, threads=threads) for hyps in systems]


def _systems_rows(
    systems: List[List[str]], references: Sequence[Any], options: BleuOptions
) -> Optional[Tuple[Any, Any]]:
    return native_systems_rows(systems, references, options) if uses_native(options) else None


def _pairwise_scores(hypotheses: List[str], references: List[str], options: BleuOptions, threads: int) -> "np.ndarray":
    from . import pairs

    # Each distinct sentence counted once, an inverted index, the compiled pair loop (.pairs).
    scores: np.ndarray = pairs.scores(pairs.text_pairs(hypotheses, references, options), options, threads)
    return scores


def _pairwise_statistics(
    hypotheses: List[str], references: List[str], options: BleuOptions, threads: int
) -> "np.ndarray":
    from . import pairs

    counted = pairs.text_pairs(hypotheses, references, options)
    tables = counted.tables
    rows: np.ndarray = pairs.expand(
        pairs.block_rows(tables, 0, len(tables.hyp_len), pairs.pair_kernel(), threads), counted)
    return rows


def _aggregate_scores(
    hypotheses: List[str], references: List[str], ref_weights: "np.ndarray", options: BleuOptions
) -> "np.ndarray":
    import numpy as np

    from . import pairs

    counted = pairs.text_pairs(hypotheses, references, options)
    # Equal references were counted once: their weights add up.
    weights = np.bincount(counted.ref_index, weights=ref_weights, minlength=len(counted.tables.ref_len))
    scores: np.ndarray = pairs.aggregate_scores(counted, weights, options)[counted.hyp_index]
    return scores


def _self_statistics(texts: List[str], options: BleuOptions, threads: int) -> BleuStatistics:
    import numpy as np

    from . import pairs

    # Each distinct text counted once; every clip from three numbers per n-gram (.pairs.self_rows).
    rows = pairs.self_rows(pairs.text_pairs(texts, texts, options))
    return BleuStatistics(rows, np.full(len(texts), len(texts) - 1, dtype=np.int64), options.max_ngram_order)


#: BLEU's fast paths: the kernel reads the caller's reference entries in place and sums as it
#: counts; one kernel call per sentence; systems counted against references tokenized once; the
#: bootstrap's and randomization's formula in C; pairs and Self-BLEU from counts made once.
FAST = FastPaths(
    reads_reference_entries=uses_native,
    summed_row=summed_row,
    sentence_row=one_sentence_row,
    systems_statistics=_systems_statistics,
    systems_rows=_systems_rows,
    native_float32_scores=native_float32_scores,
    native_scores=native_scores,
    pairwise_scores=_pairwise_scores,
    pairwise_statistics=_pairwise_statistics,
    self_statistics=_self_statistics,
    aggregate_scores=_aggregate_scores,
)


class BLEU(Metric[BleuOptions, BleuStatistics, BleuResult]):
    """BLEU through the metric protocol (one instance: :data:`METRIC`)."""

    name: ClassVar[str] = "bleu"
    options_type: ClassVar[Type[BleuOptions]] = BleuOptions
    statistics_type: ClassVar[Type[BleuStatistics]] = BleuStatistics
    fast: ClassVar[Optional[FastPaths]] = FAST

    def columns(self, options: BleuOptions) -> Tuple[str, ...]:
        return column_names(options.max_ngram_order)

    def layout(self, options: BleuOptions) -> Dict[str, Any]:
        return {"max_ngram_order": options.max_ngram_order}

    def statistics(
        self, hypotheses: List[str], references: Sequence[Any], options: BleuOptions, *, threads: int = 1
    ) -> BleuStatistics:
        # The kernel counts on its own threads; the Python engine counts in one.
        return text_statistics(hypotheses, references, options, threads=threads)

    def row_result(self, row: Sequence[int], nrefs: int, options: BleuOptions) -> BleuResult:
        score, precisions, bp, counts, totals = score_row(row, options)
        if options.smooth_method == "add-k":  # k added: the counts may be fractions
            counts, totals = [_number(c) for c in counts], [_number(t) for t in totals]
        else:
            n = options.max_ngram_order
            counts, totals = [int(c) for c in row[2 : 2 + n]], [int(t) for t in row[2 + n :]]
        return BleuResult(score, counts, totals, precisions, bp, int(row[0]), int(row[1]),
                          _signature(options, int(nrefs)), options)

    def scores(self, rows: Any, options: BleuOptions) -> Any:
        return table_scores(rows, options)

    def float32_scores(self, sums: np.ndarray, options: BleuOptions) -> Any:
        return score_float32_sums(sums, options).score

    def result(self, statistics: BleuStatistics, options: BleuOptions) -> BleuResult:
        self.check_statistics(statistics, options)
        summed = statistics.summed()
        return self.row_result(summed.rows[0].tolist(), int(summed.nrefs[0]), options)

    def sentence_results(self, statistics: BleuStatistics, options: BleuOptions) -> List[BleuResult]:
        # One call of the formula for every row (not one per row).
        self.check_statistics(statistics, options)
        return self._results(statistics, options)

    def _results(self, stats: BleuStatistics, options: BleuOptions) -> List[BleuResult]:
        out = score_table(stats.rows, options)
        results = []
        columns = zip(out.score.tolist(), out.counts.tolist(), out.totals.tolist(), out.precisions.tolist(),
                      out.bp.tolist(), stats.sys_len.tolist(), stats.ref_len.tolist(), stats.nrefs.tolist())
        for score, counts, totals, precisions, bp, sys_len, ref_len, nrefs in columns:
            results.append(BleuResult(
                score=score, counts=[_number(c) for c in counts], totals=[_number(t) for t in totals],
                precisions=precisions, bp=bp, sys_len=sys_len, ref_len=ref_len, signature=_signature(options, nrefs),
                options=options,
            ))
        return results


#: The BLEU metric.
METRIC = BLEU()
