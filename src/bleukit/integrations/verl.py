"""verl adapter: sentence BLEU / chrF++ as a custom ``compute_score`` for verl's reward managers.

verl loads a custom reward function from ``reward.custom_reward_function`` (``path``, ``name``,
``reward_kwargs``) and calls it per sample as ``compute_score(data_source=..., solution_str=...,
ground_truth=..., extra_info=..., **reward_kwargs)`` (the naive and reward-loop managers; the
latter awaits it when it is a coroutine function), or for a whole batch with plural names
``compute_score(data_sources=..., solution_strs=..., ground_truths=..., extra_infos=...,
**reward_kwargs)`` (the batch manager). It takes a float, or a dict holding ``"score"`` whose
other keys are logged. Point verl at this module::

    reward:
      custom_reward_function:
        path: pkg://bleukit.integrations.verl
        name: compute_score            # or compute_score_async
        reward_kwargs: {metric: bleu, chrf_targets: [fi, tr, hu, et], scale: 0.01}

Each call returns ``{"score": reward, "sentence_score": the metric's full-precision sentence
score (0-100)}`` (a list of them for the batch form), never a score rounded to two decimals.
``ground_truth`` is the reference, a list of references, or a mapping with ``"references"`` and
the language; the language pair (``"en-zh"``) or target language is read from
``extra_info[language_key]`` (or that mapping) and picks the tokenizer as sacreBLEU's
``trg_lang``; targets in ``chrf_targets`` are scored with chrF++. ``metric`` is ``"bleu"``,
``"chrf"``, ``"chrf++"``, ``"ter"`` (rewarded as ``1 - TER/100`` clipped at 0; see
:mod:`~bleukit.integrations.rewards`) or any metric of :mod:`bleukit.metrics`; the other keywords are
its options (``tokenize``, ``lowercase``, ``word_order``, ...), plus the shaping of
:class:`~bleukit.integrations.rewards.MetricReward` (``scale``, ``power``, ``threshold``).

>>> compute_score("wmt", "The cat sat on the mat.", "The cat sat on the mat.", {"lang_pair": "de-en"})
{'score': 1.0000000000000004, 'sentence_score': 100.00000000000004}
>>> compute_score("wmt", "猫坐在垫子上。", "猫坐在垫子上了。", {"lang_pair": "en-zh"}, scale=1.0)["score"]
72.89545183625967
>>> [r["score"] for r in compute_score(data_sources=["a", "b"], solution_strs=["Kissa istui.", "x"],
...     ground_truths=["Kissa istuu.", "y"], extra_infos=[{"lang_pair": "en-fi"}, None], chrf_targets=["fi"])]
[0.6605609668109671, 0.0]
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Sequence, Union

from bleukit.inputs import check_sequence
from bleukit.integrations._samples import DEFAULT_LANGUAGE_KEY, sample_scorer, split_label

__all__ = ["compute_score", "compute_score_async"]

# Keywords verl's reward loop adds when a reward model is configured; not metric options.
_VERL_KWARGS = ("reward_router_address", "reward_model_tokenizer")

Score = Dict[str, float]


def compute_score(
    data_source: Any = None,
    solution_str: Optional[str] = None,
    ground_truth: Any = None,
    extra_info: Optional[Mapping] = None,
    *,
    data_sources: Optional[Sequence[Any]] = None,
    solution_strs: Optional[Sequence[str]] = None,
    ground_truths: Optional[Sequence[Any]] = None,
    extra_infos: Optional[Sequence[Optional[Mapping]]] = None,
    language_key: str = DEFAULT_LANGUAGE_KEY,
    **config: Any,
) -> Union[Score, List[Score]]:
    """The reward of one sample (verl's single form) or of every sample (the batch form, plural
    argument names): ``{"score": reward, "sentence_score": score}``; ``config`` is ``metric``,
    its option keywords, ``chrf_targets`` and the shaping (see the module's docstring)."""
    for key in _VERL_KWARGS:
        config.pop(key, None)
    if not isinstance(language_key, str):
        raise TypeError(f"language_key must be a str, got {type(language_key).__name__}")
    batch = solution_strs is not None
    if batch:
        if solution_str is not None or ground_truth is not None:
            raise TypeError("give either the single form (solution_str=...) or the batch form (solution_strs=...)")
        # one string is not a batch of its characters; sets, mappings and DataFrames are named
        hypotheses = check_sequence(solution_strs, "solution_strs")
        labels = check_sequence(ground_truths, "ground_truths", of="labels")
        infos = (
            check_sequence(extra_infos, "extra_infos", of="mappings (or None)")
            if extra_infos is not None
            else [None] * len(hypotheses)
        )
        if not len(labels) == len(infos) == len(hypotheses):
            raise ValueError(
                f"got {len(hypotheses)} solution_strs, {len(labels)} ground_truths and {len(infos)} extra_infos"
            )
    else:
        if solution_str is None:
            raise TypeError("compute_score needs solution_str (single form) or solution_strs (batch form)")
        hypotheses, labels, infos = [solution_str], [ground_truth], [extra_info]
    for i, hypothesis in enumerate(hypotheses):
        if not isinstance(hypothesis, str):
            where = f"solution_strs[{i}]" if batch else "solution_str"
            raise TypeError(f"{where} must be a str (the decoded response), got {type(hypothesis).__name__}")
    references, languages = [], []
    for label, info in zip(labels, infos):
        refs, language = split_label(label, language_key)
        if isinstance(info, Mapping) and info.get(language_key) is not None:
            language = info[language_key]
        references.append(refs)
        languages.append(language)
    rows = sample_scorer(**config).score(hypotheses, references, languages)
    out = [{"score": reward, "sentence_score": score} for reward, score, _ in rows]
    return out if batch else out[0]


async def compute_score_async(*args: Any, **kwargs: Any) -> Union[Score, List[Score]]:
    """:func:`compute_score` as a coroutine function (verl's reward loop awaits it; the scoring
    runs in a worker thread, where the compiled kernels release the GIL).

    >>> asyncio.run(compute_score_async("wmt", "a b c d", "a b c d", None))
    {'score': 1.0000000000000004, 'sentence_score': 100.00000000000004}
    """
    return await asyncio.to_thread(compute_score, *args, **kwargs)
