"""torchmetrics' ``BLEUScore`` / ``SacreBLEUScore`` (1.9), from exact integer statistics.

How torchmetrics' BLEU differs from sacreBLEU:

* ``bleu_score`` splits on whitespace (``str.split``), no tokenizer; ``sacre_bleu_score`` uses
  sacreBLEU's tokenizers but lowercases *after* tokenizing;
* the closest reference length goes to the *first listed* reference on ties (sacreBLEU: the shorter);
* one order without any match returns 0 before any smoothing; ``smooth=True`` adds one to every
  order but the unigrams (Lin & Och);
* the score is computed in float32 and returned as a 0-d float32 tensor on the 0-1 scale;
* ``BLEUScore.update``/``SacreBLEUScore`` and ``sacre_bleu_score`` iterate a plain ``str`` target
  entry (and a ``str`` of predictions) as characters: every character is a reference of its own
  (only ``bleu_score`` wraps a string in a list). Reproduced, with a
  :class:`TorchmetricsQuirkWarning`; an empty string entry, where torchmetrics fails on
  ``min()`` of no reference lengths, is a ``ValueError`` saying so.

The float32 accumulation is not copied. torchmetrics adds every sentence's counts into float32
tensors; float32 holds integers exactly only up to 2**24 = 16,777,216, so on a corpus with more
n-grams (or tokens) than that, additions of small counts are rounded away (``2**24 + 1`` is
``2**24``): totals stop growing, the precisions and the brevity penalty drift, and the score
depends on batch order. Here the counts are summed as int64 and converted to float32 once, for the
final formula, so below 2**24 the result is torchmetrics' to the bit and above it is the correctly
rounded value of the true counts. The final formula needs ``torch`` (imported when called).

>>> float(bleu_score(["the cat is on the mat"], [["there is a cat on the mat", "a cat is on the mat"]]))
0.7598356604576111
"""

from __future__ import annotations

import warnings
from typing import Any, List, Optional, Sequence

import numpy as np

from ..inputs import check_sequence
from ..tokenizers import get_tokenizer
from ._common import token_statistics

__all__ = ["bleu_score", "sacre_bleu_score", "BLEUScore", "SacreBLEUScore", "TorchmetricsQuirkWarning"]


class TorchmetricsQuirkWarning(UserWarning):
    """A torchmetrics quirk that changes the number was reproduced (a string read as characters)."""


def _characters(text: str, where: str) -> List[str]:
    """torchmetrics' reading of a ``str`` where a list belongs: one item per character."""
    if len(text) != 1:  # one character reads the same either way
        warnings.warn(
            f"{where} is a str, which torchmetrics iterates as characters ({len(text)} items of one "
            "character each); give a list of strings to score the text",
            TorchmetricsQuirkWarning,
            stacklevel=4,
        )
    return list(text)


def _inputs(preds: Any, target: Any, wrap: bool) -> tuple:
    """Predictions and per-prediction reference lists as torchmetrics reads them: ``wrap``
    (``bleu_score``) puts a lone string in a list, otherwise a string is its characters."""
    if isinstance(preds, str):
        preds_ = [preds] if wrap else _characters(preds, "preds")
    else:
        preds_ = check_sequence(preds, "preds")
    target_ = []
    for i, t in enumerate(check_sequence(target, "target", of="references (one entry per prediction)")):
        if isinstance(t, str):
            if not (wrap or t):
                raise ValueError(
                    f"target[{i}] is an empty str: torchmetrics iterates a str target as characters, so it "
                    "has no reference (torchmetrics fails on min() of no lengths); give [''] for an empty "
                    "reference"
                )
            target_.append([t] if wrap else _characters(t, f"target[{i}]"))
        else:
            target_.append(check_sequence(t, f"target[{i}]"))
    # torchmetrics fails on a non-string deep inside its tokenizer (AttributeError); name it here.
    # (An empty corpus stays valid: torchmetrics scores it 0.) An empty list or tuple is an empty
    # sentence: torchmetrics tokenizes only truthy entries, and its own tests score [[]] against
    # [[[]]] as 0, so that input is part of the contract.
    for where, texts in [("preds", preds_)] + [(f"target[{i}]", refs) for i, refs in enumerate(target_)]:
        for k, text in enumerate(texts):
            if isinstance(text, (list, tuple)) and not text:
                texts[k] = ""
            elif not isinstance(text, str):
                raise TypeError(
                    f"{where}[{k}] must be a str (or an empty list, an empty sentence), got {type(text).__name__}"
                )
    if len(preds_) != len(target_):
        raise ValueError(f"Corpus has different size {len(preds_)} != {len(target_)}")
    for i, refs in enumerate(target_):
        if not refs:
            raise ValueError(f"target[{i}] has no reference")
    return preds_, target_


