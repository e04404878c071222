"""Speed and memory of bleukit's significance tests against sacreBLEU's, measured side by side.

Rows: the 5 WMT17 en-de systems (3004 lines, 13a) with paired bootstrap (1000 resamples),
approximate randomization (10000 trials) and a single-system confidence interval (1000
resamples); the same three with chrF and with TER (``wmt17-bs-chrf``, ...); then 20 synthetic
systems x 10,000 lines for scaling (sacreBLEU there only with ``--scale-peers``: it needs minutes
and GBs). Each call runs in a fresh single-threaded process
from text (statistics extraction included) and reports wall time and peak resident memory above
the process' size before the call (as ``benchmarks/run.py``), wall and CPU time. Targets are judged
on CPU time: the processes are single-threaded, so it equals wall time on an idle machine and
stays put when other work shares the cores. The run fails if a p-value differs from sacreBLEU's
or a mean/CI by more than sacreBLEU's float32 rounding.

    python benchmarks/bench_significance.py            # WMT17 rows + bleukit scaling + command lines (minutes)
    python benchmarks/bench_significance.py --scale-peers
    python benchmarks/bench_significance.py --metrics chrf,ter --no-cli   # chrF's and TER's rows only

The last table runs the command lines as users do (``bleukit REF -i SYS... --paired-bs``, and
sacreBLEU's), whole processes: interpreter start-up and imports included.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import (  # noqa: E402
    ONE_THREAD,
    SHARED,
    VENV_BIN,
    WMT17_SYSTEMS,
    load_average,
    machine_line,
    process_cpu,
    reset_peak,
    status_kb,
    versions,
)

WMT17 = WMT17_SYSTEMS
SEED = 12345
# Minimum ratio sacreBLEU time / bleukit time, and maximum bleukit peak / sacreBLEU peak.
TARGETS = {"wmt17-bs": 20, "wmt17-ar": 10}
MEMORY_TARGET = 0.25
# Whole processes, as users run them (issue 25): minimum ratio of sacreBLEU's CPU time to bleukit's.
CLI_TARGETS = {"--paired-bs": 25, "--paired-ar": 30, "--confidence": 10}
# Start-up (issue 25): the 10-line command no slower than sacreBLEU's.
STARTUP_TARGET = 1


def _read(path: Path) -> List[str]:
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip() for line in f]


def load(workload: str):
    """(named systems, reference lines) of a workload."""
    if workload.startswith("wmt17"):
        folder = SHARED / "wmt17-en-de"
        return [(n, _read(folder / f"hyp.{n}.de")) for n in WMT17], _read(folder / "ref.de")
    from corpus import make_corpus

    # One reference; each system keeps ~70% of its words and substitutes the rest, so systems
    # differ from each other and every n-gram order matches.
    _, refs = make_corpus(10000, seed=SEED)
    vocab = sorted({w for r in refs[:500] for w in r.split()})
    systems = []
    for k in range(20):
        rng = random.Random(k)
        keep = 0.6 + 0.015 * k
        systems.append(
            (
                f"sys{k:02d}",
                [" ".join(w if rng.random() < keep else rng.choice(vocab) for w in r.split()) for r in refs],
            )
        )
    return systems, refs


def metric_of(workload: str) -> str:
    """The metric of a workload: its third part (``wmt17-bs-chrf``), BLEU without one."""
    parts = workload.split("-")
    return parts[2] if len(parts) > 2 else "bleu"


def worker(tool: str, workload: str) -> dict:
    systems, refs = load(workload)
    kind, metric = workload.split("-")[1], metric_of(workload)
    if tool == "bleukit" and metric != "bleu":
        import bleukit
        import bleukit.analysis.significance  # noqa: F401

        # chrF's and TER's rows: the same calls with the metric's default options.
        options = bleukit.ChrfOptions() if metric == "chrf" else bleukit.TerOptions()
        corpus = bleukit.corpus_chrf if metric == "chrf" else bleukit.corpus_ter
        if kind == "ci":

            def call():
                r = corpus(systems[0][1], refs, n_bootstrap=1000, seed=SEED)
                return [{"score": r.score, "p_value": None, "mean": r.mean, "ci": r.ci}]
        else:

            def call():
                out = bleukit.paired_test(systems, refs, method=kind, seed=SEED, options=options)
                return [{"score": r.score, "p_value": r.p_value, "mean": r.mean, "ci": r.ci} for r in out]
    elif tool == "bleukit":
        import bleukit
        import bleukit.analysis.significance  # noqa: F401

        # ``import bleukit`` is lazy: the analyses and numpy load on first use. Imported here, as
        # sacreBLEU's are below, so that these rows time the call alone on both sides (the
        # command-line table times whole processes, imports included).
        if kind == "ci":

            def call():
                r = bleukit.corpus_bleu(systems[0][1], refs, n_bootstrap=1000, seed=SEED)
                return [{"score": r.score, "p_value": None, "mean": r.mean, "ci": r.ci}]
        else:

            def call():
                out = bleukit.paired_test(systems, refs, method=kind, seed=SEED)
                return [{"score": r.score, "p_value": r.p_value, "mean": r.mean, "ci": r.ci} for r in out]
    else:
        os.environ["SACREBLEU_SEED"] = str(SEED)
        from sacrebleu.metrics import BLEU, CHRF, TER
        from sacrebleu.significance import PairedTest

        peer = {"bleu": BLEU, "chrf": CHRF, "ter": TER}[metric]
        if kind == "ci":

            def call():
                s = peer().corpus_score(systems[0][1], [refs], n_bootstrap=1000)
                return [{"score": s.score, "p_value": None, "mean": s._mean, "ci": s._ci}]
        else:

            def call():
                _, scores = PairedTest(systems, {"M": peer(references=[refs])}, None, test_type=kind, n_samples=0)()
                # (keyed by the score's name: BLEU, chrF2, TER)
                (name,) = [k for k in scores if k != "System"]
                return [{"score": r.score, "p_value": r.p_value, "mean": r.mean, "ci": r.ci} for r in scores[name]]

    gc.collect()
    peak_ok = reset_peak()
    base = status_kb("VmRSS")
    start, cpu_start = time.perf_counter(), time.process_time()
    results = call()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    peak_kb = status_kb("VmHWM") - base if peak_ok else None
    clean = [{k: (None if v is None else float(v)) for k, v in r.items()} for r in results]
    return {"seconds": seconds, "cpu": cpu, "peak_mb": None if peak_kb is None else peak_kb / 1024, "results": clean}


def measure(tool: str, workload: str, repeats: int) -> dict:
    """The fastest of ``repeats`` fresh-process runs (one if a run takes 2 s or more); the largest peak."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    best: Optional[dict] = None
    for _ in range(repeats):
        proc = subprocess.run(
            [sys.executable, __file__, "--worker", tool, workload], capture_output=True, text=True, env=env
        )
        if proc.returncode != 0:
            raise SystemExit(f"{tool} {workload} failed:\n{proc.stderr[-2000:]}")
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        if best is not None:
            out["peak_mb"] = max(out["peak_mb"] or 0, best["peak_mb"] or 0)
            out["seconds"] = min(out["seconds"], best["seconds"])
            out["cpu"] = min(out["cpu"], best["cpu"])
        best = out
        if best["cpu"] >= 2:
            break
    return best


