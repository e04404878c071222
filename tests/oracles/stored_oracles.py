"""Peers' slow outputs computed once, stored with their provenance, and regenerated on demand.

Some tests compare bleukit with a peer on large grids: sacreBLEU's TER on every system, reference
set and option combination of the real data (its edit function alone took some 20 minutes a run),
sacreBLEU's chrF on every system and on a grid of 96 option combinations. The peer's answer to those cases
only changes when the peer or the input changes, so it is computed once and stored in
``tests/oracles/stored/<name>.json``; the grids keep every case, and only the peer is no longer
re-run for each.

What is stored, per case, is the SHA-256 of each of the peer's output lists (canonical JSON, so a
float is stored to its last bit): ``==`` on the lists and equality of their digests are the same
check, and a digest keeps the file small enough to read in a diff. When a digest differs, the test
runs the peer live on that one case to print the first value that differs (or to say that the
stored oracle, not bleukit, is out of date).

Each file records the peer and its version, the Python that ran it, the command that regenerates
it, and a digest of its inputs (the data files, the list of cases, the peer's version and the
format). A test that loads an oracle whose inputs digest no longer matches, or that runs with
another version of the peer, fails and names the command:

    make refresh-expected                 # every stored oracle
    make refresh-expected ORACLES=ter     # one (python tests/oracles/stored_oracles.py ter)

Each stored oracle keeps a small live cross-check in its test module (a sample of lines for each
option family, against the peer run live), so a changed peer is caught in CI even before anyone
regenerates the files.

An oracle is an :class:`Oracle` in the module that uses it, listed in :data:`DEFINITIONS`.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib
import importlib.metadata
import json
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Sequence

FORMAT = 1
HERE = Path(__file__).resolve().parent
STORED = HERE / "stored"
TESTS = HERE.parent

#: module:attribute of every stored oracle (imported with tests/ on the path, as pytest does)
DEFINITIONS = {
    "ter": "metrics.ter.ter_oracle:ORACLE",
    "chrf": "metrics.chrf.chrf_oracle:ORACLE",
    "cli": "cli_oracle:ORACLE",
    "lm_eval": "lm_eval_oracle:ORACLE",
    "shim": "shim_oracle:ORACLE",
}


def digest(values: Any) -> str:
    """SHA-256 of ``values`` (lists of ints, floats and strings) as canonical JSON.

    JSON writes a float as its shortest round-tripping repr, so two lists have the same digest
    exactly when they are ``==`` element for element and of the same types (``1`` is not ``1.0``).

    >>> digest([1, 2.5, "a"]) == digest([1, 2.5, "a"]) != digest([1, 2.5000000000000004, "a"])
    True
    >>> digest([1]) != digest([1.0])
    True
    """
    text = json.dumps(values, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Oracle:
    """One peer's outputs on a list of cases.

    ``compute(case)`` runs the peer live on one case and returns its outputs, name -> list of
    values; the stored file keeps their digests. ``inputs()`` lists the files the cases read.
    """

    name: str
    peer: str  # the distribution whose version is recorded, e.g. "sacrebleu"
    description: str
    cases: Callable[[], List[str]]
    inputs: Callable[[], List[Path]]
    compute: Callable[[str], Dict[str, list]]
    #: the outputs depend on how this Python's ``sum`` adds floats (compensated from 3.12): on a Python
    #: that adds otherwise than the one that made the file, the peer runs live instead
    python_dependent: bool = False

    @property
    def path(self) -> Path:
        return STORED / f"{self.name}.json"


def compensated_sum() -> bool:
    """Whether this Python's ``sum`` of floats is compensated (3.12+): the last bits of a peer's
    float sums, and so of its scores, can differ from those of an older Python.

    >>> compensated_sum() == (sum([0.1] * 10) == 1.0)
    True
    """
    return sum([0.1] * 10) == 1.0


def definition(name: str) -> Oracle:
    module, attribute = DEFINITIONS[name].split(":")
    return getattr(importlib.import_module(module), attribute)


def peer_version(oracle: Oracle) -> str:
    return importlib.metadata.version(oracle.peer)


def inputs_digest(oracle: Oracle) -> str:
    """What the stored outputs depend on: the format, the peer and its version, the cases, and the
    bytes of every input file (by its name below the data folder)."""
    h = hashlib.sha256()
    h.update(json.dumps([FORMAT, oracle.peer, peer_version(oracle), oracle.cases()]).encode("utf-8"))
    for path in sorted(oracle.inputs()):
        h.update(f"\n{path.parent.name}/{path.name}\n".encode("utf-8"))
        h.update(path.read_bytes())
    return h.hexdigest()


class StaleOracle(AssertionError):
    """The stored outputs no longer describe the inputs or the installed peer."""


@functools.lru_cache(maxsize=None)
def _stored(name: str) -> Dict[str, Any]:
    oracle = definition(name)
    if not oracle.path.exists():
        raise StaleOracle(f"{oracle.path} is missing: {_refresh(name)}")
    return json.loads(oracle.path.read_text(encoding="utf-8"))


def _refresh(name: str) -> str:
    return f"run `make refresh-expected ORACLES={name}` (python tests/oracles/stored_oracles.py {name})"


@functools.lru_cache(maxsize=None)
def load(name: str) -> Dict[str, Dict[str, str]]:
    """The stored digests of oracle ``name``, case -> output -> digest, checked for staleness."""
    oracle = definition(name)
    refresh = _refresh(name)
    stored = _stored(name)
    if stored["format"] != FORMAT:
        raise StaleOracle(f"{oracle.path} has format {stored['format']}, the tests read {FORMAT}: {refresh}")
    installed = peer_version(oracle)
    if stored["peer"]["version"] != installed:
        raise StaleOracle(
            f"{oracle.path} holds {oracle.peer} {stored['peer']['version']}'s outputs and {installed} is installed: "
            f"{refresh} (or install {oracle.peer}=={stored['peer']['version']})"
        )
    if stored["inputs"] != inputs_digest(oracle):
        raise StaleOracle(f"the inputs of {oracle.path} changed since it was made (data files or cases): {refresh}")
    return stored["cases"]


def clear_caches() -> None:
    """Forget the files read so far (after one was written)."""
    _stored.cache_clear()
    load.cache_clear()


def _first_difference(ours: Sequence, theirs: Sequence) -> str:
    if len(ours) != len(theirs):
        return f"{len(ours)} values, the peer has {len(theirs)}"
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b or type(a) is not type(b):
            return f"item {i}: ours {a!r}, the peer's {b!r}"
    return ""


def check(name: str, case: str, ours: Dict[str, Iterable]) -> None:
    """Assert that ``ours`` (output -> values, the same names the oracle stores) equals the peer's
    stored outputs for ``case``. On a difference, the peer runs live on that case and the message
    gives the first value that differs, or says the stored file is out of date."""
    oracle = definition(name)
    stored = load(name)[case]
    ours = {field: list(values) for field, values in ours.items()}
    assert ours and set(ours) <= set(stored), f"{name}: outputs {sorted(ours)}, the oracle stores {sorted(stored)}"
    if oracle.python_dependent and _stored(name)["compensated_sum"] != compensated_sum():
        stored = {field: digest(values) for field, values in oracle.compute(case).items()}  # the peer, live
    differing = [field for field in ours if digest(ours[field]) != stored[field]]
    if not differing:
        return
    live = oracle.compute(case)
    lines = []
    for field in differing:
        where = _first_difference(ours[field], live[field])
        if where:
            lines.append(f"{field}: {where}")
        else:
            lines.append(f"{field}: equals the peer run live, but not the stored digest (refresh the oracle)")
    raise AssertionError(f"{name} [{case}] differs from {oracle.peer}:\n  " + "\n  ".join(lines))


def refresh(oracle: Oracle, *, progress: bool = True) -> None:
    """Run the peer on every case and write the stored file."""
    started = time.monotonic()
    cases = oracle.cases()
    digests = {}
    for i, case in enumerate(cases):
        digests[case] = {field: digest(values) for field, values in sorted(oracle.compute(case).items())}
        if progress:
            seconds = time.monotonic() - started
            print(f"\r{oracle.name}: {i + 1}/{len(cases)} cases, {seconds:.0f} s", end="", flush=True)
    if progress:
        print()
    stored = {
        "format": FORMAT,
        "name": oracle.name,
        "description": oracle.description,
        "peer": {"name": oracle.peer, "version": peer_version(oracle)},
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "compensated_sum": compensated_sum(),
        "command": f"make refresh-expected ORACLES={oracle.name}",
        "generated": time.strftime("%Y-%m-%d"),
        "seconds": round(time.monotonic() - started),
        "inputs": inputs_digest(oracle),
        "cases": digests,
    }
    STORED.mkdir(exist_ok=True)
    oracle.path.write_text(json.dumps(stored, indent=1, sort_keys=False) + "\n", encoding="utf-8")


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate stored peer outputs (tests/oracles/stored/).")
    parser.add_argument("names", nargs="*", help=f"oracles to refresh (default: all of {', '.join(DEFINITIONS)})")
    parser.add_argument("--check", action="store_true", help="only say which stored oracles are stale")
    args = parser.parse_args(argv)
    names = args.names or list(DEFINITIONS)
    unknown = sorted(set(names) - set(DEFINITIONS))
    if unknown:
        parser.error(f"unknown oracle(s) {', '.join(unknown)}; known: {', '.join(DEFINITIONS)}")
    stale = 0
    for name in names:
        if args.check:
            try:
                load(name)
                print(f"{name}: up to date")
            except StaleOracle as error:
                stale += 1
                print(f"{name}: {error}")
        else:
            refresh(definition(name))
    return 1 if stale else 0


def _pytest_pythonpath() -> List[Path]:
    """The folders pytest puts on sys.path for the tests (pyproject.toml's ``pythonpath``)."""
    import re

    text = (TESTS.parent / "pyproject.toml").read_text(encoding="utf-8")
    listed = re.search(r"^pythonpath = \[(.*?)\]", text, re.M | re.S)
    assert listed, "pyproject.toml has no pythonpath for pytest"
    return [TESTS.parent / folder for folder in re.findall(r'"([^"]+)"', listed.group(1))]


if __name__ == "__main__":
    sys.path[:0] = [str(folder) for folder in _pytest_pythonpath()]
    sys.exit(main())
