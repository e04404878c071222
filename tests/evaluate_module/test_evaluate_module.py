"""The evaluate metric loaded with evaluate.load, offline, in a fresh interpreter, by each of its
load paths: the repository's bleu_metric.py, the module installed with the package
(bleukit.metric_path()) and a Hub metric repository laid out as the Hub serves it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from shared_data import REPO

import bleukit

# On one xdist worker: each load path's evaluate run (`offline_run`) serves the module's tests (on two, each
# worker would make its own).
pytestmark = pytest.mark.xdist_group("evaluate-module")

METRIC = str(REPO / "bleu_metric.py")

SCRIPT = r"""
import json, sys
import evaluate
import bleukit
import bleukit.bleu
cases = json.loads(sys.stdin.read())
real_corpus_bleu = bleukit.bleu.corpus_bleu
def fail_once(*args, **kwargs):
    bleukit.bleu.corpus_bleu = real_corpus_bleu
    raise RuntimeError("scoring failed")
def run(target):
    metric = evaluate.load(bleukit.metric_path() if target == "PACKAGE" else target)
    out = {"class": [c.__module__ + "." + c.__name__ for c in type(metric).__mro__],
             "citation": metric.citation, "description": metric.description,
             "inputs": metric.inputs_description, "features": [str(f) for f in metric.info.features], "results": []}
    for case in cases:
        try:
            if case.get("fail_inside"):
                bleukit.bleu.corpus_bleu = fail_once  # a failure after evaluate has stored the input
            if case.get("batches"):
                for p, r in case["batches"]:
                    metric.add_batch(predictions=p, references=r)
                if case.get("single"):
                    metric.add(prediction=case["single"][0], reference=case["single"][1])
                out["results"].append(metric.compute(**case.get("kwargs", {})))
            elif case.get("generators"):
                out["results"].append(metric.compute(predictions=(p for p in case["p"]), references=iter(case["r"])))
            else:
                out["results"].append(metric.compute(predictions=case["p"], references=case["r"],
                                                     **case.get("kwargs", {})))
        except Exception as err:
            out["results"].append({"error": type(err).__name__, "message": str(err)})
    return out
print(json.dumps({target: run(target) for target in sys.argv[1:]}))
"""

HYPS = ["The cat sat on the mat.", "It is raining today.", "Yes."]
REFS = [["The cat sat on the mat.", "A cat sat on the mat."], ["It rains today.", None], ["No.", "Yes!"]]


def _hub_clone(tmp_path_factory) -> str:
    """A local clone of the Hub metric repo user/bleukit: exactly the files the Hub would serve."""
    from bleukit.evaluate_module.hub import write_metric_repo

    return str(write_metric_repo(tmp_path_factory.mktemp("clone") / "bleukit", repo_id="user/bleukit"))


LOAD_PATHS = {"repository": lambda f: METRIC, "package": lambda f: "PACKAGE", "hub-clone": _hub_clone}


@pytest.fixture(scope="module")
def offline_runs(tmp_path_factory):
    """Each load path's module run on the cases below, in one offline interpreter (one import of
    evaluate, some 8 s, for the three): load path -> the module's card and results."""
    targets = {name: where(tmp_path_factory) for name, where in LOAD_PATHS.items()}
    cases = [
        {"p": HYPS, "r": REFS},
        {
            "p": HYPS,
            "r": [r[0] for r in REFS],
            "kwargs": {"tokenize": "intl", "lowercase": True, "smooth_method": "floor", "smooth_value": 0.2},
        },
        {"p": HYPS, "r": REFS, "kwargs": {"max_ngram_order": 2, "weights": [0.7, 0.3], "effective_order": True}},
        {"batches": [[HYPS[:2], REFS[:2]], [HYPS[2:], REFS[2:]]]},
        {"p": [], "r": []},
        {"p": HYPS, "r": REFS[:2]},
        {"p": "a string", "r": ["a string"]},
        {"p": HYPS, "r": REFS, "kwargs": {"tokenize": "moses"}},
        {"p": HYPS, "r": REFS, "kwargs": {"smoothing": "exp"}},
        # 9: generators are read once; 10: string and list references mixed across batches and add()
        {"p": HYPS, "r": REFS, "generators": True},
        {"batches": [[HYPS[:1], [REFS[0][0]]], [HYPS[1:2], [REFS[1]]]], "single": [HYPS[2], REFS[2][1]]},
        # 11-12: a compute failing on its options, after a batch was added, then a clean compute
        {"batches": [[HYPS[:1], REFS[:1]]], "kwargs": {"weights": [1, 2]}},
        {"p": HYPS[1:], "r": REFS[1:]},
        # 13-14: a compute failing inside the scoring (evaluate already holds the batches), then a clean one
        {"batches": [[HYPS[:1], REFS[:1]]], "fail_inside": True},
        {"p": HYPS[1:], "r": REFS[1:]},
        # 15: weights and max order through BleuOptions
        {"p": HYPS, "r": REFS, "kwargs": {"weights": {1: 1.0, 2: 1.0}, "max_ngram_order": 2}},
        # 16-17: the bootstrap confidence interval, and a bad resample count
        {"p": HYPS, "r": REFS, "kwargs": {"n_bootstrap": 50, "seed": 3}},
        {"p": HYPS, "r": REFS, "kwargs": {"n_bootstrap": 0}},
    ]
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_HOME=str(tmp_path_factory.mktemp("hf")))
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, *targets.values()],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        env=env,
        cwd=str(tmp_path_factory.mktemp("cwd")),
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    outs = json.loads(proc.stdout.strip().splitlines()[-1])
    return {name: outs[target] for name, target in targets.items()}


