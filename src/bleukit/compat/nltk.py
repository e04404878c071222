"""NLTK's ``corpus_bleu`` / ``sentence_bleu`` (nltk 3.10), number for number, from bleukit's statistics.

NLTK takes token lists, not strings: ``hypotheses[i]`` is a list of tokens and
``list_of_references[i]`` a list of token lists (argument order as NLTK: references first).
Clipping and the closest reference length (ties to the shorter) are sacreBLEU's, so one bleukit
statistics row per sentence holds almost everything. What NLTK adds, and this module reproduces:

* denominators are ``max(1, n-grams of order n)`` per sentence, so a sentence too short for an
  order adds 1 to that order's denominator (one extra integer per order: how many such sentences);
* no unigram match anywhere returns the int ``0`` (a list of zeros for several weight tuples);
* ``method0`` (no smoothing) replaces a zero precision by ``sys.float_info.min``: the result is a
  tiny positive number (about 1e-77 with 4 uniform weights), not 0, and NLTK warns;
* the corpus-level smoothing functions see only the *last* sentence pair: ``method5`` (and 7)
  take the order-5 precision of the last pair, ``method6`` the n-gram count of the last hypothesis
  (its corpus scores exceed 1; so does ``method5``), ``method4`` uses the corpus length;
* ``method6`` asserts that the *trigram* precision is non-zero (its message says bigrams);
* ``auto_reweigh`` only applies when the weights are exactly the tuple ``(0.25, 0.25, 0.25, 0.25)``
  and the corpus has fewer than 4 tokens.

Where one of those corpus-level quirks changes the number, a :class:`NltkQuirkWarning` names it.

>>> hyp = "the cat sat on the mat".split()
>>> ref = "the cat is on the mat".split()
>>> round(sentence_bleu([ref], hyp, smoothing_function=SmoothingFunction().method1), 6)
0.254066
>>> corpus_bleu([[ref]], [["dog"]])
0
"""

from __future__ import annotations

import math
import sys
import warnings
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, List, Optional, Sequence, Union

import numpy as np

from ..metrics.bleu.statistics import closest_ref_length, sentence_row
from ._common import check_token_lists, token_statistics

__all__ = ["corpus_bleu", "sentence_bleu", "SmoothingFunction", "RawPrecision", "NltkQuirkWarning"]

Tokens = Sequence[Any]
Number = Union[int, float, Fraction]


class NltkQuirkWarning(UserWarning):
    """A number follows one of NLTK's quirks (named in the message) where a textbook BLEU differs."""


@dataclass(frozen=True)
class RawPrecision:
    """An unsmoothed precision as NLTK keeps it: numerator and denominator *unreduced*.

    The smoothing methods read ``numerator``/``denominator`` as given (``0/7`` stays ``0/7``),
    which is what NLTK's non-normalising ``Fraction`` provides; ``value`` is the exact number.

    >>> RawPrecision(2, 4).value
    Fraction(1, 2)
    """

    numerator: int
    denominator: int

    @property
    def value(self) -> Fraction:
        return Fraction(self.numerator, self.denominator)


def _value(p: Any) -> Number:
    return p.value if isinstance(p, RawPrecision) else p


def _last_ngram_count(hypothesis: Tokens, n: int) -> int:
    return max(0, len(hypothesis) - n + 1)


