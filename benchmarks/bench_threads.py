"""Speed-up of ``threads=`` on the native kernel: corpus_bleu and sentence_bleu_scores, 1 thread vs N.

    python benchmarks/bench_threads.py                    # 1M unique pairs, 1 vs 2 threads
    python benchmarks/bench_threads.py --size 100000 --threads 1,2,4

Each configuration is timed ``--repeats`` times in this process (warm: the character table and
the corpus are loaded first) and the fastest wall time kept, with the process CPU time of that
run beside it. The speed-up is wall(1 thread) / wall(N threads); the CPU column shows the work
done (it grows a little with threads: chunking and the GIL hand-offs), and the load average says
how much of the machine other jobs took. Every threaded result must equal the one-thread result
exactly (same statistics table, same scores), or the run fails. Target of issue 25: >= 1.8x with
2 threads on 2 idle cores at 1M pairs (the load average before and after says how idle they were).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import load  # noqa: E402  (the same synthetic corpus as benchmarks/run.py)

TARGET = 1.8


def timed(fn, repeats: int):
    best = None
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        out = fn()
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        if best is None or wall < best[0]:
            best = (wall, cpu, out)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1000000, help="corpus pairs (unique synthetic text)")
    parser.add_argument("--threads", default="1,2", help="thread counts, comma-separated (first is the base)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    import bleukit
    from bleukit import BleuOptions, corpus_statistics

    if bleukit.engine_name() != "native":
        print("the native kernel is not active: threads= has nothing to speed up", file=sys.stderr)
        return 1
    hyps, refs = load("unique-13a", args.size)
    bleukit.corpus_bleu(hyps[:10], refs[:10])  # builds the character table
    counts = [int(t) for t in args.threads.split(",")]
    print(
        f"# threads= benchmark: {args.size} pairs, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} before"
    )
    print()
    print("| call | threads | wall (s) | CPU (s) | speed-up (wall) | same result | load average after |")
    print("|---|---:|---:|---:|---:|---|---|")
    failures, missed = [], []
    calls = {
        "corpus_bleu": lambda t: bleukit.corpus_bleu(hyps, refs, threads=t).score,
        "sentence_bleu_scores": lambda t: bleukit.sentence_bleu_scores(hyps, refs, threads=t),
        "corpus_statistics": lambda t: corpus_statistics(hyps, refs, options=BleuOptions(), threads=t).rows,
    }
    for name, call in calls.items():
        base_wall, base_out = None, None
        for t in counts:
            wall, cpu, out = timed(lambda: call(t), args.repeats)
            if base_wall is None:
                base_wall, base_out = wall, out
            same = bool(np.array_equal(np.asarray(out), np.asarray(base_out)))
            if not same:
                failures.append(f"{name} threads={t} differs from threads={counts[0]}")
            speedup = base_wall / wall
            # the load beside each row: two threads need both cores, which other jobs may hold
            loadavg = " ".join(f"{x:.1f}" for x in os.getloadavg())
            print(f"| {name} | {t} | {wall:.3f} | {cpu:.3f} | {speedup:.2f}× | {'yes' if same else 'NO'} | {loadavg} |",
                  flush=True)
            if t == 2 and counts[0] == 1 and args.size >= 1000000 and speedup < TARGET:
                missed.append(f"{name}: {speedup:.2f}× with 2 threads (target {TARGET}×)")
    print()
    print(f"load average {os.getloadavg()[0]:.1f} after")
    for line in missed:
        print("target missed:", line)
    for line in failures:
        print("FAILED:", line)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
