"""One table of hostile inputs against every public entry point (issue 30).

Every entry point in ``ENTRIES`` names its arguments by kind ("texts", "references", "ids",
"seed", ...) with a good value; each hostile input of a kind (``HOSTILE``) is tried in each
argument of that kind, the other arguments good. What must happen is the hostile input's: a
``TypeError`` or ``ValueError`` whose message names the problem, or the documented right number,
which for most is the good value's result (a generator is read once, a reversed view scores as
its copy, ``threads=0`` is every core, a list of one pad id is that id, ...). An entry point
whose documented behaviour differs says so in ``Entry.differs`` (the torchmetrics wrapper that
reproduces torchmetrics' reading of a string, say). A new entry point joins with one row; a new
hostile input with one line in its kind, and then runs against everything that takes that kind.

The app's endpoints are called as plain functions (their ``gr.Error`` carries the core's message)
and the command line through ``main()`` (a failing run is one line on stderr with exit 1, or
argparse's usage and error with exit 2, as sacreBLEU's; never a traceback).
Adapters run where their extras are installed. ``bleukit.sacrebleu`` takes sacreBLEU's reference
streams (``streams[k][i]``), its own kind here.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import io
import math
import os
import shutil
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Tuple

import numpy as np
import pandas as pd
import pytest

import bleukit
import bleukit.sacrebleu
from bleukit import BleuOptions, StatisticsAccumulator
from bleukit.analysis.explain import explain_bleu
from bleukit.analysis.significance import bootstrap_ci, paired_test
from bleukit.compat import gleu, hf_evaluate, moses, nltk, presets, torchmetrics
from bleukit.ids import corpus_bleu_ids, id_statistics, sentence_bleu_ids
from bleukit.integrations.rewards import BleuReward, ChrfReward, bleu_reward
from bleukit.metrics.chrf import ChrfOptions
from bleukit.metrics.ter import TerOptions

NAN, INF = float("nan"), float("inf")


# ----------------------------------------------------------------------------- expectations


@dataclass(frozen=True)
class Refused:
    """A TypeError or ValueError whose message matches ``pattern`` (it names the problem)."""

    pattern: str


class _Same:
    """The good value's result: the hostile value means the same thing."""

    def __repr__(self) -> str:
        return "SAME"


SAME = _Same()


@dataclass(frozen=True)
class Check:
    """Anything else documented: ``check(result, rerun, value)``; ``rerun(v)`` calls the entry point
    with ``v`` in the same argument, the others good."""

    check: Callable[[Any, Callable[[Any], Any], Any], None]
    name: str


Expectation = Any  # Refused | SAME | Check


# ----------------------------------------------------------------------------- checks of right numbers


def _finite_and_scale_free(result, rerun, value):
    # [1e308] * 4 sums to inf; the scores follow the weights' ratios: the same as weights scaled
    # by a power of two (which changes no bit), never NaN.
    assert _all_finite(result)
    scaled = rerun([v * 2.0**-60 for v in value])
    del result["signature"], scaled["signature"]  # it names the weights as given
    assert result == scaled


def _all_finite(x: Any) -> bool:
    if isinstance(x, dict):
        return all(_all_finite(v) for v in x.values())
    if isinstance(x, (list, tuple)):
        return all(_all_finite(v) for v in x)
    return not isinstance(x, float) or math.isfinite(x)


def _mbr_uniform(result, rerun, value):
    assert result == rerun(None)  # equal weights, however large, are the plain mean


def _one_resample_is_a_plain_score(result, rerun, value):
    # sacreBLEU bootstraps only when n_bootstrap > 1: one resample is the plain score.
    assert result == rerun(None) and result.get("mean") is None and "bs:" not in result["signature"]


def _numpy_mean(seed, n_samples, options=None):
    """sacreBLEU's own bootstrap mean with SACREBLEU_SEED=seed (it draws with default_rng(seed)),
    for the default options of the metric ``options`` names."""
    from sacrebleu.metrics import BLEU, CHRF, TER

    metric = {ChrfOptions: CHRF, TerOptions: TER}.get(type(options), BLEU)()
    saved = os.environ.get("SACREBLEU_SEED")
    os.environ["SACREBLEU_SEED"] = str(seed)
    try:
        return float(metric.corpus_score(HYPS, [REFS], n_bootstrap=n_samples)._mean)
    finally:
        if saved is None:
            os.environ.pop("SACREBLEU_SEED")
        else:
            os.environ["SACREBLEU_SEED"] = saved


def _bootstrap_seed_is_exact(result, rerun, value):
    # The seed reaches numpy as given: the resamples are default_rng(seed)'s, never a rounded
    # neighbour's (2**64 + 1 through a float is 2**64).
    name = result.get("name", "")
    options = ChrfOptions() if name.startswith("chrF") else TerOptions() if name == "TER" else None
    assert result["mean"] == _numpy_mean(value, N_SAMPLES, options)
    assert f"seed:{value}|" in result.get("signature", f"seed:{value}|")


def _cli_seed_is_exact(result, rerun, value):
    import json

    out = json.loads(result)
    assert out["seed"] == value and out["confidence_mean"] == float(f"{_numpy_mean(int(value), 20):.1f}")


def _paired_seed_is_sacrebleus(result, rerun, value):
    # sacreBLEU's paired tests with SACREBLEU_SEED=value give the same p-values, to the bit.
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    saved = os.environ.get("SACREBLEU_SEED")
    os.environ["SACREBLEU_SEED"] = str(value)
    try:
        _, scores = PairedTest(
            [("a", HYPS), ("b", HYPS_B)], {"BLEU": BLEU(references=[REFS])}, None, test_type="ar", n_samples=N_SAMPLES
        )()
    finally:
        if saved is None:
            os.environ.pop("SACREBLEU_SEED")
        else:
            os.environ["SACREBLEU_SEED"] = saved
    assert result["p_values"] == [s.p_value for s in scores["BLEU"]]
    assert f"seed:{value}|" in result["signature"]


# ----------------------------------------------------------------------------- hostile inputs by kind

Hostile = Tuple[str, Callable[[Any], Any], Expectation]


def _first_id(ids, value):
    rows = [list(r) for r in ids]
    rows[0][0] = value
    return rows


def _one_string(value):
    """The first string inside ``value``: a string where a list belongs."""
    while not isinstance(value, str):
        value = value[0]
    return value


def _set_of(items):
    def frozen(x):
        return tuple(frozen(v) for v in x) if isinstance(x, list) else x

    return {frozen(x) for x in items}


def _flipped(array):
    """The same values, as a view with negative strides."""
    return np.ascontiguousarray(np.asarray(array)[..., ::-1])[..., ::-1]


_CONTAINERS: List[Hostile] = [
    ("a DataFrame", lambda g: pd.DataFrame({"column": list(g)}), Refused("DataFrame")),
    ("a set", _set_of, Refused(r"\bset\b")),
    ("a dict", lambda g: dict(enumerate(g)), Refused(r"\bdict\b|mapping")),
    ("None", lambda g: None, Refused("None")),
    ("a bool", lambda g: True, Refused(r"\bbool\b")),
    ("a float", lambda g: 1.5, Refused(r"\bfloat\b")),
]

_COUNT: List[Hostile] = [
    ("a bool", lambda g: True, Refused(r"\bbool\b|>= 1")),
    ("a whole float", lambda g: 2.0, Refused(r"\bfloat\b|2\.0")),
    ("zero", lambda g: 0, Refused(r">= 1")),
    ("NaN", lambda g: NAN, Refused(r"\bfloat\b|nan")),
    ("a str", lambda g: "10", Refused(r"\bstr\b|'10'")),
]
# A count of sacreBLEU's API: an int >= 0 (sacreBLEU compares it with 1 or 0; bleukit names the rest).
_SHIM_COUNT: List[Hostile] = [
    ("a bool", lambda g: True, Refused(r"\bbool\b")),
    ("a whole float", lambda g: 2.0, Refused(r"\bfloat\b")),
    ("NaN", lambda g: NAN, Refused(r"\bfloat\b")),
    ("a str", lambda g: "10", Refused(r"\bstr\b")),
    ("negative", lambda g: -1, Refused(r">= 0")),
]


