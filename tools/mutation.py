"""Mutation testing of the modules where a wrong number would hide (issue 41), with cosmic-ray.

For each target module (``TARGETS``: the three metrics' formulas and Python extractors, the
tokenizers, the paired significance tests, the command line's output writer) this makes a
cosmic-ray session, keeps a seeded sample of its mutants (``--sample``), and runs each kept mutant
against the tests that exercise that module. cosmic-ray writes the mutant over the module in place
(this checkout's ``src/``, with the kernels built in place), runs the test command, and puts the
original back; this script checks that ``src/`` is unchanged at the end.

The test command is this script again (``--run-tests KEY``): it runs the module's stages in order,
each a pytest run with ``-x`` (a killed mutant stops at its first failure), and stops at the first
stage that fails. The fast stages (the module's doctests, its unit tests, the golden run) come
first; the grid stage of a metric (the test file whose Python-engine cases are a covering design,
``tests/designs.py``) comes last, with ``-k python``: its compiled-engine cases are the same in both
configurations, so leaving them out of both can only show more of a difference between the
designs and the whole grids, never less.

Per mutant: killed (a test failed), survived (all passed), timeout (ran past the per-mutant limit:
``--timeout-factor`` times the module's unmutated run, plus 20 s; counted apart from killed).

The proof that the designs lose no killing power (docs/development.md, "Mutation testing"):

    nice -n 15 python tools/mutation.py --sample 25 --out benchmarks/mutation/default.json
    nice -n 15 python tools/mutation.py --full-grids --survivors-of benchmarks/mutation/default.json \\
        --out benchmarks/mutation/full.json

The second run takes only the first run's survivors, with ``BLEUKIT_FULL_GRIDS=1`` (every grid case
on the Python engine too), and only the stages whose files read ``FULL_GRIDS``
(``--only-affected-stages``, on by default with ``--survivors-of``): the other stages run the same
tests in both configurations, and the survivors passed them already. ``--tests-dir`` points the
stages at another tests folder (e.g. an older checkout's, to compare suites).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import re
import shlex
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PACKAGE = "src/bleukit"

#: a stage: (test paths, a -k expression or None); the module's own doctests are added first
Stage = Tuple[Tuple[str, ...], Optional[str]]

GOLDEN = "tests/core/test_golden_run.py"
#: left out of every stage: robustness tests that check no number (a Ctrl-C, memory, the GIL, a
#: subprocess import check) and take 5-50 s each on a loaded machine
SLOW = ("not ctrl_c and not out_of_memory and not releases_the_gil and not long_sentences_cut"
        " and not long_and_degenerate and not imports_no_numpy and not cli_matches_sacrebleu")
BLEU_UNIT = ("tests/metrics/bleu/test_bleu_statistics_and_scoring.py", "tests/metrics/bleu/test_bleu_one_row.py")
BLEU_GRID: Stage = (("tests/oracles/test_expected_scores.py",), "python")
CHRF_UNIT = ("tests/metrics/chrf/test_chrf_one_row.py", "tests/metrics/chrf/test_chrf_kernel.py",
             "tests/metrics/chrf/test_chrf_options.py", "tests/metrics/test_api.py",
             "tests/metrics/chrf/test_chrf_pairwise.py")
CHRF_GRID: Stage = (("tests/metrics/chrf/test_chrf_sacrebleu.py",), "python")
TER_UNIT = ("tests/metrics/ter/test_ter_options_formula.py", "tests/metrics/ter/test_ter_hard_cases.py",
            "tests/metrics/test_api.py")
#: TER's grid on the Python engine: 8 designed cases take over 5 minutes on two loaded cores, all 64
#: some 12 CPU minutes, per mutant: only with --ter-grid
TER_GRID: Stage = (("tests/metrics/ter/test_ter_vs_sacrebleu.py",), "python")
SIGNIFICANCE = ("tests/analysis/test_significance.py", "tests/analysis/test_resampling.py",
                "tests/analysis/test_score_tests.py")
TOKENIZERS = ("tests/metrics/bleu/test_bleu_tokenizers.py", *BLEU_UNIT)


def _fast(*paths: str) -> Stage:
    return ((GOLDEN, *paths), SLOW)


#: key -> (module, stages): the tests that exercise the module, fast ones first (the module's own
#: doctests, then the golden run, which checks every output byte for byte, then its unit tests),
#: the grid that a covering design cuts last
TARGETS: Dict[str, Tuple[str, List[Stage]]] = {
    "bleu.formula": (f"{PACKAGE}/metrics/bleu/formula.py", [_fast(*BLEU_UNIT, "tests/metrics/bleu/test_libm.py"),
                                                            BLEU_GRID]),
    "bleu.statistics": (f"{PACKAGE}/metrics/bleu/statistics.py", [_fast(*BLEU_UNIT), BLEU_GRID]),
    "bleu.extract": (f"{PACKAGE}/metrics/bleu/extract.py", [_fast(*BLEU_UNIT), BLEU_GRID]),
    "chrf.formula": (f"{PACKAGE}/metrics/chrf/formula.py", [_fast(*CHRF_UNIT), CHRF_GRID]),
    "chrf.reference": (f"{PACKAGE}/metrics/chrf/reference.py", [_fast(*CHRF_UNIT), CHRF_GRID]),
    "chrf.extract": (f"{PACKAGE}/metrics/chrf/extract.py", [_fast(*CHRF_UNIT), CHRF_GRID]),
    "ter.formula": (f"{PACKAGE}/metrics/ter/formula.py", [_fast(*TER_UNIT), TER_GRID]),
    "ter.reference": (f"{PACKAGE}/metrics/ter/reference.py",
                      [_fast(*TER_UNIT, "tests/metrics/ter/test_ter_kernel.py"), TER_GRID]),
    "ter.extract": (f"{PACKAGE}/metrics/ter/extract.py", [_fast(*TER_UNIT), TER_GRID]),
    "tokenizers.mteval": (f"{PACKAGE}/tokenizers/mteval.py", [_fast(*TOKENIZERS), BLEU_GRID]),
    "tokenizers.intl": (f"{PACKAGE}/tokenizers/intl.py", [_fast(*TOKENIZERS), BLEU_GRID]),
    "tokenizers.init": (f"{PACKAGE}/tokenizers/__init__.py", [_fast(*TOKENIZERS), BLEU_GRID]),
    "significance.paired": (f"{PACKAGE}/analysis/significance/paired.py", [_fast(*SIGNIFICANCE)]),
    "significance.bootstrap": (f"{PACKAGE}/analysis/significance/bootstrap.py", [_fast(*SIGNIFICANCE)]),
    "significance.draws": (f"{PACKAGE}/analysis/significance/draws.py", [_fast(*SIGNIFICANCE)]),
    "cli.output": (f"{PACKAGE}/cli/output.py", [_fast("tests/cli/test_cli.py", "tests/cli/test_cli_analyses.py")]),
}

PYTEST = ("-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--no-header", "-W", "ignore::DeprecationWarning")


def _stage_paths(stage: Stage, tests_dir: str) -> List[str]:
    return [tests_dir + p[len("tests"):] if p.startswith("tests/") else p for p in stage[0]]


def reads_full_grids(stage: Stage, tests_dir: str) -> bool:
    """Whether a stage's test files read ``FULL_GRIDS`` (what ``BLEUKIT_FULL_GRIDS`` changes)."""
    return any("FULL_GRIDS" in (ROOT / p).read_text(encoding="utf-8") for p in _stage_paths(stage, tests_dir))


