"""Rewards of single samples (response, label, language) for the verl and OpenRLHF adapters.

Both frameworks hand a reward function one response with its label (or a few) and take their
options as keywords from a configuration file. :func:`sample_scorer` turns those keywords into a
:class:`SampleScorer` once (cached) and the scorer scores with
:class:`~bleukit.integrations.rewards.MetricReward`: full-precision sacreBLEU-exact sentence
scores, the tokenizer picked by each sample's target language, and chrF++ instead of the
configured metric for the target languages listed in ``chrf_targets`` (BLEU's word n-grams say
little about agglutinative languages such as Finnish or Turkish).

>>> scorer = sample_scorer(metric="bleu", chrf_targets=("fi",))
>>> [(round(r, 4), name) for r, s, name in scorer.score(["Kissa istui.", "The cat sat."],
...     ["Kissa istuu.", "The cat sat."], ["en-fi", "de-en"])]
[(0.6606, 'chrf++'), (1.0, 'bleu')]
>>> split_label({"references": ["a", "b"], "lang_pair": "en-zh"}, "lang_pair")
(['a', 'b'], 'en-zh')
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from bleukit.integrations.rewards import MetricReward, target_language
from bleukit.metrics import get_metric
from bleukit.metrics.base import MetricOptions
from bleukit.metrics.chrf.options import ChrfOptions

__all__ = ["SampleScorer", "sample_scorer", "split_label", "DEFAULT_LANGUAGE_KEY"]

#: The key of a sample's language pair (``"en-zh"``) or target language in verl's ``extra_info``
#: or an OpenRLHF label.
DEFAULT_LANGUAGE_KEY = "lang_pair"


def _metric_options(metric: str, keywords: Dict[str, Any]) -> MetricOptions:
    """A metric's options from its name (``"chrf++"``: chrF with ``word_order=2``) and keywords."""
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a metric name such as 'bleu', 'chrf' or 'chrf++', got {type(metric).__name__}")
    name = metric.lower()
    if name == "chrf++":
        name, keywords = "chrf", {"word_order": 2, **keywords}
    return get_metric(name).options_type.from_keywords(keywords)


def split_label(label: Any, language_key: str) -> Tuple[Any, Any]:
    """(references, language) of a label: a reference string, a list of them, or a mapping with
    ``"references"`` (or ``"reference"``) and, optionally, the language under ``language_key``."""
    if isinstance(label, Mapping):
        references = label.get("references", label.get("reference"))
        return references, label.get(language_key)
    if isinstance(label, (tuple, np.ndarray)):
        return list(label), None
    return label, None


class SampleScorer:
    """Rewards of samples: the configured metric, or chrF++ where the target is in ``chrf_targets``."""

    def __init__(
        self,
        metric: str = "bleu",
        *,
        scale: float = 0.01,
        power: float = 1.0,
        threshold: Optional[float] = None,
        chrf_targets: Iterable[str] = (),
        **options: Any,
    ) -> None:
        shaping: Dict[str, Any] = {"scale": scale, "power": power, "threshold": threshold}
        self.reward = MetricReward(options=_metric_options(metric, options), **shaping)
        if isinstance(chrf_targets, str) or not all(isinstance(t, str) for t in chrf_targets):
            raise TypeError(f"chrf_targets must be a list of language codes such as ['fi', 'tr'], got {chrf_targets!r}")
        self.chrf_targets: FrozenSet[str] = frozenset(chrf_targets)
        # chrF++ with sacreBLEU's defaults otherwise; the shaping is the same.
        self.chrf = MetricReward(options=ChrfOptions(word_order=2), **shaping) if self.chrf_targets else None

    def score(
        self, hypotheses: Sequence[str], references: Sequence[Any], languages: Sequence[Any]
    ) -> List[Tuple[float, float, str]]:
        """(reward, sentence score, metric name) of every sample; a sample without a reference is a
        ``ValueError`` (these frameworks cannot skip a reward)."""
        for i, ref in enumerate(references):
            if ref is None or (isinstance(ref, list) and all(r is None for r in ref)):
                raise ValueError(f"sample {i} has no reference (its label / ground truth is {ref!r})")
        if len(hypotheses) == 1:  # verl's single form: one sample per call, no batch bookkeeping
            chrf = self.chrf is not None and target_language(languages[0]) in self.chrf_targets
            reward = self.chrf if chrf and self.chrf is not None else self.reward
            score = reward.scores(hypotheses, references, languages)[0]
            one: List[Any] = [(reward.reward_of(score), score, reward.__name__)]  # a score: its reference was checked
            return one
        chrf_rows = [i for i, lang in enumerate(languages) if self.chrf and target_language(lang) in self.chrf_targets]
        out: List[Any] = [None] * len(hypotheses)
        chrf_set = set(chrf_rows)
        parts = [(self.reward, [i for i in range(len(hypotheses)) if i not in chrf_set])]
        if self.chrf is not None and chrf_rows:
            parts.append((self.chrf, chrf_rows))
        for reward, rows in parts:
            if not rows:
                continue
            scores = reward.scores(
                [hypotheses[i] for i in rows], [references[i] for i in rows], [languages[i] for i in rows]
            )
            for i, score in zip(rows, scores):
                out[i] = (reward.reward_of(score), score, reward.__name__)
        return out


def _frozen(value: Any) -> Any:
    # Configuration files give lists (YAML sequences); the cache needs hashable keys.
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        return value
    return tuple(_frozen(v) for v in value)


@functools.lru_cache(maxsize=64)
def _cached(items: Tuple[Tuple[str, str, Any], ...]) -> SampleScorer:
    return SampleScorer(**{k: v for k, _, v in items})


def sample_scorer(**config: Any) -> SampleScorer:
    """The :class:`SampleScorer` of a configuration, built once (per-sample calls reuse it)."""
    # The type is part of the key: True == 1 == 1.0 would otherwise find the scorer of another
    # value's checks (scale=True would get scale=1.0's).
    return _cached(tuple(sorted((k, type(v).__name__, _frozen(v)) for k, v in config.items())))
