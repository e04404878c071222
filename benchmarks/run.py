"""Speed and memory of bleukit's text path against sacreBLEU, bleuscore and NLTK, on the same data.

Sections (``--only``, all by default):

- ``corpus``: corpus BLEU (13a, one thread) at ``--sizes`` pairs of unique synthetic text
  (``corpus.make_corpus``) and at 100k real WMT17 pairs whose lines recur (5 systems x 3004 lines,
  repeated: sacreBLEU's tokenizer cache hits there), against sacreBLEU, bleuscore and NLTK;
- ``million``: 1M pairs, unique (``scale_corpus.make_rows``) and real repeated, against bleuscore,
  with bleukit's peak memory beyond the input strings;
- ``scale``: bleukit alone at 10k, 100k, 1M and 10M unique pairs (``--scale-sizes``): time per pair
  and peak memory, which should stay flat;
- ``sentence``, ``wmt17``, ``tokenizers``: sentence scores, the real WMT17 file, the other tokenizers;
- ``cli``: the whole ``bleukit REF -i HYP -b`` process at 100k unique pairs against sacreBLEU's
  command line and a four-line bleuscore script (read both files, score, print);
- ``startup``: the same commands on a 10-line file (the cost of starting);
- ``call``: one call, ``sentence_bleu`` (and chrF's one-sentence path) on a 25-word pair, in a loop,
  against sacreBLEU's.

Every API measurement runs in a fresh subprocess (so peak memory is that call's own: the peak
resident set size is reset just before the call and read just after, minus the resident size
before it, i.e. beyond the input strings) and times the first call after the imports (cold, as a
script scoring one file would see it). Every peer's score is compared with bleukit's; the run
fails if bleukit differs from sacreBLEU. Whole-process rows time the command (CPU of the process,
the fastest of a few runs). Every tool runs from cached bytecode, as after ``pip install``
(``_common.child_env``: an environment with ``PYTHONDONTWRITEBYTECODE`` set would otherwise charge
compiling bleukit's source checkout to every bleukit process, and to no peer).

    python benchmarks/run.py                      # every section (some minutes; 10M pairs need ~6 GB)
    python benchmarks/run.py --quick              # 10k pairs, no 1M/10M rows: about a minute
    python benchmarks/run.py --only corpus,cli --sizes 100000

Ratios are peer time / bleukit time from the same run; absolute times depend on the machine and
its load, the ratios much less.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import (  # noqa: E402
    CACHE,
    ONE_THREAD,
    VENV_BIN,
    WMT17,
    compile_bleukit,
    load_average,
    machine_line,
    peak_mb_above,
    process_cpu,
    read_lines,
    reset_peak,
    run_json,
    status_kb,
    versions,
    wmt17_repeated,
)

SEED = 12345
SECTIONS = ("corpus", "million", "scale", "sentence", "wmt17", "tokenizers", "cli", "startup", "call")

# Targets (issue 25): minimum ratio of the peer's CPU time to bleukit's.
TARGETS = {
    ("corpus-13a", 100000, "sacrebleu"): 60,
    ("unique-13a", 1000000, "bleuscore"): 10,
    ("wmt17rep-13a", 1000000, "bleuscore"): 10,
    ("sentence-13a", 100000, "sacrebleu"): 30,
    ("wmt17-13a", 3004, "sacrebleu"): 10,
    **{(f"corpus-{tok}", 100000, "sacrebleu"): 10 for tok in ("intl", "zh", "char", "none")},
}
MEMORY_TARGET_MB = 80  # bleukit's peak beyond the input strings at 1M pairs
CLI_TARGETS = {"sacrebleu": 30, "bleuscore": 6}
CALL_TARGET_US = 15


# ------------------------------------------------------------------------------------------
# data


def corpus_file(size: int) -> Path:
    """The synthetic corpus of ``size`` pairs, generated once into benchmarks/.cache."""
    path = CACHE / f"corpus-{SEED}-{size}.json"
    if not path.exists():
        from corpus import make_corpus

        CACHE.mkdir(exist_ok=True)
        hyps, refs = make_corpus(size, seed=SEED)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"hyps": hyps, "refs": refs}), encoding="utf-8")
        tmp.replace(path)
    return path


def load(workload: str, size: int) -> Tuple[List[str], List[str]]:
    """(hypotheses, references) of a workload: ``corpus-*``/``sentence-*`` synthetic unique text,
    ``unique-*`` the fast generator's unique text (any size), ``wmt17rep-*`` real repeated lines,
    ``wmt17-*`` the 3004 lines of one WMT17 system."""
    kind = workload.split("-", 1)[0]
    if kind == "wmt17":
        return read_lines(WMT17 / "hyp.LIUM-NMT.4900.de"), read_lines(WMT17 / "ref.de")
    if kind == "wmt17rep":
        return wmt17_repeated(size)
    if kind == "unique":
        from scale_corpus import make_rows

        return make_rows(0, size, SEED)
    data = json.loads(corpus_file(size).read_text(encoding="utf-8"))
    return data["hyps"], data["refs"]


# ------------------------------------------------------------------------------------------
# the worker: one tool, one workload, one process


def worker(tool: str, workload: str, size: int, scores_out: Optional[str]) -> dict:
    kind, tokenize = workload.split("-", 1)
    hyps, refs = load(workload, size)
    prepared = None
    if tool == "bleukit":
        import bleukit

        if kind == "sentence":
            call = lambda: bleukit.sentence_bleu_scores(hyps, refs, tokenize=tokenize)  # noqa: E731
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
    peak_ok = reset_peak()
    base = status_kb("VmRSS")
    start, cpu_start = time.perf_counter(), time.process_time()
    result = call()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    out = {"seconds": seconds, "cpu_seconds": cpu, "peak_mb": peak_mb_above(base) if peak_ok else None}
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
    best: Optional[dict] = None
    attempt = 0
    for attempt in range(1, repeats + 1):  # noqa: B007 - read after the loop
        out = run_json([sys.executable, __file__, "--worker", tool, workload, str(size), str(scores)], ONE_THREAD)
        if "error" in out:
            return out
        if best is None:
            best = out
        else:
            peaks = [p for p in (best["peak_mb"], out["peak_mb"]) if p is not None]
            if out["cpu_seconds"] < best["cpu_seconds"]:
                best = out
            best["peak_mb"] = max(peaks) if peaks else None
        if best["seconds"] >= short:
            break
    assert best is not None
    best["runs"] = attempt
    if workload.startswith("sentence"):
        best["scores_file"] = str(scores)
    return best


def plan(sizes: List[int], only: List[str], quick: bool) -> List[tuple]:
    largest = max(sizes)
    rows = []
    if "corpus" in only:
        for size in sizes:
            rows.append(("corpus-13a", size, ["bleukit", "sacrebleu", "bleuscore", "nltk"]))
        if (WMT17 / "ref.de").exists():
            rows.append(("wmt17rep-13a", largest, ["bleukit", "sacrebleu", "bleuscore"]))
    if "million" in only and not quick:
        rows.append(("unique-13a", 1000000, ["bleukit", "bleuscore"]))
        if (WMT17 / "ref.de").exists():
            rows.append(("wmt17rep-13a", 1000000, ["bleukit", "bleuscore"]))
    if "sentence" in only:
        rows.append(("sentence-13a", largest, ["bleukit", "sacrebleu"]))
    if "wmt17" in only and (WMT17 / "ref.de").exists():
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


def api_tables(rows: List[tuple], failures: List[str], missed: List[str], results: List[dict]) -> None:
    print(
        "| workload | pairs | tool | CPU (s) | wall (s) | peak memory (MB) | score | same score "
        "| bleukit × faster (CPU / wall) | target (CPU) |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---|---:|---|")
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
                if tool == "bleukit" and size >= 1000000 and m["peak_mb"] is not None:
                    ok = m["peak_mb"] <= MEMORY_TARGET_MB
                    verdict = f"≤{MEMORY_TARGET_MB} MB {'✓' if ok else '✗'}"
                    if not ok:
                        missed.append(f"{workload} {size}: bleukit peak {m['peak_mb']:.0f} MB > {MEMORY_TARGET_MB} MB")
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
    if any(r["tool"] == "nltk" for r in results):
        print(
            "\n¹ NLTK's corpus_bleu counts one n-gram (denominator 1, not 0) for a hypothesis shorter "
            "than n, so it differs from sacreBLEU whenever there are such hypotheses."
        )
    print(
        "\nTimes: the first call in a fresh process after the imports (CPU time of the process and "
        "wall time); calls under 2 s are measured in 5 fresh processes and the one with the least "
        "CPU time kept. Peak memory: beyond the input strings. Targets are judged on CPU time, "
        "which a busy shared machine disturbs less than wall time."
    )


def scale_table(sizes: List[int], results: List[dict]) -> None:
    """bleukit alone: time per pair and peak memory from 10k to 10M pairs (flat is the goal)."""
    print("\n| pairs (unique) | CPU (s) | µs per pair (CPU) | wall (s) | peak memory beyond the inputs (MB) "
          "| load average after |")
    print("|---:|---:|---:|---:|---:|---|")
    for size in sizes:
        m = measure("bleukit", "unique-13a", size)
        if "error" in m:
            print(f"| {size:,} | error: {m['error']} | | | | |")
            continue
        # the load beside each row: a 10M row runs minutes after the 10k one, on a shared machine
        print(
            f"| {size:,} | {m['cpu_seconds']:.3f} | {1e6 * m['cpu_seconds'] / size:.2f} | {m['seconds']:.3f} | "
            f"{m['peak_mb']:.1f} | {load_average()} |",
            flush=True,
        )
        results.append({"workload": "scale", "size": size, "tool": "bleukit", **m})


# ------------------------------------------------------------------------------------------
# whole processes: the command line and its start-up

BLEUSCORE_SCRIPT = """\
import sys, bleuscore
hyps = open(sys.argv[1], encoding="utf-8").read().splitlines()
refs = open(sys.argv[2], encoding="utf-8").read().splitlines()
print(100 * bleuscore.compute([[r] for r in refs], hyps, max_order=4)["bleu"])
"""


def _commands(hyp: Path, ref: Path, folder: Path) -> Dict[str, List[str]]:
    script = folder / "bleuscore_script.py"
    script.write_text(BLEUSCORE_SCRIPT, encoding="utf-8")
    return {
        "bleukit": [str(VENV_BIN / "bleukit"), str(ref), "-i", str(hyp), "-b"],
        "sacrebleu": [str(VENV_BIN / "sacrebleu"), str(ref), "-i", str(hyp), "-b"],
        "bleuscore": [sys.executable, str(script), str(hyp), str(ref)],
    }


def cli_table(size: int, missed: List[str], failures: List[str], startup: bool) -> None:
    """The whole command: ``size`` unique pairs (``cli``), or 10 lines (``startup``)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if startup:
            hyps, refs = read_lines(WMT17 / "hyp.LIUM-NMT.4900.de")[:10], read_lines(WMT17 / "ref.de")[:10]
        else:
            hyps, refs = load("corpus-13a", size)
        hyp, ref = folder / "hyp.txt", folder / "ref.txt"
        hyp.write_text("\n".join(hyps) + "\n", encoding="utf-8")
        ref.write_text("\n".join(refs) + "\n", encoding="utf-8")
        commands = _commands(hyp, ref, folder)
        tools = ["bleukit", "sacrebleu"] if startup else ["bleukit", "sacrebleu", "bleuscore"]
        repeats = 11 if startup else 3
        measured = {}
        for tool in tools:
            measured[tool] = process_cpu(commands[tool], repeats=1 if tool == "sacrebleu" and not startup else repeats,
                                         env=ONE_THREAD)
    ours = measured["bleukit"]
    what = "10 lines (start-up)" if startup else f"{size:,} unique pairs"
    print(f"\n| command, {what} | CPU (s) | wall (s) | score | bleukit × faster (CPU / wall) | target |")
    print("|---|---:|---:|---:|---:|---|")
    for tool in tools:
        cpu, wall, out = measured[tool]
        score = float(out.split()[0])
        if tool == "sacrebleu" and abs(score - float(ours[2].split()[0])) > 1e-9:
            failures.append(f"command line: bleukit {ours[2]!r} != sacreBLEU {out!r}")
        ratio = cpu / ours[0]
        target = 1 if startup and tool == "sacrebleu" else (None if startup else CLI_TARGETS.get(tool))
        verdict = "" if target is None else (f"≥{target}× {'✓' if ratio >= target else '✗'}")
        if target is not None and ratio < target:
            missed.append(f"command line ({what}) vs {tool}: {ratio:.2f}× < {target}×")
        speed = "" if tool == "bleukit" else f"{ratio:.2f} / {wall / ours[1]:.2f}"
        name = {"bleuscore": "bleuscore (4-line script)"}.get(tool, tool)
        print(f"| {name} | {cpu:.3f} | {wall:.3f} | {score:.2f} | {speed} | {verdict} |", flush=True)
    print(
        "\nWhole processes (interpreter start-up, imports, reading the files, scoring, printing): "
        f"CPU time of the process, the fastest of {repeats} runs (sacreBLEU's 100k run once)."
    )


