"""Shared fixtures. Helpers that tests import live in shared_data.py (tests/ is on pythonpath)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared_data import SHARED_DATA, load_corpus, read_lines  # noqa: F401  (re-exported for tests)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED_DATA / "expected_scores.jsonl").exists():
        pytest.skip(f"real MT data not found at {SHARED_DATA} (CI has ../shared beside the clone)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def expected_rows(shared_data):
    with open(shared_data / "expected_scores.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
