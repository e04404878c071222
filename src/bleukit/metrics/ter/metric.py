"""TER through the metric protocol: :class:`TER` and :data:`METRIC`, its one instance.

>>> from bleukit.metrics.ter.metric import METRIC
>>> METRIC.name
'ter'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Dict, List, Optional, Sequence, Tuple, Type

from ..base import Metric
from .options import TerOptions
from .result import TerResult
from .statistics import COLUMNS, TerStatistics, from_counts

if TYPE_CHECKING:
    import numpy as np

__all__ = ["TER", "METRIC"]


class TER(Metric[TerOptions, TerStatistics, TerResult]):
    """TER through the metric protocol (one instance: :data:`METRIC`)."""

    name: ClassVar[str] = "ter"
    options_type: ClassVar[Type[TerOptions]] = TerOptions
    statistics_type: ClassVar[Type[TerStatistics]] = TerStatistics
    higher_is_better: ClassVar[bool] = False

    def columns(self, options: TerOptions) -> Tuple[str, ...]:
        return COLUMNS

    def layout(self, options: TerOptions) -> Dict[str, Any]:
        return {}

    def statistics(
        self, hypotheses: List[str], references: Sequence[Any], options: TerOptions, *, threads: int = 1
    ) -> TerStatistics:
        from .extract import ter_statistics

        return from_counts(ter_statistics(hypotheses, references, options, threads=threads))

    def scores(self, rows: Any, options: TerOptions) -> Any:
        from .formula import sentence_ters

        return sentence_ters(rows)

    def float32_rows(self, rows: "np.ndarray", options: TerOptions) -> "Optional[np.ndarray]":
        # sacreBLEU's rows are [edits, average reference length] (a float), held in float32.
        import numpy as np

        from .formula import average_lengths

        return np.stack([np.asarray(rows[:, 0], dtype=np.float32), average_lengths(rows).astype(np.float32)], axis=1)

    def float32_scores(self, sums: "np.ndarray", options: TerOptions) -> Any:
        from .formula import float32_sums_scores

        return float32_sums_scores(sums)

    def result(self, statistics: TerStatistics, options: TerOptions) -> TerResult:
        from .formula import corpus_totals, ter_score

        self.check_statistics(statistics, options)
        # The sentences' averages added in order, as sacreBLEU adds them (not the summed row's division).
        edits, ref_length = corpus_totals(statistics.rows)
        return TerResult(score=ter_score(edits, ref_length), num_edits=edits, ref_length=ref_length,
                         signature=options.signature(statistics.nrefs_signature), options=options)

    def sentence_results(self, statistics: TerStatistics, options: TerOptions) -> List[TerResult]:
        from .formula import average_lengths, sentence_ters

        self.check_statistics(statistics, options)
        scores = sentence_ters(statistics.rows).tolist()
        lengths = average_lengths(statistics.rows).tolist()
        signatures: Dict[Any, str] = {}
        out = []
        for score, edits, length, nrefs in zip(scores, statistics.rows[:, 0].tolist(), lengths,
                                               statistics.nrefs.tolist()):
            key = nrefs if nrefs >= 0 else "var"
            if key not in signatures:
                signatures[key] = options.signature(key)
            out.append(TerResult(score=score, num_edits=edits, ref_length=length,
                                 signature=signatures[key], options=options))
        return out


#: The TER metric.
METRIC = TER()
