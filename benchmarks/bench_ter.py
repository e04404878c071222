"""Corpus TER: bleukit (compiled kernel, 1 and 2 threads) against sacreBLEU 2.6's TER, on real data.

    python benchmarks/bench_ter.py                      # 3k, 15k and 60k pairs, default options
    python benchmarks/bench_ter.py --options normalized,no_punct --sizes 3000
    python benchmarks/bench_ter.py --sacrebleu-sample 1000   # a shorter run

The pairs are WMT17 en-de (../shared/data, or $BLEUKIT_SHARED_DATA) against ref.de: 3k is one
system (LIUM-NMT.4900, all its 3004 pairs), 15k the five systems one after the other, 60k those
four times over, shuffled with a fixed seed.

bleukit is timed ``--repeats`` times in this process (warm) and the fastest run kept. sacreBLEU's
TER takes some 3 ms a sentence, so it runs on the whole corpus only up to ``--sacrebleu-sample``
pairs; on a larger corpus it runs on a random sample of that many pairs and its time is
extrapolated linearly (time x pairs / sample), which the output marks with "~". Its score on
what it ran must equal bleukit's on the same pairs, or the run fails. Peak memory is the peak RSS
of a fresh process that loads the corpus and then scores it single-threaded, and in parentheses
how much scoring added to the peak of loading. The load average
(``os.getloadavg()``) is printed with every line: other jobs on the machine slow both sides.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DATA = Path(os.environ.get("BLEUKIT_SHARED_DATA", REPO.parent / "shared" / "data")) / "wmt17-en-de"
SYSTEMS = ["LIUM-NMT.4900", "online-B.0", "uedin-nmt.4722", "KIT.4950", "online-A.0"]
GOAL = 100.0  # times sacreBLEU, single-threaded


def read_lines(path: Path):
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip() for line in f]


def corpus(size: int):
    """(hypotheses, references) of `size` pairs, as described in the module docstring."""
    ref = read_lines(DATA / "ref.de")
    hyps, refs = [], []
    for system in SYSTEMS:
        hyps += read_lines(DATA / f"hyp.{system}.de")
        refs += ref
    if size <= len(ref):
        return hyps[:size], refs[:size]
    pairs = list(zip(hyps, refs))
    while len(pairs) < size:
        pairs += pairs
    if size > len(SYSTEMS) * len(ref):
        random.Random(2024).shuffle(pairs)
    pairs = pairs[:size]
    return [h for h, _ in pairs], [r for _, r in pairs]


def load_text() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def bleukit_score(hyps, refs, options, threads):
    # the public call a user makes (input checks and the signature included)
    from bleukit import corpus_ter

    return corpus_ter(hyps, refs, threads=threads, **options.to_dict()).score


def fastest(fn, repeats):
    best = None
    for _ in range(repeats):
        start = time.perf_counter()
        value = fn()
        wall = time.perf_counter() - start
        if best is None or wall < best[0]:
            best = (wall, value)
    return best


def memory_child(size: int, options_text: str, threads: int) -> int:
    """Print this fresh process' peak RSS before and after scoring `size` pairs (bytes)."""
    from bleukit.metrics.ter.options import TerOptions

    options = parse_options(options_text)
    assert isinstance(options, TerOptions)
    hyps, refs = corpus(size)
    bleukit_score(hyps[:10], refs[:10], options, 1)  # imports and the kernel loaded
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    bleukit_score(hyps, refs, options, threads)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(before * 1024, after * 1024)  # ru_maxrss is in KiB on Linux
    return 0


def peak_memory(size: int, options_text: str, threads: int) -> str:
    """'peak (+growth while scoring)' in MiB, from a fresh process."""
    out = subprocess.run([sys.executable, __file__, "--memory-child", str(size), "--options", options_text,
                          "--threads", str(threads)], capture_output=True, text=True, check=True)
    before, after = (int(x) / 2**20 for x in out.stdout.split()[-2:])
    return f"{after:.0f} (+{after - before:.1f})"


