"""sacreBLEU 2.6's ``corpus_bleu``, ``corpus_chrf`` and ``corpus_ter`` on whole corpora, as a stored
oracle (``tests/oracles/stored/shim.json``), for ``tests/sacrebleu/test_shim_vs_sacrebleu.py``.

Those tests compare every field of bleukit.sacrebleu's score objects (``vars()``), their type and
their printed forms with sacreBLEU's. On the first lines of each corpus, for every option, they run
sacreBLEU live; on whole corpora (the slow grids, where sacreBLEU's pure-Python TER took 25 s a call
and its chrF several seconds) they compare with its outputs stored here. The corpora, the option
lists and the comparison's outputs (``score_outputs``) are defined here, once, for both.

A case is ``metric|folder|options (JSON)|references``, references ``streams`` or ``gaps``
(``with_gaps``: every 7th line of the last stream missing).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from shared_data import SHARED_DATA, read_lines
from stored_oracles import Oracle

# (folder, system, reference files): one and two references, Chinese and Japanese targets
CORPORA = [
    ("wmt17-en-de", "hyp.online-A.0.de", ("ref.de",)),
    ("wmt22-de-en", "hyp.JDExploreAcademy.en", ("ref.A.en", "ref.B.en")),
    ("wmt22-en-zh", "hyp.LanguageX.zh", ("ref.A.zh", "ref.B.zh")),
    ("kftt-en-ja", "hyp.ja", ("ref.ja",)),
]
BLEU_OPTIONS: List[Dict[str, Any]] = [
    {},
    {"tokenize": "intl"},
    {"tokenize": "char"},
    {"tokenize": "none"},
    {"lowercase": True},
    {"smooth_method": "none"},
    {"smooth_method": "floor"},
    {"smooth_method": "floor", "smooth_value": 0.3},
    {"smooth_method": "add-k"},
    {"smooth_method": "add-k", "smooth_value": 2},
    {"use_effective_order": True},
    {"force": True},
]
TER_OPTIONS: List[Dict[str, Any]] = [
    {},
    {"normalized": True},
    {"no_punct": True},
    {"case_sensitive": True},
    {"normalized": True, "asian_support": True},
    {"normalized": True, "no_punct": True, "asian_support": True, "case_sensitive": True},
]
CHRF_OPTIONS: List[Dict[str, Any]] = [
    {},
    {"word_order": 2},
    {"word_order": 1, "char_order": 4},
    {"beta": 3},
    {"beta": 1, "word_order": 2},
    {"remove_whitespace": False},
    {"eps_smoothing": True},
    {"eps_smoothing": True, "word_order": 2},
]
#: metric -> (options, corpora scored whole)
WHOLE = {
    "bleu": (BLEU_OPTIONS, CORPORA[:3]),
    "chrf": (CHRF_OPTIONS, CORPORA[:3]),
    "ter": (TER_OPTIONS[:2], CORPORA[:1]),  # sacreBLEU's shift search: the prefix grid has every option
}


@lru_cache(maxsize=None)
def corpus(folder: str, system: str, refs: Tuple[str, ...], lines: Optional[int] = None):
    """The hypotheses and reference streams (read once per process; callers do not modify them)."""
    hyps = read_lines(SHARED_DATA / folder / system)[:lines]
    streams = [read_lines(SHARED_DATA / folder / name)[:lines] for name in refs]
    return hyps, streams


def with_gaps(streams: List[List[str]]) -> List[List[Optional[str]]]:
    """The streams with every 7th line of the last stream missing (``None``): nrefs:var."""
    if len(streams) < 2:
        return streams
    return streams[:-1] + [[None if i % 7 == 0 else line for i, line in enumerate(streams[-1])]]


def reference_variants(streams: List[List[str]]) -> Dict[str, List[List[Optional[str]]]]:
    """The streams as they are and, where there are several, with gaps (``with_gaps``); a single
    stream has no gapped variant, and is not scored twice."""
    return {"streams": streams, "gaps": with_gaps(streams)} if len(streams) > 1 else {"streams": streams}


def score_outputs(score: Any) -> Dict[str, list]:
    """What the tests compare of a score object: every field, its type, its printed forms."""
    return {
        "fields": [[name, value] for name, value in sorted(vars(score).items())],
        "type": [type(score).__name__],
        "printed": [str(score)] + [score.format(width=width) for width in (0, 1, 4)]
        + [score.format(width=width, score_only=True) for width in (0, 1, 4)],
    }


def case(metric: str, folder: str, options: Dict[str, Any], variant: str) -> str:
    return f"{metric}|{folder}|{json.dumps(options, sort_keys=True)}|{variant}"


def cases() -> List[str]:
    out = []
    for metric, (options_list, corpora) in WHOLE.items():
        for folder, _, refs in corpora:
            variants = ["streams", "gaps"] if len(refs) > 1 else ["streams"]
            out += [case(metric, folder, options, v) for options in options_list for v in variants]
    return out


def inputs() -> List[Path]:
    return sorted({SHARED_DATA / folder / name for _, corpora in WHOLE.values() for folder, system, refs in corpora
                   for name in (system, *refs)})


def compute(key: str) -> Dict[str, list]:
    """sacreBLEU's corpus function on one case, run live."""
    import sacrebleu

    metric, folder, options, variant = key.split("|")
    (system, refs), = [(s, r) for f, s, r in CORPORA if f == folder]
    hyps, streams = corpus(folder, system, refs)
    function = {"bleu": sacrebleu.corpus_bleu, "chrf": sacrebleu.corpus_chrf, "ter": sacrebleu.corpus_ter}[metric]
    return score_outputs(function(hyps, reference_variants(streams)[variant], **json.loads(options)))


ORACLE = Oracle(
    name="shim",
    peer="sacrebleu",
    description="sacreBLEU's corpus_bleu, corpus_chrf and corpus_ter on whole corpora: every field, the type and "
    "the printed forms of the score objects (tests/oracles/shim_oracle.py)",
    cases=cases,
    inputs=inputs,
    compute=compute,
    python_dependent=True,  # BLEU's score sums logs with sum(), compensated from Python 3.12
)
