"""lighteval metrics: corpus BLEU, chrF, chrF++ and TER with every reference of every sample, the
target language's tokenizer and a real bootstrap standard error, as drop-ins for lighteval's own.

lighteval 0.13's ``Metrics.bleu`` scores only each sample's first reference; its ``chrf``,
``chrf_plus`` and ``ter`` pass each sample's references to sacreBLEU as if they were reference
*streams* (a 3-sample corpus with one wrong sample scores chrF 100); ``bleu`` calls
``nltk.download`` at compute time, which fails offline; and its bootstrap rescores every resample
with sacreBLEU in a process pool, then reports the standard error of the *mean* of the resampled
scores (their standard deviation divided by the square root of their number), not the standard
error of the score.

:func:`corpus_metric` builds a ``lighteval`` ``CorpusLevelMetric`` for any metric of
:mod:`bleukit.metrics` (its options, or the option keywords), optionally for a target
``language`` (``"zh"``, ``"ja"``, ``"ko"`` or a pair such as ``"en-zh"`` picks the tokenizer as
sacreBLEU's ``-l``); ``bleu``, ``chrf``, ``chrf_plus`` and ``ter`` (when bleukit has TER) are
built with the defaults. Samples are prepared by lighteval's own ``GenerativePreparator``; the
corpus score is sacreBLEU's with sample ``i``'s references as its references. The standard error
is the standard deviation of the corpus scores of lighteval's own resamples (the same draws, scored
from summed statistics rows, ~1000 resamples in milliseconds); importing this module makes
lighteval ask :class:`CorpusMetric` for it (other metrics are untouched).

``bleu_1`` and ``bleu_4`` reproduce lighteval's sample-level metrics of those names exactly (NLTK's
``sentence_bleu`` with one-hot weights on NLTK ``word_tokenize`` tokens, averaged over a sample's
predictions) from bleukit's NLTK reproduction (:mod:`bleukit.compat.nltk`), and never download:
lighteval's own calls ``nltk.download("punkt_tab")`` for every sample, which fails offline. NLTK's
Punkt data must be on its data path (``python -m nltk.downloader punkt_tab`` once, or ``NLTK_DATA``
naming a folder that holds ``tokenizers/punkt_tab``); without it they raise a ``LookupError`` that
says so (:class:`NltkBleu`).

>>> from lighteval.metrics.sample_preparator import GenerativeCorpusMetricInput as Sample
>>> samples = [Sample(golds=["The cat sat.", "A cat sat."], preds=["A cat sat."]),
...            Sample(golds=["It rains."], preds=["It rained."])]
>>> round(bleu.corpus_level_fn.compute_corpus(samples), 4)
76.5206
>>> corpus_metric("bleu", language="zh").corpus_level_fn.options.tokenize
'zh'
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import lighteval.logging.info_loggers as lighteval_loggers
import numpy as np
from lighteval.metrics.metrics_corpus import CorpusLevelComputation
from lighteval.metrics.metrics_sample import SampleLevelComputation
from lighteval.metrics.sample_preparator import GenerativePreparator
from lighteval.metrics.utils.metric_utils import CorpusLevelMetric, SampleLevelMetric, SamplingMethod

from bleukit.compat import nltk as nltk_bleu
from bleukit.integrations._harness import harness_bootstrap_scores
from bleukit.integrations.rewards import options_for_language, target_language
from bleukit.metrics import available_metrics, get_metric, metric_for
from bleukit.metrics.base import MetricOptions, Statistics
from bleukit.pipeline import corpus_statistics, score_statistics

__all__ = [
    "CorpusMetric",
    "NltkBleu",
    "corpus_metric",
    "with_bleukit_metrics",
    "bleu",
    "chrf",
    "chrf_plus",
    "ter",
    "bleu_1",
    "bleu_4",
]

# A task name ending in a language pair, as lighteval's translation tasks are named ("wmt19:en-zh").
_PAIR = re.compile(r"(?:^|[:_|])([a-z]{2,3})-([a-z]{2,3})$")
# lighteval's corpus translation metrics (by metric_name) -> bleukit's metric and option keywords.
_REPLACES: Dict[str, Tuple[str, Dict[str, Any]]] = {
    "bleu": ("bleu", {}),
    "chrf": ("chrf", {}),
    "chrf++": ("chrf", {"word_order": 2}),
    "ter": ("ter", {}),
}


class CorpusMetric(CorpusLevelComputation):
    """lighteval's corpus computation for a bleukit metric's ``options``: ``compute_corpus(samples)``
    scores the first prediction of each sample against all of its golds, as one corpus.

    >>> from bleukit.metrics.chrf import ChrfOptions
    >>> from lighteval.metrics.sample_preparator import GenerativeCorpusMetricInput as Sample
    >>> good = [Sample(golds=["The cat sat."], preds=["The cat sat."]) for _ in range(2)]
    >>> round(CorpusMetric(ChrfOptions()).compute_corpus(good + [Sample(golds=["Rain."], preds=["Sun."])]), 2)
    90.56
    """

    def __init__(self, options: MetricOptions) -> None:
        metric_for(options)
        self.options = options

    def statistics(self, samples: Sequence[Any]) -> Statistics:
        """The statistics table of lighteval's prepared samples (one row each)."""
        hypotheses: List[str] = []
        references: List[List[str]] = []
        for k, sample in enumerate(samples):
            golds, preds = getattr(sample, "golds", None), getattr(sample, "preds", None)
            if golds is None or preds is None:
                raise TypeError(
                    f"sample {k} must be lighteval's GenerativeCorpusMetricInput (golds, preds), "
                    f"got {type(sample).__name__}: use GenerativePreparator as the sample-level function"
                )
            preds = [preds] if isinstance(preds, str) else list(preds)
            if not preds:
                raise ValueError(f"sample {k} has no prediction")
            # lighteval scores the first of several sampled predictions (its own metrics do too)
            hypotheses.append(preds[0])
            references.append([golds] if isinstance(golds, str) else list(golds))
        if not hypotheses:
            raise ValueError("no samples to score")
        return corpus_statistics(hypotheses, references, options=self.options)

    def compute_corpus(self, items: Sequence[Any]) -> float:
        """The corpus score of the samples (sacreBLEU's, every gold of a sample as its references)."""
        return float(score_statistics(self.statistics(items), self.options).score)

    def stderr(self, items: Sequence[Any], iters: int) -> float:
        """The bootstrap standard error of the corpus score: the standard deviation of the scores of
        lighteval's own ``iters`` resamples (lighteval divides it by ``sqrt(iters)`` as well).

        >>> from lighteval.metrics.sample_preparator import GenerativeCorpusMetricInput as Sample
        >>> pairs = [("a b c d", "a b c d"), ("a b c e", "a b c d"), ("x y z w", "x y z")]
        >>> round(bleu.corpus_level_fn.stderr([Sample(golds=[r], preds=[h]) for h, r in pairs], 1000), 4)
        14.9062
        """
        scores = harness_bootstrap_scores(self.statistics(items), self.options, iters)
        # lighteval's _stddev, in its floating-point order (numpy's mean, then a Python sum)
        mu = np.mean(scores)
        return float(np.sqrt(sum((x - mu) ** 2 for x in scores) / (len(scores) - 1)))

    def __str__(self) -> str:
        return f"CorpusMetric({type(self.options).__name__}({self.options.to_dict()}))"


