"""The runnable recipes in integrations/ (at the repository root): each one with ``--smoke`` runs
offline on a tiny local model and data, and checks its own scores against sacreBLEU's (it exits
non-zero when they differ); without its optional libraries, ``--help`` works and a run names the
extras to install."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from shared_data import REPO

RUNNER = Path(__file__).with_name("recipe_runner.py")
RECIPES = sorted(
    p for p in (REPO / "integrations").glob("*.py") if 'add_argument("--smoke"' in p.read_text(encoding="utf-8")
)

# What the recipes import beyond bleukit and its dependencies (sacreBLEU too: its check is skipped
# without it). The tests below make all of them unimportable at once.
OPTIONAL = ["torch", "transformers", "tokenizers", "datasets", "accelerate", "trl", "evaluate", "huggingface_hub",
            "lightning", "torchmetrics", "ray", "lighteval", "yaml", "sacrebleu"]


def needs_training_stack():
    for name in ("torch", "transformers", "sacrebleu"):
        pytest.importorskip(name)


def run_without_optional(recipe, *args, cwd):
    # sys.modules[name] = None makes `import name` raise ModuleNotFoundError (and find_spec return
    # None), as if the library were not installed; the recipe then runs as its own __main__
    blocker = (
        f"import runpy, sys\nfor name in {OPTIONAL!r}: sys.modules[name] = None\n"
        f"sys.argv = [{str(recipe)!r}, *{list(args)!r}]\n"
        f"sys.path.insert(0, {str(recipe.parent)!r})\n"
        f"runpy.run_path({str(recipe)!r}, run_name='__main__')\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return subprocess.run([sys.executable, "-c", blocker], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


def test_recipes_are_found_and_named_after_no_library():
    # a recipe called transformers.py would shadow the real package for every other recipe: no file
    # there may share its name with a module importable from anywhere else
    from importlib.machinery import PathFinder

    here = (REPO / "integrations").resolve()
    elsewhere = [p for p in sys.path if p and Path(p).resolve() != here]
    assert len(RECIPES) >= 2
    for recipe in here.glob("*.py"):
        assert recipe.stem not in sys.builtin_module_names, recipe.name
        assert PathFinder.find_spec(recipe.stem, elsewhere) is None, recipe.name


def _needs_lighteval(recipe):
    return "from lighteval" in recipe.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def smoke_runs(request, tmp_path_factory):
    """The ``--smoke`` runs of the recipes selected in this session, in one interpreter
    (recipe_runner.py: each recipe its own ``__main__`` and working folder; they share the imports,
    which took most of each run in a fresh process), by recipe path."""
    needs_training_stack()
    selected = [item.callspec.params["recipe"] for item in request.session.items
                if getattr(item, "originalname", "") == "test_recipe_smoke_run_equals_sacrebleu"]
    recipes = [r for r in selected if not _needs_lighteval(r) or importlib.util.find_spec("lighteval")]
    results = tmp_path_factory.mktemp("recipes") / "runs.json"
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    out = subprocess.run(
        [sys.executable, str(RUNNER), str(results), *map(str, recipes)],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return json.loads(results.read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.xdist_group("recipes")  # one worker runs them all, in one interpreter (smoke_runs)
@pytest.mark.parametrize("recipe", RECIPES, ids=[p.stem for p in RECIPES])
def test_recipe_smoke_run_equals_sacrebleu(recipe, smoke_runs):
    if _needs_lighteval(recipe):
        # lighteval pins nltk 3.9.1: its recipe runs in its own venv (make test-lighteval)
        pytest.importorskip("lighteval", reason="needs lighteval in its own venv: make test-lighteval")
    run = smoke_runs[str(recipe)]
    assert run["returncode"] == 0, run["stdout"][-3000:] + run["stderr"][-3000:]
    assert "equal to sacreBLEU's" in run["stdout"]


@pytest.mark.parametrize("name", ["tiny_seq2seq", "tiny_causal_lm"])
def test_tiny_model_builders_doctests(name):
    # integrations/ is not a test path (its recipes import optional libraries): the shared
    # builders' examples run here
    needs_training_stack()
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("recipe", RECIPES, ids=[p.stem for p in RECIPES])
def test_recipe_help_and_missing_extra_without_optional_libraries(recipe, tmp_path):
    # `lightning_seq2seq.py --help` ended in ModuleNotFoundError: No module named 'lightning'
    out = run_without_optional(recipe, "--help", cwd=tmp_path)
    assert out.returncode == 0 and out.stdout.startswith("usage: "), out.stderr[-3000:]
    assert "--smoke" in out.stdout
    # a run says what to install (an extra of pyproject.toml, or the one package), not a traceback
    out = run_without_optional(recipe, "--smoke", cwd=tmp_path)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr[-3000:]
    assert re.fullmatch(
        rf"{recipe.name} needs [a-z_, ]+, which is not installed: "
        r"pip install ('\.\[[a-z,-]+\]' \(from the repository's root\)|[a-z]+)\n",
        out.stderr,
    ), out.stderr[-3000:]


def test_recipe_extras_doctests():
    import doctest

    import recipe_extras

    result = doctest.testmod(recipe_extras)
    assert result.attempted > 0 and result.failed == 0
