"""Input handling shared by the compat functions that take strings."""

from __future__ import annotations

from typing import Any, Callable, List, Sequence

from ..tokenizers import get_tokenizer


def per_hypothesis_references(references: Sequence[Any], n_predictions: int, who: str) -> List[List[Any]]:
    """``references[i]`` as a list (a lone string becomes ``[string]``), one entry per prediction.

    The Hugging Face metrics decide the layout from ``references[0]`` alone; so does this.
    """
    if isinstance(references, (str, bytes)) or isinstance(references, dict):
        raise TypeError(f"{who}: references must be a list (one entry per prediction), got {type(references).__name__}")
    refs = list(references)
    if len(refs) != n_predictions:
        raise ValueError(f"{who}: {n_predictions} predictions but {len(refs)} references; give one entry per prediction")
    if refs and isinstance(refs[0], str):
        refs = [[r] for r in refs]
    out = []
    for i, r in enumerate(refs):
        if isinstance(r, str) or not hasattr(r, "__iter__"):
            raise TypeError(f"{who}: references[{i}] must be a list of strings like references[0], got {type(r).__name__}")
        r = list(r)
        if not r:
            raise ValueError(f"{who}: references[{i}] is empty; every prediction needs a reference")
        out.append(r)
    return out


def predictions_list(predictions: Any, who: str) -> List[Any]:
    if isinstance(predictions, (str, bytes)) or predictions is None:
        raise TypeError(f"{who}: predictions must be a list of strings, got {type(predictions).__name__}")
    preds = list(predictions)
    if not preds:
        raise ValueError(f"{who}: empty input (no predictions); the original divides by zero here")
    return preds


def token_function(tokenizer: Any) -> Callable[[str], List[str]]:
    """``tokenizer`` as a ``str -> list of tokens`` function; ``None`` means 13a, as evaluate's default."""
    if tokenizer is None:
        tok = get_tokenizer("13a")
        return lambda line: tok(line).split()
    if isinstance(tokenizer, str):
        tok = get_tokenizer(tokenizer)
        return lambda line: tok(line).split()
    if not callable(tokenizer):
        raise TypeError(f"tokenizer must be callable or a bleukit tokenizer name, got {type(tokenizer).__name__}")
    return tokenizer


def check_token_lists(list_of_references: Sequence[Any], hypotheses: Sequence[Any], who: str) -> None:
    """NLTK scores a ``str`` as a sequence of characters; that is almost always a mistake, so say so."""
    if isinstance(hypotheses, str) or any(isinstance(h, str) for h in hypotheses):
        raise TypeError(f"{who} takes token lists, got a str hypothesis (NLTK would score its characters); "
                        "split it first, e.g. hypothesis.split()")
    for refs in list_of_references:
        if isinstance(refs, str) or any(isinstance(r, str) for r in refs):
            raise TypeError(f"{who} takes a list of token lists per hypothesis, got a str reference; "
                            "e.g. [reference.split()]")
