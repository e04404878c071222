"""BLEU as a reward function for RL trainers (TRL's ``GRPOTrainer`` and anything calling alike).

TRL calls each reward function as ``f(prompts=..., completions=..., completion_ids=...,
**dataset_columns)`` (plus ``trainer_state`` and logging hooks) and expects one float per
completion. :func:`bleu_reward` builds such a function: text completions are scored with the
core's sacreBLEU-exact sentence BLEU; with ``ids=True`` the generated ids are scored directly
with :func:`bleukit.ids.sentence_bleu_ids` (no decoding).

>>> reward = bleu_reward("reference", scale=1.0)
>>> rewards = reward(prompts=["Hallo Welt", "Guten Tag"], completions=["Hello world !", "Good morning"],
...                  reference=["Hello world!", ["Good day", "Hello"]])
>>> [round(r, 4) for r in rewards]
[100.0, 50.0]
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

from bleukit.ids import PadIds, id_statistics
from bleukit.metrics.bleu.options import DEFAULT_MAX_NGRAM_ORDER, DEFAULT_SENTENCE_SMOOTH, BleuOptions
from bleukit.pipeline import corpus_statistics, sentence_scores_from_statistics
from bleukit.tokenizers import DEFAULT_TOKENIZER

__all__ = ["bleu_reward", "completion_text"]

# Keyword arguments TRL adds next to the dataset columns; never a reference column.
_TRAINER_KWARGS = {"trainer_state", "log_extra", "log_metric", "environments"}


def completion_text(completion: Any) -> str:
    """The text of one completion: a string, or a conversation (list of messages) whose last
    message's content is used (a string, or a list of ``{"type": "text", "text": ...}`` parts).

    >>> completion_text([{"role": "assistant", "content": "Hi there"}])
    'Hi there'
    >>> completion_text([{"role": "assistant", "content": [{"type": "text", "text": "Hi"}]}])
    'Hi'
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, (list, tuple)) and completion and isinstance(completion[-1], dict):
        content = completion[-1].get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, (list, tuple)):
            parts = [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
            return "".join(parts)
        raise TypeError(f"message content must be a str or a list of parts, got {type(content).__name__}")
    raise TypeError(
        "a completion must be a str or a list of chat messages ({'role': ..., 'content': ...}), "
        f"got {type(completion).__name__}"
    )


def bleu_reward(
    reference_column: str = "reference",
    *,
    ids: bool = False,
    scale: float = 0.01,
    tokenize: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    smooth_method: str = DEFAULT_SENTENCE_SMOOTH,
    smooth_value: Optional[float] = None,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    effective_order: bool = True,
    weights: Optional[Sequence[float]] = None,
    pad_id: PadIds = None,
    tokenizer: Any = None,
    name: Optional[str] = None,
) -> Callable[..., List[float]]:
    """A reward function ``(prompts, completions, **dataset_columns) -> list[float]``: sentence BLEU
    of each completion against ``dataset_columns[reference_column]``, times ``scale``.

    ``scale=0.01`` gives rewards in [0, 1]; ``scale=1.0`` gives sacreBLEU's 0-100 numbers
    exactly. A reference entry is a string or a list of strings (several references), or, with
    ``ids=True``, an id list or a list of id lists; with ``ids=True`` string references are
    encoded with ``tokenizer`` (a Hugging Face tokenizer, no special tokens). ``pad_id`` (one id
    or several, e.g. pad and EOS) is dropped from the ids before scoring. ``tokenize`` and
    ``lowercase`` apply to text only (ids are already tokens).

    >>> reward = bleu_reward("refs", ids=True, scale=1.0, pad_id=2)
    >>> rewards = reward(prompts=["p", "q"], completions=["?", "?"], completion_ids=[[5, 6, 7, 8, 2], [5, 6, 2]],
    ...                  refs=[[5, 6, 7, 8], [[5, 6, 9], [1]]])
    >>> [round(r, 4) for r in rewards]
    [100.0, 100.0]
    """
    if not isinstance(reference_column, str):
        raise TypeError(f"reference_column must be a str, got {type(reference_column).__name__}")
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise TypeError(f"scale must be a number, got {type(scale).__name__}")
    # Validate every option now, so a typo fails when the trainer is built, not mid-training.
    # Ids are already tokens: they are scored with tokenize="none" and no lowercasing.
    options = BleuOptions(
        tokenize="none" if ids else tokenize,
        lowercase=False if ids else lowercase,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        max_ngram_order=max_ngram_order,
        weights=weights,
        effective_order=effective_order,
    )

    def references_of(kwargs: dict, n: int) -> list:
        if reference_column not in kwargs:
            columns = sorted(k for k in kwargs if k not in _TRAINER_KWARGS)
            raise ValueError(
                f"reward needs the reference column {reference_column!r}, but the batch has only "
                f"{columns}; pass bleu_reward(reference_column=...) naming a dataset column"
            )
        refs = list(kwargs[reference_column])
        if len(refs) != n:
            raise ValueError(f"got {n} completions but {len(refs)} entries in column {reference_column!r}")
        return refs

    def bleu_text_reward(prompts=None, completions=None, completion_ids=None, **kwargs) -> List[float]:
        if completions is None:
            raise ValueError("bleu reward needs completions")
        texts = [completion_text(c) for c in completions]
        refs = references_of(kwargs, len(texts))
        scores = sentence_scores_from_statistics(corpus_statistics(texts, refs, options), options)
        return [s * scale for s in scores.tolist()]

    def bleu_ids_reward(prompts=None, completions=None, completion_ids=None, **kwargs) -> List[float]:
        if completion_ids is None:
            raise ValueError("bleu_reward(ids=True) needs completion_ids (TRL passes them)")
        refs = references_of(kwargs, len(completion_ids))
        refs = [_encode(r, tokenizer) for r in refs]
        stats = id_statistics(completion_ids, refs, pad_id=pad_id, max_ngram_order=options.max_ngram_order)
        return [s * scale for s in sentence_scores_from_statistics(stats, options).tolist()]

    reward = bleu_ids_reward if ids else bleu_text_reward
    # TRL names the reward's logged metrics after __name__.
    reward.__name__ = name or ("bleu_ids" if ids else "bleu")
    reward.__qualname__ = reward.__name__
    return reward


def _encode(reference: Any, tokenizer: Any) -> Any:
    """Reference ids; strings are encoded with the tokenizer (one reference or a list of them)."""
    if isinstance(reference, str) or (
        isinstance(reference, (list, tuple)) and reference and all(isinstance(r, str) for r in reference)
    ):
        if tokenizer is None:
            raise TypeError(
                "reference column holds text but ids=True: pass tokenizer=... to encode it, or use "
                "bleu_reward(ids=False) to score decoded text"
            )
        if isinstance(reference, str):
            return tokenizer(reference, add_special_tokens=False)["input_ids"]
        return [tokenizer(r, add_special_tokens=False)["input_ids"] for r in reference]
    return reference
