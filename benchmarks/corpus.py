"""Deterministic synthetic MT corpus for the benchmarks: the same seed gives the same text anywhere.

Each pair is a hypothesis of about 25 words from a Zipf-distributed vocabulary, with punctuation,
numbers and some non-ASCII words, and a reference that keeps about 60% of the hypothesis' words
(the rest substituted, some dropped or inserted), so every n-gram order has matches.

    python benchmarks/corpus.py --size 5 --seed 1     # print a few pairs

>>> hyps, refs = make_corpus(3, seed=7)
>>> len(hyps), len(refs), make_corpus(3, seed=7) == (hyps, refs)
(3, 3, True)
"""

from __future__ import annotations

import argparse
import random
from typing import List, Tuple

__all__ = ["make_corpus", "vocabulary"]

_SYLLABLES = [
    "ka",
    "to",
    "re",
    "mi",
    "sa",
    "lo",
    "ne",
    "vi",
    "du",
    "po",
    "an",
    "el",
    "is",
    "or",
    "un",
    "ter",
    "ber",
    "gen",
    "str",
    "sch",
    "ph",
    "qu",
    "ing",
    "ed",
    "ly",
    "ment",
]
_PUNCT_AFTER = [",", ",", ",", ";", ":", "'s"]
_FINAL = [".", ".", ".", "?", "!", "...", '."']
_UNICODE_WORDS = ["café", "naïve", "Straße", "über", "“quoted”", "—", "€", "½", "日本", "Ωmega"]


def vocabulary(size: int = 20000, seed: int = 0) -> List[str]:
    """``size`` distinct pseudo-words, most frequent first.

    >>> vocabulary(3, seed=1) == vocabulary(3, seed=1)
    True
    """
    rng = random.Random(seed)
    words, seen = [], set()
    while len(words) < size:
        w = "".join(rng.choice(_SYLLABLES) for _ in range(rng.choice([1, 1, 2, 2, 2, 3, 3, 4])))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


def _zipf_sampler(rng: random.Random, vocab: List[str], exponent: float = 1.1):
    weights = [1.0 / (rank + 1) ** exponent for rank in range(len(vocab))]
    cum, total = [], 0.0
    for w in weights:
        total += w
        cum.append(total)

    def draw(k: int) -> List[str]:
        return rng.choices(vocab, cum_weights=cum, k=k)

    return draw


def _number(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.3:
        return str(rng.randint(0, 100))
    if kind < 0.5:
        return f"{rng.randint(1, 999)},{rng.randint(0, 999):03d}"
    if kind < 0.7:
        return f"{rng.randint(0, 99)}.{rng.randint(0, 99)}"
    if kind < 0.85:
        return f"{rng.randint(1900, 2030)}-{rng.randint(1900, 2030)}"
    return f"{rng.randint(1, 99)}%"


def _sentence(rng: random.Random, words: List[str]) -> str:
    out = []
    for i, w in enumerate(words):
        if i == 0:
            w = w[:1].upper() + w[1:]
        out.append(w)
        if i + 1 < len(words) and rng.random() < 0.08:
            out[-1] += rng.choice(_PUNCT_AFTER)
        if rng.random() < 0.02:
            out.append(rng.choice(["(" + rng.choice(words) + ")", "-", "&", "/"]))
    return " ".join(out) + rng.choice(_FINAL)


def make_corpus(size: int, seed: int = 12345, mean_words: int = 25) -> Tuple[List[str], List[str]]:
    """``size`` (hypothesis, reference) pairs; ``references[i]`` belongs to ``hypotheses[i]``."""
    rng = random.Random(seed)
    draw = _zipf_sampler(rng, vocabulary(seed=seed))
    hyps, refs = [], []
    for _ in range(size):
        n = max(1, int(rng.gauss(mean_words, 7)))
        words = draw(n)
        for j in range(n):
            r = rng.random()
            if r < 0.04:
                words[j] = _number(rng)
            elif r < 0.06:
                words[j] = rng.choice(_UNICODE_WORDS)
        ref_words = []
        for w in words:
            r = rng.random()
            if r < 0.60:
                ref_words.append(w)  # shared
            elif r < 0.90:
                ref_words.append(draw(1)[0])  # substituted
            elif r < 0.95:
                ref_words.extend([w, draw(1)[0]])  # inserted
            # else dropped
        hyps.append(_sentence(rng, words))
        refs.append(_sentence(rng, ref_words or words))
    return hyps, refs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    for hyp, ref in zip(*make_corpus(args.size, args.seed)):
        print(f"H: {hyp}\nR: {ref}\n")


if __name__ == "__main__":
    main()
