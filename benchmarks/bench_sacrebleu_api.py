"""sacreBLEU's Python API through bleukit.sacrebleu against sacreBLEU itself, the same calls side by side.

Rows: ``corpus_bleu`` and ``corpus_chrf`` (chrF and chrF++) of a WMT22 de-en system against its two
reference streams (1984 lines) and of a WMT17 en-de system (3004 lines, one stream);
``BLEU(references=...)`` then ``corpus_score(hyps, None)`` for the five WMT17 systems;
``sentence_bleu`` and ``sentence_chrf`` over the first ``--sentences`` lines (one call per line,
as an RL reward loop does); ``corpus_ter`` and ``sentence_ter`` on the first ``--ter-lines`` lines
of the de-en system (sacreBLEU's TER is pure Python: seconds per few hundred lines). ``--only TEXT``
runs the rows whose label contains it. Each row checks that both give the same score, then times both: best
of ``--repeat`` runs of this process' CPU time (``time.process_time``: single-threaded work, so it
is what counts on a shared machine). The load average is printed first and last.

    python benchmarks/bench_sacrebleu_api.py [--repeat 3] [--sentences 1000] [--ter-lines 300] [--only ter]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Callable, List

import sacrebleu

from bleukit import engine_name
from bleukit import sacrebleu as shim

DATA = Path(os.environ.get("BLEUKIT_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def _read(path: Path) -> List[str]:
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip() for line in f]


def _best(call: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        call()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--ter-lines", type=int, default=300)
    parser.add_argument("--only", default="", help="run only the rows whose label contains this text")
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"real MT data not found at {DATA} (set BLEUKIT_SHARED_DATA)")

    de_en = DATA / "wmt22-de-en"
    hyps2 = _read(de_en / "hyp.JDExploreAcademy.en")
    refs2 = [_read(de_en / "ref.A.en"), _read(de_en / "ref.B.en")]
    en_de = DATA / "wmt17-en-de"
    refs1 = [_read(en_de / "ref.de")]
    systems = [_read(p) for p in sorted(en_de.glob("hyp.*.de"))]
    hyps1 = systems[0]
    n, t = args.sentences, args.ter_lines

    def cached(module):
        def call():
            metric = module.BLEU(references=refs1)
            return [metric.corpus_score(h, None).score for h in systems]

        return call

    def sentences(function, hyps, refs):
        return lambda: [function(h, [r[i] for r in refs]).score for i, h in enumerate(hyps[:n])]

    rows = [
        ("corpus_bleu, 1984 lines x 2 refs", lambda m: lambda: m.corpus_bleu(hyps2, refs2).score),
        ("corpus_bleu, 3004 lines x 1 ref", lambda m: lambda: m.corpus_bleu(hyps1, refs1).score),
        ("BLEU(references=) x 5 systems", cached),
        ("corpus_chrf, 1984 lines x 2 refs", lambda m: lambda: m.corpus_chrf(hyps2, refs2).score),
        ("corpus_chrf++, 1984 lines x 2 refs", lambda m: lambda: m.corpus_chrf(hyps2, refs2, word_order=2).score),
        ("corpus_chrf, 3004 lines x 1 ref", lambda m: lambda: m.corpus_chrf(hyps1, refs1).score),
        (f"sentence_bleu x {n}", lambda m: sentences(m.sentence_bleu, hyps2, refs2)),
        (f"sentence_chrf x {n}", lambda m: sentences(m.sentence_chrf, hyps2, refs2)),
        (f"corpus_ter, {t} lines x 2 refs", lambda m: lambda: m.corpus_ter(hyps2[:t], [r[:t] for r in refs2]).score),
        (f"corpus_ter normalized, {t} lines x 2", lambda m: lambda: m.corpus_ter(
            hyps2[:t], [r[:t] for r in refs2], normalized=True).score),
        (f"sentence_ter x {t}", lambda m: lambda: [m.sentence_ter(h, [r[i] for r in refs2]).score
                                                   for i, h in enumerate(hyps2[:t])]),
    ]
    rows = [row for row in rows if args.only in row[0]]
    print(
        f"load average {os.getloadavg()}, {os.cpu_count()} cores, bleukit engine {engine_name()}, "
        f"sacreBLEU {sacrebleu.__version__}"
    )
    print(f"{'call':38s} {'sacreBLEU s':>12s} {'bleukit.sacrebleu s':>20s} {'ratio':>7s}")
    for label, make in rows:
        theirs, ours = make(sacrebleu), make(shim)
        # the same numbers first (BLEU's last bit aside until bleukit's exp/log are libm's)
        a, b = theirs(), ours()
        assert a == b or all(
            abs(x - y) <= 4 * abs(x) * 2**-52
            for x, y in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b])
        ), (label, a, b)
        t_theirs, t_ours = _best(theirs, args.repeat), _best(ours, args.repeat)
        print(f"{label:38s} {t_theirs:12.3f} {t_ours:20.3f} {t_theirs / t_ours:6.1f}x")
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
