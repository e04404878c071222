"""Speed and memory of bleukit's text path against sacreBLEU, bleuscore and NLTK, on the same data.

Every measurement runs in a fresh subprocess (so peak memory is that call's own: the peak resident
set size is reset just before the call and read just after, minus the resident size before it) and
times the first call after the imports (cold, as a script scoring one file would see it). Every
peer's score is compared with bleukit's; the run fails if bleukit differs from sacreBLEU.

    python benchmarks/run.py                 # the full table (a few minutes)
    python benchmarks/run.py --quick         # 10k pairs only, about a minute
    python benchmarks/run.py --sizes 20000,100000 --only corpus,tokenizers

Ratios are peer time / bleukit time from the same run; absolute times depend on the machine and
its load, the ratios much less.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CACHE = HERE / ".cache"
SHARED = Path(os.environ.get("BLEUKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
WMT17 = ("wmt17-en-de", "hyp.LIUM-NMT.4900.de", "ref.de")
SEED = 12345

# Targets of the issue (minimum ratio of the peer's time to bleukit's).
TARGETS = {
    ("corpus-13a", 100000, "sacrebleu"): 20,
    ("corpus-13a", 100000, "bleuscore"): 6,
    ("corpus-13a", 10000, "sacrebleu"): 15,
    ("corpus-13a", 10000, "bleuscore"): 4,
    ("sentence-13a", 100000, "sacrebleu"): 30,
    ("wmt17-13a", 3004, "sacrebleu"): 10,
    **{(f"corpus-{tok}", 100000, "sacrebleu"): 10 for tok in ("intl", "zh", "char", "none")},
}


# ------------------------------------------------------------------------------------------
# data


def corpus_file(size: int) -> Path:
    """The synthetic corpus of ``size`` pairs, generated once into benchmarks/.cache."""
    path = CACHE / f"corpus-{SEED}-{size}.json"
    if not path.exists():
        sys.path.insert(0, str(HERE))
        from corpus import make_corpus

        CACHE.mkdir(exist_ok=True)
        hyps, refs = make_corpus(size, seed=SEED)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"hyps": hyps, "refs": refs}), encoding="utf-8")
        tmp.replace(path)
    return path


def load(workload: str, size: int):
    if workload.startswith("wmt17"):
        folder, hyp, ref = WMT17

        def read(name):
            with open(SHARED / folder / name, encoding="utf-8", newline="\n") as f:
                return [line.rstrip() for line in f]

        return read(hyp), read(ref)
    data = json.loads(corpus_file(size).read_text(encoding="utf-8"))
    return data["hyps"], data["refs"]


# ------------------------------------------------------------------------------------------
# the worker: one tool, one workload, one process


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM, the peak resident set size
        return True
    except OSError:
        return False


def worker(tool: str, workload: str, size: int, scores_out: Optional[str]) -> dict:
    kind, tokenize = workload.split("-", 1)
    hyps, refs = load(workload, size)
    prepared = None
    if tool == "bleukit":
        import bleukit

        if kind == "sentence":
            call = lambda: bleukit.sentence_scores(hyps, refs, tokenize=tokenize)  # noqa: E731
        else:
            call = lambda: bleukit.corpus_bleu(hyps, refs, tokenize=tokenize).score  # noqa: E731
    elif tool == "sacrebleu":
        import sacrebleu

        if kind == "sentence":
            call = lambda: [  # noqa: E731
                sacrebleu.sentence_bleu(h, [r], tokenize=tokenize).score for h, r in zip(hyps, refs)
            ]
        else:
            call = lambda: sacrebleu.corpus_bleu(hyps, [refs], tokenize=tokenize).score  # noqa: E731
    elif tool == "bleuscore":
        import bleuscore

        nested = [[r] for r in refs]
        call = lambda: 100 * bleuscore.compute(nested, hyps, max_order=4)["bleu"]  # noqa: E731
    elif tool == "nltk":
        from nltk.translate.bleu_score import corpus_bleu
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

        # NLTK has no 13a: it gets input pre-tokenized by sacreBLEU's 13a, outside the timing.
        tok = Tokenizer13a()
        prepared = ([[tok(r).split()] for r in refs], [tok(h).split() for h in hyps])
        call = lambda: 100 * corpus_bleu(*prepared)  # noqa: E731
    else:
        raise ValueError(tool)
    gc.collect()
    peak_ok = _reset_peak()
    base = _status_kb("VmRSS")
    start, cpu_start = time.perf_counter(), time.process_time()
    result = call()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    peak_kb = _status_kb("VmHWM") - base if peak_ok else None
    out = {"seconds": seconds, "cpu_seconds": cpu, "peak_mb": None if peak_kb is None else peak_kb / 1024}
    if kind == "sentence":
        import numpy as np

        np.save(scores_out, np.asarray(result, dtype=np.float64))
        out["score"] = float(np.mean(result))
    else:
        out["score"] = float(result)
    if tool == "bleukit":
        out["engine"] = bleukit.engine_name()
    return out


# ------------------------------------------------------------------------------------------
# the driver


def measure(tool: str, workload: str, size: int, short: float = 2.0, repeats: int = 5) -> dict:
    """One cold call in a fresh process; a call shorter than ``short`` seconds is measured
    ``repeats`` times (each in a fresh process) and the fastest kept, so a moment of load on a
    shared machine does not decide a ratio. Peak memory is the largest seen."""
    scores = CACHE / f"scores-{tool}-{workload}-{size}.npy"
    # Every tool single-threaded (bleuscore's Rayon pool, numpy's BLAS pool which only idles here).
    env = {**os.environ, "RAYON_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    best: Optional[dict] = None
    for attempt in range(repeats):  # noqa: B007 - read after the loop
        proc = subprocess.run(
            [sys.executable, __file__, "--worker", tool, workload, str(size), str(scores)],
            capture_output=True,
            text=True,
            env=env,
        )
        if proc.returncode != 0:
            return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"}
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        if best is None:
            best = out
        else:
            peaks = [p for p in (best["peak_mb"], out["peak_mb"]) if p is not None]
            if out["cpu_seconds"] < best["cpu_seconds"]:
                best = out
            best["peak_mb"] = max(peaks) if peaks else None
        if best["seconds"] >= short:
            break
    best["runs"] = attempt + 1
    if workload.startswith("sentence"):
        best["scores_file"] = str(scores)
    return best


def plan(sizes: List[int], only: List[str]) -> List[tuple]:
    largest = max(sizes)
    rows = []
    if "corpus" in only:
        for size in sizes:
            rows.append(("corpus-13a", size, ["bleukit", "sacrebleu", "bleuscore", "nltk"]))
    if "sentence" in only:
        rows.append(("sentence-13a", largest, ["bleukit", "sacrebleu"]))
    if "wmt17" in only and (SHARED / WMT17[0]).exists():
        rows.append(("wmt17-13a", 3004, ["bleukit", "sacrebleu", "bleuscore"]))
    if "tokenizers" in only:
        for tok in ("intl", "zh", "char", "none"):
            rows.append((f"corpus-{tok}", largest, ["bleukit", "sacrebleu"]))
    return rows


def equal(ours: dict, theirs: dict, workload: str) -> bool:
    if workload.startswith("sentence"):
        import numpy as np

        a, b = np.load(ours["scores_file"]), np.load(theirs["scores_file"])
        return a.shape == b.shape and bool(np.all(np.abs(a - b) <= 1e-9))
    return abs(ours["score"] - theirs["score"]) <= 1e-9


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="corpus sizes (pairs), comma-separated")
    parser.add_argument("--quick", action="store_true", help="10k pairs only")
    parser.add_argument(
        "--only", default="corpus,sentence,wmt17,tokenizers", help="subset of corpus,sentence,wmt17,tokenizers"
    )
    parser.add_argument("--json", help="also write the measurements to this file")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        tool, workload, size, scores = args.worker
        print(json.dumps(worker(tool, workload, int(size), scores)))
        return 0

    sizes = [10000] if args.quick else [int(s) for s in args.sizes.split(",")]
    rows = plan(sizes, args.only.split(","))
    for _, size, _ in rows:
        if size != 3004:
            corpus_file(size)
    import platform

    print(
        f"# bleukit benchmark: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}"
    )
    print()
    print(
        "| workload | pairs | tool | CPU (s) | wall (s) | peak memory (MB) | score | same score "
        "| bleukit × faster (CPU / wall) | target (CPU) |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---|---:|---|")
    results, failures, missed = [], [], []
    for workload, size, tools in rows:
        measured: Dict[str, dict] = {}
        for tool in tools:
            m = measure(tool, workload, size)
            measured[tool] = m
            ours = measured["bleukit"]
            if "error" in m:
                line = f"| {workload} | {size} | {tool} | error: {m['error']} | | | | | | |"
                if tool == "bleukit":
                    failures.append(f"{workload}: bleukit failed")
            else:
                same = "—" if tool == "bleukit" else ("yes" if equal(ours, m, workload) else "NO")
                if tool == "nltk" and same == "NO":
                    same = "no¹"
                if tool == "sacrebleu" and same == "NO":
                    failures.append(f"{workload} {size}: bleukit {ours['score']!r} != sacreBLEU {m['score']!r}")
                ratio = m["cpu_seconds"] / ours["cpu_seconds"] if "cpu_seconds" in ours else float("nan")
                wall_ratio = m["seconds"] / ours["seconds"] if "seconds" in ours else float("nan")
                target = TARGETS.get((workload, size, tool))
                verdict = "" if target is None else (f"≥{target}× ✓" if ratio >= target else f"≥{target}× ✗")
                if target is not None and ratio < target:
                    missed.append(f"{workload} {size} vs {tool}: {ratio:.1f}× < {target}×")
                peak = "n/a" if m["peak_mb"] is None else f"{m['peak_mb']:.0f}"
                engine = f" ({m['engine']})" if "engine" in m else ""
                speed = "" if tool == "bleukit" else f"{ratio:.1f} / {wall_ratio:.1f}"
                line = (
                    f"| {workload} | {size} | {tool}{engine} | {m['cpu_seconds']:.3f} | {m['seconds']:.3f} | "
                    f"{peak} | {m['score']:.6f} | {same} | {speed} | {verdict} |"
                )
            print(line, flush=True)
            results.append({"workload": workload, "size": size, "tool": tool, **m})
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    print()
    if any(r["tool"] == "nltk" for r in results):
        print(
            "¹ NLTK's corpus_bleu counts one n-gram (denominator 1, not 0) for a hypothesis shorter "
            "than n, so it differs from sacreBLEU whenever there are such hypotheses."
        )
    print(
        "Times: the first call in a fresh process after the imports (CPU time of the process and "
        "wall time); calls under 2 s are measured in 5 fresh processes and the one with the least "
        "CPU time kept. Targets are judged on CPU time, which a busy shared machine disturbs less "
        "than wall time."
    )
    for line in missed:
        print(f"below target: {line}")
    for line in failures:
        print(f"FAILED: {line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