HOSTILE: Dict[str, List[Hostile]] = {
    # A list of sentences.
    "texts": _CONTAINERS
    + [
        ("a generator", lambda g: (x for x in g), SAME),
        ("one string", _one_string, Refused(r"single str")),
        ("a bool item", lambda g: [True, *g[1:]], Refused(r"\[0\].*\bbool\b")),
        ("a NaN item", lambda g: [NAN, *g[1:]], Refused(r"\[0\].*\bfloat\b")),
    ],
    # references[i]: the reference(s) of hypothesis i.
    "references": _CONTAINERS
    + [
        ("a generator", lambda g: (x for x in g), SAME),
        ("one string", _one_string, Refused(r"single str")),
        ("a set item", lambda g: [{"x"}, *g[1:]], Refused(r"\[0\].*\bset\b")),
        ("a dict item", lambda g: [{"x": "y"}, *g[1:]], Refused(r"\[0\].*\bdict\b")),
        ("a bool item", lambda g: [True, *g[1:]], Refused(r"\[0\].*\bbool\b")),
        ("a NaN reference", lambda g: [[NAN], *g[1:]], Refused(r"\[0\]\[0\].*\bfloat\b")),
    ],
    # The reference(s) of one sentence: a string is one reference.
    "sentence references": [h for h in _CONTAINERS if h[0] != "None"]
    + [
        ("a generator", lambda g: (x for x in g), SAME),
        ("a bool item", lambda g: [True], Refused(r"\bbool\b")),
    ],
    # One sentence.
    "text": [
        ("a list", lambda g: [g], Refused(r"\blist\b")),
        ("None", lambda g: None, Refused("None")),
        ("bytes", lambda g: g.encode(), Refused("bytes")),
        ("a float", lambda g: NAN, Refused(r"\bfloat\b")),
    ],
    # Token ids: a 2-D array/tensor or a list of id lists.
    "ids": [
        ("uint64 ids >= 2**63", lambda g: np.array(_first_id(g, 2**63 + 5), dtype=np.uint64), Refused(r"2\*\*63")),
        ("a Python int >= 2**63", lambda g: _first_id(g, 2**63 + 5), Refused(r"2\*\*63")),
        ("float ids", lambda g: np.asarray(g, dtype=np.float64) + 0.5, Refused("integer")),
        ("whole float ids", lambda g: np.asarray(g, dtype=np.float64), Refused("integer")),
        ("a bool id", lambda g: _first_id(g, True), Refused(r"\bbool\b")),
        ("a bool array", lambda g: np.ones(np.shape(g), dtype=bool), Refused(r"bool")),
        ("negative strides", _flipped, SAME),
        ("a DataFrame", lambda g: pd.DataFrame(g), Refused("DataFrame")),
        ("a set", lambda g: {tuple(r) for r in g}, Refused(r"\bset\b")),
        ("a dict", lambda g: dict(enumerate(g)), Refused(r"\bdict\b")),
        ("one string", lambda g: " ".join(map(str, g[0])), Refused(r"\bstr\b")),
        ("a set row", lambda g: [set(g[0]), *g[1:]], Refused(r"\bset\b")),
    ],
    # pad_id: an id or a collection of ids.
    "pad id": [
        ("a list of one id", lambda g: [g], SAME),
        ("a set of one id", lambda g: {g}, SAME),
        ("a bool", lambda g: True, Refused(r"\bbool\b")),
        ("a str", lambda g: str(g), Refused(r"\bstr\b")),
        ("a float", lambda g: g + 0.5, Refused(r"\bfloat\b")),
        ("NaN", lambda g: NAN, Refused(r"\bfloat\b")),
        ("an empty list", lambda g: [], Refused("empty")),
    ],
    "threads": [
        ("0 (every core)", lambda g: 0, SAME),
        ("a bool", lambda g: True, Refused(r"\bbool\b")),
        ("a whole float", lambda g: 2.0, Refused(r"\bfloat\b")),
        ("negative", lambda g: -1, Refused(r">= 0")),
        ("a str", lambda g: "2", Refused(r"\bstr\b")),
    ],
    # A seed of the core (numpy takes any int >= 0).
    "seed": [
        ("2**64 + 1", lambda g: 2**64 + 1, Check(_bootstrap_seed_is_exact, "numpy's draws of that seed")),
        ("a whole float", lambda g: 1.0, Refused(r"\bfloat\b")),
        ("a bool", lambda g: True, Refused(r"\bbool\b")),
        ("negative", lambda g: -1, Refused(r">= 0")),
        ("NaN", lambda g: NAN, Refused(r"\bfloat\b")),
        ("a str", lambda g: "1", Refused(r"\bstr\b")),
    ],
    # A seed of a paired test (checked against sacreBLEU's p-values with that seed).
    "paired seed": [
        ("2**53 + 1", lambda g: 2**53 + 1, Check(_paired_seed_is_sacrebleus, "sacreBLEU's p-values")),
        ("2**64 + 1", lambda g: 2**64 + 1, Check(_paired_seed_is_sacrebleus, "sacreBLEU's p-values")),
        ("a whole float", lambda g: 1.0, Refused(r"\bfloat\b")),
        ("a bool", lambda g: True, Refused(r"\bbool\b")),
        ("negative", lambda g: -1, Refused(r">= 0")),
    ],
    # A number of samples, resamples or picks.
    "count": _COUNT,
    "n_bootstrap": _COUNT
    + [
        ("one resample", lambda g: 1, Check(_one_resample_is_a_plain_score, "a plain score, as sacreBLEU")),
    ],
    # n-gram weights of BLEU, one per order.
    "n-gram weights": [
        ("NaN", lambda g: [NAN] * len(g), Refused("finite")),
        ("inf", lambda g: [INF] + list(g[1:]), Refused("finite")),
        ("negative", lambda g: [-1.0] + list(g[1:]), Refused(">= 0")),
        ("a sum that overflows", lambda g: [1e308] * len(g), Check(_finite_and_scale_free, "finite, by their ratios")),
        ("bools", lambda g: [True] * len(g), Refused(r"\bbool\b")),
        ("a set", lambda g: set(g), Refused(r"\bset\b")),
        ("a dict", lambda g: dict(enumerate(g)), Refused(r"\bdict\b")),
        ("one string", lambda g: "0.25", Refused(r"\bstr\b")),
        ("a generator", lambda g: (x for x in g), Refused("generator")),
    ],
    # Weights of MBR's pseudo-references.
    "pseudo-reference weights": [
        ("NaN", lambda g: [NAN] + list(g[1:]), Refused("finite")),
        ("inf", lambda g: [INF] + list(g[1:]), Refused("finite")),
        ("negative", lambda g: [-1.0] + list(g[1:]), Refused(">= 0")),
        ("a sum that overflows", lambda g: [1e308] * len(g), Check(_mbr_uniform, "uniform")),
        ("bools", lambda g: [True] * len(g), Refused(r"\bbool\b")),
        ("a set", lambda g: set(g), Refused(r"\bset\b")),
        ("a dict", lambda g: dict(enumerate(g)), Refused(r"\bdict\b|mapping")),
        ("one string", lambda g: "0.5", Refused(r"\bstr\b")),
        ("a DataFrame", lambda g: pd.DataFrame({"w": g}), Refused("DataFrame")),
        ("a generator", lambda g: (x for x in g), SAME),
        ("negative strides", lambda g: _flipped(np.asarray(g, dtype=np.float64)), SAME),
    ],
    "flag": [
        ("a str", lambda g: "yes", Refused(r"\bbool\b")),
        ("an int", lambda g: 1, Refused(r"\bbool\b")),
        ("None", lambda g: None, Refused(r"\bbool\b")),
    ],
    "real option": [
        ("NaN", lambda g: NAN, Refused("finite")),
        ("inf", lambda g: INF, Refused("finite")),
        ("negative", lambda g: -1.0, Refused(">= 0")),
        ("a bool", lambda g: True, Refused(r"\bbool\b")),
        ("a str", lambda g: "0.5", Refused(r"\bstr\b")),
    ],
    "int option": [
        ("a bool", lambda g: True, Refused(r"\bbool\b")),
        ("a whole float", lambda g: float(g), Refused(r"\bfloat\b")),
        ("a str", lambda g: str(g), Refused(r"\bstr\b")),
        ("NaN", lambda g: NAN, Refused(r"\bfloat\b")),
    ],
    # paired_test's systems: a mapping name -> hypotheses or (name, hypotheses) pairs.
    "systems": [
        ("a DataFrame", lambda g: pd.DataFrame(g), Refused("DataFrame")),
        ("a set of pairs", lambda g: {(k, tuple(v)) for k, v in g.items()}, Refused(r"\bset\b")),
        ("one string", lambda g: "ab", Refused(r"single str")),
        ("a generator of pairs", lambda g: ((k, v) for k, v in g.items()), SAME),
        ("a set of hypotheses", lambda g: {**g, "b": set(g["b"])}, Refused(r"\bset\b")),
        ("a generator of hypotheses", lambda g: {**g, "b": (h for h in g["b"])}, SAME),
    ],
    # sacreBLEU's reference streams: streams[k][i] is the k-th reference of sentence i.
    "streams": [h for h in _CONTAINERS if h[0] != "None"]
    + [
        ("a generator", lambda g: (x for x in g), SAME),
        ("one string", _one_string, Refused(r"single str")),
        ("a generator stream", lambda g: [(x for x in g[0]), *g[1:]], SAME),
        ("a set stream", lambda g: [set(g[0]), *g[1:]], Refused(r"streams\[0\].*\bset\b")),
        ("a str stream", lambda g: [g[0][0], *g[1:]], Refused(r"streams\[0\].*\bstr\b")),
        ("a bool reference", lambda g: [[True, *g[0][1:]], *g[1:]], Refused(r"\[0\]\[0\].*\bbool\b")),
        ("a short stream", lambda g: [g[0][:-1], *g[1:]], Refused(r"stream 0 is too short")),
    ],
    # The shim's n_bootstrap: sacreBLEU's default 1 and anything below 2 is a plain score.
    "shim n_bootstrap": _SHIM_COUNT
    + [
        ("zero (sacreBLEU: no resampling)", lambda g: 0, Check(_one_resample_is_a_plain_score, "a plain score")),
        ("one resample", lambda g: 1, Check(_one_resample_is_a_plain_score, "a plain score, as sacreBLEU")),
    ],
    # The shim's other counts (PairedTest's n_samples; 0 is the test's default there).
    "shim count": _SHIM_COUNT,
    # A reward's scale or power: a finite number > 0.
    "positive real": [
        ("NaN", lambda g: NAN, Refused("finite")),
        ("inf", lambda g: INF, Refused("finite")),
        ("zero", lambda g: 0.0, Refused("> 0")),
        ("negative", lambda g: -1.0, Refused("> 0")),
        ("a bool", lambda g: True, Refused(r"\bbool\b")),
        ("a str", lambda g: "0.5", Refused(r"\bstr\b")),
        ("a numpy float", lambda g: np.float32(g), SAME),
    ],
    # A list of tokens (the textbook functions).
    "tokens": _CONTAINERS
    + [
        ("a generator", lambda g: (x for x in g), SAME),
        ("one string", lambda g: " ".join(g), Refused(r"got a str; split it first")),
    ],
    # A list of token lists.
    "token references": _CONTAINERS
    + [
        ("a generator", lambda g: (x for x in g), SAME),
        ("a set item", lambda g: [set(g[0]), *g[1:]], Refused(r"\[0\].*\bset\b")),
        ("a string item", lambda g: [" ".join(g[0]), *g[1:]], Refused(r"\[0\].*\bstr\b")),
    ],
    # A metric's options object (the metric-generic entry points).
    "options": [
        ("a metric name", lambda g: "chrf", Refused(r"metric's options.*got str")),
        ("a dict of keywords", lambda g: {"beta": 2}, Refused(r"metric's options.*got dict")),
        ("the options class", lambda g: type(g), Refused(r"metric's options")),
        ("a bool", lambda g: True, Refused(r"metric's options.*got bool")),
    ],
    # An argument of the app's API that is a list of texts.
    "app texts": [
        ("one string", lambda g: "ab", Refused(r"single string")),
        ("a set", lambda g: set(g), Refused(r"\bset\b")),
        ("a dict", lambda g: dict(enumerate(g)), Refused(r"\bdict\b|mapping")),
        ("a generator", lambda g: (x for x in g), SAME),
    ],
    # The app's seed (from a number box or the API): whole numbers of 0 .. 2**64 - 1, never rounded.
    "app seed": [
        ("2**53 + 1", lambda g: 2**53 + 1, Check(_paired_seed_is_sacrebleus, "sacreBLEU's p-values")),
        ("2**64 - 1", lambda g: 2**64 - 1, Check(_paired_seed_is_sacrebleus, "sacreBLEU's p-values")),
        ("2**64", lambda g: 2**64, Refused(r"below 2\*\*64")),
        ("a float above 2**53", lambda g: float(2**60), Refused(r"float above 2\*\*53")),
        ("a whole float (a number box)", lambda g: float(g), SAME),
        ("a str", lambda g: str(g), SAME),
        ("a bool", lambda g: True, Refused("whole number")),
        ("NaN", lambda g: NAN, Refused("whole number")),
    ],
    # Token ids as a Trainer hands them over (ids, logits, model outputs).
    "trainer ids": [
        ("uint64 ids >= 2**63", lambda g: np.array(_first_id(g, 2**63 + 5), dtype=np.uint64), Refused(r"2\*\*63")),
        ("an id >= 2**32", lambda g: np.array(_first_id(g, 2**32)), Refused(r"\[0\] holds the token id 4294967296")),
        ("bfloat16 logits", lambda g: _bf16_logits(g), SAME),
        ("negative strides", _flipped, SAME),
        ("float ids", lambda g: np.asarray(g, dtype=np.float64) + 0.5, Refused("integer")),
        ("a str", lambda g: "1 2 3", Refused(r"shape|str")),
    ],
    # A command-line value (exit status and one line on stderr checked by the runner).
    "cli seed": [
        ("2**64 + 1", lambda g: str(2**64 + 1), Check(_cli_seed_is_exact, "numpy's draws of that seed")),
        ("a float", lambda g: "1.5", Refused(r"--seed='1.5' is not an integer")),
        ("a word", lambda g: "many", Refused(r"--seed='many' is not an integer")),
    ],
    "cli encoding": [
        ("utf-16 without a BOM", lambda g: "utf-16", Refused(r"UTF-16 stream does not start with BOM")),
        ("an unknown encoding", lambda g: "utf-99", Refused(r"unknown encoding 'utf-99'")),
    ],
    "cli count": [
        ("a float", lambda g: "1.5", Refused(r"invalid int value")),
        ("a word", lambda g: "many", Refused(r"invalid int value")),
    ],
}


