"""A four-sentence corpus with one or two references per hypothesis, and sacreBLEU's corpus score
of a corpus given in bleukit's layout (references per hypothesis): shared by the core tests."""

from __future__ import annotations

import sacrebleu

HYPS = ["The cat sat on the mat.", "It is raining today.", "Good morning, everyone!", "x"]
REFS = [["The cat sat on the mat."], ["It rains today.", "It is raining now."], ["Good morning!"], ["y z"]]


def sacre_corpus(hyps, refs, **kw):
    width = max(len(r) for r in refs)
    streams = [[r[k] if k < len(r) else None for r in refs] for k in range(width)]
    return sacrebleu.BLEU(**kw).corpus_score(hyps, streams)
