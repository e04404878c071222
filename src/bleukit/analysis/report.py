"""The report of a scored corpus: corpus result plus one row per sentence, built once, for any metric.

The app's page and JSON download, the command line's ``--sentence-level`` lines and any tool that
wants per-sentence detail read this one model instead of slicing statistics rows themselves.
Sentence scores use the corpus options at sentence level (``options.sentence_level()``), as
``sacrebleu.sentence_bleu`` does.

>>> from bleukit import BleuOptions
>>> report = score_report(["The cat sat.", "A dog"], ["The cat sat.", "The dog"], options=BleuOptions())
>>> round(report.result.score, 4), [round(s.score, 2) for s in report.sentences]
(88.914, [100.0, 50.0])
>>> sorted(report.to_dict())
['corpus', 'formatted', 'metric', 'options', 'sentence_signature', 'sentences']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from ..inputs import check_hypotheses, check_references
from ..metrics import metric_for, resolve_options
from ..metrics.base import MetricOptions, MetricResult, Statistics

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..metrics.bleu.options import BleuOptionKeywords

__all__ = ["SentenceReport", "CorpusReport", "score_report"]

# Result fields that a sentence row does not repeat (its score is a column of its own).
_NOT_PARTS = ("name", "score", "signature")


@dataclass(frozen=True)
class SentenceReport:
    """One sentence: its result (what the metric's sentence function returns for it), line number
    (from 1), hypothesis and references. The result's fields read through: ``s.counts`` is
    ``s.result.counts``."""

    line: int
    result: MetricResult
    hypothesis: str
    references: Tuple[str, ...]

    @property
    def score(self) -> float:
        """The sentence score."""
        return self.result.score

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.result, name)

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready: ``line``, ``score``, the result's parts, ``hypothesis``, ``references``."""
        parts = {k: v for k, v in self.result.to_dict().items() if k not in _NOT_PARTS}
        return {"line": self.line, "score": self.score, **parts, "hypothesis": self.hypothesis,
                "references": list(self.references)}


@dataclass(frozen=True)
class CorpusReport:
    """Corpus result, the options, the statistics table and a :class:`SentenceReport` per line."""

    result: MetricResult
    options: MetricOptions
    statistics: Statistics
    sentences: Tuple[SentenceReport, ...]

    @property
    def sentence_options(self) -> MetricOptions:
        return self.options.sentence_level()

    @property
    def sentence_signature(self) -> str:
        return self.sentence_options.signature(self.statistics.nrefs_signature)

    def sentence_results(self) -> List[MetricResult]:
        """Each sentence's result (what the metric's sentence function returns for it), with the
        sentence options' signature and the sentence's own reference count.

        >>> from bleukit import BleuOptions
        >>> r = score_report(["a b", "c"], [["a b", "x"], "d"], options=BleuOptions())
        >>> [s.signature.split("|")[:3] for s in r.sentence_results()]
        [['nrefs:2', 'case:mixed', 'eff:yes'], ['nrefs:1', 'case:mixed', 'eff:yes']]
        """
        return [s.result for s in self.sentences]

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready form: ``metric``, ``corpus`` (the result), ``formatted`` (sacreBLEU's line),
        ``options`` (as given, plus what is in force), ``sentence_signature`` and ``sentences``."""
        options = {k: list(v) if isinstance(v, tuple) else v for k, v in self.options.to_dict().items()}
        resolved = getattr(self.options, "resolved_smooth_value", None)
        if "smooth_value" in options:
            options["smooth_value"] = resolved
        return {
            "metric": metric_for(self.options).name,
            "corpus": self.result.to_dict(),
            "formatted": self.result.format(),
            "options": options,
            "sentence_signature": self.sentence_signature,
            "sentences": [s.to_dict() for s in self.sentences],
        }


def score_report(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> CorpusReport:
    """Score a corpus and every sentence in it, from one statistics table: BLEU with the option
    ``keywords``, or the metric of ``options`` (any metric's options object).

    >>> r = score_report(["a b c"], ["a b d"], max_ngram_order=2)
    >>> r.sentences[0].counts, r.sentences[0].totals
    ([2, 1], [3, 2])
    """
    options = resolve_options(options, keywords)
    metric = metric_for(options)
    hyps = check_hypotheses(hypotheses)
    refs = check_references(references, len(hyps))
    stats = metric.statistics(hyps, refs, options)
    result = metric.result(stats, options)
    per_sentence = metric.sentence_results(stats, options.sentence_level())
    sentences = tuple(
        SentenceReport(line=i + 1, result=r, hypothesis=hyps[i], references=tuple(refs[i]))
        for i, r in enumerate(per_sentence)
    )
    return CorpusReport(result=result, options=options, statistics=stats, sentences=sentences)
