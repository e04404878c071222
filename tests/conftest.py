"""Fixtures shared by every test folder.

Constants and helpers that tests import by name (``REPO``, ``SHARED_DATA``, ``read_lines``,
``load_corpus``) live in ``shared_data.py``: a conftest is not imported by name (each folder may
have its own). ``tests/`` is on ``pythonpath``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shared_data import SHARED_DATA


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED_DATA / "expected_scores.jsonl").exists():
        pytest.skip(f"real MT data not found at {SHARED_DATA} (CI has ../shared beside the clone)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def expected_rows(shared_data):
    with open(shared_data / "expected_scores.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _kernels_missing() -> str | None:
    """Why the native engine cannot run in this build (a compiled kernel is missing), or None."""
    from bleukit import _native, resampling
    from bleukit.metrics.bleu import libm
    from bleukit.metrics.bleu.kernel import KERNEL
    from bleukit.metrics.bleu.pairs import PAIR_KERNEL

    for module in (KERNEL, PAIR_KERNEL, libm.KERNEL, resampling.KERNEL):
        if _native.load_kernel(module) is None:
            return _native.kernel_error(module)
    return None


@pytest.fixture(params=["native", "python"])
def engine(request, monkeypatch) -> str:
    """Runs a test once per engine (``BLEUKIT_ENGINE``): the compiled kernels, then their
    pure-Python twins, which are the reference. The native run is skipped in a build without
    the kernels (``BLEUKIT_NO_NATIVE``)."""
    if request.param == "native" and _kernels_missing():
        pytest.skip(f"BLEUKIT_NO_NATIVE build ({_kernels_missing()})")
    monkeypatch.setenv("BLEUKIT_ENGINE", request.param)
    return request.param
