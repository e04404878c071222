"""sacreBLEU 2.6's TER on the whole real-data grid, as a stored oracle (``tests/oracles/stored/ter.json``).

The grid: every dataset, every system, every reference set (each reference file alone and, where
there are two, both together) and all 16 combinations of (normalized, no_punct, asian_support,
case_sensitive). For each (dataset, combination, reference set, system) sacreBLEU's per-sentence
statistics (fewest edits, average reference length); for each (dataset, combination) the words
sacreBLEU's tokenizer gives every line of the folder as a hypothesis (tokenized once) and as a
reference (twice). Everything cheap that sacreBLEU computes from those (corpus and sentence
scores, the signature) is still run live by the tests, on statistics first checked against these.

Regenerating runs sacreBLEU's edit function on 193k distinct word-list pairs: some 20 minutes.
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from typing import Dict, List, Tuple

import sacrebleu.metrics.ter as sacrebleu_ter
from sacrebleu.metrics import TER
from sacrebleu.metrics.ter import translation_edit_rate
from shared_data import SHARED_DATA, read_lines
from stored_oracles import Oracle

OPTION_NAMES = ("normalized", "no_punct", "asian_support", "case_sensitive")
COMBOS = [dict(zip(OPTION_NAMES, flags)) for flags in itertools.product([False, True], repeat=4)]
DATASETS = ["wmt17-en-de", "wmt22-de-en", "wmt22-en-zh", "kftt-en-ja"]


def combo_id(combo: Dict[str, bool]) -> str:
    return "-".join(name for name, on in combo.items() if on) or "defaults"


COMBO_BY_ID = {combo_id(c): c for c in COMBOS}


def reference_sets(folder: Path) -> List[List[str]]:
    names = sorted(p.name for p in folder.glob("ref*"))
    return [[name] for name in names] + ([names] if len(names) > 1 else [])


def systems(folder: Path) -> List[str]:
    return sorted(p.name for p in folder.glob("hyp.*"))


def folder_lines(folder: Path) -> List[str]:
    """Every distinct line of a dataset's files, sorted: the lines whose words are checked."""
    lines = set()
    for path in folder.iterdir():
        if path.name.startswith(("hyp.", "ref")):
            lines.update(read_lines(path))
    return sorted(lines)


def statistics_case(dataset: str, combo: Dict[str, bool], ref_names: List[str], system: str) -> str:
    return f"{dataset}|{combo_id(combo)}|{'+'.join(ref_names)}|{system}"


def words_case(dataset: str, combo: Dict[str, bool]) -> str:
    return f"{dataset}|{combo_id(combo)}|words"


def cases() -> List[str]:
    out = []
    for dataset in DATASETS:
        folder = SHARED_DATA / dataset
        for combo in COMBOS:
            out.append(words_case(dataset, combo))
            for ref_names in reference_sets(folder):
                out += [statistics_case(dataset, combo, ref_names, system) for system in systems(folder)]
    return out


def inputs() -> List[Path]:
    return [p for dataset in DATASETS for p in sorted((SHARED_DATA / dataset).iterdir())
            if p.name.startswith(("hyp.", "ref"))]


@functools.lru_cache(maxsize=None)
def _edits(hyp: Tuple[str, ...], ref: Tuple[str, ...]):
    return translation_edit_rate(list(hyp), list(ref))


def memoized_edit_rate(hyp: List[str], ref: List[str]):
    """sacreBLEU's edit function, memoized on the word lists (a pure function of them): the same
    pair recurs across systems and option combinations (580k pairs, 193k distinct)."""
    return _edits(tuple(hyp), tuple(ref))


def compute(case: str) -> Dict[str, list]:
    """sacreBLEU's outputs for one case, run live."""
    dataset, combo, *rest = case.split("|")
    folder = SHARED_DATA / dataset
    metric = TER(**COMBO_BY_ID[combo])
    if rest == ["words"]:
        lines = folder_lines(folder)
        return {
            "hypothesis_words": [metric._preprocess_segment(line).split() for line in lines],
            "reference_words": [metric._preprocess_segment(metric._preprocess_segment(line)).split() for line in lines],
        }
    ref_names, system = rest[0].split("+"), rest[1]
    streams = [read_lines(folder / name) for name in ref_names]
    sacrebleu_ter.translation_edit_rate = memoized_edit_rate
    try:
        stats = metric._extract_corpus_statistics(read_lines(folder / system), streams)
    finally:
        sacrebleu_ter.translation_edit_rate = translation_edit_rate
    return {"edits": [row[0] for row in stats], "ref_lengths": [row[1] for row in stats]}


ORACLE = Oracle(
    name="ter",
    peer="sacrebleu",
    description="sacreBLEU's TER statistics (edits, average reference length) per sentence and its "
    "tokenizer's words, on every dataset, system, reference set and option combination of "
    "../shared/data (tests/metrics/ter/ter_oracle.py)",
    cases=cases,
    inputs=inputs,
    compute=compute,
)
