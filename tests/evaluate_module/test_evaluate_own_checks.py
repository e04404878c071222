"""evaluate's own module test (``tests/test_metric_common.py::LocalModuleTest.test_load`` in
huggingface/evaluate, which its sdist does not ship) applied to every evaluate module of bleukit:
loaded by evaluate's module factory, the main class's ``_compute`` takes no ``**kwargs``, and the
module's doctests run (evaluate's ``doctest.testmod(..., raise_on_error=True)``, none failed, more
than one attempted). The declared parameters are the options' names with the options' defaults."""

from __future__ import annotations

import doctest
import importlib
import inspect

import pytest

import bleukit
from bleukit.defaults import DEFAULT_SEED
from bleukit.metrics.bleu.options import BleuOptions
from bleukit.metrics.chrf.options import ChrfOptions
from bleukit.metrics.ter.options import TerOptions

evaluate = pytest.importorskip("evaluate")

MODULES = ["bleukit", "chrf", "ter", "bleu", "google_bleu"]


def _main_class(name):
    module_path = evaluate.loading.evaluation_module_factory(bleukit.metric_path(name)).module_path
    module = importlib.import_module(module_path)
    return module, evaluate.loading.import_main_class(module.__name__)


@pytest.mark.parametrize("name", MODULES)
def test_evaluates_own_load_test(name, monkeypatch):
    module, main_class = _main_class(name)
    parameters = inspect.signature(main_class._compute).parameters
    assert all(p.kind != p.VAR_KEYWORD for p in parameters.values()), list(parameters)
    monkeypatch.setattr(doctest, "ELLIPSIS_MARKER", "[...]")  # as evaluate's test sets it
    try:
        results = doctest.testmod(module, raise_on_error=True)
    except doctest.UnexpectedException as err:
        raise err.exc_info[1] from None  # the failing example's own error, as evaluate's test shows it
    assert results.failed == 0 and results.attempted > 1


def _defaults(name):
    _, main_class = _main_class(name)
    parameters = list(inspect.signature(main_class._compute).parameters.values())[3:]  # self, predictions, references
    return {p.name: p.default for p in parameters}


def test_declared_parameters_are_the_options():
    # every option reachable, with the options' own defaults (one place for them)
    bleu = BleuOptions()
    assert _defaults("bleukit") == {**bleu.to_dict(), "n_bootstrap": None, "seed": DEFAULT_SEED}
    assert _defaults("chrf") == ChrfOptions().to_dict()
    ter = TerOptions()
    assert _defaults("ter") == {
        "normalized": ter.normalized,
        "ignore_punct": ter.no_punct,
        "support_zh_ja_chars": ter.asian_support,
        "case_sensitive": ter.case_sensitive,
    }
