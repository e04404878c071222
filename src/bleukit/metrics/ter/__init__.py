"""Translation edit rate (TER), exactly as sacreBLEU 2.6 computes it (tercom's shifts and all).

The pieces, each in its own module:

- :mod:`.options`: :class:`TerOptions` (tercom's four switches) and the signature string;
- :mod:`.tokenizer`: tercom's normalisation and tokenisation (:class:`TercomTokenizer`);
- :mod:`.reference`: the pure-Python edit distance with block shifts, the exact reference;
- :mod:`.extract`: the integer counts of a batch from the compiled kernel when it is built;
- :mod:`.statistics`: :class:`TerStatistics`, the protocol's table (edits, average reference length);
- :mod:`.formula`: corpus and sentence scores from a table;
- :mod:`.result`: :class:`TerResult`.

Lower is better: ``METRIC.higher_is_better`` is ``False``, which paired tests and rankings read.

>>> options = TerOptions()
>>> stats = METRIC.statistics(["the cat sat on the mat"], [["the mat the cat sat on"]], options)
>>> METRIC.result(stats, options).score
16.666666666666664
"""

from __future__ import annotations

from typing import Any, ClassVar, Dict, List, Sequence, Tuple, Type

from ..base import Metric
from .options import TerOptions
from .result import TerResult
from .statistics import COLUMNS, TerStatistics, from_counts

# The extractor and formula (and numpy) are imported when text is counted, not with the package:
# the command line imports every metric's package to build its parser.

__all__ = ["TER", "METRIC", "TerOptions", "TerStatistics", "TerResult"]


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
