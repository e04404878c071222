"""torchmetrics adapter: sacreBLEU-exact corpus BLEU, chrF and TER as ``torchmetrics.Metric`` objects.

Each metric keeps the column sums of the core's integer statistics table as int64 states with
``dist_reduce_fx="sum"``: ``update`` adds a batch's rows, distributed runs (DDP, Lightning) add
every process's sums, and ``compute`` scores the summed row with the metric's formula, so the
result is the corpus score of everything seen by every process, equal to sacreBLEU's on the
whole corpus (integer sums are exact; nothing is averaged, nothing is kept in float32).
:class:`MetricScore` does this for any metric's options; :class:`BLEUScore`, :class:`CHRFScore`
and :class:`TERScore` take the metric's option keywords (the other keywords go to
``torchmetrics.Metric``: ``sync_on_compute``, ``process_group``, ...).

>>> bleu = BLEUScore(tokenize="13a")
>>> bleu.update(["The cat sat on the mat."], [["The cat is on the mat.", "A cat sat on the mat."]])
>>> bleu.update(["It rains."], ["It is raining."])
>>> bleu.compute()
tensor(68.9666, dtype=torch.float64)
>>> print(bleu.result().format(signature=False))
BLEU = 68.97 90.0/75.0/66.7/75.0 (BP = 0.905 ratio = 0.909 hyp_len = 10 ref_len = 11)
>>> bleu.result().signature.split("|")[0]
'nrefs:var'
"""

# No ``from __future__ import annotations`` here: TorchScript reads the states' class annotations
# (``statistics: torch.Tensor``) as objects, and as strings it cannot resolve them, so
# ``torch.jit.script(BLEUScore())`` failed where torchmetrics' own metrics script (its test harness
# scripts every metric).
from typing import Any, Dict, Optional, Tuple

import numpy as np
import torch
from torchmetrics import Metric

from bleukit.metrics import get_metric, metric_for
from bleukit.metrics.base import MetricOptions, MetricResult
from bleukit.pipeline import corpus_statistics

__all__ = ["MetricScore", "BLEUScore", "CHRFScore", "TERScore"]


