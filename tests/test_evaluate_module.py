"""bleu_metric.py loaded with evaluate.load on a path, offline, in a fresh interpreter."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bleukit

REPO = Path(__file__).resolve().parents[1]
METRIC = str(REPO / "bleu_metric.py")

SCRIPT = r"""
import json, sys
import evaluate
metric = evaluate.load(sys.argv[1])
cases = json.loads(sys.stdin.read())
out = {"class": type(metric).__mro__[1].__module__ + "." + type(metric).__mro__[1].__name__,
       "citation": metric.citation, "description": metric.description,
       "inputs": metric.inputs_description, "features": [str(f) for f in metric.info.features], "results": []}
for case in cases:
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

HYPS = ["The cat sat on the mat.", "It is raining today.", "Yes."]
REFS = [["The cat sat on the mat.", "A cat sat on the mat."], ["It rains today.", None], ["No.", "Yes!"]]


@pytest.fixture(scope="module")
def offline_run(tmp_path_factory):
    cases = [
        {"p": HYPS, "r": REFS},
        {"p": HYPS, "r": [r[0] for r in REFS], "kwargs": {"tokenize": "intl", "lowercase": True, "smooth_method": "floor", "smooth_value": 0.2}},
        {"p": HYPS, "r": REFS, "kwargs": {"max_ngram_order": 2, "weights": [0.7, 0.3], "effective_order": True}},
        {"batches": [[HYPS[:2], REFS[:2]], [HYPS[2:], REFS[2:]]]},
        {"p": [], "r": []},
        {"p": HYPS, "r": REFS[:2]},
        {"p": "a string", "r": ["a string"]},
        {"p": HYPS, "r": REFS, "kwargs": {"tokenize": "moses"}},
        {"p": HYPS, "r": REFS, "kwargs": {"smoothing": "exp"}},
        {"p": HYPS, "r": REFS, "kwargs": {"n_bootstrap": 50, "seed": 3}},
        {"p": HYPS, "r": REFS, "kwargs": {"n_bootstrap": 0}},
    ]
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_HOME=str(tmp_path_factory.mktemp("hf")))
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, METRIC], input=json.dumps(cases), capture_output=True, text=True,
        env=env, cwd=str(tmp_path_factory.mktemp("cwd")), timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_is_an_evaluate_metric_with_card(offline_run):
    assert offline_run["class"] == "evaluate.module.Metric"
    assert "Papineni" in offline_run["citation"] and "Post, Matt" in offline_run["citation"]
    assert "sacreBLEU" in offline_run["description"]
    assert ">>> results = bleu.compute" in offline_run["inputs"]
    assert len(offline_run["features"]) == 2


def _expected(hyps, refs, **kw):
    r = bleukit.corpus_bleu(hyps, refs, **kw)
    return {"score": r.score, "counts": r.counts, "totals": r.totals, "precisions": r.precisions, "bp": r.bp,
            "sys_len": r.sys_len, "ref_len": r.ref_len, "signature": r.signature}


def test_same_numbers_as_the_core(offline_run):
    res = offline_run["results"]
    assert res[0] == _expected(HYPS, REFS)
    assert res[0]["signature"].startswith("nrefs:var|")
    assert res[1] == _expected(HYPS, [r[0] for r in REFS], tokenize="intl", lowercase=True, smooth_method="floor", smooth_value=0.2)
    assert res[2] == _expected(HYPS, REFS, max_ngram_order=2, weights=[0.7, 0.3], effective_order=True)
    assert res[3] == _expected(HYPS, REFS)


def test_bad_input_gets_the_core_messages(offline_run):
    empty, mismatch, one_string, bad_tok, bad_kw = offline_run["results"][4:9]
    assert empty == {"error": "ValueError", "message": "empty corpus: hypotheses is empty, BLEU needs at least one hypothesis"}
    assert mismatch["error"] == "ValueError" and "3 hypotheses but 2 reference entries" in mismatch["message"]
    assert one_string["error"] == "TypeError" and "single str" in one_string["message"]
    assert bad_tok["error"] == "ValueError" and "unknown tokenize='moses'" in bad_tok["message"]
    assert bad_kw["error"] == "TypeError" and "unknown BLEU option(s): smoothing" in bad_kw["message"]


def test_bootstrap_confidence_interval(offline_run):
    boot, bad = offline_run["results"][9:11]
    r = bleukit.corpus_bleu(HYPS, REFS, n_bootstrap=50, seed=3)
    assert boot == dict(_expected(HYPS, REFS, n_bootstrap=50, seed=3), mean=r.mean, ci=r.ci)
    assert "|bs:50|seed:3|" in boot["signature"]
    assert bad["error"] == "ValueError" and "n_bootstrap must be >= 1" in bad["message"]