def _bf16_logits(ids):
    torch = pytest.importorskip("torch")
    return (torch.nn.functional.one_hot(torch.tensor(ids), 16).to(torch.bfloat16),)


# ----------------------------------------------------------------------------- good values

HYPS = ["The cat sat on the mat .", "It is raining in the city today .", "a dog barked at the postman"]
HYPS_B = ["The cat sat on a mat .", "It rains in the city today .", "the dog barked at a postman"]
REFS = ["The cat sat on the mat .", "It rains in the city today .", "a dog barked at the postman"]
SENTENCE_REFS = ["The cat sat on the mat .", "A cat sat on the mat ."]
CANDS = ["the cat sat on the mat", "a cat sat on the mat", "the cat is on a mat", "dogs run"]
HYP_IDS = [[5, 6, 7, 8, 0], [5, 6, 9, 3, 0]]
REF_IDS = [[5, 6, 7, 8, 0], [5, 6, 7, 3, 2]]
N_SAMPLES = 30


@dataclass(frozen=True)
class Slot:
    kind: str
    good: Any


@dataclass(frozen=True)
class Entry:
    name: str
    call: Callable[..., Any]  # call(**slots) -> a plain, comparable result
    slots: Dict[str, Slot]
    needs: Tuple[str, ...] = ()  # modules that must import (extras)
    #: (slot, hostile input) -> the documented expectation where it differs from the kind's
    differs: Dict[Tuple[str, str], Expectation] = field(default_factory=dict)