class SmoothingFunction:
    """Chen & Cherry (2014) smoothing, with NLTK's parameters and behaviour (``method0``–``method7``).

    Each method takes the precisions (a list of :class:`RawPrecision`) and the *last* sentence
    pair, as NLTK passes them, and returns the smoothed precisions.

    >>> sf = SmoothingFunction(epsilon=0.1)
    >>> sf.method1([RawPrecision(3, 4), RawPrecision(0, 3)])
    [RawPrecision(numerator=3, denominator=4), 0.03333333333333333]
    """

    def __init__(self, epsilon: float = 0.1, alpha: float = 5, k: float = 5) -> None:
        self.epsilon = epsilon
        self.alpha = alpha
        self.k = k

    def method0(self, p_n: List[Any], *args: Any, **kwargs: Any) -> List[Any]:
        """No smoothing; a zero precision becomes ``sys.float_info.min`` (a tiny, non-zero BLEU)."""
        out = []
        for i, p in enumerate(p_n):
            if p.numerator != 0:
                out.append(p)
            else:
                warnings.warn(
                    f"NLTK method0: no {i + 1}-gram overlaps; NLTK scores the precision as "
                    "sys.float_info.min, so BLEU is tiny but not 0",
                    NltkQuirkWarning,
                    stacklevel=3,
                )
                out.append(sys.float_info.min)
        return out

    def method1(self, p_n: List[Any], *args: Any, **kwargs: Any) -> List[Any]:
        """Add ``epsilon`` to zero numerators."""
        return [(p.numerator + self.epsilon) / p.denominator if p.numerator == 0 else p for p in p_n]

    def method2(self, p_n: List[Any], *args: Any, **kwargs: Any) -> List[Any]:
        """Add one to numerator and denominator of every order but the unigrams (Lin & Och 2004)."""
        return [p if i == 0 else RawPrecision(p.numerator + 1, p.denominator + 1) for i, p in enumerate(p_n)]

    def method3(self, p_n: List[Any], *args: Any, **kwargs: Any) -> List[Any]:
        """NIST geometric smoothing: the k-th zero precision becomes ``1 / (2**k * denominator)``."""
        out = list(p_n)
        k = 1
        for i, p in enumerate(p_n):
            if p.numerator == 0:
                out[i] = 1 / (2**k * p.denominator)
                k += 1
        return out

    def method4(self, p_n: List[Any], references: Any, hypothesis: Tokens, hyp_len: Optional[int] = None,
                *args: Any, **kwargs: Any) -> List[Any]:
        """Zero precisions shrink with the (corpus) hypothesis length: ``1/(2**i * k / ln(len))``."""
        out = list(p_n)
        inc = 1
        hyp_len = hyp_len if hyp_len else len(hypothesis)
        for i, p in enumerate(p_n):
            if isinstance(p, RawPrecision) and p.numerator == 0 and hyp_len > 1:
                out[i] = (1 / (2**inc * self.k / math.log(hyp_len))) / p.denominator
                inc += 1
        return out

    def method5(self, p_n: List[Any], references: Any, hypothesis: Tokens, hyp_len: Optional[int] = None,
                *args: Any, **kwargs: Any) -> List[Any]:
        """Average each precision with its neighbours; the order after the last is the order-5
        precision of the *last* sentence pair only (NLTK's corpus quirk)."""
        row = sentence_row(hypothesis, references, 5)
        extra = RawPrecision(row[2 + 4], max(1, row[2 + 5 + 4]))
        values = [_value(p) for p in p_n]
        nxt = values + [extra.value]
        out = list(values)
        prev = values[0] + 1
        for i, p in enumerate(values):
            out[i] = (prev + p + nxt[i + 1]) / 3
            prev = out[i]
        return out

    def method6(self, p_n: List[Any], references: Any, hypothesis: Tokens, hyp_len: Optional[int] = None,
                *args: Any, **kwargs: Any) -> List[Any]:
        """Interpolate with a prior from the two previous orders (Gao & He 2013); ``l`` is the
        n-gram count of the *last* hypothesis (NLTK's corpus quirk)."""
        if not _value(p_n[2]):
            # NLTK asserts on the trigram precision though its message says bigrams.
            raise AssertionError("This smoothing method requires non-zero precision for bigrams.")
        out = list(p_n)
        for i in range(2, len(p_n)):
            prev2, prev1 = _value(out[i - 2]), _value(out[i - 1])
            pi0 = 0 if prev2 == 0 else prev1**2 / prev2
            m = p_n[i].numerator
            l = _last_ngram_count(hypothesis, i + 1)  # noqa: E741 - NLTK's name
            out[i] = (m + self.alpha * pi0) / (l + self.alpha)
        return out

    def method7(self, p_n: List[Any], references: Any, hypothesis: Tokens, hyp_len: Optional[int] = None,
                *args: Any, **kwargs: Any) -> List[Any]:
        """Method 4, then method 5."""
        hyp_len = hyp_len if hyp_len else len(hypothesis)
        return self.method5(self.method4(p_n, references, hypothesis, hyp_len), references, hypothesis, hyp_len)


def _resolve_smoothing(smoothing_function: Optional[Callable]) -> Callable:
    if not smoothing_function:
        return SmoothingFunction().method0
    owner = getattr(smoothing_function, "__self__", None)
    name = getattr(smoothing_function, "__name__", "")
    if owner is not None and not isinstance(owner, SmoothingFunction) and type(owner).__name__ == "SmoothingFunction":
        # NLTK's own SmoothingFunction: the same method with the same parameters, computed here.
        mine = SmoothingFunction(owner.epsilon, owner.alpha, owner.k)
        if hasattr(mine, name):
            return getattr(mine, name)
    return smoothing_function


def _is_weight_list(weights: Any) -> bool:
    try:
        weights[0][0]
    except (TypeError, IndexError):
        return False
    return True


