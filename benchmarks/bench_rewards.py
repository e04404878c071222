"""Per-call latency of the RL rewards: what a trainer waits for each time it scores completions.

verl and OpenRLHF call the reward once per sample; TRL once per batch of completions. Timed on real
WMT22 de-en outputs (one reference) for: sacreBLEU's ``sentence_bleu`` / ``CHRF(word_order=2)``
on one sentence (the reference), bleukit's ``BleuReward`` / ``ChrfReward`` called as TRL calls
them with one completion and with a batch of 16 (with and without TRL's logging hooks), and
verl's ``compute_score`` on one sample. The rewards' numbers are checked against sacreBLEU's first.
Times are the median of ``--repeat`` rounds of ``--calls`` calls each, CPU time per call
(``time.process_time``, the figure to compare on a shared machine); the load average is printed
first and last.

    python benchmarks/bench_rewards.py [--calls 300] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import sacrebleu

from bleukit.integrations.rewards import BleuReward, ChrfReward
from bleukit.integrations.verl import compute_score

DATA = Path(os.environ.get("BLEUKIT_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def lines(path: Path) -> list:
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip() for line in f]


def per_call(fn, n_calls: int, repeat: int) -> float:
    """Median CPU seconds per call over ``repeat`` rounds of ``n_calls`` calls."""
    rounds = []
    for _ in range(repeat):
        start = time.process_time()
        for i in range(n_calls):
            fn(i)
        rounds.append((time.process_time() - start) / n_calls)
    return statistics.median(rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    folder = DATA / "wmt22-de-en"
    hyps = lines(folder / "hyp.JDExploreAcademy.en")[:512]
    refs = lines(folder / "ref.A.en")[:512]
    n = len(hyps)
    sacre_bleu = sacrebleu.BLEU(effective_order=True)
    sacre_chrf = sacrebleu.CHRF(word_order=2)
    bleu, chrf = BleuReward(scale=1.0), ChrfReward(word_order=2, scale=1.0)

    def hooks():
        return {"log_metric": lambda *a: None, "log_extra": lambda *a: None}

    # the numbers first (the core's BLEU may be an ulp off sacreBLEU's where its BP is; chrF is exact)
    want = [sacre_chrf.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
    assert chrf(completions=hyps, reference=refs) == want
    worst = max(abs(a - sacre_bleu.sentence_score(h, [r]).score)
                for a, h, r in zip(bleu(completions=hyps, reference=refs), hyps, refs))
    print(f"checked {n} sentences: chrF++ == sacreBLEU, BLEU max |difference| {worst:.1e}")

    def batch(i):
        start = (i * 16) % (n - 16)
        return slice(start, start + 16)

    rows = [
        ("BLEU, one sentence", [
            ("sacreBLEU BLEU.sentence_score", lambda i: sacre_bleu.sentence_score(hyps[i % n], [refs[i % n]])),
            ("BleuReward (TRL call)", lambda i: bleu(completions=[hyps[i % n]], reference=[refs[i % n]])),
            ("verl compute_score", lambda i: compute_score("wmt", hyps[i % n], refs[i % n], None, scale=1.0)),
        ]),
        ("BLEU, batch of 16", [
            ("sacreBLEU loop", lambda i: [sacre_bleu.sentence_score(h, [r]) for h, r in
                                          zip(hyps[batch(i)], refs[batch(i)])]),
            ("BleuReward", lambda i: bleu(completions=hyps[batch(i)], reference=refs[batch(i)])),
            ("BleuReward + log hooks", lambda i: bleu(completions=hyps[batch(i)], reference=refs[batch(i)], **hooks())),
        ]),
        ("chrF++, one sentence", [
            ("sacreBLEU CHRF.sentence_score", lambda i: sacre_chrf.sentence_score(hyps[i % n], [refs[i % n]])),
            ("ChrfReward (TRL call)", lambda i: chrf(completions=[hyps[i % n]], reference=[refs[i % n]])),
            ("verl compute_score", lambda i: compute_score("wmt", hyps[i % n], refs[i % n], None, metric="chrf++")),
        ]),
        ("chrF++, batch of 16", [
            ("sacreBLEU loop", lambda i: [sacre_chrf.sentence_score(h, [r]) for h, r in
                                          zip(hyps[batch(i)], refs[batch(i)])]),
            ("ChrfReward", lambda i: chrf(completions=hyps[batch(i)], reference=refs[batch(i)])),
        ]),
    ]
    print("\n| case | contender | µs per call | × sacreBLEU |\n|---|---|---|---|")
    for case, contenders in rows:
        base = None
        for name, fn in contenders:
            fn(0)  # warm up (tokenizer tables, kernel import)
            t = per_call(fn, args.calls, args.repeat)
            base = base or t
            print(f"| {case} | {name} | {t * 1e6:.1f} | {base / t:.2f} |")
            sys.stdout.flush()
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
