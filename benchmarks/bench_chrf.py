"""chrF / chrF++ speed: bleukit's statistics kernel against sacreBLEU (and sacrebleu-mojo), and
pairwise sentence chrF against fastchrf and a sacreBLEU loop.

Corpus rows: corpus chrF and chrF++ of WMT17 en-de system outputs against the reference at 15k,
60k and 1M pairs: the 15k real pairs (five systems x 3004 lines) repeated and shuffled (seed 0),
and, as a second kind, unique lines (each repeated pair made distinct by a numbered suffix).
bleukit is timed end to end from Python lists (table + formula) on one thread, and with
``threads=0`` (all cores; wall time means something only on an idle machine). sacreBLEU's CHRF is
timed on a subset (``--sacre-max`` pairs, 15k by default) and its time scaled by the pair count
above that, which the table says (``x`` marks an extrapolated time). sacrebleu-mojo (Python 3.12
only) runs in a subprocess of the venv given with ``--mojo-python`` (default /tmp/mojo-venv), when
it exists, on the same lines written to a temporary file; it is skipped otherwise.

Pairwise rows: N x N sentence chrF (MBR's matrix) of N German sentences sampled from the same
data, N in 256 and 1024: ``pairwise_chrf`` on one thread against ``fastchrf.pairwise_chrf``
(RAYON_NUM_THREADS=1) and ``CHRF.sentence_score`` in a loop over a sample of pairs (scaled).
Each contender's matrix is checked against ours with ``==`` before timing.

Times are the best of ``--repeat`` runs of CPU time of this process (``time.process_time``:
the figure to compare on a shared machine; threads add up) and wall time. Peak memory is the
growth of this process' peak RSS during the bleukit runs of a row (the input lists excluded). The load
average is printed first and last.

    python benchmarks/bench_chrf.py [--sizes 15000,60000,1000000] [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAYON_NUM_THREADS", "1")  # fastchrf: one thread, before it is imported

import numpy as np  # noqa: E402

from bleukit.metrics.chrf import extract  # noqa: E402
from bleukit.metrics.chrf.formula import corpus_score  # noqa: E402
from bleukit.metrics.chrf.options import ChrfOptions  # noqa: E402

DATA = Path(os.environ.get("BLEUKIT_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))

MOJO_SCRIPT = """
import json, sys, time
import sacrebleu_mojo as sm
hyps = open(sys.argv[1], encoding="utf-8").read().split("\\n")
refs = open(sys.argv[2], encoding="utf-8").read().split("\\n")
word_order = int(sys.argv[3])
best, result = None, None
for _ in range(int(sys.argv[4])):
    t = time.process_time()
    result = sm.corpus_chrf(hyps, [refs], word_order=word_order)
    e = time.process_time() - t
    best = e if best is None else min(best, e)
print(json.dumps({"cpu": best, "score": result.score, "backend": result.backend}))
"""


def wmt17_pairs():
    folder = DATA / "wmt17-en-de"
    ref = _read(folder / "ref.de")
    hyps, refs = [], []
    for f in sorted(glob.glob(str(folder / "hyp.*"))):
        hyps += _read(Path(f))
        refs += ref
    if not hyps:
        sys.exit(f"no WMT17 data under {folder} (set BLEUKIT_SHARED_DATA)")
    return hyps, refs


def _read(path: Path):
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip() for line in f]


def corpus_of(size: int, unique: bool, hyps, refs):
    rng = random.Random(0)
    order = [i % len(hyps) for i in range(size)]
    rng.shuffle(order)
    if not unique:
        return [hyps[i] for i in order], [refs[i] for i in order]
    # a distinct pair per line: the same text with the line number appended to both sides
    return [f"{hyps[i]} {k}" for k, i in enumerate(order)], [f"{refs[i]} {k}" for k, i in enumerate(order)]


def timed(fn, repeat: int):
    cpu, wall, out = [], [], None
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        out = fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return out, min(cpu), min(wall)


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak() -> float:
    """Reset the peak RSS (Linux: clear_refs 5) and return the RSS now, in MB (nan elsewhere)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return _status_mb("VmRSS")
    except OSError:
        return float("nan")


def peak_growth_mb(base: float) -> float:
    try:
        return max(0.0, _status_mb("VmHWM") - base)
    except OSError:
        return float("nan")


def ours(hyps, refs, options, threads):
    per_hyp = [[r] for r in refs]
    return corpus_score(extract.chrf_statistics(hyps, per_hyp, options, threads=threads), options)


