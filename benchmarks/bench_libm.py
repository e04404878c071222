"""What exactness costs: BLEU's formula with libm's exp/log (bit-exact) against numpy's SIMD exp/log.

    python benchmarks/bench_libm.py                 # 100k sentence pairs
    python benchmarks/bench_libm.py --size 20000

sacreBLEU computes with ``math.exp``/``math.log`` (the C library's functions); numpy's own are
SIMD code that differs from them in the last bit on AVX-512 CPUs, so bleukit's formula calls the C
library through its small vector kernel (``bleukit.metrics.bleu.libm``), or ``math`` per element
when the kernel is not built. This times ``sentence_bleu_scores`` (text to scores) and the formula alone
(``score_table`` on the statistics table) three ways in this process: the kernel (what runs), numpy's
exp/log with a plain sum (what ran before: fast, not exact), and the per-element ``math`` fallback.
Best of ``--repeats`` wall times; the load average says how busy the machine was.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from unittest import mock

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import load  # noqa: E402  (the same synthetic corpus as benchmarks/run.py)


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _numpy_sum(terms):
    total = terms[0] + 0.0
    for n in range(1, terms.shape[0]):
        total = total + terms[n]
    return total


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000, help="sentence pairs")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)

    import bleukit
    from bleukit.metrics.bleu import libm
    from bleukit.metrics.bleu.formula import score_table

    hyps, refs = load("corpus-13a", args.size)
    options = bleukit.BleuOptions().sentence_level()
    table = bleukit.corpus_statistics(hyps, refs, options=options).rows
    ways = {
        "libm kernel (exact)": {},
        "numpy SIMD exp/log": {"exp": np.exp, "log": np.log, "python_sum": _numpy_sum},
        "math per element (exact)": {"_native": mock.Mock(kernel=lambda name: None)},
    }
    print(f"{len(hyps)} sentence pairs; load average {os.getloadavg()[0]:.2f}")
    print(f"{'formula':28s} {'score_table':>12s} {'sentence_bleu_scores':>16s}")
    base = None
    for name, patches in ways.items():
        with mock.patch.multiple(libm, **patches) if patches else _nothing():
            formula = best(lambda: score_table(table, options), args.repeats)
            whole = best(lambda: bleukit.sentence_bleu_scores(hyps, refs), max(1, args.repeats // 2))
        if base is None:
            base = (formula, whole)
        print(f"{name:28s} {formula * 1e3:9.1f} ms {whole * 1e3:13.1f} ms"
              f"   (x{formula / base[0]:.2f}, x{whole / base[1]:.2f} of the kernel's)")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 0


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    sys.exit(main())