def parse_options(text: str):
    from bleukit.metrics.ter.options import TER_OPTION_NAMES, TerOptions

    names = [t.strip() for t in text.split(",") if t.strip()]
    unknown = sorted(set(names) - set(TER_OPTION_NAMES))
    if unknown:
        raise SystemExit(f"unknown TER option(s) {unknown}; known: {', '.join(TER_OPTION_NAMES)}")
    return TerOptions(**{name: True for name in names})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="3000,15000,60000", help="corpus sizes in pairs, comma-separated "
                        "(3000 means the 3004 pairs of one system)")
    parser.add_argument("--options", default="", help="TER options switched on, e.g. normalized,no_punct")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sacrebleu-sample", type=int, default=3004,
                        help="largest corpus sacreBLEU scores whole; larger ones are sampled and extrapolated")
    parser.add_argument("--threads", type=int, default=2, help="the threaded run's thread count")
    parser.add_argument("--memory-child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child is not None:
        return memory_child(args.memory_child, args.options, args.threads)

    from sacrebleu.metrics import TER

    from bleukit.metrics.ter.extract import ter_engine

    if not DATA.exists():
        print(f"WMT17 data not found at {DATA} (set BLEUKIT_SHARED_DATA)", file=sys.stderr)
        return 1
    if ter_engine() != "native":
        print("note: the TER kernel is not active, bleukit runs its pure-Python reference", file=sys.stderr)
    options = parse_options(args.options)
    print(f"# corpus TER, WMT17 en-de, options {options.to_dict()}; {os.cpu_count()} cores; {load_text()}")
    print(f"# bleukit engine: {ter_engine()}; fastest of {args.repeats}; '~' marks an extrapolated sacreBLEU time")
    header = (f"{'pairs':>7} {'sacreBLEU s':>12} {'bleukit 1t s':>13} {'ratio 1t':>9} "
              f"{f'bleukit {args.threads}t s':>13} {f'ratio {args.threads}t':>9} {'peak RSS MiB 1t':>16}  load")
    print(header)
    worst = None
    for size in (int(s) for s in args.sizes.split(",")):
        size = 3004 if size == 3000 else size
        hyps, refs = corpus(size)
        bleukit_score(hyps[:10], refs[:10], options, 1)
        one_wall, one_score = fastest(lambda: bleukit_score(hyps, refs, options, 1), args.repeats)
        many_wall, many_score = fastest(lambda: bleukit_score(hyps, refs, options, args.threads), args.repeats)
        assert many_score == one_score, (many_score, one_score)
        if size <= args.sacrebleu_sample:
            sample_h, sample_r, mark = hyps, refs, " "
        else:
            picks = sorted(random.Random(size).sample(range(size), args.sacrebleu_sample))
            sample_h, sample_r, mark = [hyps[i] for i in picks], [refs[i] for i in picks], "~"
        start = time.perf_counter()
        theirs = TER(**options.to_dict()).corpus_score(sample_h, [sample_r]).score
        sacre_wall = (time.perf_counter() - start) * size / len(sample_h)
        ours = one_score if len(sample_h) == size else bleukit_score(sample_h, sample_r, options, 1)
        if ours != theirs:
            print(f"MISMATCH at {size} pairs: bleukit {ours!r} != sacreBLEU {theirs!r}", file=sys.stderr)
            return 1
        ratio_one, ratio_many = sacre_wall / one_wall, sacre_wall / many_wall
        worst = ratio_one if worst is None else min(worst, ratio_one)
        memory = peak_memory(size, args.options, 1)
        print(f"{size:>7} {mark}{sacre_wall:>11.2f} {one_wall:>13.3f} {ratio_one:>8.0f}x {many_wall:>13.3f} "
              f"{ratio_many:>8.0f}x {memory:>16}  {load_text()}", flush=True)
    print(f"# scores equal sacreBLEU's on every corpus (on its sample where marked '~'); "
          f"single-threaded ratio >= {GOAL:.0f}x: {'yes' if worst >= GOAL else 'NO'} (lowest {worst:.0f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
