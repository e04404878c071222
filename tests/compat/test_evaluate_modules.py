"""The shipped evaluate module files, loaded with evaluate.load(path) offline in a fresh interpreter."""

import json
import os
import subprocess
import sys

import pytest

from bleukit import metric_path
from bleukit.compat import gleu, hf_evaluate

pytest.importorskip("evaluate")

# On one xdist worker: one evaluate run (`loaded`) serves the module's tests (on two, each
# worker would make its own).
pytestmark = pytest.mark.xdist_group("evaluate-modules")

SCRIPT = r"""
import json, sys
import evaluate
out = {}
for name, path in json.loads(sys.argv[1]).items():
    metric = evaluate.load(path)
    cases = out[name] = []
    for kwargs in json.loads(sys.stdin.readline()):
        try:
            cases.append(metric.compute(**kwargs))
        except Exception as err:
            cases.append({"error": type(err).__name__, "message": str(err)})
print(json.dumps(out))
"""

HYPS = ["The cat sat on the mat.", "It is raining today.", "Yes."]
REFS = [
    ["The cat sat on the mat.", "A cat sat on the mat."],
    ["It rains today.", "It is raining today!"],
    ["No.", "Yes!"],
]
BLEU_CASES = [
    {"predictions": HYPS, "references": REFS},
    {"predictions": HYPS, "references": [r[0] for r in REFS], "smooth": True},
    {"predictions": HYPS, "references": REFS, "max_order": 2},
    {"predictions": [], "references": []},
]
GLEU_CASES = [
    {"predictions": HYPS, "references": REFS},
    {"predictions": HYPS, "references": [r[0] for r in REFS], "min_len": 2, "max_len": 3},
]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    paths = {"bleu": metric_path("bleu"), "google_bleu": metric_path("google_bleu")}
    env = dict(
        os.environ,
        HF_HUB_OFFLINE="1",
        HF_EVALUATE_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_HOME=str(tmp_path_factory.mktemp("hf")),
        PYTHONPATH=os.pathsep.join(sys.path),
    )
    stdin = json.dumps(BLEU_CASES) + "\n" + json.dumps(GLEU_CASES) + "\n"
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(paths)],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=str(tmp_path_factory.mktemp("cwd")),
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_bleu_module_matches_hf_evaluate_bleu(loaded):
    got = loaded["bleu"]
    for case, result in zip(BLEU_CASES[:3], got[:3]):
        kwargs = {k: v for k, v in case.items() if k not in ("predictions", "references")}
        assert result == hf_evaluate.bleu(case["predictions"], case["references"], **kwargs)
    assert set(got[0]) == {
        "bleu",
        "precisions",
        "brevity_penalty",
        "length_ratio",
        "translation_length",
        "reference_length",
    }


def test_bleu_module_empty_input_is_a_clear_error(loaded):
    err = loaded["bleu"][3]
    assert err["error"] == "ValueError" and "empty" in err["message"]


def test_google_bleu_module(loaded):
    for case, result in zip(GLEU_CASES, loaded["google_bleu"]):
        kwargs = {k: v for k, v in case.items() if k not in ("predictions", "references")}
        assert result == gleu.google_bleu(case["predictions"], case["references"], **kwargs)


def test_module_files_ship_with_the_package():
    for name in ("bleu", "google_bleu"):
        path = metric_path(name)
        assert os.path.isfile(path) and path.endswith(f"{name}.py")
    with pytest.raises(ValueError, match="choose one of"):
        metric_path("rouge")