class MetricScore(Metric):
    """Corpus score of any metric's ``options`` (``BleuOptions``, ``ChrfOptions``, ...), summed
    over batches and processes as int64 statistics. ``update(preds, target)``: ``preds`` a
    hypothesis or a list of them, ``target[i]`` the reference of ``preds[i]`` or a list of its
    references. ``compute()`` gives the score as a float64 tensor; :meth:`result` the metric's
    full result (its parts and sacreBLEU's signature).

    >>> from bleukit.metrics.chrf import ChrfOptions
    >>> chrf = MetricScore(ChrfOptions(word_order=2))
    >>> chrf.update(["The cat sat on the mat."], ["The cat is on the mat."])
    >>> round(float(chrf.compute()), 4)
    69.437
    """

    is_differentiable = False
    full_state_update = False

    statistics: torch.Tensor
    sentences: torch.Tensor
    nrefs_sum: torch.Tensor
    nrefs_squares: torch.Tensor

    def __init__(self, options: MetricOptions, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        metric = metric_for(options)
        self.options = options
        width = len(metric.columns(options))
        self.add_state("statistics", default=torch.zeros(width, dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("sentences", default=torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")
        # The signature's nrefs (common number of references, or "var") from sums alone: the
        # counts are all equal exactly when n * sum(k^2) == sum(k)^2.
        self.add_state("nrefs_sum", default=torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("nrefs_squares", default=torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")

    @property
    def higher_is_better(self) -> bool:  # type: ignore[override]  # torchmetrics declares a class attribute
        """Whether a larger score is better (the metric's; TER: no)."""
        return metric_for(self.options).higher_is_better

    def update(self, preds: Any, target: Any) -> None:
        """Add a batch: hypotheses and, per hypothesis, its reference or list of references."""
        hypotheses = [preds] if isinstance(preds, str) else preds
        table = corpus_statistics(hypotheses, target, options=self.options)
        if len(table) == 0:
            return
        device = self.statistics.device
        self.statistics += torch.from_numpy(table.rows.sum(axis=0)).to(device)
        self.sentences += len(table)
        self.nrefs_sum += int(table.nrefs.sum())
        self.nrefs_squares += int(np.square(table.nrefs).sum())

    def _summed(self) -> Tuple[np.ndarray, int]:
        n = int(self.sentences)
        if n == 0:
            raise ValueError(f"{type(self).__name__} has no sentences: call update(preds, target) before compute()")
        total, squares = int(self.nrefs_sum), int(self.nrefs_squares)
        nrefs = total // n if n * squares == total * total else -1
        return self.statistics.detach().cpu().numpy().reshape(1, -1), nrefs

    def compute(self) -> torch.Tensor:
        """The corpus score of every sentence added (on every process): a float64 tensor."""
        return torch.tensor(self._result().score, dtype=torch.float64)

    def _result(self) -> MetricResult:
        metric = metric_for(self.options)
        rows, nrefs = self._summed()
        table = metric.empty(self.options).with_rows(rows, [nrefs])
        result: MetricResult = metric.result(table, self.options)
        return result

    def result(self) -> MetricResult:
        """The metric's result of everything added (synchronised across processes like ``compute``)."""
        with self.sync_context(should_sync=self.sync_on_compute):
            return self._result()


class BLEUScore(MetricScore):
    """Corpus BLEU, sacreBLEU's ``corpus_bleu`` exactly; keywords are ``bleukit.BleuOptions``
    fields (corpus defaults) or ``torchmetrics.Metric`` arguments."""

    def __init__(self, options: Optional[MetricOptions] = None, **kwargs: Any) -> None:
        resolved, rest = _options("bleu", options, kwargs)
        super().__init__(resolved, **rest)


class CHRFScore(MetricScore):
    """Corpus chrF (``word_order=2``: chrF++), sacreBLEU's ``corpus_chrf`` exactly; keywords
    are ``ChrfOptions`` fields or ``torchmetrics.Metric`` arguments.

    >>> chrf = CHRFScore(word_order=2)
    >>> chrf.update(["The cat sat on the mat."], ["The cat is on the mat."])
    >>> round(float(chrf.compute()), 4)
    69.437
    """

    def __init__(self, options: Optional[MetricOptions] = None, **kwargs: Any) -> None:
        resolved, rest = _options("chrf", options, kwargs)
        super().__init__(resolved, **rest)


class TERScore(MetricScore):
    """Corpus TER (lower is better), sacreBLEU's ``corpus_ter``; keywords are the TER options'
    fields or ``torchmetrics.Metric`` arguments. Needs the TER metric package."""

    def __init__(self, options: Optional[MetricOptions] = None, **kwargs: Any) -> None:
        resolved, rest = _options("ter", options, kwargs)
        super().__init__(resolved, **rest)


def _options(
    name: str, options: Optional[MetricOptions], kwargs: Dict[str, Any]
) -> Tuple[MetricOptions, Dict[str, Any]]:
    """The options of metric ``name`` (an options object, or its option keywords among ``kwargs``)
    and the other keywords (``torchmetrics.Metric``'s)."""
    options_type = get_metric(name).options_type
    names = set(options_type.option_names())
    keywords = {k: v for k, v in kwargs.items() if k in names}
    rest = {k: v for k, v in kwargs.items() if k not in names}
    if options is None:
        return options_type.from_keywords(keywords), rest
    if keywords:
        raise TypeError(f"give either options= or option keywords, not both (got {', '.join(sorted(keywords))})")
    if not isinstance(options, options_type):
        raise TypeError(f"options must be {options_type.__name__}, got {type(options).__name__}")
    return options, rest