def missing_paths() -> List[str]:
    """Every test file a stage names that is not there (a moved test would otherwise make pytest
    fail on the path, which counts as killing every mutant)."""
    return sorted({p for _, stages in TARGETS.values() for s in stages for p in s[0] if not (ROOT / p).exists()})


def stages_for(key: str, tests_dir: str, only_affected: bool, ter_grid: bool = False) -> List[Stage]:
    module, stages = TARGETS[key]
    stages = [s for s in stages if ter_grid or s is not TER_GRID]
    chosen = [(tuple([module, *_stage_paths(s, tests_dir)]) if i == 0 else tuple(_stage_paths(s, tests_dir)), s[1])
              for i, s in enumerate(stages)]
    if only_affected:
        chosen = [c for c, s in zip(chosen, stages) if reads_full_grids(s, tests_dir)]
    return chosen


def run_tests(key: str, tests_dir: str, only_affected: bool, ter_grid: bool) -> int:
    """The test command of one mutant: every stage in order, stopping at the first that fails."""
    for paths, keyword in stages_for(key, tests_dir, only_affected, ter_grid):
        command = [sys.executable, *PYTEST, *(["-k", keyword] if keyword else []), *paths]
        rc = subprocess.call(command, cwd=ROOT)
        if rc != 0:
            return rc
    return 0


def _environment(full_grids: bool) -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # cosmic-ray sets it too: no stale .pyc of a mutant
    env.pop("BLEUKIT_FULL_GRIDS", None)
    if full_grids:
        env["BLEUKIT_FULL_GRIDS"] = "1"
    return env


def _cosmic(*args: str, env: Dict[str, str]) -> None:
    subprocess.run([sys.executable, "-m", "cosmic_ray.cli", *args], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL)


