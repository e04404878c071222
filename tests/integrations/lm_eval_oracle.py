"""lm-eval 0.4.13's bootstrap standard error on real data, as a stored oracle
(``tests/oracles/stored/lm_eval.json``).

``lm_eval.api.metrics.bootstrap_stderr`` recomputes sacreBLEU's corpus score on every resample, in
pure Python: 1,000-1,500 resamples took some 10-20 s a case. Stored here are the long runs (1,000
resamples, and 1,500, which crosses lm-eval's 1,000-draw chunks); the 100-resample runs of every
metric stay live in ``test_lm_eval.py``, so a changed lm-eval is still caught without a refresh.

A case is ``<aggregation>-<resamples>``: the first 25 lines of WMT17 en-de's online-B.0 against its
reference, as ``test_stderr_is_lm_evals_bootstrap`` scores them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, List, Tuple

from shared_data import SHARED_DATA, read_lines
from stored_oracles import Oracle

FOLDER = "wmt17-en-de"
HYPOTHESES, REFERENCE = "hyp.online-B.0.de", "ref.de"
LINES = 25
#: case -> (lm-eval's aggregation in lm_eval.api.metrics, resamples)
CASES: Dict[str, Tuple[str, int]] = {
    "bleu-1000": ("bleu", 1000),
    "chrf-1000": ("chrf", 1000),
    "chrfpp-1500": ("chrfpp", 1500),  # lm-eval draws 1,000 at a time
}


def case(aggregation: str, iters: int) -> str:
    return f"{aggregation}-{iters}"


def lines() -> Tuple[List[str], List[str]]:
    """(hypotheses, references) of every case."""
    folder = SHARED_DATA / FOLDER
    return read_lines(folder / HYPOTHESES)[:LINES], read_lines(folder / REFERENCE)[:LINES]


def inputs() -> List[Path]:
    return [SHARED_DATA / FOLDER / HYPOTHESES, SHARED_DATA / FOLDER / REFERENCE]


def compute(key: str) -> Dict[str, list]:
    """lm-eval's bootstrap_stderr on one case, run live in one process (DISABLE_MULTIPROC)."""
    import lm_eval.api.metrics as lm_metrics

    aggregation, iters = CASES[key]
    hyps, refs = lines()
    before = os.environ.get("DISABLE_MULTIPROC")
    os.environ["DISABLE_MULTIPROC"] = "1"
    try:
        stderr = lm_metrics.bootstrap_stderr(getattr(lm_metrics, aggregation), list(zip(refs, hyps)), iters=iters)
    finally:
        if before is None:
            del os.environ["DISABLE_MULTIPROC"]
        else:
            os.environ["DISABLE_MULTIPROC"] = before
    return {"stderr": [stderr]}


ORACLE = Oracle(
    name="lm_eval",
    peer="lm-eval",
    description="lm-eval's bootstrap_stderr of its bleu, chrf and chrfpp aggregations with 1,000-1,500 "
    "resamples on 25 WMT17 lines (tests/integrations/lm_eval_oracle.py)",
    cases=lambda: list(CASES),
    inputs=inputs,
    compute=compute,
    python_dependent=True,  # sacreBLEU's BLEU and lm-eval's standard deviation sum floats with sum()
)