def check_equal(ours: List[dict], theirs: List[dict]) -> List[str]:
    problems = []
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a["p_value"] != b["p_value"]:
            problems.append(f"system {i}: p-value {a['p_value']} != sacreBLEU's {b['p_value']}")
        if abs(a["score"] - b["score"]) > 1e-9:
            problems.append(f"system {i}: score {a['score']} != {b['score']}")
        for key in ("mean", "ci"):
            if (a[key] is None) != (b[key] is None) or (
                a[key] is not None and abs(a[key] - b[key]) > 2**-22 * b["mean"]
            ):
                problems.append(f"system {i}: {key} {a[key]} vs sacreBLEU's {b[key]}")
    return problems


def compile_packages(*names: str) -> None:
    """Write the packages' bytecode caches, as an installation does: an editable install run with
    ``PYTHONDONTWRITEBYTECODE`` would otherwise compile every module in every timed process."""
    import compileall
    import importlib.util

    for name in names:
        spec = importlib.util.find_spec(name)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            compileall.compile_dir(folder, quiet=1)


def cli_rows(missed: List[str]) -> None:
    """The whole command line on the 5 WMT17 systems: start-up, imports, reading, statistics, the
    test, printing. The fastest of a few runs, CPU time of the process (one BLAS thread for both).
    The first row is start-up: ``-b`` on 10 lines, where the imports are nearly all of the time."""
    import tempfile

    compile_packages("bleukit", "sacrebleu")
    folder = SHARED / "wmt17-en-de"
    systems = [str(folder / f"hyp.{name}.de") for name in WMT17]
    print("\n| command line, 5 WMT17 systems x 3004 lines | bleukit CPU (s) | sacreBLEU CPU (s) "
          "| × faster (CPU / wall) | target | load average |")
    print("|---|---:|---:|---:|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        short = []
        for source in (folder / "ref.de", Path(systems[0])):
            target_path = Path(tmp) / source.name
            target_path.write_text("".join(_read(source)[i] + "\n" for i in range(10)), encoding="utf-8")
            short.append(str(target_path))
        rows = [("start-up: `-b`, 10 lines", [short[0], "-i", short[1], "-b"], STARTUP_TARGET)]
        for flag, target in CLI_TARGETS.items():
            files = systems[:1] if flag == "--confidence" else systems
            rows.append((f"`{flag}`", [str(folder / "ref.de"), "-i", *files, flag, "-q"], target))
        env = {**ONE_THREAD, "SACREBLEU_SEED": str(SEED)}
        for label, argv, target in rows:
            ours = process_cpu([str(VENV_BIN / "bleukit"), *argv], repeats=3, env=env)
            theirs = process_cpu([str(VENV_BIN / "sacrebleu"), *argv], repeats=3 if "-b" in argv else 1, env=env)
            ratio = theirs[0] / ours[0]
            if ratio < target:
                missed.append(f"command line {label}: {ratio:.1f}x < {target}x")
            print(f"| {label} | {ours[0]:.3f} | {theirs[0]:.3f} | {ratio:.1f} / {theirs[1] / ours[1]:.1f} "
                  f"| ≥{target}× {'✓' if ratio >= target else '✗'} | {load_average()} |", flush=True)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worker", nargs=2, metavar=("TOOL", "WORKLOAD"), help=argparse.SUPPRESS)
    parser.add_argument("--scale-peers", action="store_true", help="run sacreBLEU on the 20 x 10,000 rows too")
    parser.add_argument("--repeats", type=int, default=3, help="fresh runs of a short call (fastest kept)")
    parser.add_argument("--no-cli", action="store_true", help="skip the whole-process rows")
    parser.add_argument("--metrics", default="bleu,chrf,ter",
                        help="comma-separated metrics of the WMT17 rows (bleu's also has the scaling rows)")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(*args.worker)))
        return 0
    print(machine_line("bleukit significance benchmark"))
    print(f"# peers: {versions('sacrebleu', 'numpy')}")
    metrics = args.metrics.split(",")
    rows = [
        ("wmt17-bs", True),
        ("wmt17-ar", True),
        ("wmt17-ci", True),
        ("scale-bs", args.scale_peers),
        ("scale-ar", args.scale_peers),
    ] if "bleu" in metrics else []
    # chrF's and TER's: the WMT17 rows only (no targets: they show the resampling route's speed).
    rows += [(f"wmt17-{kind}-{m}", True) for m in ("chrf", "ter") if m in metrics for kind in ("bs", "ar", "ci")]
    print(
        f"{'workload':<13} {'bleukit s':>9} {'cpu s':>6} {'MB':>6} {'sacreBLEU s':>11} {'cpu s':>6} {'MB':>6} "
        f"{'wall x':>7} {'cpu x':>7} {'memory':>7}  target (cpu x, memory)"
    )
    failed = []
    for workload, with_peer in rows:
        ours = measure("bleukit", workload, args.repeats)
        line = f"{workload:<13} {ours['seconds']:>9.3f} {ours['cpu']:>6.3f} {ours['peak_mb']:>6.1f}"
        if with_peer:
            theirs = measure("sacrebleu", workload, 1)
            wall_ratio = theirs["seconds"] / ours["seconds"]
            ratio = theirs["cpu"] / ours["cpu"]
            mem = ours["peak_mb"] / theirs["peak_mb"] if theirs["peak_mb"] else float("nan")
            target = TARGETS.get(workload)
            verdict = ""
            if target:
                ok = ratio >= target and mem <= MEMORY_TARGET
                verdict = f">= {target}x, <= 1/4 memory: {'met' if ok else 'MISSED'}"
                if not ok:
                    failed.append(workload)
            line += (
                f" {theirs['seconds']:>11.3f} {theirs['cpu']:>6.2f} {theirs['peak_mb']:>6.1f} {wall_ratio:>6.1f}x"
                f" {ratio:>6.1f}x {mem:>7.3f}  {verdict}"
            )
            for problem in check_equal(ours["results"], theirs["results"]):
                failed.append(f"{workload}: {problem}")
        print(line, flush=True)
    missed: List[str] = []
    if not args.no_cli:
        cli_rows(missed)
    print(f"\nload average at the end: {load_average()}")
    for line in missed:
        print("below target:", line)
    for f in failed:
        print("FAILED:", f)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
