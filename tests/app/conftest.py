"""The app module, imported once for the app's test files."""

from __future__ import annotations

import importlib.util

import pytest
from shared_data import REPO


@pytest.fixture(scope="session")
def app():
    """app.py imported as a module (it lives at the repository root, as a Space needs it)."""
    pytest.importorskip("gradio")
    spec = importlib.util.spec_from_file_location("bleukit_app", REPO / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
