"""chrF statistics in pure Python: the exact reference, and the fallback of the native kernel.

What sacreBLEU 2.6 counts, rule by rule:

- text is compared as ``str.lower()`` when ``lowercase`` is set (before anything else);
- character n-grams of orders 1..``char_order`` are taken from the text with every whitespace
  character that ``str.split()`` knows removed, or from the text as it is with ``whitespace``;
- word n-grams of orders 1..``word_order`` (chrF++) are taken from the ``str.split()`` words,
  each longer than one character split once: a trailing ASCII punctuation character
  (``string.punctuation``) comes off as a word of its own, otherwise a leading one does
  (``'(hi)'`` gives ``'(hi'`` and ``')'``);
- per order the row holds (hypothesis n-grams, reference n-grams, matches), the matches being
  the hypothesis counts clipped by the reference counts; the hypothesis count is 0 when the
  reference has no n-gram of that order (sacreBLEU's rule, kept for its corpus sums);
- with several references a sentence keeps the row of the reference with the best sentence
  chrF, the first one on a tie.

>>> from bleukit.metrics.chrf.options import ChrfOptions
>>> chrf_statistics(["a cat"], [["the cat"]], ChrfOptions(char_order=2)).tolist()
[[4, 6, 3, 3, 5, 2]]
"""

from __future__ import annotations

import string
from collections import Counter
from typing import Dict, Hashable, List, Sequence, Tuple

import numpy as np

from .formula import sentence_scores
from .options import ChrfOptions

__all__ = [
    "PUNCTUATION",
    "prepare",
    "char_sequence",
    "split_words",
    "sentence_ngrams",
    "match_statistics",
    "best_reference",
    "chrf_statistics",
    "pairwise_chrf_statistics",
]

#: The characters split off the ends of words for chrF++ (ASCII punctuation only).
PUNCTUATION = frozenset(string.punctuation)

NgramCounts = List[Counter]


def prepare(text: str, lowercase: bool) -> str:
    """The text as it is compared: its exact ``str`` value, lowercased with ``lowercase``.

    A ``str`` subclass is read as its ``str`` value (its own ``lower()`` is never called), as
    the native kernel reads it.

    >>> prepare("İstanbul", True) == "i̇stanbul"
    True
    """
    if type(text) is not str:
        text = str.__str__(text)
    return str.lower(text) if lowercase else text


def char_sequence(text: str, whitespace: bool) -> str:
    """The characters whose n-grams chrF counts: all of them, or all but ``str.split()``'s whitespace.

    >>> char_sequence("a b\\u00a0c\\u200bd", whitespace=False)
    'abc\\u200bd'
    """
    return text if whitespace else "".join(text.split())


def split_words(text: str) -> List[str]:
    """The chrF++ words: ``str.split()`` words with one end's ASCII punctuation split off.

    Only one character comes off, the last one if it is punctuation, else the first one.

    >>> split_words("(hi) 'x' . ,, end.")
    ['(hi', ')', "'x", "'", '.', ',', ',', 'end', '.']
    """
    words: List[str] = []
    for word in text.split():
        if len(word) > 1 and word[-1] in PUNCTUATION:
            words += (word[:-1], word[-1])
        elif len(word) > 1 and word[0] in PUNCTUATION:
            words += (word[0], word[1:])
        else:
            words.append(word)
    return words


def _counts(items: Sequence[Hashable], n: int, as_tuple: bool) -> Counter:
    if as_tuple:
        return Counter(tuple(items[i : i + n]) for i in range(len(items) - n + 1))
    return Counter(items[i : i + n] for i in range(len(items) - n + 1))


def sentence_ngrams(text: str, options: ChrfOptions) -> NgramCounts:
    """One Counter per order: character orders 1..char_order, then word orders 1..word_order.

    Character n-grams are strings, word n-grams tuples of words.

    >>> [dict(c) for c in sentence_ngrams("ab a", ChrfOptions(char_order=2, word_order=1))]
    [{'a': 2, 'b': 1}, {'ab': 1, 'ba': 1}, {('ab',): 1, ('a',): 1}]
    """
    text = prepare(text, options.lowercase)
    chars = char_sequence(text, options.whitespace)
    counts = [_counts(chars, n, False) for n in range(1, options.char_order + 1)]
    if options.word_order:
        words = split_words(text)
        counts += [_counts(words, n, True) for n in range(1, options.word_order + 1)]
    return counts


def match_statistics(hyp: NgramCounts, ref: NgramCounts) -> List[int]:
    """(hypothesis n-grams, reference n-grams, matches) per order of one pair, flattened.

    >>> opts = ChrfOptions(char_order=2)
    >>> match_statistics(sentence_ngrams("abc", opts), sentence_ngrams("a", opts))
    [3, 1, 1, 0, 0, 0]
    """
    row: List[int] = []
    for h, r in zip(hyp, ref):
        matches = 0
        for gram, count in h.items():
            other = r.get(gram)
            if other:
                matches += count if count < other else other
        # sacreBLEU counts no hypothesis n-grams of an order the reference has none of
        row += (sum(h.values()) if r else 0, sum(r.values()), matches)
    return row


