"""Shared helpers of the chrF tests: the real corpora, sacreBLEU's live statistics, both engines."""

from __future__ import annotations

from functools import lru_cache
from typing import List, Optional, Tuple

from sacrebleu.metrics import CHRF
from shared_data import SHARED_DATA, read_lines


def corpora() -> List[Tuple[str, str, str]]:
    """(dataset, system file, '+'-joined reference files): every system against each reference
    file and, where there are several, all of them together."""
    cases = []
    if not SHARED_DATA.exists():
        return cases
    for folder in sorted(p for p in SHARED_DATA.iterdir() if p.is_dir()):
        refs = sorted(p.name for p in folder.glob("ref*"))
        sets = refs + (["+".join(refs)] if len(refs) > 1 else [])
        for hyp in sorted(p.name for p in folder.glob("hyp.*")):
            cases += [(folder.name, hyp, ref_set) for ref_set in sets]
    return cases


@lru_cache(maxsize=None)
def corpus(dataset: str, hyp: str, refs: str, lines: Optional[int] = None):
    """(hypotheses, reference streams, references per hypothesis), read as a scorer does."""
    folder = SHARED_DATA / dataset
    hyps = read_lines(folder / hyp)[:lines]
    streams = [read_lines(folder / name)[:lines] for name in refs.split("+")]
    return hyps, streams, [list(r) for r in zip(*streams)]


@lru_cache(maxsize=None)
def sacrebleu_table(dataset: str, hyp: str, refs: str, options: tuple, lines: Optional[int] = None):
    """sacreBLEU's own per-sentence statistics and corpus score (options as sorted items)."""
    hyps, streams, _ = corpus(dataset, hyp, refs, lines)
    metric = CHRF(**dict(options))
    stats = metric._extract_corpus_statistics(hyps, streams)
    return metric, stats, metric.corpus_score(hyps, streams).score
