"""The typed state the app keeps between events, instead of loose JSON dicts: what a scoring run
left for the table and the explanation, and the systems of a comparison, tokenized and counted once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Sequence

import numpy as np

from bleukit.metrics.base import MetricOptions, Statistics
from bleukit.metrics.bleu.options import BleuOptions


@dataclass(frozen=True)
class Sentence:
    """One line of a scored corpus, as the table and "why this score" need it."""

    line: int
    hypothesis: str
    references: List[str]
    score: float


@dataclass(frozen=True)
class ScoredCorpus:
    """A scoring run: its options, its report (the JSON of the download, kept whole so that the
    table can be sorted again) and its sentences.

    >>> from bleukit.app.reports import score_report
    >>> run = ScoredCorpus.from_report(score_report("a b\\nc d", ["a b\\nc e"], BleuOptions()))
    >>> len(run), run.sentence(2).references, run.options.tokenize
    (2, ['c e'], '13a')
    """

    options: BleuOptions
    report: Dict[str, Any] = field(repr=False)
    sentences: Sequence[Sentence] = field(repr=False)

    @classmethod
    def from_report(cls, report: Dict[str, Any]) -> "ScoredCorpus":
        """The state of a run from its report (``bleukit.app.reports.score_report``)."""
        sentences = tuple(
            Sentence(s["line"], s["hypothesis"], list(s["references"]), float(s["score"])) for s in report["sentences"]
        )
        return cls(BleuOptions(**report["options"]), report, sentences)

    def __len__(self) -> int:
        return len(self.sentences)

    def sentence(self, line: int) -> Sentence:
        """Line ``line`` (1-based)."""
        return self.sentences[line - 1]


@dataclass(frozen=True)
class CountedSystems:
    """Systems of a comparison tokenized and counted once (``bleukit.analysis.significance.system_statistics``):
    their names (the baseline first), one statistics table each, and the options they were counted
    with. Every analysis of the comparison (the test, the ranking, the plot) starts from these."""

    names: List[str]
    statistics: List[Statistics] = field(repr=False)
    options: MetricOptions


@dataclass(frozen=True)
class Comparison:
    """A comparison's result: its report (the JSON of ``/compare``) and the plot's data, each
    system's bootstrap scores (``plot_samples`` resamples)."""

    report: Dict[str, Any]
    distributions: Dict[str, np.ndarray] = field(repr=False)
    plot_samples: int