def _first_closest(hyp_len: int, ref_lens: List[int]) -> int:
    diffs = [abs(hyp_len - r) for r in ref_lens]
    return ref_lens[diffs.index(min(diffs))]


class _Counts:
    """Exact corpus statistics: int64 numerators/denominators and lengths."""

    def __init__(self, n_gram: int) -> None:
        self.n_gram = n_gram
        self.numerator = np.zeros(n_gram, dtype=np.int64)
        self.denominator = np.zeros(n_gram, dtype=np.int64)
        self.preds_len = 0
        self.target_len = 0

    def add(self, hyps: List[List[str]], refs: List[List[List[str]]]) -> None:
        if not hyps:
            return
        stats = token_statistics(hyps, refs, self.n_gram)
        self.numerator += stats.counts.sum(axis=0)
        self.denominator += stats.totals.sum(axis=0)
        self.preds_len += int(stats.sys_len.sum())
        # the one integer that differs from sacreBLEU's row: ties go to the first listed reference
        self.target_len += sum(_first_closest(len(h), [len(r) for r in rs]) for h, rs in zip(hyps, refs))

    def compute(self, weights: Sequence[float], smooth: bool):
        import torch

        numerator = torch.tensor(self.numerator.tolist(), dtype=torch.float32)
        denominator = torch.tensor(self.denominator.tolist(), dtype=torch.float32)
        preds_len = torch.tensor(float(self.preds_len), dtype=torch.float32)
        target_len = torch.tensor(float(self.target_len), dtype=torch.float32)
        # torchmetrics' formula in float32, operation for operation, so the result is its bits
        if min(numerator) == 0.0:
            return torch.tensor(0.0)
        if smooth:
            ones = torch.ones(self.n_gram)
            precision = torch.div(torch.add(numerator, ones), torch.add(denominator, ones))
            precision[0] = numerator[0] / denominator[0]
        else:
            precision = numerator / denominator
        geometric_mean = torch.exp(torch.sum(torch.tensor(weights) * torch.log(precision)))
        bp = torch.tensor(1.0) if preds_len > target_len else torch.exp(1 - (target_len / preds_len))
        return bp * geometric_mean


def _weights(n_gram: int, weights: Optional[Sequence[float]]) -> List[float]:
    if isinstance(n_gram, bool) or not isinstance(n_gram, int) or n_gram < 1:
        raise ValueError(f"n_gram must be an int >= 1, got {n_gram!r}")
    if weights is not None and len(weights) != n_gram:
        raise ValueError(f"List of weights has different weights than `n_gram`: {len(weights)} != {n_gram}")
    return list(weights) if weights is not None else [1.0 / n_gram] * n_gram


def _split(line: str) -> List[str]:
    return line.split() if line else []


