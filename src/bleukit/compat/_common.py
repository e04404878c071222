"""Input handling shared by the compat functions that take strings."""

from __future__ import annotations

from typing import Any, Callable, Dict, Hashable, List, Sequence, Tuple

from ..inputs import check_sequence, check_texts
from ..metrics.bleu.statistics import BleuStatistics
from ..tokenizers import get_tokenizer


def per_hypothesis_references(references: Sequence[Any], n_predictions: int, who: str) -> List[List[Any]]:
    """``references[i]`` as a list (a lone string becomes ``[string]``), one entry per prediction.

    The Hugging Face metrics decide the layout from ``references[0]`` alone; so does this.
    """
    refs = check_sequence(references, f"{who}: references", of="entries (one per prediction)")
    if len(refs) != n_predictions:
        raise ValueError(
            f"{who}: {n_predictions} predictions but {len(refs)} references; give one entry per "
            "prediction"
        )
    if refs and isinstance(refs[0], str):
        refs = [[r] for r in refs]
    out = []
    for i, r in enumerate(refs):
        if isinstance(r, str) or not hasattr(r, "__iter__"):
            layout = "a str or a list of strings" if i == 0 else "a list of strings like references[0]"
            raise TypeError(f"{who}: references[{i}] must be {layout}, got {type(r).__name__}")
        r = check_sequence(r, f"{who}: references[{i}]")
        for k, ref in enumerate(r):
            if not isinstance(ref, str):
                raise TypeError(f"{who}: references[{i}][{k}] must be a str, got {type(ref).__name__}")
        if not r:
            raise ValueError(f"{who}: references[{i}] is empty; every prediction needs a reference")
        out.append(r)
    return out


def predictions_list(predictions: Any, who: str) -> List[Any]:
    preds = check_sequence(predictions, f"{who}: predictions")
    if not preds:
        raise ValueError(f"{who}: empty input (no predictions); the original divides by zero here")
    return check_texts(preds, f"{who}: predictions")


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


def check_token_lists(
    list_of_references: Sequence[Any], hypotheses: Sequence[Any], who: str
) -> Tuple[List[List[List[Any]]], List[List[Any]]]:
    """References and hypotheses as new lists of token lists (generators read once; sets, mappings
    and DataFrames refused by :func:`bleukit.inputs.check_sequence`). NLTK scores a ``str`` as a
    sequence of characters; that is almost always a mistake, so say so."""
    if isinstance(hypotheses, str):
        hypotheses = [hypotheses]  # named by the check below
    hyps = check_sequence(hypotheses, f"{who}: hypotheses", of="token lists")
    if any(isinstance(h, str) for h in hyps):
        raise TypeError(f"{who} takes token lists, got a str hypothesis (NLTK would score its characters); "
                        "split it first, e.g. hypothesis.split()")
    hyps = [check_sequence(h, f"{who}: hypotheses[{i}]", of="tokens") for i, h in enumerate(hyps)]
    refs = []
    for i, entry in enumerate(check_sequence(list_of_references, f"{who}: list_of_references", of="reference lists")):
        where = f"{who}: list_of_references[{i}]"
        if not isinstance(entry, str):
            entry = check_sequence(entry, where, of="token lists")
        if isinstance(entry, str) or any(isinstance(r, str) for r in entry):
            raise TypeError(f"{who} takes a list of token lists per hypothesis, got a str reference; "
                            "e.g. [reference.split()]")
        refs.append([check_sequence(r, f"{where}[{k}]", of="tokens") for k, r in enumerate(entry)])
    return refs, hyps


def token_statistics(
    hypotheses: Sequence[Sequence[Hashable]], references: Sequence[Sequence[Sequence[Hashable]]], max_ngram_order: int
) -> BleuStatistics:
    """``count_statistics`` of token lists, counted by the token-id path (the compiled kernel where
    it is built): each distinct token becomes an int id, which changes no n-gram match, so the
    table is the same; the pure-Python counter stays the reference.

    >>> from bleukit.metrics.bleu.statistics import count_statistics
    >>> hyps, refs = [["the", "cat", "the"], []], [[["the", "cat"], ["a", "the", "the"]], [["x"]]]
    >>> token_statistics(hyps, refs, 2) == count_statistics(hyps, refs, 2)
    True
    """
    from ..ids import id_statistics

    ids: Dict[Hashable, int] = {}

    def encode(tokens: Sequence[Hashable]) -> List[int]:
        return [ids.setdefault(token, len(ids)) for token in tokens]

    hyp_ids = [encode(h) for h in hypotheses]
    # Each entry a list of id lists (several references), so an empty reference stays one reference.
    ref_ids = [[encode(r) for r in refs] for refs in references]
    return id_statistics(hyp_ids, ref_ids, max_ngram_order=max_ngram_order)
