"""Shared fixtures: the real MT data in ../shared/data (read in place, never copied)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("BLEUKIT_SHARED_DATA", REPO.parent / "shared" / "data"))


def read_lines(path: Path) -> list:
    """Read a segment file as a command-line scorer does (keep a BOM, strip line ends)."""
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip() for line in f]


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED_DATA / "expected_scores.jsonl").exists():
        pytest.skip(f"real MT data not found at {SHARED_DATA} (CI has ../shared beside the clone)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def expected_rows(shared_data):
    with open(shared_data / "expected_scores.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