class _SacreTokens:
    """sacreBLEU's tokenizer as torchmetrics' ``SacreBLEUScore`` applies it (a class, not a closure,
    so that metrics pickle: torchmetrics' own do, and DDP or spawned workers copy them)."""

    def __init__(self, tokenize: str, lowercase: bool) -> None:
        self.tokenizer = get_tokenizer(tokenize)
        self.lowercase = lowercase

    def __call__(self, line: str) -> List[str]:
        if not line:
            return []
        out = self.tokenizer(line)
        return (out.lower() if self.lowercase else out).split()  # torchmetrics lowercases after tokenizing


def _score(preds, target, tokens, n_gram, smooth, weights, wrap):
    w = _weights(n_gram, weights)
    preds_, target_ = _inputs(preds, target, wrap)
    counts = _Counts(n_gram)
    counts.add([tokens(p) for p in preds_], [[tokens(t) for t in ts] for ts in target_])
    return counts.compute(w, smooth)


def bleu_score(
    preds: Any, target: Sequence[Any], n_gram: int = 4, smooth: bool = False, weights: Optional[Sequence[float]] = None
):
    """``torchmetrics.functional.text.bleu_score``: a 0-d float32 tensor (0-1).

    >>> float(bleu_score(["a b c d"], [["a b c d"]]))
    1.0
    """
    return _score(preds, target, _split, n_gram, smooth, weights, wrap=True)


def sacre_bleu_score(
    preds: Sequence[str],
    target: Sequence[Sequence[str]],
    n_gram: int = 4,
    smooth: bool = False,
    tokenize: str = "13a",
    lowercase: bool = False,
    weights: Optional[Sequence[float]] = None,
):
    """``torchmetrics.functional.text.sacre_bleu_score``: bleukit's sacreBLEU tokenizers, then
    torchmetrics' counting and formula.

    >>> float(sacre_bleu_score(["The cat sat."], [["The cat sat."]]))
    1.0
    """
    return _score(preds, target, _SacreTokens(tokenize, lowercase), n_gram, smooth, weights, wrap=False)


class BLEUScore:
    """``torchmetrics.text.BLEUScore``: ``update`` batches, ``compute`` the corpus score, exactly.

    Calling the object scores one batch and adds it to the running statistics (like ``forward``).

    >>> metric = BLEUScore()
    >>> metric.update(["a b c d"], [["a b c d"]])
    >>> float(metric.compute())
    1.0
    """

    def __init__(self, n_gram: int = 4, smooth: bool = False, weights: Optional[Sequence[float]] = None) -> None:
        self.n_gram = n_gram
        self.smooth = smooth
        self.weights = _weights(n_gram, weights)
        self._counts = _Counts(n_gram)

    def _tokens(self, line: str) -> List[str]:
        return _split(line)

    def update(self, preds: Any, target: Sequence[Any]) -> None:
        preds_, target_ = _inputs(preds, target, wrap=False)
        self._counts.add([self._tokens(p) for p in preds_], [[self._tokens(t) for t in ts] for ts in target_])

    def compute(self):
        return self._counts.compute(self.weights, self.smooth)

    def reset(self) -> None:
        self._counts = _Counts(self.n_gram)

    def __call__(self, preds: Any, target: Sequence[Any]):
        batch = type(self).__new__(type(self))
        batch.__dict__.update(self.__dict__)
        batch._counts = _Counts(self.n_gram)
        batch.update(preds, target)
        self.update(preds, target)
        return batch.compute()


class SacreBLEUScore(BLEUScore):
    """``torchmetrics.text.SacreBLEUScore``.

    >>> float(SacreBLEUScore(lowercase=True)(["The Cat."], [["the cat."]]))
    0.0
    """

    def __init__(
        self,
        n_gram: int = 4,
        smooth: bool = False,
        tokenize: str = "13a",
        lowercase: bool = False,
        weights: Optional[Sequence[float]] = None,
    ) -> None:
        super().__init__(n_gram, smooth, weights)
        self._tokenize = _SacreTokens(tokenize, lowercase)

    def _tokens(self, line: str) -> List[str]:
        return self._tokenize(line)
