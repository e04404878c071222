"""Access to the real MT data in ../shared/data, read in place (never copied into the repo)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("BLEUKIT_SHARED_DATA", REPO.parent / "shared" / "data"))


def read_lines(path: Path) -> list:
    """Read a segment file as a command-line scorer does (keep a BOM, strip line ends)."""
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip() for line in f]


_CORPORA: dict = {}


def load_corpus(data_dir: Path, dataset: str, hyp: str, refs: str):
    """(hypotheses, references per hypothesis, reference streams) for one expected_scores row."""
    key = (dataset, hyp, refs)
    if key not in _CORPORA:
        folder = data_dir / dataset
        hyps = read_lines(folder / hyp)
        streams = [read_lines(folder / name) for name in refs.split("+")]
        _CORPORA[key] = (hyps, [list(r) for r in zip(*streams)], streams)
    return _CORPORA[key]