def _mutant_id(spec: dict) -> str:
    return f"{spec['operator_name']}#{spec['occurrence']}@{spec['start_pos'][0]}:{spec['start_pos'][1]}"


def _items(db_path: Path) -> List[Tuple[str, dict]]:
    """(job id, mutation spec) of every work item of a session."""
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute(
            "SELECT job_id, operator_name, occurrence, start_pos_row, start_pos_col FROM mutation_specs").fetchall()
    finally:
        con.close()
    return [(job, {"operator_name": op, "occurrence": occ, "start_pos": [row, col]})
            for job, op, occ, row, col in rows]


def _results(db_path: Path) -> Dict[str, Tuple[str, str, str, str]]:
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute("SELECT job_id, worker_outcome, test_outcome, output, diff FROM work_results").fetchall()
    finally:
        con.close()
    return {job: (str(worker or "").lower(), str(test or "").lower(), output or "", diff or "")
            for job, worker, test, output, diff in rows}


def _skip(db_path: Path, job_ids: Sequence[str]) -> None:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    with use_db(str(db_path), WorkDB.Mode.open) as db:
        db.set_multiple_results(list(job_ids), WorkResult(worker_outcome=WorkerOutcome.SKIPPED))


def _baseline(key: str, env: Dict[str, str], extra: List[str]) -> float:
    start = time.monotonic()
    run = subprocess.run([sys.executable, __file__, "--run-tests", key, *extra], cwd=ROOT, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seconds = time.monotonic() - start
    if run.returncode != 0:
        tail = "\n".join(run.stdout.strip().splitlines()[-15:])
        raise SystemExit(f"{key}: the unmutated module fails its tests (rc {run.returncode}); fix that first:\n{tail}")
    return seconds


def run_module(key: str, args: argparse.Namespace, wanted: Optional[set], session: Path,
               sample: Optional[int]) -> dict:
    module, _ = TARGETS[key]
    only_affected = args.only_affected_stages
    env = _environment(args.full_grids)
    extra = ["--tests-dir", args.tests_dir, *(["--only-affected-stages"] if only_affected else []),
             *(["--ter-grid"] if args.ter_grid else [])]
    if wanted is not None and (not wanted or (only_affected and not stages_for(key, args.tests_dir, True,
                                                                                args.ter_grid))):
        # nothing to run: no survivors, or none of the module's stages reads FULL_GRIDS (the same tests
        # in both configurations: the survivors stay survivors)
        note = "no stage reads FULL_GRIDS: the same tests in both configurations" if wanted else "no survivors"
        return {"module": module, "note": note, "mutants": len(wanted), "killed": 0, "survived": len(wanted),
                "timeouts": 0, "incompetent": 0, "results": [{"id": i, "outcome": "survived"} for i in sorted(wanted)]}
    if args.timeout:  # a fixed limit, no unmutated run first (a failing one shows as every mutant killed
        baseline, timeout = None, args.timeout  # by the same first test: "killed_by" below)
    else:
        baseline = _baseline(key, env, extra)
        timeout = round(args.timeout_factor * baseline + 20)
    runner = " ".join(shlex.quote(a) for a in [sys.executable, __file__, "--run-tests", key, *extra])
    config = session / f"{key}.toml"
    config.write_text(
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(module)}\n"
        f"timeout = {timeout}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(runner)}\n\n"
        "[cosmic-ray.distributor]\nname = \"local\"\n", encoding="utf-8")
    db = session / f"{key}.sqlite"
    if db.exists():
        db.unlink()
    _cosmic("init", str(config), str(db), env=env)
    items = sorted(_items(db), key=lambda item: _mutant_id(item[1]))
    if wanted is not None:
        keep = [job for job, spec in items if _mutant_id(spec) in wanted]
    else:
        rng = random.Random(f"{args.seed}:{key}")
        order = [job for job, _ in items]
        rng.shuffle(order)
        keep = order if sample is None else order[:sample]
    keep_set = set(keep)
    _skip(db, [job for job, _ in items if job not in keep_set])
    start = time.monotonic()
    _cosmic("exec", str(config), str(db), env=env)
    seconds = time.monotonic() - start
    results = _results(db)
    rows = []
    counts = {"killed": 0, "survived": 0, "timeouts": 0, "incompetent": 0}
    for job, spec in items:
        if job not in keep_set:
            continue
        worker, test, output, diff = results[job]
        if test == "killed" and output == "timeout":
            outcome = "timeout"
        elif test in ("killed", "survived"):
            outcome = test
        else:
            outcome = "incompetent"
        counts[{"timeout": "timeouts"}.get(outcome, outcome)] += 1
        row = {"id": _mutant_id(spec), "line": spec["start_pos"][0], "outcome": outcome}
        if outcome == "killed":
            failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", output, re.M)
            row["killed_by"] = failed[0] if failed else output.strip().splitlines()[-1:]
        else:
            row["diff"] = "\n".join(line for line in diff.splitlines()
                                    if re.match(r"^[+-](?![+-])", line))
        rows.append(row)
    return {"module": module, "population": len(items), "mutants": len(keep), **counts,
            "baseline_s": baseline and round(baseline, 1), "timeout_s": timeout, "seconds": round(seconds, 1),
            "results": rows}


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modules", default=",".join(TARGETS),
                        help="comma-separated keys of TARGETS, each with :N for its own sample size")
    parser.add_argument("--sample", type=int, default=None, help="mutants per module (a seeded sample); all if unset")
    parser.add_argument("--seed", default="41")
    parser.add_argument("--full-grids", action="store_true", help="BLEUKIT_FULL_GRIDS=1: every grid case")
    parser.add_argument("--tests-dir", default="tests", help="the tests folder the stages' paths are taken from")
    parser.add_argument("--survivors-of", type=Path, default=None,
                        help="a summary JSON: run only its survivors (and timeouts)")
    parser.add_argument("--only-affected-stages", action="store_true", default=None,
                        help="run only the stages whose files read FULL_GRIDS (the default with --survivors-of)")
    parser.add_argument("--ter-grid", action="store_true", help="TER's grid stage too (TER_GRID: slow)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="a fixed per-mutant limit in seconds, instead of timing the unmutated run first")
    parser.add_argument("--timeout-factor", type=float, default=2.0)
    parser.add_argument("--out", type=Path, default=None, help="where the JSON summary goes")
    parser.add_argument("--session-dir", type=Path, default=ROOT / ".mutation")
    parser.add_argument("--run-tests", metavar="KEY", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run_tests:
        return run_tests(args.run_tests, args.tests_dir, bool(args.only_affected_stages), args.ter_grid)
    if args.only_affected_stages is None:
        args.only_affected_stages = args.survivors_of is not None
    if missing_paths():
        raise SystemExit(f"TARGETS names test files that are not there: {', '.join(missing_paths())}")
    if _git("status", "--porcelain", "--", "src"):
        raise SystemExit("src/ has uncommitted changes: mutation runs need a clean src/")
    previous = json.loads(args.survivors_of.read_text()) if args.survivors_of else None
    args.session_dir.mkdir(parents=True, exist_ok=True)
    keys = []
    samples: Dict[str, Optional[int]] = {}
    for entry in filter(None, (k.strip() for k in args.modules.split(","))):
        key, _, n = entry.partition(":")
        if key not in TARGETS:
            raise SystemExit(f"unknown module {key!r}: one of {', '.join(TARGETS)}")
        keys.append(key)
        samples[key] = int(n) if n else args.sample
    summary = {
        "provenance": {
            "commit": _git("rev-parse", "HEAD"), "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="seconds"), "command": "python tools/mutation.py " + " ".join(map(shlex.quote, sys.argv[1:])),
            "python": sys.version.split()[0], "cosmic_ray": _version("cosmic-ray"),
            "full_grids": args.full_grids, "tests_dir": args.tests_dir, "seed": args.seed, "sample": args.sample,
            "ter_grid": args.ter_grid, "samples": samples,
            "load_before": os.getloadavg(),
        },
        "modules": {},
    }
    started = time.monotonic()
    try:
        for key in keys:
            wanted = None
            if previous is not None:
                old = previous["modules"].get(key)
                wanted = {r["id"] for r in old["results"] if r["outcome"] in ("survived", "timeout")} if old else set()
            result = run_module(key, args, wanted, args.session_dir, samples[key])
            summary["modules"][key] = result
            print(f"{key:24} mutants {result['mutants']:4}  killed {result['killed']:4}  survived "
                  f"{result['survived']:4}  timeouts {result['timeouts']:3}  ({result.get('seconds', 0):.0f} s)",
                  flush=True)
            if args.out:
                _write(args.out, summary, started)
    finally:
        if _git("status", "--porcelain", "--", "src"):
            print("src/ was left changed by an interrupted mutant: git checkout -- src", file=sys.stderr)
    if args.out:
        _write(args.out, summary, started)
    return 0


def _write(path: Path, summary: dict, started: float) -> None:
    summary["provenance"]["seconds"] = round(time.monotonic() - started)
    summary["provenance"]["load_after"] = os.getloadavg()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")


def _version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


if __name__ == "__main__":
    sys.exit(main())
