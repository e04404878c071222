"""OpenRLHF adapter: sentence BLEU / chrF++ as the ``reward_func`` of a reward file.

OpenRLHF loads a Python file given as ``--remote_rm_url /path/to/file.py`` and calls its
``reward_func(queries, prompts, labels)`` from a worker thread, one sample at a time: ``queries``
are the decoded prompt + response with special tokens, ``prompts`` the prompts and ``labels``
the dataset's label column. It takes a dict with ``rewards`` (the training reward), ``scores``
(what dynamic filtering reads) and ``extra_logs`` (logged per sample), each a tensor with one
value per query. This module is such a file (its imports are absolute): pass its path,
``python -c "import bleukit.integrations.openrlhf as m; print(m.__file__)"``, for BLEU with the
defaults, or write a two-line file for other options::

    from bleukit.integrations.openrlhf import RewardFunction
    reward_func = RewardFunction(metric="chrf++", scale=0.01)

The response is the query after its prompt, with trailing end-of-turn markers (``end_markers``)
and surrounding whitespace removed. A label is the reference, a list of references, or a mapping
with ``"references"`` and the language pair under ``language_key`` (``"en-zh"``), which picks
the tokenizer as sacreBLEU's ``trg_lang``; targets in ``chrf_targets`` are scored with chrF++.
Scores are the full-precision sacreBLEU-exact sentence scores.

>>> out = reward_func(["<|im_start|>user\\nTranslate<|im_end|>\\n<|im_start|>assistant\\nThe cat sat.<|im_end|>"],
...                   ["<|im_start|>user\\nTranslate<|im_end|>\\n<|im_start|>assistant\\n"], ["The cat sat."])
>>> out["rewards"], out["extra_logs"]["sentence_score"]
(tensor([1.]), tensor([100.0000], dtype=torch.float64))
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence

import torch

from bleukit.inputs import check_sequence
from bleukit.integrations._samples import DEFAULT_LANGUAGE_KEY, sample_scorer, split_label

__all__ = ["RewardFunction", "reward_func", "response_text", "END_MARKERS"]

#: End-of-turn and end-of-text markers of common chat models, removed from the end of a response.
END_MARKERS = ("</s>", "<|endoftext|>", "<|im_end|>", "<|eot_id|>", "<|end_of_text|>", "<end_of_turn>", "<eos>",
               "<|end|>")


def response_text(query: str, prompt: str, end_markers: Iterable[str] = END_MARKERS) -> str:
    """The response inside a query (prompt + response): the text after ``prompt``, without
    trailing ``end_markers`` and surrounding whitespace.

    >>> response_text("Q: hi A: Hello there!</s>", "Q: hi A:")
    'Hello there!'
    """
    if not isinstance(query, str) or not isinstance(prompt, str):
        raise TypeError(f"queries and prompts must be str, got {type(query).__name__} and {type(prompt).__name__}")
    if not query.startswith(prompt):
        raise ValueError(
            "the query does not start with its prompt, so the response cannot be cut out of it: "
            f"prompt {prompt[:60]!r}..., query {query[:60]!r}..."
        )
    text = query[len(prompt):].strip()
    markers = tuple(m for m in end_markers if m)
    while markers and text.endswith(markers):
        text = text[: -len(next(m for m in markers if text.endswith(m)))].rstrip()
    return text


class RewardFunction:
    """``reward_func(queries, prompts, labels)`` for OpenRLHF; ``metric`` (``"bleu"``, ``"chrf"``,
    ``"chrf++"``, ``"ter"``, ...), its option keywords, ``chrf_targets`` and the shaping (``scale``,
    ``power``, ``threshold``) as :mod:`bleukit.integrations.verl`. Picklable.

    >>> RewardFunction(metric="chrf++", scale=1.0)(["P: Kissa istui."], ["P:"], ["Kissa istuu."])["scores"]
    tensor([66.0561])
    """

    def __init__(
        self,
        metric: str = "bleu",
        *,
        language_key: str = DEFAULT_LANGUAGE_KEY,
        end_markers: Sequence[str] = END_MARKERS,
        **config: Any,
    ) -> None:
        if not isinstance(language_key, str):
            raise TypeError(f"language_key must be a str, got {type(language_key).__name__}")
        if isinstance(end_markers, str) or not all(isinstance(m, str) for m in end_markers):
            raise TypeError(f"end_markers must be a list of strings, got {end_markers!r}")
        self.config: Dict[str, Any] = {"metric": metric, **config}
        self.language_key = language_key
        self.end_markers = tuple(end_markers)
        sample_scorer(**self.config)  # validates the options now, not at the first sample

    def __call__(self, queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any]) -> Dict[str, Any]:
        # one string is not a batch of its characters; sets, mappings and DataFrames are named
        queries = check_sequence(queries, "queries")
        prompts = check_sequence(prompts, "prompts")
        labels = check_sequence(labels, "labels")
        for what, texts in (("queries", queries), ("prompts", prompts)):
            for i, text in enumerate(texts):
                if not isinstance(text, str):
                    raise TypeError(f"{what}[{i}] must be a str, got {type(text).__name__}")
        if not len(queries) == len(prompts) == len(labels):
            raise ValueError(f"got {len(queries)} queries, {len(prompts)} prompts and {len(labels)} labels")
        hypotheses = [response_text(q, p, self.end_markers) for q, p in zip(queries, prompts)]
        references: List[Any] = []
        languages: List[Optional[Any]] = []
        for label in labels:
            refs, language = split_label(label, self.language_key)
            references.append(refs)
            languages.append(language)
        rows = sample_scorer(**self.config).score(hypotheses, references, languages)
        rewards = torch.tensor([r for r, _, _ in rows], dtype=torch.float32)
        return {
            "rewards": rewards,
            "scores": rewards.clone(),
            "extra_logs": {"sentence_score": torch.tensor([s for _, s, _ in rows], dtype=torch.float64)},
        }

    def __repr__(self) -> str:
        return f"RewardFunction({self.config!r})"


#: BLEU with sacreBLEU's sentence defaults, in [0, 1]: what OpenRLHF finds in this file.
reward_func = RewardFunction()
