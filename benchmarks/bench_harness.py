"""The harnesses' bootstrap standard errors against bleukit's plug-in, measured side by side.

lm-eval 0.4.13 rescores every resample with sacreBLEU (``lm_eval.api.metrics.bootstrap_stderr``,
capped at 100 resamples for bleu/chrf/ter for that reason); ``bleukit.integrations.lm_eval`` draws
the same resamples and scores each from summed statistics rows. Both run single-process
(``DISABLE_MULTIPROC=1``) on the first LINES lines of a WMT17 en-de system; the run fails if the two
standard errors differ (after printing every row). Prints seconds, the ratio and the load average.

    python benchmarks/bench_harness.py             # about half a minute
    python benchmarks/bench_harness.py --lines 3004 --iters 100
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import SHARED  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--iters", type=int, default=100, help="resamples (lm-eval's cap for bleu/chrf is 100)")
    args = parser.parse_args()
    os.environ["DISABLE_MULTIPROC"] = "1"
    import lm_eval.api.metrics as lm_metrics

    from bleukit.integrations import lm_eval as plugin

    folder = SHARED / "wmt17-en-de"
    read = lambda p: [line.rstrip("\n") for line in open(p, encoding="utf-8")][: args.lines]  # noqa: E731
    hyps, refs = read(folder / "hyp.online-B.0.de"), read(folder / "ref.de")
    print(f"lm-eval bootstrap stderr, {len(hyps)} lines, {args.iters} resamples; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    failed = False
    for name, aggregation in (("bleu", lm_metrics.bleu), ("chrf", lm_metrics.chrf)):
        f = plugin.METRIC_FUNCTIONS[f"bleukit_{name}"]
        items = [f(references=[r], predictions=[h]) for h, r in zip(hyps, refs)]
        start = time.perf_counter()
        theirs = lm_metrics.bootstrap_stderr(aggregation, list(zip(refs, hyps)), iters=args.iters)
        t_theirs = time.perf_counter() - start
        start = time.perf_counter()
        ours = plugin.bootstrap_stderr(items, args.iters)
        t_ours = time.perf_counter() - start
        same = "equal" if ours == theirs else f"DIFFERS: bleukit {ours!r}, lm-eval {theirs!r}"
        failed = failed or ours != theirs
        print(f"{name:5s} lm-eval {t_theirs:8.3f} s  bleukit {t_ours:7.3f} s  ratio {t_theirs / t_ours:7.1f}x  "
              f"(stderr {ours:.4f}, {same})")
    start = time.perf_counter()
    plugin.bootstrap_stderr(items, 10000)
    print(f"bleukit chrf, 10000 resamples: {time.perf_counter() - start:.3f} s; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if failed:
        raise SystemExit("a standard error differs from lm-eval's")


if __name__ == "__main__":
    main()
