"""sacreBLEU 2.6's chrF statistics on two large grids, as a stored oracle (``tests/oracles/stored/chrf.json``).

- Every system of the real data against each reference file and, where there are several, all of
  them together, as chrF and chrF++ (``every|...`` cases).
- Every combination of the options (char order 6/2, word order 0/2, beta 1/2/3, lowercase,
  whitespace, eps smoothing: 96) on the first 250 lines of two two-reference corpora
  (``grid|...`` cases).

For each case, sacreBLEU's per-sentence statistics (the row of the reference it keeps). The tests
run sacreBLEU's formula live on those (corpus and sentence scores); smaller live cross-checks in
``test_chrf_sacrebleu.py`` run the whole of sacreBLEU on one system per dataset and on every
option family.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Dict, List, Optional

from metrics.chrf.chrf_cases import corpora, corpus
from sacrebleu.metrics import CHRF
from shared_data import SHARED_DATA
from stored_oracles import Oracle

WORD_ORDERS = [0, 2]
GRID = [
    dict(char_order=c, word_order=w, beta=b, lowercase=lc, whitespace=ws, eps_smoothing=eps)
    for c, w, b, lc, ws, eps in itertools.product([6, 2], [0, 2], [1, 2, 3], *[[False, True]] * 3)
]
GRID_CORPORA = [
    ("wmt22-de-en", "hyp.Online-A.en", "ref.A.en+ref.B.en"),
    ("wmt22-en-zh", "hyp.LanguageX.zh", "ref.A.zh+ref.B.zh"),
]
GRID_LINES = 250


def options_id(options: Dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


def _parse_options(text: str) -> Dict:
    options = {}
    for item in text.split(","):
        key, value = item.split("=")
        options[key] = value == "True" if value in ("True", "False") else int(value)
    return options


def case(dataset: str, hyp: str, refs: str, options: Dict, lines: Optional[int] = None) -> str:
    return f"{dataset}|{hyp}|{refs}|{lines or 'all'}|{options_id(options)}"


def cases() -> List[str]:
    every = [case(d, h, r, dict(word_order=w)) for d, h, r in corpora() for w in WORD_ORDERS]
    grid = [case(d, h, r, options, GRID_LINES) for d, h, r in GRID_CORPORA for options in GRID]
    return every + grid


def inputs() -> List[Path]:
    names = {(d, name) for d, h, r in corpora() for name in [h, *r.split("+")]}
    return [SHARED_DATA / d / name for d, name in sorted(names)]


def compute(key: str) -> Dict[str, list]:
    """sacreBLEU's statistics for one case, run live."""
    dataset, hyp, refs, lines, options = key.split("|")
    hyps, streams, _ = corpus(dataset, hyp, refs, None if lines == "all" else int(lines))
    return {"statistics": CHRF(**_parse_options(options))._extract_corpus_statistics(hyps, streams)}


ORACLE = Oracle(
    name="chrf",
    peer="sacrebleu",
    description="sacreBLEU's chrF statistics per sentence: every system and reference set of ../shared/data "
    "as chrF and chrF++, and a 96-combination option grid on two corpora (tests/metrics/chrf/chrf_oracle.py)",
    cases=cases,
    inputs=inputs,
    compute=compute,
)
