"""Running sums of statistics: streaming, sharded and distributed corpus scores, exact by construction.

Every metric's statistics are integers (:mod:`bleukit.metrics.base`), so a corpus scored in
batches, on several processes or on a cluster sums to exactly the single-pass result. Every
adapter that sees a corpus in pieces (the transformers ``compute_metrics``, Ray, datasets, the
torchmetrics metrics) keeps one of these instead of its own sums.

>>> from bleukit import BleuOptions, corpus_bleu
>>> acc = StatisticsAccumulator(BleuOptions())
>>> first = acc.add_text(["The cat sat on the mat."], ["The cat sat on the mat."])
>>> second = acc.add_text(["It is raining."], [["It rains.", "It is raining!"]])
>>> acc.result().score == corpus_bleu(
...     ["The cat sat on the mat.", "It is raining."],
...     ["The cat sat on the mat.", ["It rains.", "It is raining!"]]).score
True
>>> acc.n_rows, acc.result().signature.split("|")[0]
(2, 'nrefs:var')
"""

from __future__ import annotations

from typing import Any, Dict, Sequence

import numpy as np

from .metrics import metric_for
from .metrics.base import MetricOptions, MetricResult, Statistics
from .pipeline import corpus_statistics

__all__ = ["StatisticsAccumulator"]

# nrefs bounds start empty: min at +inf-like, max at -1 (no row seen).
_NO_MIN = np.iinfo(np.int64).max


class StatisticsAccumulator:
    """Column sums of statistics rows plus the reference-count range, for one set of options.

    ``options`` are any metric's (``BleuOptions``, ...). ``add`` takes that metric's statistics
    table (or a summed one); ``add_text`` counts text
    with the core first. ``extras`` names integer counters kept beside the statistics (e.g.
    generated tokens), summed by ``add(..., **counts)`` and all-reduced with them.
    ``all_reduce()`` sums everything over ``torch.distributed`` processes (when initialised);
    ``result()`` scores the sums. Nothing here loses precision: sums are int64.
    """

    def __init__(self, options: MetricOptions, extras: Sequence[str] = ()) -> None:
        self.metric = metric_for(options)
        extras = tuple(extras)
        if len(set(extras)) != len(extras) or not all(isinstance(e, str) for e in extras):
            raise ValueError(f"extras must be distinct counter names, got {extras!r}")
        self.options = options
        self.extras = extras
        self.reset()

    def reset(self) -> None:
        """Forget everything added so far."""
        self._sums = np.zeros(len(self.metric.columns(self.options)), dtype=np.int64)
        self._counters = np.zeros(len(self.extras) + 1, dtype=np.int64)  # extras, then rows
        self._nrefs_min = _NO_MIN
        self._nrefs_max = -1

    @property
    def n_rows(self) -> int:
        """Number of sentences (statistics rows) added."""
        return int(self._counters[-1])

    @property
    def counters(self) -> Dict[str, int]:
        """The extra counters by name.

        >>> from bleukit import BleuOptions
        >>> acc = StatisticsAccumulator(BleuOptions(), extras=["tokens"])
        >>> _ = acc.add_text(["a b"], ["a b"], tokens=7)
        >>> acc.counters
        {'tokens': 7}
        """
        return {name: int(v) for name, v in zip(self.extras, self._counters[:-1])}

    def add(self, stats: Statistics, **counts: int) -> None:
        """Add a statistics table (any number of rows; its nrefs are tracked for the signature)."""
        self.metric.check_statistics(stats, self.options)
        unknown = sorted(set(counts) - set(self.extras))
        if unknown:
            raise TypeError(f"unknown counter(s) {', '.join(unknown)}; this accumulator keeps {self.extras}")
        if len(stats) == 0:
            return
        self._sums += stats.rows.sum(axis=0)
        for k, name in enumerate(self.extras):
            if name in counts:
                self._counters[k] += _count(counts[name], name)
        self._counters[-1] += len(stats)
        # A summed row carries -1 ("var"): it widens the range so the signature says var.
        self._nrefs_min = min(self._nrefs_min, int(stats.nrefs.min()))
        self._nrefs_max = max(self._nrefs_max, int(stats.nrefs.max()))

    def add_text(self, hypotheses: Sequence[str], references: Sequence[Any], **counts: int) -> Statistics:
        """Count a batch of text with the accumulator's options, add it, and return its table."""
        stats = corpus_statistics(hypotheses, references, options=self.options)
        self.add(stats, **counts)
        return stats

    def merge(self, other: "StatisticsAccumulator") -> None:
        """Add another accumulator's sums (same options and counters), e.g. from another worker."""
        if not isinstance(other, StatisticsAccumulator):
            raise TypeError(f"other must be a StatisticsAccumulator, got {type(other).__name__}")
        if other.options != self.options or other.extras != self.extras:
            raise ValueError("cannot merge accumulators with different options or counters")
        self._sums += other._sums
        self._counters += other._counters
        self._nrefs_min = min(self._nrefs_min, other._nrefs_min)
        self._nrefs_max = max(self._nrefs_max, other._nrefs_max)

    def all_reduce(self) -> None:
        """Sum over all ``torch.distributed`` processes in place (nothing to do without it).

        Use it when each process added only its own shard. Integer all-reduce is exact.
        """
        try:
            import torch
            import torch.distributed as dist
        except ImportError:
            return
        if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
            return
        device = torch.device("cpu")
        if dist.get_backend() == "nccl":
            device = torch.device("cuda", torch.cuda.current_device())
        shared = torch.as_tensor(np.concatenate([self._sums, self._counters])).to(device)
        dist.all_reduce(shared, op=dist.ReduceOp.SUM)
        # The nrefs range travels as (-min, max) so that one MAX reduction gives both.
        bounds = torch.as_tensor([-self._nrefs_min, self._nrefs_max], dtype=torch.int64).to(device)
        dist.all_reduce(bounds, op=dist.ReduceOp.MAX)
        sums = shared.cpu().numpy()
        n = self._sums.shape[0]
        self._sums, self._counters = sums[:n].copy(), sums[n:].copy()
        self._nrefs_min, self._nrefs_max = -int(bounds[0]), int(bounds[1])

    def statistics(self) -> Statistics:
        """The sums as a one-row table (its nrefs is the common count, or -1 for "var")."""
        if self.n_rows == 0:
            raise ValueError("empty corpus: nothing was added, a corpus score needs at least one sentence")
        nrefs = self._nrefs_min if self._nrefs_min == self._nrefs_max else -1
        table: Statistics = self.metric.empty(self.options).with_rows(self._sums[None, :].copy(), [nrefs])
        return table

    def result(self) -> MetricResult:
        """The corpus result of everything added."""
        result: MetricResult = self.metric.result(self.statistics(), self.options)
        return result


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"counter {name} must be an int, got {type(value).__name__}")
    return int(value)