@pytest.fixture(params=list(LOAD_PATHS))
def offline_run(request, offline_runs):
    return offline_runs[request.param]


def test_is_an_evaluate_metric_with_card(offline_run):
    assert "evaluate.module.Metric" in offline_run["class"]
    assert "Papineni" in offline_run["citation"] and "Post, Matt" in offline_run["citation"]
    assert "sacreBLEU" in offline_run["description"]
    assert ">>> results = bleu.compute" in offline_run["inputs"]
    assert len(offline_run["features"]) == 2


def _expected(hyps, refs, **kw):
    r = bleukit.corpus_bleu(hyps, refs, **kw)
    return {
        "score": r.score,
        "counts": r.counts,
        "totals": r.totals,
        "precisions": r.precisions,
        "bp": r.bp,
        "sys_len": r.sys_len,
        "ref_len": r.ref_len,
        "signature": r.signature,
    }


def test_same_numbers_as_the_core(offline_run):
    res = offline_run["results"]
    assert res[0] == _expected(HYPS, REFS)
    assert res[0]["signature"].startswith("nrefs:var|")
    assert res[1] == _expected(
        HYPS, [r[0] for r in REFS], tokenize="intl", lowercase=True, smooth_method="floor", smooth_value=0.2
    )
    assert res[2] == _expected(HYPS, REFS, max_ngram_order=2, weights=[0.7, 0.3], effective_order=True)
    assert res[3] == _expected(HYPS, REFS)


def test_bad_input_gets_the_core_messages(offline_run):
    empty, mismatch, one_string, bad_tok, bad_kw = offline_run["results"][4:9]
    assert empty == {
        "error": "ValueError",
        "message": "empty corpus: hypotheses is empty, at least one sentence is needed",
    }
    assert mismatch["error"] == "ValueError" and "3 hypotheses but 2 reference entries" in mismatch["message"]
    assert one_string["error"] == "TypeError" and "single str" in one_string["message"]
    assert bad_tok["error"] == "ValueError" and "unknown tokenize='moses'" in bad_tok["message"]
    assert bad_kw["error"] == "TypeError" and "unknown BLEU option(s): smoothing" in bad_kw["message"]


def test_generators_are_read_once(offline_run):
    assert offline_run["results"][9] == _expected(HYPS, REFS)


def test_string_and_list_references_mix_across_batches(offline_run):
    mixed = offline_run["results"][10]
    assert "error" not in mixed, mixed
    assert mixed == _expected(HYPS, [REFS[0][0], REFS[1], REFS[2][1]])


def test_a_failed_compute_does_not_poison_the_next(offline_run):
    bad_options, after_bad_options, failed_inside, after_failure = offline_run["results"][11:15]
    assert bad_options["error"] == "ValueError" and "weights has 2 values" in bad_options["message"]
    assert failed_inside == {"error": "RuntimeError", "message": "scoring failed"}
    # Only the next call's own input is scored: nothing of the failed calls' batches is left.
    assert after_bad_options == _expected(HYPS[1:], REFS[1:])
    assert after_failure == _expected(HYPS[1:], REFS[1:])


def test_options_go_through_bleu_options(offline_run):
    assert offline_run["results"][15]["error"] == "TypeError"
    assert "weights must be a sequence" in offline_run["results"][15]["message"]


def test_repository_file_is_the_published_module():
    from bleukit.evaluate_module.hub import MODULE_SOURCE

    assert Path(METRIC).read_text(encoding="utf-8") == MODULE_SOURCE


