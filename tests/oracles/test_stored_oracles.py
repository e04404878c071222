"""The stored peers' outputs (``stored_oracles.py``): every one is up to date with its inputs and the
installed peer, and the checks fail, with the fix named, when a value, an input or the peer changed."""

from __future__ import annotations

import json
import sys
import types

import pytest
import stored_oracles
from stored_oracles import Oracle, StaleOracle


@pytest.mark.parametrize("name", sorted(stored_oracles.DEFINITIONS))
def test_every_stored_oracle_is_up_to_date(shared_data, name):
    import importlib.metadata

    peer = stored_oracles.definition(name).peer
    try:
        importlib.metadata.version(peer)
    except importlib.metadata.PackageNotFoundError:  # the nox sessions install sacreBLEU alone
        pytest.skip(f"{peer} is not installed here; the tests that read this oracle need it too")
    cases = stored_oracles.load(name)
    assert sorted(cases) == sorted(stored_oracles.definition(name).cases())
    stored = json.loads(stored_oracles.definition(name).path.read_text(encoding="utf-8"))
    assert stored["command"] == f"make refresh-expected ORACLES={name}"
    assert stored["peer"]["name"] == stored_oracles.definition(name).peer and stored["python"].startswith("CPython")


@pytest.fixture(params=[False, True], ids=["python-independent", "python-dependent"])
def toy(request, tmp_path, monkeypatch):
    """A one-case oracle whose peer is pytest, over a data file in tmp_path."""
    data = tmp_path / "data.txt"
    data.write_text("1 2 3\n", encoding="utf-8")
    module = types.ModuleType("toy_oracle")
    module.ORACLE = Oracle(
        name="toy",
        peer="pytest",
        description="sums of a line's numbers",
        cases=lambda: ["line1"],
        inputs=lambda: [data],
        compute=lambda case: {"sums": [sum(int(x) for x in data.read_text().split())]},
        python_dependent=request.param,
    )
    monkeypatch.setitem(sys.modules, "toy_oracle", module)
    monkeypatch.setitem(stored_oracles.DEFINITIONS, "toy", "toy_oracle:ORACLE")
    monkeypatch.setattr(stored_oracles, "STORED", tmp_path / "stored")
    stored_oracles.clear_caches()
    yield data
    stored_oracles.clear_caches()


def test_missing_file_names_the_command(toy):
    with pytest.raises(StaleOracle, match=r"missing: run `make refresh-expected ORACLES=toy`"):
        stored_oracles.load("toy")


def test_refresh_then_check(toy):
    assert stored_oracles.main(["toy"]) == 0
    stored_oracles.check("toy", "line1", {"sums": [6]})
    with pytest.raises(AssertionError, match=r"sums: item 0: ours 7, the peer's 6"):
        stored_oracles.check("toy", "line1", {"sums": [7]})
    with pytest.raises(AssertionError, match=r"sums: item 0: ours 6.0, the peer's 6"):
        stored_oracles.check("toy", "line1", {"sums": [6.0]})  # an int is not a float
    with pytest.raises(AssertionError, match=r"outputs \['other'\], the oracle stores \['sums'\]"):
        stored_oracles.check("toy", "line1", {"other": [6]})


def test_changed_input_is_stale(toy, capsys):
    stored_oracles.main(["toy"])
    assert stored_oracles.main(["--check", "toy"]) == 0
    toy.write_text("1 2 4\n", encoding="utf-8")
    stored_oracles.clear_caches()
    assert stored_oracles.main(["--check", "toy"]) == 1
    assert "the inputs of" in capsys.readouterr().out
    with pytest.raises(StaleOracle, match="changed since it was made"):
        stored_oracles.load("toy")


def test_another_peer_version_is_stale(toy, monkeypatch):
    stored_oracles.main(["toy"])
    monkeypatch.setattr(stored_oracles, "peer_version", lambda oracle: "0.0.1")
    with pytest.raises(StaleOracle, match=r"holds pytest .*'s outputs and 0.0.1 is installed"):
        stored_oracles.load("toy")


def test_stored_digest_out_of_date_but_peer_agrees(toy):
    """When ours equals the peer run live but not the stored digest, the message blames the file."""
    stored_oracles.main(["toy"])
    path = stored_oracles.definition("toy").path
    stored = json.loads(path.read_text())
    stored["cases"]["line1"]["sums"] = stored_oracles.digest([5])
    path.write_text(json.dumps(stored))
    stored_oracles.clear_caches()
    with pytest.raises(AssertionError, match=r"equals the peer run live, but not the stored digest"):
        stored_oracles.check("toy", "line1", {"sums": [6]})


def test_a_python_dependent_oracle_made_on_another_sum_runs_the_peer_live(toy, monkeypatch):
    """Made where ``sum`` adds otherwise (before or from Python 3.12), a python-dependent oracle's
    digests are not this Python's answer: the peer runs live; an independent one keeps the file."""
    stored_oracles.main(["toy"])
    path = stored_oracles.definition("toy").path
    stored = json.loads(path.read_text())
    assert stored["compensated_sum"] == stored_oracles.compensated_sum()
    stored["compensated_sum"] = not stored["compensated_sum"]
    stored["cases"]["line1"]["sums"] = stored_oracles.digest([5])  # what that other Python would have said
    path.write_text(json.dumps(stored))
    stored_oracles.clear_caches()
    if stored_oracles.definition("toy").python_dependent:
        stored_oracles.check("toy", "line1", {"sums": [6]})  # the peer, run live here, says 6
    else:
        with pytest.raises(AssertionError, match="not the stored digest"):
            stored_oracles.check("toy", "line1", {"sums": [6]})
