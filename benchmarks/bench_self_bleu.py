"""Self-BLEU of N texts (default 10,000 German sentences from the WMT17 outputs): bleukit against a
loop of sacreBLEU calls, in the same run.

- ``bleukit.self_bleu(texts)`` for each definition ("sentence", "corpus"; "pairwise" with
  ``--pairwise``: 10^8 pairs at N = 10,000);
- sacreBLEU: the "sentence" definition is ``sentence_bleu(texts[i], all other texts)`` per text,
  each call tokenizing and counting all N - 1 references again; it is timed on ``--sample`` texts
  and scaled to N (the loop itself would take hours). Its scores on the sample are checked against
  ours first (equal, or within the last bit where numpy's exp/log differ from math's).

Times are CPU seconds of this process (``time.process_time``) and wall-clock seconds, best of
``--repeat``; the load average is printed with them, since the machine may be shared.

    python benchmarks/bench_self_bleu.py [--n 10000] [--sample 5] [--repeat 1] [--pairwise]
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

import bleukit

DATA = Path(os.environ.get("BLEUKIT_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def german_texts(n: int) -> list:
    files = sorted(glob.glob(str(DATA / "wmt17-en-de" / "hyp.*")))
    if not files:
        sys.exit(f"no WMT17 data under {DATA} (set BLEUKIT_SHARED_DATA)")
    pool = []
    for f in files:
        with open(f, encoding="utf-8", newline="\n") as fh:
            pool.extend(line.rstrip() for line in fh)
    if n > len(pool):
        sys.exit(f"only {len(pool)} sentences available")
    return random.Random(0).sample(pool, n)


def timed(fn, repeat: int):
    best_cpu = best_wall = float("inf")
    out = None
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        out = fn()
        best_cpu = min(best_cpu, time.process_time() - c0)
        best_wall = min(best_wall, time.perf_counter() - w0)
    return out, best_cpu, best_wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--sample", type=int, default=5, help="texts of the sacreBLEU loop actually timed")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--pairwise", action="store_true", help="also the pairwise definition (N^2 pairs)")
    args = parser.parse_args()
    import sacrebleu

    texts = german_texts(args.n)
    print(f"N = {args.n} texts; engine {bleukit.engine_name()}; load average {os.getloadavg()}")
    ours, cpu, wall = timed(lambda: bleukit.self_bleu(texts), args.repeat)

    picked = random.Random(1).sample(range(args.n), args.sample)

    def loop():
        return [sacrebleu.sentence_bleu(texts[i], texts[:i] + texts[i + 1 :]).score for i in picked]

    theirs, s_cpu, s_wall = timed(loop, 1)
    for i, t in zip(picked, theirs):
        assert ours.scores[i] == t or abs(ours.scores[i] - t) <= 2 * np.spacing(t), (i, ours.scores[i], t)
    scale = args.n / args.sample
    print(f"{'definition':<10} {'bleukit CPU':>12} {'wall':>8}   sacreBLEU loop (scaled from {args.sample} texts)")
    print(f"{'sentence':<10} {cpu:>11.2f}s {wall:>7.2f}s   {s_cpu * scale:>9.0f}s CPU ({s_cpu * scale / cpu:,.0f}x)"
          f"   score {ours.score:.4f}")
    for definition in ["corpus"] + (["pairwise"] if args.pairwise else []):
        r, cpu_d, wall_d = timed(lambda d=definition: bleukit.self_bleu(texts, definition=d), args.repeat)
        print(f"{definition:<10} {cpu_d:>11.2f}s {wall_d:>7.2f}s   {'':>9}                score {r.score:.4f}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
