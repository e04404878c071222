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


def expected_score(row: dict) -> float:
    """sacreBLEU's score of an expected_scores row on this Python, for ``==``: the stored one, made
    where ``sum`` of floats adds left to right, or sacreBLEU's own here where ``sum`` is
    compensated (Python 3.12+) and BLEU's sum of logs may differ from the stored one in the last bit."""
    from bleukit.metrics.bleu.libm import COMPENSATED_SUM

    if not COMPENSATED_SUM:
        return float(row["score"])
    import sacrebleu

    hyps, _, streams = load_corpus(SHARED_DATA, row["dataset"], row["hyp"], row["refs"])
    options = {"tokenize": row["tokenize"], "lowercase": row["lowercase"], "smooth_method": row["smooth"]}
    return float(sacrebleu.corpus_bleu(hyps, streams, **options).score)


#: what an environment variable set to 1 turns from a skip into a failure (.ci/run sets both)
REQUIRED = {
    "BLEUKIT_REQUIRE_BROWSER": "the browser tests",
    "BLEUKIT_REQUIRE_REGISTRY": "the tests that fetch a peer's files from the package registry",
}


def skip_unless_required(message: str, variable: str) -> None:
    """Skip with ``message``, or fail where ``variable`` is 1: in CI a missing browser or an
    unreachable package registry must not pass silently as a skip."""
    import pytest

    if os.environ.get(variable) == "1":
        pytest.fail(f"{message}, but {variable}=1 requires {REQUIRED[variable]}")
    pytest.skip(message)