# NLTK's word_tokenize splits sentences with Punkt's English model, read from this resource.
_PUNKT = "tokenizers/punkt_tab/english/"


def _nltk_word_tokenize(text: str) -> List[str]:
    """NLTK's ``word_tokenize(text)`` (Punkt sentences, then NLTK's word tokenizer), never
    downloading: a ``LookupError`` naming the fix when Punkt's ``punkt_tab`` data is not on NLTK's
    data path.
    """
    import nltk

    try:
        nltk.data.find(_PUNKT)
    except LookupError:
        raise LookupError(
            "NLTK's word_tokenize needs the Punkt model 'punkt_tab', which is not on NLTK's data path "
            f"({', '.join(map(str, nltk.data.path))}); bleukit never downloads it: run "
            "`python -m nltk.downloader punkt_tab` once, or set NLTK_DATA to a folder holding "
            "tokenizers/punkt_tab"
        ) from None
    return list(nltk.tokenize.word_tokenize(text))


class NltkBleu(SampleLevelComputation):
    """lighteval's sample-level ``BLEU(n_gram)``: NLTK's ``sentence_bleu`` of each prediction against
    all of the sample's golds, with weight 1 on order ``n_gram`` only, on NLTK ``word_tokenize``
    tokens, averaged over the predictions; offline (see :func:`_nltk_word_tokenize`).

    >>> bleu_4.sample_level_fn.n_gram, bleu_4.metric_name
    (4, 'bleu_4')
    >>> NltkBleu(5)
    Traceback (most recent call last):
    ...
    ValueError: n_gram must be an int from 1 to 4 (lighteval weighs orders 1-4), got 5
    """

    def __init__(self, n_gram: int) -> None:
        if isinstance(n_gram, bool) or not isinstance(n_gram, int) or not 1 <= n_gram <= 4:
            raise ValueError(f"n_gram must be an int from 1 to 4 (lighteval weighs orders 1-4), got {n_gram!r}")
        self.n_gram = n_gram

    def compute(self, doc: Any, model_response: Any, **kwargs: Any) -> float:
        """The mean over ``model_response.final_text`` of each prediction's BLEU-``n_gram``."""
        golds = [_nltk_word_tokenize(g) for g in doc.get_golds()]
        weights = [1 if order == self.n_gram else 0 for order in range(1, 5)]
        scores = [
            nltk_bleu.sentence_bleu(golds, _nltk_word_tokenize(p), weights=weights) for p in model_response.final_text
        ]
        # np.mean as lighteval (its float64, not a Python float: the logged value is the same type)
        return np.mean(scores)  # type: ignore[return-value]