# ------------------------------------------------------------------------------------------
# one call at a time

CALL_SCRIPT = """\
import json, sys, time
what, n = sys.argv[1], int(sys.argv[2])
h = ("The quick brown fox jumps over the lazy dog , while the old cat sleeps on the warm mat near the door of the"
     " house .")
r = ("A quick brown fox jumped over a lazy dog while the old cat slept on a warm mat by the door of the house"
     " today .")
if what == "bleukit":
    import bleukit
    call = lambda: bleukit.sentence_bleu(h, [r]).score
elif what == "sacrebleu":
    import sacrebleu
    call = lambda: sacrebleu.sentence_bleu(h, [r]).score
elif what == "bleukit-chrf":
    import bleukit
    call = lambda: bleukit.sentence_chrf(h, [r]).score
elif what == "sacrebleu-chrf":
    import sacrebleu
    call = lambda: sacrebleu.sentence_chrf(h, [r]).score
elif what == "shim":  # import bleukit.sacrebleu as sacrebleu: the one-line switch
    import bleukit.sacrebleu as shim
    call = lambda: shim.sentence_bleu(h, [r]).score
elif what == "shim-chrf":
    import bleukit.sacrebleu as shim
    call = lambda: shim.sentence_chrf(h, [r]).score
elif what == "reward":  # verl's single form: one sample per call
    from bleukit.integrations.verl import compute_score
    call = lambda: compute_score("wmt", h, r, None, scale=1.0)["score"]
elif what == "reward-chrf":
    from bleukit.integrations.verl import compute_score
    call = lambda: compute_score("wmt", h, r, None, metric="chrf", scale=1.0)["score"]
score = call()
best = float("inf")
for _ in range(7):
    start = time.process_time()
    for _ in range(n):
        call()
    best = min(best, time.process_time() - start)
print(json.dumps({"us": 1e6 * best / n, "score": score, "words": len(h.split())}))
"""