def _front_matter(text: str) -> dict:
    import yaml

    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n", 2)[1])


def test_hub_metric_repo_files(tmp_path):
    from bleukit.evaluate_module.hub import GRADIO_SDK_VERSION, write_metric_repo

    out = write_metric_repo(tmp_path / "bleukit", repo_id="me/bleukit")
    card = (out / "README.md").read_text(encoding="utf-8")
    meta = _front_matter(card)
    assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py" and {"evaluate", "metric"} <= set(meta["tags"])
    assert 'evaluate.load("me/bleukit")' in card and "Papineni" in card
    # The app's Space (make space) takes its front matter from space.yml: both name the same Gradio.
    import yaml

    space = yaml.safe_load((REPO / "space.yml").read_text(encoding="utf-8"))
    assert space["sdk_version"] == meta["sdk_version"] == GRADIO_SDK_VERSION
    assert space["app_file"] == "app.py" and (REPO / space["app_file"]).exists()
    requirements = (out / "requirements.txt").read_text(encoding="utf-8").splitlines()
    # Not on PyPI yet: the Space installs the wheel it carries, by its URL in the Space itself.
    wheel = f"wheels/bleukit-{bleukit.__version__}-py3-none-any.whl"
    assert requirements[0] == f"bleukit @ https://huggingface.co/spaces/me/bleukit/resolve/main/{wheel}"
    assert (out / wheel).is_file() and "evaluate>=0.4" in requirements
    assert "pure-Python wheel in its own `wheels/` folder" in card and requirements[0] in card
    with pytest.raises(ValueError, match="reads other.py"):
        write_metric_repo(tmp_path / "x", name="bleukit", repo_id="me/other")


@pytest.mark.slow
def test_hub_metric_repo_widget_runs_from_its_own_folder(tmp_path):
    """The metric Space's app.py, run where the Space runs it (its folder first on sys.path, next
    to a bleukit.py that would shadow the package), scores through the installed package."""
    from bleukit.evaluate_module.hub import write_metric_repo

    out = write_metric_repo(tmp_path / "bleukit")
    code = (
        "import json, runpy\n"
        "ns = runpy.run_path('app.py')\n"
        "print(json.dumps(ns['score']('a b c d\\nx y', 'a b c d\\nx z')))\n"
    )
    env = dict(
        os.environ,
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_HOME=str(tmp_path / "hf"),
        GRADIO_ANALYTICS_ENABLED="False",
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=out, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["score"] == bleukit.corpus_bleu(["a b c d", "x y"], ["a b c d", "x z"]).score


def test_bootstrap_confidence_interval(offline_run):
    boot, bad = offline_run["results"][16:18]
    r = bleukit.corpus_bleu(HYPS, REFS, n_bootstrap=50, seed=3)
    assert boot == dict(_expected(HYPS, REFS, n_bootstrap=50, seed=3), mean=r.mean, ci=r.ci)
    assert "|bs:50|seed:3|" in boot["signature"]
    assert bad["error"] == "ValueError" and "n_bootstrap must be >= 1" in bad["message"]


def test_hub_metric_repo_requirement_before_a_release(tmp_path):
    # Until bleukit is on PyPI the Space must install it from somewhere else: a direct-URL requirement,
    # written as the first line of requirements.txt (a valid pip requirement) and shown in the card.
    from packaging.requirements import Requirement

    from bleukit.evaluate_module.__main__ import main

    url = "bleukit @ git+https://example.org/someone/bleukit@v0.1.0"
    assert main([str(tmp_path / "repo"), "--repo-id", "me/bleukit", "--requirement", url]) == 0
    lines = (tmp_path / "repo" / "requirements.txt").read_text(encoding="utf-8").splitlines()
    parsed = Requirement(lines[0])
    assert (parsed.name, parsed.url) == ("bleukit", "git+https://example.org/someone/bleukit@v0.1.0")
    assert f"pip install '{url}' evaluate" in (tmp_path / "repo" / "README.md").read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="one pip requirement line for bleukit"):
        main([str(tmp_path / "bad"), "--requirement", "evaluate>=0.4"])