def _numbers(x: Any) -> Any:
    """A plain value to compare results with ``==``: arrays and tensors as lists, results as dicts."""
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, bleukit.MBRSelection):
        return {"indices": x.indices, "selected": x.selected, "utilities": x.utilities.tolist()}
    if isinstance(x, bleukit.MetricResult):
        return x.to_dict()
    if isinstance(x, bleukit.Statistics):
        return {"rows": x.rows.tolist(), "nrefs": x.nrefs.tolist()}
    if isinstance(x, dict):
        return {k: _numbers(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_numbers(v) for v in x]
    return x


def _accumulated(hypotheses, references):
    acc = StatisticsAccumulator(BleuOptions())
    acc.add_text(hypotheses, references)
    return acc.result()


def _paired(systems=None, references=REFS, n_samples=N_SAMPLES, seed=12345):
    systems = {"a": HYPS, "b": HYPS_B} if systems is None else systems
    results = paired_test(systems, references, method="ar", n_samples=n_samples, seed=seed)
    return {
        "p_values": [r.p_value for r in results],
        "signature": results[0].result.signature,
        "scores": [r.score for r in results],
    }


def _compared(systems, references, n_samples, seed):
    # all pairs of two systems: one test, whose p-value is paired_test's (and sacreBLEU's)
    c = bleukit.compare_systems(systems, references, method="ar", n_samples=n_samples, seed=seed)
    return {"p_values": [None] + [p.p_value for p in c.comparisons], **c.to_dict()}


def _bootstrap(hypotheses=HYPS, references=REFS, n_samples=N_SAMPLES, seed=12345):
    mean, ci = bootstrap_ci(hypotheses, references, n_bootstrap=n_samples, seed=seed)
    return {"mean": mean, "ci": ci}


def _corpus_bleu_boot(seed=12345, n_bootstrap=N_SAMPLES):
    r = bleukit.corpus_bleu(HYPS, REFS, n_bootstrap=n_bootstrap, seed=seed)
    return {"mean": r.mean, "ci": r.ci, "signature": r.signature, "score": r.score}


def _mbr(
    candidates=CANDS,
    pseudo_references=CANDS,
    weights=(0.1, 0.2, 0.3, 0.4),
    nbest=2,
    threads=1,
    log_weights=False,
    aggregate=False,
):
    return bleukit.mbr_select(
        candidates, pseudo_references, weights, nbest, threads=threads, log_weights=log_weights, aggregate=aggregate
    )


def _quiet(fn):
    def run(**kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(**kwargs)

    return run


def _transformers_metric(predictions):
    from transformers.trainer_utils import EvalPrediction

    from bleukit.integrations.transformers import BleuComputeMetrics

    class Tokenizer:  # id k decodes to "wk"; the Rust tokenizers' 32-bit ids, as transformers' fast ones
        pad_token_id = 0

        def batch_decode(self, rows, skip_special_tokens=True):
            if any(i > 2**32 - 1 for row in rows for i in row):
                raise OverflowError("out of range integral type conversion attempted")
            return [" ".join(f"w{i}" for i in row if not (skip_special_tokens and i == 0)) for row in rows]

    return BleuComputeMetrics(Tokenizer())(EvalPrediction(predictions=predictions, label_ids=np.array(REF_IDS)))


def _datasets_bleu(hypothesis_column="hyp", reference_columns=("ref",), batch_size=1000, num_proc=None):
    from datasets import Dataset

    from bleukit.integrations import datasets as adapter

    table = Dataset.from_dict({"hyp": HYPS, "ref": REFS, "ref2": HYPS_B})
    return adapter.score_dataset(table, hypothesis_column, reference_columns, batch_size=batch_size, num_proc=num_proc)


_APP = None


def _app():
    """The app's API endpoints (``bleukit.app.api``: the functions behind /bleu, /compare, ...)."""
    global _APP
    if _APP is None:
        pytest.importorskip("gradio")
        _APP = importlib.import_module("bleukit.app.api")
    return _APP


def _app_call(endpoint):
    def run(**kwargs):
        import gradio as gr

        try:
            return getattr(_app(), endpoint)(**kwargs)
        except gr.Error as e:  # the core's message, handed to the client
            raise ValueError(e.message) from None

    return run


APP_SYSTEMS = ["\n".join(HYPS), "\n".join(HYPS_B)]
APP_REFS = ["\n".join(REFS)]


def _app_compare(systems=APP_SYSTEMS, references=APP_REFS, seed=12345, n_samples=N_SAMPLES):
    got = _app_call("compare")(
        systems=systems, references=references, names=["a", "b"], method="ar", n_samples=n_samples, seed=seed
    )
    return {"p_values": [s["p_value"] for s in got["systems"]], "signature": got["signature"]}


_CLI_FILES: List[str] = []


def _cli(seed="12345", encoding="utf-8", confidence_n="20"):
    """``bleukit REF -i HYP --confidence`` through main(); a failure is raised as a ValueError with its
    last stderr line after checking its form."""
    from bleukit.cli import main

    tmp = _CLI_FILES
    if not tmp:
        import tempfile

        folder = tempfile.mkdtemp(prefix="bleukit-hostile-")
        atexit.register(shutil.rmtree, folder, True)
        for name, lines in (("ref", REFS), ("hyp", HYPS)):
            path = os.path.join(folder, name)
            with open(path, "wb") as f:  # UTF-8 text: as UTF-16 it has no BOM
                f.write("".join(line + "\n" for line in lines).encode("utf-8"))
            tmp.append(path)
    out, err = io.StringIO(), io.StringIO()
    args = [tmp[0], "-i", tmp[1], "-e", encoding, "--seed", seed, "--confidence", "--confidence-n", confidence_n]
    try:
        with contextlib.redirect_stderr(err):  # argparse writes to sys.stderr
            code = main(args, stdin=io.BytesIO(b""), stdout=out, stderr=err)
    except SystemExit as e:  # argparse's exit 2
        code = e.code
    if code != 0:
        message = err.getvalue()
        assert "Traceback" not in message, message
        # bleukit's own errors are one line with exit 1; argparse's (exit 2, as sacreBLEU) add the usage
        assert (code == 1 and message.count("\n") == 1) or (code == 2 and message.startswith("usage:")), message
        raise ValueError(message.splitlines()[-1])
    return out.getvalue()


def _tm_module(preds, target):
    metric = torchmetrics.SacreBLEUScore()
    metric.update(preds, target)
    return metric.compute()


STREAMS = [REFS, HYPS_B]  # sacreBLEU's layout: streams[k][i]


def _shim_score(score, metric=None):
    """A sacreBLEU-shaped score as a plain dict (``_mean`` is -1.0 without a bootstrap estimate)."""
    return {
        "score": score.score,
        "mean": None if score._mean == -1.0 else score._mean,
        "signature": str(metric.get_signature()) if metric is not None else "",
    }


def _shim_corpus(metric_class, hypotheses=HYPS, references=STREAMS, n_bootstrap=None, **options):
    """``metric_class(**options).corpus_score``; ``n_bootstrap=None`` leaves it out (sacreBLEU's 1)."""
    metric = metric_class(**options)
    keywords = {} if n_bootstrap is None else {"n_bootstrap": n_bootstrap}
    return _shim_score(metric.corpus_score(hypotheses, references, **keywords), metric)


def _shim_paired(systems, n_samples):
    from bleukit.sacrebleu.significance import PairedTest

    test = PairedTest(systems, {"BLEU": bleukit.sacrebleu.BLEU()}, STREAMS, test_type="ar", n_samples=n_samples)
    _, scores = test()
    return {"p_values": [r.p_value for r in scores["BLEU"][1:]], "scores": [r.score for r in scores["BLEU"]]}


def _shim_cached(metric_class, references):
    metric = metric_class(references=references)
    return _shim_score(metric.corpus_score(HYPS, None), metric)


def _reward(reward_class, completions=HYPS, reference=REFS, **options):
    return reward_class("reference", **options)(prompts=["p"] * 3, completions=completions, reference=reference)


def _torchmetrics_metric(name, preds, target):
    from bleukit.integrations import torchmetrics as adapter

    metric = getattr(adapter, name)()
    metric.update(preds, target)
    return metric.result().to_dict()


def _verl(solution_strs, ground_truths, scale):
    from bleukit.integrations.verl import compute_score

    return compute_score(solution_strs=solution_strs, ground_truths=ground_truths, scale=scale)


def _openrlhf(queries, labels, scale):
    from bleukit.integrations.openrlhf import RewardFunction

    return RewardFunction(scale=scale)(queries, ["Q: "] * 3, labels)["extra_logs"]


_EVALUATE_CHRF = []


def _evaluate_chrf(predictions, references, char_order=6):
    if not _EVALUATE_CHRF:
        import evaluate

        _EVALUATE_CHRF.append(evaluate.load(bleukit.metric_path("chrf")))
    return _EVALUATE_CHRF[0].compute(predictions=predictions, references=references, char_order=char_order)


_EVALUATE_TER = []


def _evaluate_ter(predictions, references, ignore_punct=False):
    if not _EVALUATE_TER:
        import evaluate

        _EVALUATE_TER.append(evaluate.load(bleukit.metric_path("ter")))
    return _EVALUATE_TER[0].compute(predictions=predictions, references=references, ignore_punct=ignore_punct)


ENTRIES: List[Entry] = [
    # text API, BLEU
    Entry(
        "corpus_bleu",
        lambda hypotheses, references, weights, threads: bleukit.corpus_bleu(
            hypotheses, references, weights=weights, threads=threads
        ).to_dict(),
        {
            "hypotheses": Slot("texts", HYPS),
            "references": Slot("references", REFS),
            "weights": Slot("n-gram weights", (0.4, 0.3, 0.2, 0.1)),
            "threads": Slot("threads", 1),
        },
    ),
    Entry(
        "corpus_bleu(n_bootstrap, seed)",
        _corpus_bleu_boot,
        {"seed": Slot("seed", 12345), "n_bootstrap": Slot("n_bootstrap", N_SAMPLES)},
    ),
    Entry(
        "sentence_bleu",
        lambda hypothesis, references, weights: bleukit.sentence_bleu(
            hypothesis, references, weights=weights
        ).to_dict(),
        {
            "hypothesis": Slot("text", HYPS[0]),
            "references": Slot("sentence references", SENTENCE_REFS),
            "weights": Slot("n-gram weights", (0.4, 0.3, 0.2, 0.1)),
        },
    ),
    Entry(
        "sentence_bleu_scores",
        lambda hypotheses, references, threads: bleukit.sentence_bleu_scores(hypotheses, references, threads=threads),
        {"hypotheses": Slot("texts", HYPS), "references": Slot("references", REFS), "threads": Slot("threads", 1)},
    ),
    Entry(
        "BleuOptions",
        lambda lowercase, smooth_value, max_ngram_order, effective_order: BleuOptions(
            lowercase=lowercase,
            smooth_method="floor",
            smooth_value=smooth_value,
            max_ngram_order=max_ngram_order,
            effective_order=effective_order,
        ).signature(1),
        {
            "lowercase": Slot("flag", False),
            "smooth_value": Slot("real option", 0.1),
            "max_ngram_order": Slot("int option", 4),
            "effective_order": Slot("flag", False),
        },
    ),
    # text API, chrF
    Entry(
        "corpus_statistics(chrF)",
        lambda hypotheses, references, threads: bleukit.score_statistics(
            bleukit.corpus_statistics(hypotheses, references, options=ChrfOptions(), threads=threads), ChrfOptions()
        ).to_dict(),
        {"hypotheses": Slot("texts", HYPS), "references": Slot("references", REFS), "threads": Slot("threads", 1)},
    ),
    Entry(
        "ChrfOptions",
        lambda beta, char_order, word_order, lowercase: ChrfOptions(
            beta=beta, char_order=char_order, word_order=word_order, lowercase=lowercase
        ).signature(1),
        {
            "beta": Slot("real option", 2.0),
            "char_order": Slot("int option", 6),
            "word_order": Slot("int option", 2),
            "lowercase": Slot("flag", False),
        },
    ),
    Entry(
        "corpus_chrf",
        lambda hypotheses, references, beta, threads: bleukit.corpus_chrf(
            hypotheses, references, beta=beta, threads=threads
        ).to_dict(),
        {
            "hypotheses": Slot("texts", HYPS),
            "references": Slot("references", REFS),
            "beta": Slot("real option", 2.0),
            "threads": Slot("threads", 1),
        },
    ),
    Entry(
        "corpus_chrf(n_bootstrap, seed)",
        lambda seed, n_bootstrap: bleukit.corpus_chrf(HYPS, REFS, n_bootstrap=n_bootstrap, seed=seed).to_dict(),
        {"seed": Slot("seed", 12345), "n_bootstrap": Slot("n_bootstrap", N_SAMPLES)},
    ),
    Entry(
        "sentence_chrf",
        lambda hypothesis, references, char_order: bleukit.sentence_chrf(
            hypothesis, references, char_order=char_order
        ).to_dict(),
        {
            "hypothesis": Slot("text", HYPS[0]),
            "references": Slot("sentence references", SENTENCE_REFS),
            "char_order": Slot("int option", 6),
        },
    ),
    Entry(
        "sentence_chrf_scores",
        lambda hypotheses, references, threads: bleukit.sentence_chrf_scores(hypotheses, references, threads=threads),
        {"hypotheses": Slot("texts", HYPS), "references": Slot("references", REFS), "threads": Slot("threads", 1)},
    ),
    Entry(
        "explain_chrf",
        lambda hypothesis, references: bleukit.explain_chrf(hypothesis, references).to_dict(),
        {"hypothesis": Slot("text", HYPS[0]), "references": Slot("sentence references", SENTENCE_REFS)},
    ),
    # text API, TER
    Entry(
        "explain_ter",
        lambda hypothesis, references: bleukit.explain_ter(hypothesis, references).to_dict(),
        {"hypothesis": Slot("text", HYPS[0]), "references": Slot("sentence references", SENTENCE_REFS)},
    ),
    Entry(
        "corpus_ter",
        lambda hypotheses, references, threads, normalized: bleukit.corpus_ter(
            hypotheses, references, threads=threads, normalized=normalized
        ).to_dict(),
        {
            "hypotheses": Slot("texts", HYPS),
            "references": Slot("references", REFS),
            "threads": Slot("threads", 1),
            "normalized": Slot("flag", False),
        },
    ),
    Entry(
        "corpus_ter(n_bootstrap, seed)",
        lambda seed, n_bootstrap: bleukit.corpus_ter(HYPS, REFS, n_bootstrap=n_bootstrap, seed=seed).to_dict(),
        {"seed": Slot("seed", 12345), "n_bootstrap": Slot("n_bootstrap", N_SAMPLES)},
    ),
    Entry(
        "sentence_ter",
        lambda hypothesis, references, case_sensitive: bleukit.sentence_ter(
            hypothesis, references, case_sensitive=case_sensitive
        ).to_dict(),
        {
            "hypothesis": Slot("text", HYPS[0]),
            "references": Slot("sentence references", SENTENCE_REFS),
            "case_sensitive": Slot("flag", False),
        },
    ),
    Entry(
        "sentence_ter_scores",
        lambda hypotheses, references, threads: bleukit.sentence_ter_scores(hypotheses, references, threads=threads),
        {"hypotheses": Slot("texts", HYPS), "references": Slot("references", REFS), "threads": Slot("threads", 1)},
    ),
    # textbook BLEU on token lists
    Entry(
        "bleu_score",
        lambda candidate, references, max_n: bleukit.bleu_score(candidate, references, max_n=max_n),
        {
            "candidate": Slot("tokens", HYPS[0].split()),
            "references": Slot("token references", [r.split() for r in SENTENCE_REFS]),
            "max_n": Slot("int option", 4),
        },
    ),
    Entry(
        "bleu_unigram",
        lambda candidate, reference: bleukit.bleu_unigram(candidate, reference),
        {"candidate": Slot("tokens", HYPS[0].split()), "reference": Slot("tokens", SENTENCE_REFS[1].split())},
    ),
    Entry(
        "explain_tokens",
        lambda hyp_tokens, refs_tokens: bleukit.analysis.explain.explain_tokens(hyp_tokens, refs_tokens, 4).to_dict(),
        {
            "hyp_tokens": Slot("tokens", HYPS[0].split()),
            "refs_tokens": Slot("token references", [r.split() for r in SENTENCE_REFS]),
        },
    ),
    # accumulator, report, explain
    Entry(
        "StatisticsAccumulator.add_text",
        lambda hypotheses, references: _accumulated(hypotheses, references).to_dict(),
        {"hypotheses": Slot("texts", HYPS), "references": Slot("references", REFS)},
    ),
    Entry(
        "score_report",
        lambda hypotheses, references: bleukit.score_report(hypotheses, references, options=BleuOptions()).to_dict(),
        {"hypotheses": Slot("texts", HYPS), "references": Slot("references", REFS)},
    ),
    Entry(
        "explain_bleu",
        lambda hypothesis, references: explain_bleu(hypothesis, references).to_dict(),
        {"hypothesis": Slot("text", HYPS[0]), "references": Slot("sentence references", SENTENCE_REFS)},
    ),
    # significance
    Entry(
        "bootstrap_ci",
        _bootstrap,
        {
            "hypotheses": Slot("texts", HYPS),
            "references": Slot("references", REFS),
            "n_samples": Slot("count", N_SAMPLES),
            "seed": Slot("seed", 12345),
        },
        differs={("references", "None"): Refused("references are required with hypotheses")},
    ),
    Entry(
        "paired_test",
        _paired,
        {
            "systems": Slot("systems", {"a": HYPS, "b": HYPS_B}),
            "references": Slot("references", REFS),
            "n_samples": Slot("count", N_SAMPLES),
            "seed": Slot("paired seed", 12345),
        },
    ),
    # the analyses (issue 28): many systems, groups, documents, Self-BLEU, the HTML report
    Entry(
        "compare_systems",
        _compared,
        {
            "systems": Slot("systems", {"a": HYPS, "b": HYPS_B}),
            "references": Slot("references", REFS),
            "n_samples": Slot("count", N_SAMPLES),
            "seed": Slot("paired seed", 12345),
        },
    ),
    Entry(
        "paired_test_by_group",
        lambda systems, references: {
            k: [(r.score, r.p_value) for r in v]
            for k, v in bleukit.paired_test_by_group(systems, references, ["x", "y", "x"], method="ar",
                                                     n_samples=N_SAMPLES).items()
        },
        {"systems": Slot("systems", {"a": HYPS, "b": HYPS_B}), "references": Slot("references", REFS)},
    ),
    Entry(
        "score_by_group",
        lambda hypotheses, references: bleukit.score_by_group(hypotheses, references, ["x", "y", "x"]).to_dict(),
        {"hypotheses": Slot("texts", HYPS), "references": Slot("references", REFS)},
    ),
    Entry(
        "document_score",
        lambda hypotheses, references: bleukit.document_score(hypotheses, references, [1, 1, 2]).to_dict(),
        {"hypotheses": Slot("texts", HYPS), "references": Slot("references", REFS)},
    ),
    Entry("self_bleu", lambda texts: bleukit.self_bleu(texts).to_dict(), {"texts": Slot("texts", HYPS)}),
    Entry(
        "build_report",
        lambda systems, references: bleukit.build_report(systems, references, n_samples=N_SAMPLES,
                                                         n_bootstrap=N_SAMPLES).data["metrics"][0]["scores"],
        {"systems": Slot("systems", {"a": HYPS, "b": HYPS_B}), "references": Slot("references", REFS)},
    ),
    # the metric-generic entry points, given chrF's options
    *[
        Entry(f"{name}(options)", call, {"options": Slot("options", ChrfOptions(word_order=2))})
        for name, call in (
            ("corpus_statistics", lambda options: bleukit.corpus_statistics(HYPS, REFS, options=options)),
            ("score_report", lambda options: bleukit.score_report(HYPS, REFS, options=options).to_dict()),
            ("bootstrap_ci", lambda options: bootstrap_ci(HYPS, REFS, n_bootstrap=N_SAMPLES, options=options)),
            ("paired_test", lambda options: [
                (r.score, r.p_value) for r in paired_test({"a": HYPS, "b": HYPS_B}, REFS, n_samples=N_SAMPLES,
                                                          options=options)
            ]),
            ("pairwise_scores", lambda options: bleukit.pairwise_scores(HYPS, REFS, options=options)),
            ("mbr_select", lambda options: bleukit.mbr_select(CANDS, options=options)),
            ("StatisticsAccumulator", lambda options: bleukit.StatisticsAccumulator(options).add_text(HYPS, REFS)),
            ("compare_systems", lambda options: bleukit.compare_systems(
                {"a": HYPS, "b": HYPS_B}, REFS, n_samples=N_SAMPLES, options=options).to_dict()),
            ("score_by_group", lambda options: bleukit.score_by_group(HYPS, REFS, [1, 2, 1], options=options).score),
            ("document_score", lambda options: bleukit.document_score(HYPS, REFS, [1, 1, 2], options=options).score),
            ("self_bleu", lambda options: bleukit.self_bleu(HYPS, options=options).to_dict()),
        )
    ],
    # pairwise and MBR
    Entry(
        "pairwise_bleu",
        lambda hypotheses, references, threads: bleukit.pairwise_bleu(hypotheses, references, threads=threads),
        {"hypotheses": Slot("texts", HYPS), "references": Slot("texts", REFS), "threads": Slot("threads", 1)},
    ),
    Entry(
        "pairwise_scores(chrF)",
        lambda hypotheses, references, threads: bleukit.pairwise_scores(
            hypotheses, references, options=ChrfOptions(), threads=threads
        ),
        {"hypotheses": Slot("texts", HYPS), "references": Slot("texts", REFS), "threads": Slot("threads", 1)},
    ),
    Entry(
        "pairwise_chrf",
        lambda hypotheses, references, threads, word_order: bleukit.pairwise_chrf(
            hypotheses, references, threads=threads, word_order=word_order
        ),
        {
            "hypotheses": Slot("texts", HYPS),
            "references": Slot("texts", REFS),
            "threads": Slot("threads", 1),
            "word_order": Slot("int option", 2),
        },
    ),
    Entry(
        "pairwise_statistics",
        lambda hypotheses, references, threads: bleukit.pairwise_statistics(hypotheses, references, threads=threads),
        {"hypotheses": Slot("texts", HYPS), "references": Slot("texts", REFS), "threads": Slot("threads", 1)},
    ),
    Entry(
        "mbr_select",
        _mbr,
        {
            "candidates": Slot("texts", CANDS),
            "pseudo_references": Slot("texts", CANDS),
            "weights": Slot("pseudo-reference weights", (0.1, 0.2, 0.3, 0.4)),
            "nbest": Slot("count", 2),
            "threads": Slot("threads", 1),
            "log_weights": Slot("flag", False),
            "aggregate": Slot("flag", False),
        },
        differs={("pseudo_references", "None"): SAME},
    ),  # None: the candidates, which they are here
    Entry(
        "mbr_select(batch)",
        lambda second, weights: bleukit.mbr_select([CANDS, second], [CANDS, CANDS], [None, weights]),
        {"second": Slot("texts", CANDS[::-1]), "weights": Slot("pseudo-reference weights", (0.4, 0.3, 0.2, 0.1))},
    ),
    # token ids
    *[
        Entry(
            f"sentence_bleu_ids[{backend}]",
            lambda hyp_ids, ref_ids, pad_id, backend=backend: sentence_bleu_ids(
                hyp_ids, ref_ids, pad_id=pad_id, backend=backend
            ),
            {"hyp_ids": Slot("ids", HYP_IDS), "ref_ids": Slot("ids", REF_IDS), "pad_id": Slot("pad id", 0)},
            needs=("torch",) if backend == "torch" else (),
        )
        for backend in ("auto", "numpy", "torch")
    ],
    Entry(
        "corpus_bleu_ids",
        lambda hyp_ids, ref_ids, pad_id: corpus_bleu_ids(hyp_ids, ref_ids, pad_id=pad_id).to_dict(),
        {"hyp_ids": Slot("ids", HYP_IDS), "ref_ids": Slot("ids", REF_IDS), "pad_id": Slot("pad id", 0)},
    ),
    Entry(
        "id_statistics",
        lambda hyp_ids, ref_ids, pad_id: id_statistics(hyp_ids, ref_ids, pad_id=pad_id),
        {"hyp_ids": Slot("ids", HYP_IDS), "ref_ids": Slot("ids", REF_IDS), "pad_id": Slot("pad id", 0)},
    ),
    *[
        Entry(
            f"pairwise_bleu_ids[{backend}]",
            lambda hyp_ids, ref_ids, pad_id, threads, backend=backend: bleukit.pairwise_bleu_ids(
                hyp_ids, ref_ids, pad_id=pad_id, threads=threads, backend=backend
            ),
            {
                "hyp_ids": Slot("ids", HYP_IDS),
                "ref_ids": Slot("ids", REF_IDS),
                "pad_id": Slot("pad id", 0),
                "threads": Slot("threads", 1),
            },
            needs=("torch",) if backend == "torch" else (),
        )
        for backend in ("auto", "numpy", "torch")
    ],
    # compat (each original's inputs; strings where lists belong are named, not iterated)
    Entry(
        "compat.hf_evaluate.bleu",
        lambda predictions, references: hf_evaluate.bleu(predictions, references),
        {"predictions": Slot("texts", HYPS), "references": Slot("references", [[r] for r in REFS])},
    ),
    Entry(
        "compat.gleu.google_bleu",
        lambda predictions, references: gleu.google_bleu(predictions, references),
        {"predictions": Slot("texts", HYPS), "references": Slot("references", [[r] for r in REFS])},
    ),
    Entry(
        "compat.torchmetrics.bleu_score",
        _quiet(lambda preds, target: torchmetrics.bleu_score(preds, target)),
        {"preds": Slot("texts", HYPS), "target": Slot("references", [[r] for r in REFS])},
        needs=("torch",),
        differs={("preds", "one string"): Refused("Corpus has different size 1 != 3")},
    ),  # torchmetrics wraps it
    Entry(
        "compat.torchmetrics.SacreBLEUScore",
        _quiet(lambda preds, target: _tm_module(preds, target)),
        {"preds": Slot("texts", HYPS), "target": Slot("references", [[r] for r in REFS])},
        needs=("torch",),
        differs={("preds", "one string"): Refused(r"Corpus has different size \d+ != 3")},
    ),  # its characters
    Entry(
        "compat.nltk.corpus_bleu",
        _quiet(lambda list_of_references, hypotheses: nltk.corpus_bleu(list_of_references, hypotheses)),
        {
            "list_of_references": Slot("references", [[r.split()] for r in REFS]),
            "hypotheses": Slot("texts", [h.split() for h in HYPS]),
        },
        # NLTK scores a string as its characters: a string where token lists belong is named as such
        differs={("hypotheses", "one string"): Refused(r"got a str hypothesis")},
    ),
    Entry(
        "compat.moses.multi_bleu",
        lambda hypotheses, references: moses.multi_bleu(hypotheses, references),
        {"hypotheses": Slot("texts", HYPS), "references": Slot("texts", [REFS])},
        # a str is a file's contents, as the script reads it: here the one line of the file
        differs={
            ("hypotheses", "one string"): Check(
                lambda result, rerun, value: result == rerun([value]), "the file's one line"
            )
        },
    ),
    Entry(
        "compat.presets.t5_bleu",
        lambda targets, predictions: presets.t5_bleu(targets, predictions),
        {"targets": Slot("references", REFS), "predictions": Slot("texts", HYPS)},
        # T5 reads targets whose first item is a list as reference streams
        differs={("targets", "a NaN reference"): Refused(r"streams\[1\] must be a list of reference strings")},
    ),
    Entry(
        "compare_variants",
        _quiet(lambda hypotheses, references: bleukit.compare_variants(hypotheses, references).to_dict()),
        {"hypotheses": Slot("texts", HYPS), "references": Slot("references", [[r] for r in REFS])},
    ),
    # the sacreBLEU-shaped API (reference streams, sacreBLEU's names and defaults)
    Entry(
        "sacrebleu.corpus_bleu",
        lambda hypotheses, references: _shim_score(bleukit.sacrebleu.corpus_bleu(hypotheses, references)),
        {"hypotheses": Slot("texts", HYPS), "references": Slot("streams", STREAMS)},
    ),
    Entry(
        "sacrebleu.corpus_chrf",
        lambda hypotheses, references: _shim_score(bleukit.sacrebleu.corpus_chrf(hypotheses, references)),
        {"hypotheses": Slot("texts", HYPS), "references": Slot("streams", STREAMS)},
    ),
    Entry(
        "sacrebleu.sentence_bleu",
        lambda hypothesis, references: _shim_score(bleukit.sacrebleu.sentence_bleu(hypothesis, references)),
        {"hypothesis": Slot("text", HYPS[0]), "references": Slot("sentence references", SENTENCE_REFS)},
    ),
    Entry(
        "sacrebleu.sentence_chrf",
        lambda hypothesis, references: _shim_score(bleukit.sacrebleu.sentence_chrf(hypothesis, references)),
        {"hypothesis": Slot("text", HYPS[0]), "references": Slot("sentence references", SENTENCE_REFS)},
    ),
    Entry(
        "sacrebleu.BLEU.corpus_score",
        lambda hypotheses, references, n_bootstrap, lowercase: _shim_corpus(
            bleukit.sacrebleu.BLEU, hypotheses, references, n_bootstrap, lowercase=lowercase
        ),
        {
            "hypotheses": Slot("texts", HYPS),
            "references": Slot("streams", STREAMS),
            "n_bootstrap": Slot("shim n_bootstrap", N_SAMPLES),
            "lowercase": Slot("flag", False),
        },
    ),
    Entry(
        "sacrebleu.CHRF.corpus_score",
        lambda hypotheses, references, n_bootstrap, beta, char_order: _shim_corpus(
            bleukit.sacrebleu.CHRF, hypotheses, references, n_bootstrap, beta=beta, char_order=char_order
        ),
        {
            "hypotheses": Slot("texts", HYPS),
            "references": Slot("streams", STREAMS),
            "n_bootstrap": Slot("shim n_bootstrap", N_SAMPLES),
            "beta": Slot("real option", 2),
            "char_order": Slot("int option", 6),
        },
    ),
    *[
        Entry(
            f"sacrebleu.{cls.__name__}(references=...)",
            lambda references, cls=cls: _shim_cached(cls, references),
            {"references": Slot("streams", STREAMS)},
            # no hypotheses yet: streams of different lengths are named as such
            differs={("references", "a short stream"): Refused(r"stream 0 is shorter than stream 1")},
        )
        for cls in (bleukit.sacrebleu.BLEU, bleukit.sacrebleu.CHRF)
    ],
    Entry(
        "sacrebleu.significance.PairedTest",
        lambda systems, n_samples: _shim_paired(systems, n_samples),
        {"systems": Slot("systems", {"a": HYPS, "b": HYPS_B}), "n_samples": Slot("shim count", N_SAMPLES)},
    ),
    Entry(
        "sacrebleu.CHRF.sentence_score",
        lambda hypothesis, references: _shim_score(bleukit.sacrebleu.CHRF().sentence_score(hypothesis, references)),
        {"hypothesis": Slot("text", HYPS[0]), "references": Slot("sentence references", SENTENCE_REFS)},
    ),
    # adapters
    *[
        Entry(
            f"integrations.rewards.{cls.__name__}",
            lambda completions, reference, scale, power, cls=cls: _reward(
                cls, completions, reference, scale=scale, power=power
            ),
            {
                "completions": Slot("texts", HYPS),
                "reference": Slot("references", REFS),
                "scale": Slot("positive real", 1.0),
                "power": Slot("positive real", 1.0),
            },
        )
        for cls in (BleuReward, ChrfReward, bleu_reward)
    ],
    *[
        Entry(
            f"integrations.torchmetrics.{name}",
            lambda preds, target, name=name: _torchmetrics_metric(name, preds, target),
            {"preds": Slot("texts", HYPS), "target": Slot("references", REFS)},
            needs=("torchmetrics",),
            # update() takes one string as one hypothesis (documented): three references are too many
            differs={("preds", "one string"): Refused(r"got 1 hypotheses but 3 reference entries")},
        )
        for name in ("BLEUScore", "CHRFScore", "TERScore")
    ],
    Entry(
        "integrations.verl.compute_score (batch)",
        lambda solution_strs, ground_truths, scale: _verl(solution_strs, ground_truths, scale),
        {
            "solution_strs": Slot("texts", HYPS),
            "ground_truths": Slot("references", REFS),
            "scale": Slot("positive real", 1.0),
        },
        # a label is a reference, a list of them or a mapping ("references", language): a dict
        # item is a label without references
        differs={
            ("ground_truths", "a dict item"): Refused(r"sample 0 has no reference"),
            # solution_strs=None is verl's single form, which then lacks its solution_str
            ("solution_strs", "None"): Refused(r"needs solution_str \(single form\) or solution_strs"),
        },
    ),
    Entry(
        "integrations.openrlhf.RewardFunction",
        lambda queries, labels, scale: _openrlhf(queries, labels, scale),
        {
            "queries": Slot("texts", ["Q: " + h for h in HYPS]),
            "labels": Slot("references", REFS),
            "scale": Slot("positive real", 1.0),
        },
        needs=("torch",),
        differs={
            ("labels", "a dict item"): Refused(r"sample 0 has no reference"),
            # each query must start with its prompt
            ("queries", "a generator"): SAME,
        },
    ),
    Entry(
        "evaluate chrf module",
        _evaluate_chrf,
        {
            "predictions": Slot("texts", HYPS),
            "references": Slot("references", [[r] for r in REFS]),
            "char_order": Slot("int option", 6),
        },
        needs=("evaluate",),
    ),
    Entry(
        "evaluate ter module",
        _evaluate_ter,
        {
            "predictions": Slot("texts", HYPS),
            "references": Slot("references", [[r] for r in REFS]),
            "ignore_punct": Slot("flag", False),
        },
        needs=("evaluate",),
    ),
    Entry(
        "integrations.transformers",
        lambda predictions: _transformers_metric(predictions),
        {"predictions": Slot("trainer ids", HYP_IDS)},
        needs=("transformers", "torch"),
    ),
    Entry(
        "integrations.datasets",
        lambda hypothesis_column, reference_columns, batch_size, num_proc: _datasets_bleu(
            hypothesis_column, reference_columns, batch_size, num_proc
        ).to_dict(),
        {
            "hypothesis_column": Slot("text", "hyp"),
            "reference_columns": Slot("texts", ["ref", "ref2"]),
            "batch_size": Slot("count", 2),
            "num_proc": Slot("count", 1),
        },
        needs=("datasets",),
        differs={
            ("hypothesis_column", "a list"): Refused(r"column name \(str\)"),
            ("hypothesis_column", "None"): Refused(r"column name \(str\)"),
            ("hypothesis_column", "bytes"): Refused(r"column name \(str\)"),
            ("hypothesis_column", "a float"): Refused(r"column name \(str\)"),
            ("reference_columns", "one string"): Check(
                lambda result, rerun, value: result == rerun([value]), "one column name"
            ),
            ("reference_columns", "a bool"): Refused(r"column name"),
            ("reference_columns", "a float"): Refused(r"column name"),
            ("reference_columns", "None"): Refused(r"column name"),
            ("reference_columns", "a bool item"): Refused(r"column names \(str\), got bool"),
            ("reference_columns", "a NaN item"): Refused(r"column names \(str\), got float"),
        },
    ),
    # the app's API endpoints, as plain functions
    Entry(
        "app /bleu",
        lambda references: _app_call("bleu")(hypotheses="\n".join(HYPS), references=references),
        {"references": Slot("app texts", ["\n".join(REFS)])},
        needs=("gradio",),
    ),
    Entry(
        "app /variants",
        _quiet(lambda references: _app_call("variants")(hypotheses="\n".join(HYPS), references=references)),
        {"references": Slot("app texts", ["\n".join(REFS)])},
        needs=("gradio",),
    ),
    Entry(
        "app /explain",
        lambda references: _app_call("explain")(hypothesis=HYPS[0], references=references),
        {"references": Slot("app texts", SENTENCE_REFS)},
        needs=("gradio",),
    ),
    Entry(
        "app /compare",
        _app_compare,
        {
            "systems": Slot("app texts", ["\n".join(HYPS), "\n".join(HYPS_B)]),
            "references": Slot("app texts", ["\n".join(REFS)]),
            "seed": Slot("app seed", 12345),
            "n_samples": Slot("app seed", N_SAMPLES),
        },
        needs=("gradio",),
        differs={
            ("n_samples", "2**53 + 1"): Refused(r"between 1 and 20,000"),
            ("n_samples", "2**64 - 1"): Refused(r"between 1 and 20,000"),
            ("n_samples", "2**64"): Refused(r"between 1 and 20,000"),
            ("n_samples", "a float above 2**53"): Refused(r"float above 2\*\*53"),
            ("systems", "a generator"): SAME,
        },
    ),
    # the command line
    Entry(
        "cli main()",
        _cli,
        {
            "seed": Slot("cli seed", "12345"),
            "encoding": Slot("cli encoding", "utf-8"),
            "confidence_n": Slot("cli count", "20"),
        },
    ),
]


# ----------------------------------------------------------------------------- the table


def _cases():
    for entry in ENTRIES:
        for slot_name, slot in entry.slots.items():
            for hostile_name, make, expected in HOSTILE[slot.kind]:
                expected = entry.differs.get((slot_name, hostile_name), expected)
                yield pytest.param(entry, slot_name, make, expected, id=f"{entry.name}-{slot_name}-{hostile_name}")


CASES = list(_cases())


@pytest.mark.parametrize("entry, slot_name, make, expected", CASES)
def test_hostile_input(entry: Entry, slot_name: str, make, expected):
    for module in entry.needs:
        pytest.importorskip(module)
    good = {name: slot.good for name, slot in entry.slots.items()}

    def run(value):
        return _numbers(entry.call(**dict(good, **{slot_name: value})))

    value = make(good[slot_name])
    if isinstance(expected, Refused):
        with pytest.raises((TypeError, ValueError), match=expected.pattern):
            run(value)
    elif expected is SAME:
        assert run(value) == run(good[slot_name])
    else:
        expected.check(run(value), run, value)


def test_the_table_covers_every_kind_and_entry_point():
    used = {slot.kind for entry in ENTRIES for slot in entry.slots.values()}
    assert used == set(HOSTILE), set(HOSTILE) ^ used
    for entry in ENTRIES:
        for slot_name, hostile_name in entry.differs:
            assert hostile_name in {h[0] for h in HOSTILE[entry.slots[slot_name].kind]}, (entry.name, hostile_name)
    assert len(CASES) > 400  # inputs x entry points
