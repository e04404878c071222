"""sacreBLEU 2.6's ``sacrebleu.metrics.helpers``: word and character n-gram counts, as other code
imports them (the metrics themselves count in bleukit's kernels). Same results, key types and
``Counter`` order as sacreBLEU's.

>>> extract_word_ngrams(["a", "b", "a", "b"], 2)
Counter({'a b': 2, 'b a': 1})
>>> extract_all_word_ngrams("a b a", 1, 2)
(Counter({('a',): 2, ('b',): 1, ('a', 'b'): 1, ('b', 'a'): 1}), 3)
>>> extract_char_ngrams("ab c", 2), extract_char_ngrams("ab c", 2, include_whitespace=True)
(Counter({'ab': 1, 'bc': 1}), Counter({'ab': 1, 'b ': 1, ' c': 1}))
"""

from __future__ import annotations

from collections import Counter
from typing import List, Tuple

__all__ = ["extract_all_word_ngrams", "extract_word_ngrams", "extract_char_ngrams", "extract_all_char_ngrams"]


def _windows(seq, n: int):
    return (seq[i:i + n] for i in range(len(seq) - n + 1))


def extract_all_word_ngrams(line: str, min_order: int, max_order: int) -> Tuple[Counter, int]:
    """Every word n-gram (tuples) of orders ``min_order``..``max_order`` and the number of words."""
    words = line.split()
    grams = Counter(tuple(w) for n in range(min_order, max_order + 1) for w in _windows(words, n))
    return grams, len(words)


def extract_word_ngrams(tokens: List[str], n: int) -> Counter:
    """The order-``n`` n-grams of a token list, each joined by a space."""
    return Counter(" ".join(w) for w in _windows(tokens, n))


def _chars(line: str, include_whitespace: bool) -> str:
    return line if include_whitespace else "".join(line.split())


def extract_char_ngrams(line: str, n: int, include_whitespace: bool = False) -> Counter:
    """The order-``n`` character n-grams (whitespace removed unless ``include_whitespace``)."""
    return Counter(_windows(_chars(line, include_whitespace), n))


def extract_all_char_ngrams(line: str, max_order: int, include_whitespace: bool = False) -> List[Counter]:
    """One ``Counter`` of character n-grams per order 1..``max_order``."""
    chars = _chars(line, include_whitespace)
    return [Counter(_windows(chars, n)) for n in range(1, max_order + 1)]
