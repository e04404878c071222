"""The golden run (tests/core/golden_run.py): every stored output in tests/golden/ is made again
and must be byte-identical. A difference means an output changed; if that is intended, record the
run again (``make golden``) and say why in the commit."""

from __future__ import annotations

import difflib
import json

import pytest
from golden_run import CASES, GOLDEN, PROVENANCE, numerics


@pytest.fixture(scope="module")
def provenance(shared_data):
    recorded = json.loads(PROVENANCE.read_text(encoding="utf-8"))
    if recorded["numerics"] != numerics():
        pytest.skip(f"recorded where {recorded['numerics']}, here {numerics()}: the last bits may differ")
    return recorded


def test_every_stored_output_is_a_case(provenance):
    stored = sorted(p.name for p in GOLDEN.iterdir() if p != PROVENANCE)
    assert stored == sorted(CASES) == provenance["cases"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_is_byte_identical(name, provenance):
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    got = CASES[name]()
    if got != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), got.splitlines(True), f"stored/{name}",
                                            f"now/{name}", n=1))
        pytest.fail(f"{name} differs from the run recorded at {provenance['commit']}:\n{diff[:4000]}")