@pytest.mark.slow
def test_hub_metric_repo_wheel_installs_and_scores_as_sacrebleu(tmp_path):
    """The wheel a Hub metric repo carries installs with pip alone (no compiler, no PyPI release) and,
    on its own on the path, serves the metric with sacreBLEU's numbers through the Python engine."""
    import zipfile

    from packaging.requirements import Requirement

    from bleukit.evaluate_module.hub import write_metric_repo, write_pure_wheel

    out = write_metric_repo(tmp_path / "bleukit", repo_id="me/bleukit")
    url = Requirement((out / "requirements.txt").read_text(encoding="utf-8").splitlines()[0]).url
    wheel = out / "wheels" / url.rsplit("/", 1)[1]
    assert wheel.read_bytes() == write_pure_wheel(tmp_path / "again").read_bytes()  # deterministic
    names = zipfile.ZipFile(wheel).namelist()
    assert "bleukit/evaluate_module/modules/chrf.py" in names and "bleukit/schemas/cli-score.schema.json" in names
    target = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(target)]
    proc = subprocess.run([*pip, str(wheel)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    code = (
        "import json, sys, warnings\n"
        "warnings.simplefilter('error')\n"
        "import bleukit, bleukit._native as n, evaluate\n"
        "m = evaluate.load(sys.argv[1])\n"
        "r = m.compute(predictions=json.loads(sys.argv[2]), references=json.loads(sys.argv[3]))\n"
        "print(json.dumps([bleukit.__file__, n.kernel('bleukit.metrics.bleu._kernel') is None, r['score']]))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(target), HF_HUB_OFFLINE="1", HF_HOME=str(tmp_path / "hf"))
    env.pop("BLEUKIT_ENGINE", None)
    hyps, refs = ["The cat sat on the mat.", "It is raining today."], ["A cat sat on the mat.", "It rains today."]
    proc = subprocess.run(
        [sys.executable, "-c", code, str(out), json.dumps(hyps), json.dumps(refs)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    where, pure, score = json.loads(proc.stdout.strip().splitlines()[-1])
    assert where.startswith(str(target)) and pure
    sacrebleu = pytest.importorskip("sacrebleu")
    assert score == sacrebleu.corpus_bleu(hyps, [refs]).score


@pytest.mark.parametrize("path", ["bleu", "compat bleu", "compat google_bleu"])
def test_a_lone_surrogate_is_named_by_its_item(path):
    # Arrow cannot store a lone surrogate: evaluate failed with a UnicodeEncodeError naming no item.
    evaluate = pytest.importorskip("evaluate")

    metric = evaluate.load(bleukit.metric_path() if path == "bleu" else bleukit.metric_path(path.split()[1]))
    with pytest.raises(ValueError, match=r"predictions\[1\] is not valid Unicode text.*'\\ud800' at character 4"):
        metric.compute(predictions=["ok", "bad \ud800"], references=["a", "b"])
    with pytest.raises(ValueError, match=r"references\[1\]\[1\] is not valid Unicode text.*'\\udcff' at character 1"):
        metric.add_batch(predictions=["ok", "x"], references=[["a"], ["b", "c\udcff"]])
    good = metric.compute(predictions=HYPS, references=[[r for r in refs if r] for refs in REFS])
    if path == "bleu":
        assert good == _expected(HYPS, REFS)


def _load_error_without_bleukit(target: str, monkeypatch) -> str:
    import evaluate

    monkeypatch.setitem(sys.modules, "bleukit", None)  # import bleukit raises ImportError, as when not installed
    with pytest.raises(ImportError) as err:
        evaluate.load(target)
    return str(err.value)


def test_without_bleukit_evaluate_names_an_install_that_works(tmp_path, monkeypatch):
    # evaluate turns the module's failed `import bleukit` into "pip install <what follows # From:>";
    # it said `pip install bleukit`, which fails while bleukit is not on PyPI
    import shlex

    message = _load_error_without_bleukit(METRIC, monkeypatch)
    assert "the following dependencies['bleukit']" in message  # the module evaluate checks is still bleukit
    command = message.split("using 'pip install ", 1)[1].rsplit("' for instance", 1)[0]
    assert shlex.split(command)[0] == "." and "clone" in command, message
    # the Space's module names the requirement its requirements.txt installs (the wheel it carries)
    from bleukit.evaluate_module.hub import write_metric_repo

    monkeypatch.undo()
    space = write_metric_repo(tmp_path / "bleukit", repo_id="me/bleukit")
    requirement = (space / "requirements.txt").read_text(encoding="utf-8").splitlines()[0]
    assert requirement.startswith("bleukit @ https://huggingface.co/spaces/me/bleukit/resolve/main/wheels/")
    message = _load_error_without_bleukit(str(space), monkeypatch)
    command = message.split("using 'pip install ", 1)[1].rsplit("' for instance", 1)[0]
    assert shlex.split(command) == [requirement], message