def corpus_metric(
    metric: str = "bleu",
    options: Optional[MetricOptions] = None,
    *,
    language: Optional[str] = None,
    metric_name: Optional[str] = None,
    **keywords: Any,
) -> CorpusLevelMetric:
    """A lighteval ``CorpusLevelMetric`` scoring bleukit's ``metric`` (a name in
    :func:`bleukit.metrics.available_metrics`) with ``options`` or the option ``keywords``;
    ``language`` (a target language or a ``SRC-TRG`` pair) picks the ``zh``/``ja-mecab``/``ko-mecab``
    tokenizer when the tokenizer is the default. ``metric_name`` is the name lighteval reports
    (default: the metric's, ``chrf++`` for chrF with ``word_order=2``).

    >>> m = corpus_metric("chrf", word_order=2)
    >>> m.metric_name, m.higher_is_better
    ('chrf++', True)
    """
    spec = get_metric(metric)
    if options is None:
        options = spec.options_type.from_keywords(keywords)
    elif keywords:
        raise TypeError(f"give either options= or option keywords, not both (got {', '.join(sorted(keywords))})")
    elif metric_for(options) is not spec:
        raise TypeError(f"options are {type(options).__name__}, not the options of {metric!r}")
    if language is not None:
        options = options_for_language(options, target_language(language))
    if metric_name is None:
        metric_name = "chrf++" if spec.name == "chrf" and getattr(options, "word_order", 0) == 2 else spec.name
    return CorpusLevelMetric(
        metric_name=metric_name,
        sample_level_fn=GenerativePreparator(),
        category=SamplingMethod.GENERATIVE,
        corpus_level_fn=CorpusMetric(options),
        higher_is_better=spec.higher_is_better,
    )