def _check_batch(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> None:
    # The same checks, in the same order and words, as the native kernel's.
    if isinstance(hypotheses, (str, bytes)) or isinstance(references, (str, bytes)):
        raise TypeError("hypotheses and references must be sequences (of str, of lists of str)")
    if len(hypotheses) != len(references):
        raise ValueError(f"got {len(hypotheses)} hypotheses but {len(references)} reference lists")
    for i, (hyp, refs) in enumerate(zip(hypotheses, references)):
        if not isinstance(hyp, str):
            raise TypeError(f"hypotheses[{i}] must be a str, got {type(hyp).__name__}")
        if not isinstance(refs, (list, tuple)):
            raise TypeError(f"references[{i}] must be a list of str, got {type(refs).__name__}")
        for j, ref in enumerate(refs):
            if not isinstance(ref, str):
                raise TypeError(f"references[{i}][{j}] must be a str, got {type(ref).__name__}")
        if not refs:
            raise ValueError(f"references[{i}] is empty")


def chrf_statistics(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]], options: ChrfOptions
) -> np.ndarray:
    """The statistics table: int64 ``(n, 3 * (char_order + word_order))``, one row per hypothesis.

    ``references[i]`` is the non-empty list of reference strings of ``hypotheses[i]`` (missing
    references already dropped, as ``bleukit.inputs.check_references`` does). Each row is
    :func:`match_statistics` against the reference with the best sentence chrF (the first on a
    tie), sacreBLEU's per-sentence statistics.

    >>> opts = ChrfOptions(char_order=1)
    >>> chrf_statistics(["ab", "ab"], [["x", "b", "ab"], ["ab", "b", "ab"]], opts).tolist()
    [[2, 2, 2], [2, 2, 2]]
    """
    _check_batch(hypotheses, references)
    rows = np.zeros((len(hypotheses), options.columns), dtype=np.int64)
    for i, (hyp, refs) in enumerate(zip(hypotheses, references)):
        hyp_counts = sentence_ngrams(hyp, options)
        candidates = [match_statistics(hyp_counts, sentence_ngrams(ref, options)) for ref in refs]
        rows[i] = candidates[best_reference(candidates, options)]
    return rows


def best_reference(candidates: Sequence[Sequence[int]], options: ChrfOptions) -> int:
    """Which of one hypothesis's rows (one per reference) sacreBLEU keeps: the best sentence chrF,
    the first one on a tie.

    >>> best_reference([[2, 1, 1], [2, 2, 2], [2, 2, 2]], ChrfOptions(char_order=1))
    1
    """
    if len(candidates) == 1:
        return 0
    # argmax is the first maximum, as sacreBLEU's "strictly better than the best so far"
    return int(np.argmax(sentence_scores(np.asarray(candidates, dtype=np.int64), options)))


def _check_side(texts: Sequence[str], what: str) -> None:
    if isinstance(texts, (str, bytes)):
        raise TypeError(f"{what} must be a sequence of str")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"{what}[{i}] must be a str, got {type(text).__name__}")


def pairwise_chrf_statistics(
    hypotheses: Sequence[str], references: Sequence[str], options: ChrfOptions
) -> np.ndarray:
    """Statistics of every hypothesis against every single reference: int64 ``(N, M, columns)``.

    ``table[i, j]`` is ``chrf_statistics([hypotheses[i]], [[references[j]]], options)[0]``.
    Each distinct sentence is counted once; an inverted index (n-gram -> references holding it)
    makes the work per hypothesis that of the n-grams it shares, not of M whole references.

    >>> pairwise_chrf_statistics(["ab"], ["ab", "b"], ChrfOptions(char_order=1)).tolist()
    [[[2, 2, 2], [2, 1, 1]]]
    """
    _check_side(hypotheses, "hypotheses")
    _check_side(references, "references")
    k = options.order
    counted: Dict[str, NgramCounts] = {}

    def ngrams(text: str) -> NgramCounts:
        if text not in counted:
            counted[text] = sentence_ngrams(text, options)
        return counted[text]

    ref_counts = [ngrams(r) for r in references]
    ref_totals = np.array([[sum(c.values()) for c in counts] for counts in ref_counts], dtype=np.int64).reshape(-1, k)
    postings: List[Dict[Hashable, List[Tuple[int, int]]]] = [{} for _ in range(k)]
    for j, counts in enumerate(ref_counts):
        for o, c in enumerate(counts):
            for gram, count in c.items():
                postings[o].setdefault(gram, []).append((j, count))
    table = np.zeros((len(hypotheses), len(references), 3 * k), dtype=np.int64)
    table[:, :, 1::3] = ref_totals[None, :, :]
    for i, hyp in enumerate(hypotheses):
        counts = ngrams(hyp)
        matches = np.zeros((len(references), k), dtype=np.int64)
        for o, c in enumerate(counts):
            index = postings[o]
            for gram, h in c.items():
                for j, r in index.get(gram, ()):
                    matches[j, o] += h if h < r else r
        hyp_totals = np.array([sum(c.values()) for c in counts], dtype=np.int64)
        table[i, :, 0::3] = np.where(ref_totals > 0, hyp_totals[None, :], 0)
        table[i, :, 2::3] = matches
    return table
