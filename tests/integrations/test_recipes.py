"""The runnable recipes in integrations/ (at the repository root): each one with ``--smoke`` runs
offline on a tiny local model and data, and checks its own scores against sacreBLEU's (it exits
non-zero when they differ)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from shared_data import REPO

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("sacrebleu")

RECIPES = sorted(
    p for p in (REPO / "integrations").glob("*.py") if 'add_argument("--smoke"' in p.read_text(encoding="utf-8")
)


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


@pytest.mark.slow
@pytest.mark.parametrize("recipe", RECIPES, ids=[p.stem for p in RECIPES])
def test_recipe_smoke_run_equals_sacrebleu(recipe, tmp_path):
    if "from lighteval" in recipe.read_text(encoding="utf-8"):
        # lighteval pins nltk 3.9.1: its recipe runs in its own venv (make test-lighteval)
        pytest.importorskip("lighteval", reason="needs lighteval in its own venv: make test-lighteval")
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    out = subprocess.run(
        [sys.executable, str(recipe), "--smoke"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "equal to sacreBLEU's" in out.stdout


@pytest.mark.parametrize("name", ["tiny_seq2seq", "tiny_causal_lm"])
def test_tiny_model_builders_doctests(name):
    # integrations/ is not a test path (its recipes import optional libraries at the top): the
    # shared builders' examples run here
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