def with_bleukit_metrics(config: Any, language: Optional[str] = None) -> Any:
    """A copy of a lighteval ``LightevalTaskConfig`` whose corpus ``bleu``, ``chrf``, ``chrf++`` and
    ``ter`` metrics are bleukit's, for the target ``language`` (default: the pair that ends the
    task's name, ``"wmt19:en-zh"`` -> ``zh``, as lighteval names its translation tasks); its other
    metrics are kept.

    >>> from lighteval.tasks.lighteval_task import LightevalTaskConfig
    >>> from lighteval.metrics.metrics import Metrics
    >>> task = LightevalTaskConfig(name="wmt19:en-zh", prompt_function=print, hf_repo="x", hf_subset="en-zh",
    ...                            metrics=[Metrics.bleu, Metrics.chrf, Metrics.exact_match])
    >>> [(m.metric_name, isinstance(m.corpus_level_fn, CorpusMetric)) for m in with_bleukit_metrics(task).metrics]
    [('bleu', True), ('chrf', True), ('em', False)]
    >>> with_bleukit_metrics(task).metrics[0].corpus_level_fn.options.tokenize
    'zh'
    """
    if isinstance(config, type) or not dataclasses.is_dataclass(config) or not hasattr(config, "metrics"):
        raise TypeError(f"config must be a lighteval LightevalTaskConfig, got {type(config).__name__}")
    if language is None:
        match = _PAIR.search(str(getattr(config, "name", "")))
        language = match.group(2) if match else None
    metrics = []
    for metric in config.metrics:
        name = getattr(metric, "metric_name", None)
        level = getattr(metric, "corpus_level_fn", None)
        if isinstance(name, str) and name in _REPLACES and not isinstance(level, CorpusMetric) and callable(
            getattr(level, "compute_corpus", None)
        ):
            bleukit_name, keywords = _REPLACES[name]
            if bleukit_name in available_metrics():
                metric = corpus_metric(bleukit_name, language=language, metric_name=name, **keywords)
        metrics.append(metric)
    return dataclasses.replace(config, metrics=metrics)  # type: ignore[type-var]


def _get_stderr_function(original: Callable[..., Any]) -> Callable[..., Any]:
    """lighteval's ``get_stderr_function`` that answers :meth:`CorpusMetric.stderr` for ours."""

    def get_stderr_function(aggregation: Callable[..., Any], number_experiments: int = 1000) -> Any:
        owner = getattr(aggregation, "__self__", None)
        if isinstance(owner, CorpusMetric):
            return lambda population: owner.stderr(population, number_experiments)
        return original(aggregation, number_experiments=number_experiments)

    get_stderr_function.bleukit_wraps = original  # type: ignore[attr-defined]
    return get_stderr_function


def _install() -> None:
    current = lighteval_loggers.get_stderr_function
    if not hasattr(current, "bleukit_wraps"):
        # lighteval's MetricsLogger.aggregate asks the get_stderr_function it imported, which
        # bootstraps any aggregation by rescoring it: wrapping that name is the one hook.
        lighteval_loggers.get_stderr_function = _get_stderr_function(current)


_install()

#: Drop-ins for lighteval's ``Metrics.bleu``, ``Metrics.chrf``, ``Metrics.chrf_plus`` (and ``Metrics.ter``).
bleu = corpus_metric("bleu")
chrf = corpus_metric("chrf")
chrf_plus = corpus_metric("chrf", word_order=2)
ter: Optional[CorpusLevelMetric] = corpus_metric("ter") if "ter" in available_metrics() else None
#: Drop-ins for lighteval's ``Metrics.bleu_1`` and ``Metrics.bleu_4``: the same numbers, offline.
bleu_1 = SampleLevelMetric(
    metric_name="bleu_1",
    sample_level_fn=NltkBleu(1),
    category=SamplingMethod.GENERATIVE,
    corpus_level_fn=np.mean,
    higher_is_better=True,
)
bleu_4 = SampleLevelMetric(
    metric_name="bleu_4",
    sample_level_fn=NltkBleu(4),
    category=SamplingMethod.GENERATIVE,
    corpus_level_fn=np.mean,
    higher_is_better=True,
)
