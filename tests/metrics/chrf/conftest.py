"""Fixtures of the chrF tests: both engines (the kernel where it is built)."""

from __future__ import annotations

import pytest

from bleukit.metrics.chrf import extract


@pytest.fixture(params=["native", "python"])
def engine(request, monkeypatch):
    if request.param == "native" and not extract.available():
        pytest.skip("the chrF kernel is not built")
    monkeypatch.setenv("BLEUKIT_ENGINE", request.param)
    return request.param
