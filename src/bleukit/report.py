"""The report of a scored corpus: corpus result plus one row per sentence, built once.

The app's page and JSON download and any tool that wants per-sentence detail read this one model
instead of slicing statistics rows themselves. Sentence scores use the corpus options at sentence
level (:meth:`BleuOptions.sentence_level`), as ``sacrebleu.sentence_bleu`` does.

>>> from bleukit import BleuOptions
>>> report = score_report(["The cat sat.", "A dog"], ["The cat sat.", "The dog"], BleuOptions())
>>> round(report.result.score, 4), [round(s.bleu, 2) for s in report.sentences]
(88.914, [100.0, 50.0])
>>> sorted(report.to_dict())
['corpus', 'formatted', 'options', 'sentence_signature', 'sentences']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Sequence, Tuple

from .bleu import score_statistics
from .engine import text_statistics
from .inputs import check_hypotheses, check_references
from .options import BleuOptions
from .result import BLEUResult
from .scoring import score_table
from .statistics import BleuStatistics

__all__ = ["SentenceReport", "CorpusReport", "score_report"]


@dataclass(frozen=True)
class SentenceReport:
    """One sentence: its sentence BLEU and the integers it came from (line numbers start at 1)."""

    line: int
    bleu: float
    sys_len: int
    ref_len: int
    counts: Tuple[int, ...]
    totals: Tuple[int, ...]
    precisions: Tuple[float, ...]
    bp: float
    hypothesis: str
    references: Tuple[str, ...]

    def to_dict(self) -> Dict[str, Any]:
        return {
            "line": self.line,
            "bleu": self.bleu,
            "sys_len": self.sys_len,
            "ref_len": self.ref_len,
            "counts": list(self.counts),
            "totals": list(self.totals),
            "precisions": list(self.precisions),
            "bp": self.bp,
            "hypothesis": self.hypothesis,
            "references": list(self.references),
        }


@dataclass(frozen=True)
class CorpusReport:
    """Corpus result, the options, the statistics table and a :class:`SentenceReport` per line."""

    result: BLEUResult
    options: BleuOptions
    statistics: BleuStatistics
    sentences: Tuple[SentenceReport, ...]

    @property
    def sentence_options(self) -> BleuOptions:
        return self.options.sentence_level()

    @property
    def sentence_signature(self) -> str:
        return self.sentence_options.signature(self.statistics.nrefs_signature)

    def sentence_results(self) -> List[BLEUResult]:
        """Each sentence as a :class:`BLEUResult` (what ``sentence_bleu`` returns for it), with the
        sentence options' signature and the sentence's own reference count.

        >>> r = score_report(["a b", "c"], [["a b", "x"], "d"], BleuOptions())
        >>> [s.signature.split("|")[:3] for s in r.sentence_results()]
        [['nrefs:2', 'case:mixed', 'eff:yes'], ['nrefs:1', 'case:mixed', 'eff:yes']]
        """
        sent = self.sentence_options
        return [
            BLEUResult(
                score=s.bleu,
                counts=list(s.counts),
                totals=list(s.totals),
                precisions=list(s.precisions),
                bp=s.bp,
                sys_len=s.sys_len,
                ref_len=s.ref_len,
                signature=sent.signature(len(s.references)),
                options=sent,
            )
            for s in self.sentences
        ]

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready form: ``corpus`` (the result), ``formatted`` (sacreBLEU's line), ``options``
        (with the smoothing value in force), ``sentence_signature`` and ``sentences``."""
        options = self.options.to_dict()
        options["smooth_value"] = self.options.resolved_smooth_value
        if options["weights"] is not None:
            options["weights"] = list(options["weights"])
        return {
            "corpus": self.result.to_dict(),
            "formatted": self.result.format(),
            "options": options,
            "sentence_signature": self.sentence_signature,
            "sentences": [s.to_dict() for s in self.sentences],
        }


def score_report(hypotheses: Sequence[str], references: Sequence[Any], options: BleuOptions) -> CorpusReport:
    """Score a corpus and every sentence in it, from one statistics table.

    >>> r = score_report(["a b c"], ["a b d"], BleuOptions(max_ngram_order=2))
    >>> r.sentences[0].counts, r.sentences[0].totals
    ((2, 1), (3, 2))
    """
    hyps = check_hypotheses(hypotheses)
    refs = check_references(references, len(hyps))
    stats = text_statistics(hyps, refs, options)
    result = score_statistics(stats, options)
    parts = score_table(stats.rows, options.sentence_level())
    columns = zip(
        stats.sys_len.tolist(), stats.ref_len.tolist(), stats.counts.tolist(), stats.totals.tolist(),
        parts.score.tolist(), parts.precisions.tolist(), parts.bp.tolist(),
    )
    sentences = tuple(
        SentenceReport(
            line=i + 1,
            bleu=score,
            sys_len=sys_len,
            ref_len=ref_len,
            counts=tuple(counts),
            totals=tuple(totals),
            precisions=tuple(precisions),
            bp=bp,
            hypothesis=hyps[i],
            references=tuple(refs[i]),
        )
        for i, (sys_len, ref_len, counts, totals, score, precisions, bp) in enumerate(columns)
    )
    return CorpusReport(result=result, options=options, statistics=stats, sentences=sentences)
