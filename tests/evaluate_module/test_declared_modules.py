"""An evaluate module is a class statement over bleukit.evaluate_module.base: for every metric of the
protocol, a module declared in a few lines takes the options' keywords with their defaults (and
no ``**kwargs``), checks them before evaluate sees the input, and returns what ``corpus_<metric>``
gives, in-process (the load paths are tests/evaluate_module/test_*_module.py's)."""

from __future__ import annotations

import importlib
import inspect

import pytest

from bleukit.metrics import available_metrics, get_metric

pytest.importorskip("evaluate")
from bleukit.evaluate_module import base  # noqa: E402  (imports evaluate)

HYPS = ["The cat sat on the mat.", "It is raining today."]
REFS = [["The cat sat on the mat.", "A cat sat on the mat."], ["It rains today.", None]]


def _declare(name, **extra):
    class Declared(base.MetricModule, metric=name, facade=importlib.import_module(f"bleukit.{name}"),
                   outputs=("score", "signature"), description="d", citation="c", inputs_description="i", **extra):
        """A module."""

    return Declared


@pytest.mark.parametrize("name", available_metrics())
def test_a_metric_module_is_a_declaration(name):
    module = _declare(name, resampling=True)
    options = get_metric(name).options_type()
    parameters = list(inspect.signature(module._compute).parameters.values())
    assert [p.name for p in parameters[:3]] == ["self", "predictions", "references"]
    assert {p.name: p.default for p in parameters[3:]} == {**options.to_dict(), **base.RESAMPLING_DEFAULTS}
    assert all(p.kind != p.VAR_KEYWORD for p in parameters)
    assert module.__doc__.startswith("di\n\nA module.")
    metric = module(keep_in_memory=True)
    corpus = getattr(importlib.import_module(f"bleukit.{name}"), f"corpus_{name}")
    expected = corpus(HYPS, REFS, n_bootstrap=20, seed=7)
    got = metric.compute(predictions=HYPS, references=REFS, n_bootstrap=20, seed=7)
    assert got == {"score": expected.score, "signature": expected.signature, "mean": expected.mean, "ci": expected.ci}
    with pytest.raises(TypeError, match=f"unknown {name.upper()} option"):
        metric.compute(predictions=HYPS, references=REFS, no_such_option=1)


def test_module_names_of_options():
    """An upstream name for an option: the parameter carries it, and unknown names list those."""
    module = _declare("ter", names={"ignore_punct": "no_punct"})
    assert "ignore_punct" in inspect.signature(module._compute).parameters
    metric = module(keep_in_memory=True)
    assert metric.compute(predictions=["a b ."], references=["a b"], ignore_punct=True)["score"] == 0.0
    with pytest.raises(TypeError, match="^unknown TER option.s.: no_punct; known: normalized, ignore_punct, "):
        metric.compute(predictions=["a b ."], references=["a b"], no_punct=True)
