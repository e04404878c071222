"""An HTML report people can read: one self-contained file with the scores, their signatures and
confidence intervals, the paired tests or the ranking with significance clusters, the scores by
sentence length, the distribution of sentence scores, the sentences where the systems differ most
and why a few of them score as they do. Plots are inline SVG, the numbers are also embedded as
JSON (``bleukit/schemas/report.schema.json``); nothing is fetched when the page is viewed.

- :mod:`.data`: the numbers, from the shared machinery, as one JSON-ready dictionary;
- :mod:`.charts`: the SVG charts; :mod:`.page`: the page.

>>> refs = ["the cat sat on the mat", "it is raining today", "the dog barked"]
>>> report = build_report({"A": ["the cat sat on a mat", "it rains today", "the dog barked"],
...                        "B": ["a cat is on the mat", "it is raining today", "dogs bark"]}, refs,
...                       n_bootstrap=100, n_samples=100)
>>> [s["system"] for s in report.data["metrics"][0]["scores"]], report.html.count("<svg") >= 3
(['A', 'B'], True)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence, Union

from ...defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from ...metrics import resolve_options
from ...metrics.base import MetricOptions
from ..ranking import DEFAULT_ALPHA
from ..significance import Seed
from .data import COMPARISONS, report_data
from .page import render

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ...metrics.bleu.options import BleuOptionKeywords

__all__ = ["HtmlReport", "build_report", "write_html_report", "COMPARISONS"]


@dataclass(frozen=True)
class HtmlReport:
    """A built report: ``data`` (the JSON-ready numbers) and ``html`` (the page)."""

    data: Dict[str, Any]
    html: str

    def write(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Write the page to ``path`` (UTF-8)."""
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(self.html)


def build_report(
    systems: Any,
    references: Sequence[Any],
    *,
    comparison: str = "rank",
    method: str = "bs",
    n_samples: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
    correction: Optional[str] = "holm",
    alpha: float = DEFAULT_ALPHA,
    n_bootstrap: int = DEFAULT_SAMPLES["bs"],
    n_examples: int = 10,
    n_explained: int = 3,
    title: str = "bleukit report",
    sources: Optional[Sequence[str]] = None,
    options: Union[MetricOptions, Sequence[MetricOptions], None] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> HtmlReport:
    """Score ``systems`` against ``references`` and build the report.

    ``systems``: one list of hypotheses, a mapping name -> hypotheses or a list of
    ``(name, hypotheses)`` (the first is the baseline); ``references[i]``: the reference(s) of
    segment ``i``. ``options``: one metric's options or several (default: BLEU with the option
    ``keywords``).
    With several systems, ``comparison="rank"`` tests all pairs and ranks them with significance
    clusters (:func:`bleukit.analysis.ranking.compare_systems`), ``"baseline"`` tests each against the first,
    ``"none"`` tests nothing; ``method``, ``n_samples``, ``seed``, ``correction`` and ``alpha`` are
    the tests'. ``n_bootstrap`` resamples give each score's CI. ``n_examples`` segments where the
    systems differ most (one system: the worst-scoring ones) are shown, the first ``n_explained``
    of them with BLEU's matched n-grams (when BLEU is among the metrics; else chrF's, when chrF
    is). ``sources`` adds the source segments to those; ``references`` may be a test set
    (:func:`bleukit.testsets.load`), whose references score and whose source is shown.
    """
    if options is None or isinstance(options, (MetricOptions, str)):
        metrics = [resolve_options(options, keywords)]
    else:
        if keywords:
            raise TypeError(f"give either options= or option keywords, not both (got {', '.join(sorted(keywords))})")
        metrics = list(options)
    data = report_data(
        systems, references, options=metrics, comparison=comparison, method=method, n_samples=n_samples,
        seed=seed, correction=correction, alpha=alpha, n_bootstrap=n_bootstrap, n_examples=n_examples,
        n_explained=n_explained, title=title, sources=sources,
    )
    return HtmlReport(data, render(data))


def write_html_report(
    path: Union[str, "os.PathLike[str]"],
    systems: Any,
    references: Sequence[Any],
    *,
    comparison: str = "rank",
    method: str = "bs",
    n_samples: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
    correction: Optional[str] = "holm",
    alpha: float = DEFAULT_ALPHA,
    n_bootstrap: int = DEFAULT_SAMPLES["bs"],
    n_examples: int = 10,
    n_explained: int = 3,
    title: str = "bleukit report",
    sources: Optional[Sequence[str]] = None,
    options: Union[MetricOptions, Sequence[MetricOptions], None] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> HtmlReport:
    """:func:`build_report` (same keywords) written to ``path``; returns the report.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "report.html")
    >>> r = write_html_report(path, ["a b c d"], ["a b c d"], n_bootstrap=10)
    >>> open(path, encoding="utf-8").read() == r.html
    True
    """
    report = build_report(
        systems, references, comparison=comparison, method=method, n_samples=n_samples, seed=seed,
        correction=correction, alpha=alpha, n_bootstrap=n_bootstrap, n_examples=n_examples, n_explained=n_explained,
        title=title, sources=sources, options=options, **keywords,
    )
    report.write(path)
    return report