def mojo(python: str, hyps, refs, word_order: int, repeat: int):
    if not python or not Path(python).exists():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        h, r = Path(tmp) / "h.txt", Path(tmp) / "r.txt"
        h.write_text("\n".join(hyps), encoding="utf-8")
        r.write_text("\n".join(refs), encoding="utf-8")
        proc = subprocess.run([python, "-c", MOJO_SCRIPT, str(h), str(r), str(word_order), str(repeat)],
                              capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        print(f"  sacrebleu-mojo failed: {proc.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def corpus_rows(args, hyps, refs):
    import sacrebleu.metrics as sm

    print(f"{'pairs':>9} {'kind':>7} {'metric':>7} | {'bleukit 1t':>10} {'all cores':>10} {'wall':>7} | "
          f"{'sacreBLEU':>11} {'ratio':>6} | {'mojo':>8} {'ratio':>6} | {'peak MB':>7}")
    for size in args.sizes:
        for unique in (False, True):
            h, r = corpus_of(size, unique, hyps, refs)
            for word_order in (0, 2):
                options = ChrfOptions(word_order=word_order)
                name = options.name
                base = reset_peak()
                score, cpu1, _ = timed(lambda: ours(h, r, options, 1), args.repeat)
                _, cpu_all, wall_all = timed(lambda: ours(h, r, options, 0), args.repeat)
                peak = peak_growth_mb(base)
                n_sacre = min(size, args.sacre_max)
                metric = sm.CHRF(word_order=word_order)
                their, sacre_cpu, _ = timed(lambda: metric.corpus_score(h[:n_sacre], [r[:n_sacre]]).score, 1)
                if n_sacre == size:
                    assert their == score, (their, score)
                else:
                    check = ours(h[:n_sacre], r[:n_sacre], options, 1)
                    assert their == check, (their, check)
                sacre_time = sacre_cpu * size / n_sacre
                mark = "x" if n_sacre < size else " "
                mj = mojo(args.mojo_python, h, r, word_order, 1) if size <= args.mojo_max else None
                mojo_txt = f"{mj['cpu']:8.3f} {mj['cpu'] / cpu1:6.1f}" if mj else f"{'-':>8} {'-':>6}"
                if mj and mj["score"] != score:
                    mojo_txt += f" (its score {mj['score']!r} != {score!r})"
                if mj and mj["backend"] != "native":
                    mojo_txt += f" ({mj['backend']} backend)"
                print(f"{size:>9} {'unique' if unique else 'repeat':>7} {name:>7} | {cpu1:10.3f} {cpu_all:10.3f} "
                      f"{wall_all:7.3f} | {sacre_time:10.2f}{mark} {sacre_time / cpu1:6.1f} | {mojo_txt} | {peak:7.0f}",
                      flush=True)


def pairwise_rows(args, pool):
    import sacrebleu.metrics as sm

    try:
        import fastchrf
    except ImportError:
        fastchrf = None
        print("fastchrf not installed (pip install fastchrf): its columns are empty")
    print(f"\n{'N':>5} {'metric':>7} | {'bleukit 1t':>10} {'all cores':>10} | {'fastchrf':>9} {'ratio':>6} | "
          f"{'sacreBLEU loop':>14} {'ratio':>7}")
    rng = random.Random(0)
    for n in args.pair_sizes:
        x = rng.sample(pool, n)
        for word_order in (0, 2):
            options = ChrfOptions(word_order=word_order)
            matrix, cpu1, _ = timed(lambda: extract.pairwise_chrf(x, x, options), args.repeat)
            _, cpu_all, _ = timed(lambda: extract.pairwise_chrf(x, x, options, threads=0), args.repeat)
            fast_txt = f"{'-':>9} {'-':>6}"
            if fastchrf is not None and word_order == 0:  # fastchrf has no word n-grams
                theirs, fast_cpu, _ = timed(lambda: fastchrf.pairwise_chrf([x], [x]), 1)
                assert (np.asarray(theirs[0]) == matrix).all(), "fastchrf differs"
                fast_txt = f"{fast_cpu:9.3f} {fast_cpu / cpu1:6.1f}"
            metric = sm.CHRF(word_order=word_order)
            pairs = [(rng.randrange(n), rng.randrange(n)) for _ in range(args.sacre_pairs)]
            c = time.process_time()
            for i, j in pairs:
                assert metric.sentence_score(x[i], [x[j]]).score == matrix[i, j]
            loop = (time.process_time() - c) * n * n / len(pairs)
            print(f"{n:>5} {options.name:>7} | {cpu1:10.3f} {cpu_all:10.3f} | {fast_txt} | {loop:13.1f}x "
                  f"{loop / cpu1:7.0f}", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="15000,60000,1000000")
    parser.add_argument("--pair-sizes", default="256,1024")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sacre-max", type=int, default=15000, help="most pairs sacreBLEU is timed on")
    parser.add_argument("--sacre-pairs", type=int, default=2000, help="pairs of the sacreBLEU sentence loop")
    parser.add_argument("--mojo-python", default="/tmp/mojo-venv/bin/python")
    parser.add_argument("--mojo-max", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="15k pairs, N=256, one repeat")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.pair_sizes, args.repeat = "15000", "256", 1
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.pair_sizes = [int(s) for s in args.pair_sizes.split(",")]
    if extract.engine_name() != "native":
        print("warning: the chrF kernel is not in use (pure-Python engine): ratios are not the kernel's")
    print(f"load average {os.getloadavg()}, {os.cpu_count()} cores, engine {extract.engine_name()}")
    hyps, refs = wmt17_pairs()
    corpus_rows(args, hyps, refs)
    pairwise_rows(args, hyps + refs[: len(refs) // 5])
    print(f"\nload average {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
