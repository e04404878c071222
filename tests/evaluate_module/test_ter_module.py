"""The drop-in for evaluate.load("ter"): loaded with evaluate.load(bleukit.metric_path("ter")) offline
in a fresh interpreter, it takes the Hub metric's arguments (its own names for sacreBLEU's no_punct
and asian_support) and returns its result keys, with the numbers the Hub metric gets from
sacreBLEU's TER (computed live here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from sacrebleu.metrics import TER

from bleukit import metric_path

pytest.importorskip("evaluate")

# On one xdist worker: one evaluate run (`run`) serves the module's tests (on two, each
# worker would make its own).
pytestmark = pytest.mark.xdist_group("ter-module")

SCRIPT = r"""
import json, sys
import evaluate
import bleukit
metric = evaluate.load(bleukit.metric_path("ter"))
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
    if "num_edits" in out["results"][-1]:
        out["results"][-1]["types"] = [type(v).__name__ for v in out["results"][-1].values()]
print(json.dumps(out))
"""

# The Hub metric card's example, and what TER's options act on.
HYPS = [
    "does this sentence match??",
    "what about this sentence?",
    "What did the TER metric user say to the developer?",
    "The cat sat on the mat.",
    "",
    "我们 今天 去 北京。 東京は日本の首都です、ね！",
    "a &amp; b &lt;c&gt; e-mail's (quoted) \"text\"",
]
REFS = [
    ["does this sentence match", "does this sentence match!?!"],
    ["wHaT aBoUt ThIs SeNtEnCe?", "wHaT aBoUt ThIs SeNtEnCe?"],
    ["Your jokes are...", "...TERrible"],
    ["on the mat the cat sat.", "The cat is on the mat"],
    ["", "nothing"],
    ["我们 今天 去 北京 日本の首都は東京です。", "北京"],
    ["a & b <c> email's quoted text", "a &amp; b (c) e-mail 's text"],
]
OPTIONS = [
    {},
    {"case_sensitive": True},
    {"normalized": True},
    {"ignore_punct": True},
    {"ignore_punct": True, "support_zh_ja_chars": True},
    {"normalized": True, "support_zh_ja_chars": True, "case_sensitive": True},
    {"normalized": True, "ignore_punct": True, "support_zh_ja_chars": True, "case_sensitive": True},
]
CASES = (
    [{"p": HYPS, "r": REFS, "kwargs": kw} for kw in OPTIONS]
    + [
        {"p": HYPS, "r": [r[0] for r in REFS]},  # one reference each, as strings
        {"batches": [[HYPS[:2], REFS[:2]], [HYPS[2:], REFS[2:]]], "kwargs": {"ignore_punct": True}},
        {"p": HYPS[:2], "r": [REFS[0], REFS[1][:1]]},  # different numbers of references
        {"p": [], "r": []},
        {"p": HYPS, "r": REFS[:2]},
        {"p": HYPS, "r": REFS, "kwargs": {"normalized": 1}},
        {"p": HYPS, "r": REFS, "kwargs": {"no_punct": True}},  # sacreBLEU's name, not the Hub's
        {"p": HYPS[:1], "r": REFS[:1]},  # after the failures: only this input is scored
    ]
)


def _hub(predictions, references, normalized=False, ignore_punct=False, support_zh_ja_chars=False,
         case_sensitive=False):
    """What the Hub metric computes: sacreBLEU's TER on the transposed references."""
    refs = [[r] if isinstance(r, str) else r for r in references]
    streams = [[r[k] for r in refs] for k in range(len(refs[0]))]
    ter = TER(normalized=normalized, no_punct=ignore_punct, asian_support=support_zh_ja_chars,
              case_sensitive=case_sensitive)
    out = ter.corpus_score(predictions, streams)
    return {"score": out.score, "num_edits": out.num_edits, "ref_length": out.ref_length}


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


def _without_types(result):
    return {k: v for k, v in result.items() if k != "types"}


def test_is_an_evaluate_metric_with_the_hub_card(run):
    assert "evaluate.module.Metric" in run["class"] and "bleukit.evaluate_module.base.TextMetric" in run["class"]
    assert "Snover" in run["citation"] and "Post, Matt" in run["citation"]
    assert "TER" in run["description"]
    for name in ("normalized", "ignore_punct", "support_zh_ja_chars", "case_sensitive"):
        assert name in run["inputs"]
    assert len(run["features"]) == 2


@pytest.mark.parametrize("k", range(len(OPTIONS)))
def test_same_keys_and_numbers_as_the_hub_metric(run, k):
    got = run["results"][k]
    assert _without_types(got) == _hub(HYPS, REFS, **OPTIONS[k])
    assert got["types"] == ["float", "int", "float"]


def test_the_options_change_the_numbers(run):
    """Each case above scores differently, so a dropped option could not pass unnoticed."""
    assert len({json.dumps(_without_types(r)) for r in run["results"][: len(OPTIONS)]}) == len(OPTIONS)


def test_string_references_and_batches(run):
    strings, batched = run["results"][len(OPTIONS) : len(OPTIONS) + 2]
    assert _without_types(strings) == _hub(HYPS, [r[0] for r in REFS])
    assert _without_types(batched) == _hub(HYPS, REFS, ignore_punct=True)


def test_different_numbers_of_references_are_scored_as_sacrebleu_does(run):
    """The Hub metric refuses them; here a missing reference is sacreBLEU's None."""
    got = run["results"][len(OPTIONS) + 2]
    streams = [[REFS[0][0], REFS[1][0]], [REFS[0][1], None]]
    theirs = TER().corpus_score(HYPS[:2], streams)
    assert (got["score"], got["num_edits"], got["ref_length"]) == (theirs.score, theirs.num_edits, theirs.ref_length)


def test_bad_input_and_options_are_named(run):
    empty, mismatch, not_bool, sacrebleu_name, after = run["results"][len(OPTIONS) + 3 :]
    assert empty == {
        "error": "ValueError",
        "message": "empty corpus: hypotheses is empty, at least one sentence is needed",
    }
    assert mismatch["error"] == "ValueError" and "7 hypotheses but 2 reference entries" in mismatch["message"]
    assert not_bool == {
        "error": "TypeError",
        "message": "TER option normalized must be a bool (True or False), got int",
    }
    assert sacrebleu_name["error"] == "TypeError"
    assert sacrebleu_name["message"] == (
        "unknown TER option(s): no_punct; known: normalized, ignore_punct, support_zh_ja_chars, case_sensitive"
    )
    assert _without_types(after) == _hub(HYPS[:1], REFS[:1])


def test_module_file_ships_with_the_package():
    path = metric_path("ter")
    assert os.path.isfile(path) and path.endswith("ter.py")