def corpus_bleu(
    list_of_references: Sequence[Sequence[Tokens]],
    hypotheses: Sequence[Tokens],
    weights: Any = (0.25, 0.25, 0.25, 0.25),
    smoothing_function: Optional[Callable] = None,
    auto_reweigh: bool = False,
) -> Union[float, int, List[float]]:
    """``nltk.translate.bleu_score.corpus_bleu``: BLEU on the 0-1 scale, or a list for a list of weights.

    >>> refs = [[["a", "b", "c", "d"]], [["e", "f"]]]
    >>> hyps = [["a", "b", "c", "d"], ["e", "g"]]
    >>> round(corpus_bleu(refs, hyps, weights=[(0.5, 0.5), (1.0,)])[0], 6)
    0.790569
    """
    refs, hypotheses = check_token_lists(list_of_references, hypotheses, "corpus_bleu")
    if len(refs) != len(hypotheses):
        raise ValueError(
            f"list_of_references has {len(refs)} entries and hypotheses {len(hypotheses)}: "
            "NLTK needs one list of references per hypothesis"
        )
    if not hypotheses:
        raise ValueError("empty corpus: NLTK's corpus_bleu needs at least one hypothesis")
    weight_list = list(weights) if _is_weight_list(weights) else [weights]
    order = max(len(w) for w in weight_list)
    if any(not r for r in refs):
        raise ValueError("every hypothesis needs at least one reference")
    stats = token_statistics(hypotheses, refs, order)
    totals = stats.totals
    numerators = stats.counts.sum(axis=0)
    # NLTK's per-sentence denominators are max(1, n-grams): every sentence without an n-gram of
    # order n still adds one.
    denominators = np.maximum(totals, 1).sum(axis=0)
    hyp_lengths = int(stats.sys_len.sum())
    ref_lengths = int(stats.ref_len.sum())
    if int(numerators[0]) == 0:
        return 0 if len(weight_list) == 1 else [0] * len(weight_list)
    if ref_lengths < hyp_lengths:
        bp: float = 1
    elif hyp_lengths == 0:
        bp = 0
    else:
        bp = math.exp(1 - ref_lengths / hyp_lengths)
    p_n = [RawPrecision(int(c), int(d)) for c, d in zip(numerators, denominators)]
    smooth = _resolve_smoothing(smoothing_function)
    last_refs, last_hyp = refs[-1], hypotheses[-1]
    _warn_corpus_quirks(smooth, len(hypotheses), denominators, totals)
    p_n = smooth(p_n, references=last_refs, hypothesis=last_hyp, hyp_len=hyp_lengths)
    scores = []
    for weight in weight_list:
        if auto_reweigh and hyp_lengths < 4 and weight == (0.25, 0.25, 0.25, 0.25):
            weight = (1 / hyp_lengths,) * hyp_lengths
        values = [_value(p) for p in p_n]
        terms = (w * math.log(p) for w, p in zip(weight, values) if p > 0)
        scores.append(bp * math.exp(math.fsum(terms)))
    return scores[0] if len(weight_list) == 1 else scores


def _warn_corpus_quirks(smooth: Callable, n_sentences: int, denominators: np.ndarray, totals: np.ndarray) -> None:
    name = getattr(smooth, "__name__", "")
    if n_sentences > 1 and name in ("method5", "method6", "method7"):
        warnings.warn(
            f"NLTK {name} at corpus level uses only the last sentence pair for its "
            + ("order-5 precision" if name != "method6" else "n-gram counts")
            + "; the corpus score differs from smoothing the corpus statistics",
            NltkQuirkWarning,
            stacklevel=3,
        )
    # A number changes only where an order has n-grams in the corpus but not in every sentence.
    if ((totals == 0).any(axis=0) & (totals.sum(axis=0) > 0)).any():
        warnings.warn(
            "NLTK counts max(1, n-grams) per sentence: sentences shorter than an n-gram order add 1 "
            "to that order's denominator, which lowers the precision",
            NltkQuirkWarning,
            stacklevel=3,
        )


def sentence_bleu(
    references: Sequence[Tokens],
    hypothesis: Tokens,
    weights: Any = (0.25, 0.25, 0.25, 0.25),
    smoothing_function: Optional[Callable] = None,
    auto_reweigh: bool = False,
) -> Union[float, int, List[float]]:
    """``nltk.translate.bleu_score.sentence_bleu``: the corpus BLEU of one sentence pair.

    >>> sentence_bleu([["a", "b", "c"]], ["a", "b", "c"], auto_reweigh=True)
    1.0
    """
    return corpus_bleu([references], [hypothesis], weights, smoothing_function, auto_reweigh)


# closest_ref_length is NLTK's rule too (ties to the shorter reference); re-exported for callers
# that want to state it.
closest_ref_length = closest_ref_length
