"""The drop-in for evaluate.load("chrf"): loaded with evaluate.load(bleukit.metric_path("chrf")) offline
in a fresh interpreter, it takes the Hub metric's arguments and returns its result keys, with the
numbers the Hub metric gets from sacreBLEU's CHRF (which are computed live here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from sacrebleu.metrics import CHRF

from bleukit import metric_path

pytest.importorskip("evaluate")

# On one xdist worker: one evaluate run (`run`) serves the module's tests (on two, each
# worker would make its own).
pytestmark = pytest.mark.xdist_group("chrf-module")

SCRIPT = r"""
import json, sys
import evaluate
import bleukit
metric = evaluate.load(bleukit.metric_path("chrf"))
out = {"class": [c.__module__ + "." + c.__name__ for c in type(metric).__mro__], "citation": metric.citation,
       "description": metric.description, "inputs": metric.inputs_description,
       "features": [str(f) for f in metric.info.features], "results": []}
for case in json.loads(sys.stdin.read()):
    try:
        if case.get("batches"):
            for p, r in case["batches"]:
                metric.add_batch(predictions=p, references=r)
            out["results"].append(metric.compute(**case.get("kwargs", {})))
        else:
            out["results"].append(metric.compute(predictions=case["p"], references=case["r"], **case.get("kwargs", {})))
    except Exception as err:
        out["results"].append({"error": type(err).__name__, "message": str(err)})
print(json.dumps(out))
"""

# The Hub metric's own examples, and what trips scorers.
HYPS = [
    "The relationship between cats and dogs is not exactly friendly.",
    "a good bookshop is just a genteel black hole that knows how to read.",
    "Das ist 1,000.5 Euro teuer!",
    "",
    "東京は日本の首都です。",
]
REFS = [
    ["The relationship between dogs and cats is not exactly friendly.", "Cats and dogs: not friends."],
    ["A good bookshop is just a genteel Black Hole that knows how to read.", "A bookshop reads."],
    ["Das ist 1.000,5 Euro teuer.", "Es kostet 1000,5 Euro!"],
    ["", "nothing"],
    ["日本の首都は東京です。", "東京"],
]
OPTIONS = [
    {},
    {"word_order": 2},
    {"word_order": 2, "lowercase": True},
    {"char_order": 4, "beta": 1, "whitespace": True},
    {"eps_smoothing": True, "beta": 3, "word_order": 1},
]
CASES = (
    [{"p": HYPS, "r": REFS, "kwargs": kw} for kw in OPTIONS]
    + [
        {"p": HYPS, "r": [r[0] for r in REFS]},  # one reference each, as strings
        {"batches": [[HYPS[:2], REFS[:2]], [HYPS[2:], REFS[2:]]], "kwargs": {"word_order": 2}},
        {"p": HYPS[:2], "r": [REFS[0], REFS[1][:1]]},  # different numbers of references
        {"p": [], "r": []},
        {"p": HYPS, "r": REFS[:2]},
        {"p": HYPS, "r": REFS, "kwargs": {"char_order": 0}},
        {"p": HYPS, "r": REFS, "kwargs": {"order": 3}},
        {"p": HYPS[:1], "r": REFS[:1]},  # after the failures: only this input is scored
    ]
)


def _hub(predictions, references, **options):
    """What the Hub metric computes: sacreBLEU's CHRF on the transposed references."""
    refs = [[r] if isinstance(r, str) else r for r in references]
    streams = [[r[k] for r in refs] for k in range(len(refs[0]))]
    out = CHRF(**options).corpus_score(predictions, streams)
    return {"score": out.score, "char_order": out.char_order, "word_order": out.word_order, "beta": out.beta}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    env = dict(
        os.environ,
        HF_HUB_OFFLINE="1",
        HF_EVALUATE_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_HOME=str(tmp_path_factory.mktemp("hf")),
        PYTHONPATH=os.pathsep.join(sys.path),
    )
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        input=json.dumps(CASES),
        capture_output=True,
        text=True,
        env=env,
        cwd=str(tmp_path_factory.mktemp("cwd")),
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_is_an_evaluate_metric_with_the_hub_card(run):
    assert "evaluate.module.Metric" in run["class"] and "bleukit.evaluate_module.base.TextMetric" in run["class"]
    assert "Popovi" in run["citation"] and "Post, Matt" in run["citation"]
    assert "chrF++" in run["description"]
    for name in ("char_order", "word_order", "beta", "lowercase", "whitespace", "eps_smoothing"):
        assert name in run["inputs"]
    assert len(run["features"]) == 2


@pytest.mark.parametrize("k", range(len(OPTIONS)))
def test_same_keys_and_numbers_as_the_hub_metric(run, k):
    assert run["results"][k] == _hub(HYPS, REFS, **OPTIONS[k])


def test_string_references_and_batches(run):
    strings, batched = run["results"][len(OPTIONS) : len(OPTIONS) + 2]
    assert strings == _hub(HYPS, [r[0] for r in REFS])
    assert batched == _hub(HYPS, REFS, word_order=2)


def test_different_numbers_of_references_are_scored_as_sacrebleu_does(run):
    """The Hub metric refuses them; here a missing reference is sacreBLEU's None."""
    got = run["results"][len(OPTIONS) + 2]
    streams = [[REFS[0][0], REFS[1][0]], [REFS[0][1], None]]
    assert got["score"] == CHRF().corpus_score(HYPS[:2], streams).score


def test_bad_input_and_options_are_named(run):
    empty, mismatch, bad_order, unknown, after = run["results"][len(OPTIONS) + 3 :]
    assert empty == {
        "error": "ValueError",
        "message": "empty corpus: hypotheses is empty, at least one sentence is needed",
    }
    assert mismatch["error"] == "ValueError" and "5 hypotheses but 2 reference entries" in mismatch["message"]
    assert bad_order == {"error": "ValueError", "message": "char_order must be between 1 and 1000, got 0"}
    assert unknown["error"] == "TypeError" and "unknown CHRF option(s): order" in unknown["message"]
    assert after == _hub(HYPS[:1], REFS[:1])


def test_module_file_ships_with_the_package():
    path = metric_path("chrf")
    assert os.path.isfile(path) and path.endswith("chrf.py")