def call_table(missed: List[str], failures: List[str]) -> None:
    print("\n| one call, 25-word pair | µs per call (CPU) | score | × faster than sacreBLEU | target |")
    print("|---|---:|---:|---:|---|")
    rows = (
        ("bleukit", "sacrebleu", "bleukit.sentence_bleu", True),
        ("shim", "sacrebleu", "bleukit.sacrebleu.sentence_bleu", True),
        ("reward", "sacrebleu", "verl compute_score (BLEU)", False),
        ("bleukit-chrf", "sacrebleu-chrf", "bleukit.sentence_chrf", True),
        ("shim-chrf", "sacrebleu-chrf", "bleukit.sacrebleu.sentence_chrf", True),
        ("reward-chrf", "sacrebleu-chrf", "verl compute_score (chrF)", False),
    )
    peers: Dict[str, dict] = {}
    for ours_name, theirs_name, label, targeted in rows:
        ours = run_json([sys.executable, "-c", CALL_SCRIPT, ours_name, "20000"], ONE_THREAD)
        if theirs_name not in peers:
            peers[theirs_name] = run_json([sys.executable, "-c", CALL_SCRIPT, theirs_name, "2000"], ONE_THREAD)
            theirs = peers[theirs_name]
            if "error" not in theirs:
                name = "sacrebleu.sentence_chrf" if theirs_name.endswith("chrf") else "sacrebleu.sentence_bleu"
                print(f"| {name} | {theirs['us']:.1f} | {theirs['score']:.4f} | 1.0 | |", flush=True)
        theirs = peers[theirs_name]
        if "error" in ours or "error" in theirs:
            print(f"| {label} | error: {ours.get('error') or theirs.get('error')} | | | |")
            continue
        if ours["score"] != theirs["score"]:
            failures.append(f"{label}: bleukit {ours['score']!r} != sacreBLEU {theirs['score']!r}")
        ok = ours["us"] <= CALL_TARGET_US
        if targeted and not ok:
            missed.append(f"{label}: {ours['us']:.1f} µs > {CALL_TARGET_US} µs")
        target = f"≤{CALL_TARGET_US} µs {'✓' if ok else '✗'}" if targeted else ""
        print(f"| {label} | {ours['us']:.1f} | {ours['score']:.4f} | {theirs['us'] / ours['us']:.1f} | {target} |",
              flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="corpus sizes (pairs), comma-separated")
    parser.add_argument("--scale-sizes", default="10000,100000,1000000,10000000", help="the scale table's sizes")
    parser.add_argument("--quick", action="store_true", help="10k pairs, no 1M/10M rows")
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"subset of {','.join(SECTIONS)}")
    parser.add_argument("--json", help="also write the API measurements to this file")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        tool, workload, size, scores = args.worker
        print(json.dumps(worker(tool, workload, int(size), scores)))
        return 0

    sizes = [10000] if args.quick else [int(s) for s in args.sizes.split(",")]
    only = args.only.split(",")
    unknown = set(only) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown section(s): {', '.join(sorted(unknown))}")
    rows = plan(sizes, only, args.quick)
    for workload, size, _ in rows:
        if workload.startswith(("corpus", "sentence")):
            corpus_file(size)
    compile_bleukit()
    print(machine_line("bleukit benchmark"))
    print(f"# peers: {versions('sacrebleu', 'bleuscore', 'nltk')}; bleukit {versions('bleukit').split()[-1]}")
    print()
    results: List[dict] = []
    failures: List[str] = []
    missed: List[str] = []
    if rows:
        api_tables(rows, failures, missed, results)
    if "scale" in only and not args.quick:
        scale_table([int(s) for s in args.scale_sizes.split(",")], results)
    if "cli" in only:
        cli_table(100000 if not args.quick else 10000, missed, failures, startup=False)
    if "startup" in only and (WMT17 / "ref.de").exists():
        cli_table(10, missed, failures, startup=True)
    if "call" in only:
        call_table(missed, failures)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(f"\nload average at the end: {load_average()} ({os.cpu_count()} cores)")
    for line in missed:
        print(f"below target: {line}")
    for line in failures:
        print(f"FAILED: {line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
