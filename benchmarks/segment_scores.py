"""All pairs of 40 systems × 3,000 segments, 1,000 paired bootstrap resamples, on segment scores:
bleukit's ``compare_scores`` (one matrix product of resample counts × scores for every system, then
every pair's centred p-value at once) against a numpy loop over the pairs (the draws made once,
outside the loop, then each pair's resampled means gathered), in the same run.

    python benchmarks/segment_scores.py [--systems 40] [--segments 3000] [--samples 1000] [--loop-pairs N]

``--loop-pairs N`` times the loop on the first N pairs only and scales it to all pairs (for a quick
run); by default every pair is looped. Prints the load average: on a shared machine the ratio
measured in one run means more than the absolute times.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from pathlib import Path

for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(name, "1")  # one core each, as the command line runs

import numpy as np  # noqa: E402  (after the BLAS thread settings)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from bleukit.analysis.score_tests import compare_scores  # noqa: E402


def numpy_loop(x: np.ndarray, n_samples: int, seed: int, pairs: list) -> list:
    """The hand-rolled way: sacreBLEU's draws once, then per pair the two systems' resampled means,
    the centred absolute differences and the p-value."""
    n = x.shape[1]
    idx = np.random.default_rng(seed).integers(0, n, size=(n_samples, n))
    out = []
    for a, b in pairs:
        sa = x[a][idx].sum(axis=1) / n
        sb = x[b][idx].sum(axis=1) / n
        diffs = np.abs(sb - sa)
        centred = diffs - diffs.mean()
        observed = abs(x[a].sum() / n - x[b].sum() / n)
        out.append((int((centred > observed).sum()) + 1) / (n_samples + 1))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--systems", type=int, default=40)
    p.add_argument("--segments", type=int, default=3000)
    p.add_argument("--samples", type=int, default=1000)
    p.add_argument("--loop-pairs", type=int, default=0, help="loop over only this many pairs and scale (0: all)")
    p.add_argument("--seed", type=int, default=12345)
    args = p.parse_args()
    rng = np.random.default_rng(0)
    quality = rng.normal(0.8, 0.03, size=(args.systems, 1))
    x = np.clip(quality + rng.normal(0.0, 0.12, size=(args.systems, args.segments)), 0, 1)  # COMET-like
    scores = {f"sys{k:02d}": x[k] for k in range(args.systems)}
    pairs = list(itertools.combinations(range(args.systems), 2))
    print(f"# segment-score significance: {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
          f"numpy {np.__version__}, load average {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    print(f"# {args.systems} systems × {args.segments} segments, {len(pairs)} pairs, {args.samples} resamples, "
          "one BLAS thread")

    compare_scores(dict(list(scores.items())[:3]), n_samples=50)  # imports and first-call costs out of the timing
    t0 = time.perf_counter()
    c = compare_scores(scores, n_samples=args.samples, seed=args.seed, correction="holm")
    t_bleukit = time.perf_counter() - t0

    looped = pairs if args.loop_pairs <= 0 else pairs[: args.loop_pairs]
    t0 = time.perf_counter()
    loop_p = numpy_loop(x, args.samples, args.seed, looped)
    t_loop = (time.perf_counter() - t0) * len(pairs) / len(looped)

    ours = [c.comparison(f"sys{a:02d}", f"sys{b:02d}").p_value for a, b in looped]
    same = sum(1 for u, v in zip(ours, loop_p) if u == v)
    print(f"bleukit compare_scores (all pairs, Holm, clusters, CIs): {t_bleukit:8.3f} s")
    scaled = "" if len(looped) == len(pairs) else f" (timed on {len(looped)} pairs, scaled)"
    print(f"numpy loop over pairs (p-values only){scaled}: {t_loop:8.3f} s")
    print(f"ratio loop / bleukit: {t_loop / t_bleukit:.1f}x; identical p-values: {same}/{len(looped)} pairs")
    print(f"# load average after: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
