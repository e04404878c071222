"""The app's modules, seen as one namespace by the app's test files."""

from __future__ import annotations

import importlib
import types

import pytest

MODULES = ("forms", "state", "reports", "views", "callbacks", "api", "examples", "page")


@pytest.fixture(scope="session")
def app():
    """Every name of bleukit.app's modules (forms, state, reports, views, callbacks, api,
    examples, page), so that a test reads ``app.make_options`` wherever it lives."""
    pytest.importorskip("gradio")
    namespace = types.SimpleNamespace()
    for name in MODULES:
        module = importlib.import_module(f"bleukit.app.{name}")
        for key, value in vars(module).items():
            if not key.startswith("__"):
                setattr(namespace, key, value)
    namespace.modules = {name: importlib.import_module(f"bleukit.app.{name}") for name in MODULES}
    return namespace
