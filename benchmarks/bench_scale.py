"""Rows per second of corpus statistics and of sentence-BLEU filtering at scale, one result checked
across every way of running it: one process, ``threads=2`` (when ``corpus_statistics`` has it),
Ray Data local with 2 CPUs, and ``datasets`` ``map(num_proc=2)``.

The corpus (``scale_corpus.make_rows``) is written once to Parquet files of ``--file-rows`` rows;
each runner reads them its own way, and the reading is timed apart from the scoring:

- single / threads: ``pyarrow.parquet.read_table`` per file, then ``bleukit.corpus_statistics``
  (corpus) or statistics → sentence scores → kept rows written to Parquet (filter), file by file;
- ray: ``ray.data.read_parquet(...).materialize()``, then ``integrations.ray.score_ray_dataset`` or
  ``add_sentence_bleu(...).filter(...).write_parquet(...)``;
- datasets: ``Dataset.from_parquet`` (an Arrow cache on disk), then ``integrations.datasets``
  with ``num_proc=2``, a batched ``filter`` with ``num_proc=2`` and ``to_parquet``.

"filter" keeps the pairs with sentence BLEU >= 30 and writes them out (with their score), as a
corpus-cleaning job would. "corpus" results must be equal ``BleuResult``s; "filter" results are
(rows written, sum of their ids), read back from the files, which must be equal too. Ray's start-up (``ray.init``
and a first tiny job) is reported apart.
Wall-clock rows/s depend on what else the machine runs; CPU seconds (this process and, for
``datasets``, its reaped pool workers; Ray's workers are not ours to count) give rows per
CPU-second, the per-core rate a cluster estimate multiplies.

    python benchmarks/bench_scale.py                          # 1M pairs, every runner
    python benchmarks/bench_scale.py --sizes 1000000,10000000 --runners single,ray
"""

from __future__ import annotations

import argparse
import inspect
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, List, Tuple

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

from scale_corpus import make_rows  # noqa: E402

import bleukit  # noqa: E402

THRESHOLD = 30.0  # keep pairs whose sentence BLEU is at least this
RUNNERS = ("single", "threads", "ray", "datasets")


# ------------------------------------------------------------------------------------------ data


def write_corpus(folder: Path, size: int, file_rows: int, seed: int) -> List[Path]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for k, start in enumerate(range(0, size, file_rows)):
        stop = min(size, start + file_rows)
        hyps, refs = make_rows(start, stop, seed)
        path = folder / f"part-{k:05d}.parquet"
        pq.write_table(pa.table({"id": np.arange(start, stop, dtype=np.int64), "hyp": hyps, "ref": refs}), path)
        files.append(path)
    return files


# --------------------------------------------------------------------------------------- runners


def _threads_supported() -> bool:
    return "threads" in inspect.signature(bleukit.corpus_statistics).parameters


def run_local(files: List[Path], task: str, threads: int, out: Path) -> Tuple[Any, float, float, float]:
    """One process (optionally the kernel's threads), file by file: (result, read_s, score_s, cpu_s)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    options = bleukit.BleuOptions()
    sentence = options.sentence_level()
    kw = {"threads": threads} if threads > 1 else {}
    acc = bleukit.StatisticsAccumulator(options)
    read_s = score_s = cpu_s = 0.0
    for path in files:
        t0 = time.perf_counter()
        table = pq.read_table(path)
        hyps, refs = table.column("hyp").to_pylist(), table.column("ref").to_pylist()
        t1, c1 = time.perf_counter(), time.process_time()
        stats = bleukit.corpus_statistics(hyps, refs, options=options, **kw)
        if task == "corpus":
            acc.add(stats)
        else:
            scores = bleukit.sentence_scores_from_statistics(stats, sentence)
            kept = table.append_column("bleu", pa.array(scores)).filter(pa.array(scores >= THRESHOLD))
            out.mkdir(parents=True, exist_ok=True)
            pq.write_table(kept, out / path.name)
        t2, c2 = time.perf_counter(), time.process_time()
        read_s += t1 - t0
        score_s += t2 - t1
        cpu_s += c2 - c1
    return (acc.result() if task == "corpus" else _written(out)), read_s, score_s, cpu_s


def start_ray() -> float:
    import ray

    t0 = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    from ray.data import DataContext

    DataContext.get_current().enable_progress_bars = False
    ray.data.range(2).map_batches(lambda b: b).take_all()  # workers started, Ray Data warmed up
    return time.perf_counter() - t0


def run_ray(folder: Path, task: str, out: Path) -> Tuple[Any, float, float, float]:
    import ray
    from ray.data.expressions import col

    from bleukit.integrations import ray as bleu_ray

    t0 = time.perf_counter()
    ds = ray.data.read_parquet(str(folder)).materialize()
    t1 = time.perf_counter()
    if task == "corpus":
        result = bleu_ray.score_ray_dataset(ds, "hyp", "ref")
    else:
        bleu_ray.add_sentence_bleu(ds, "hyp", "ref").filter(expr=col("bleu") >= THRESHOLD).write_parquet(str(out))
    t2 = time.perf_counter()
    if task == "filter":
        result = _written(out)
    return result, t1 - t0, t2 - t1, float("nan")  # the workers are not this process' children


def _written(out: Path) -> Tuple[int, int]:
    """(rows, sum of their ids) of the Parquet files a filter run wrote: what runs must agree on."""
    import pyarrow.parquet as pq

    ids = pq.read_table(str(out), columns=["id"]).column("id").to_numpy()
    return len(ids), int(ids.sum())


def _cpu_with_children() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_datasets(files: List[Path], task: str, cache: Path, out: Path) -> Tuple[Any, float, float, float]:
    import datasets

    from bleukit.integrations import datasets as bleu_ds

    datasets.disable_progress_bars()
    t0 = time.perf_counter()
    ds = datasets.Dataset.from_parquet([str(f) for f in files], cache_dir=str(cache))
    t1, c1 = time.perf_counter(), _cpu_with_children()
    if task == "corpus":
        result = bleu_ds.score_dataset(ds, "hyp", "ref", num_proc=2)
    else:
        scored = bleu_ds.add_sentence_bleu(ds, "hyp", "ref", num_proc=2)
        kept = scored.filter(lambda s: [x >= THRESHOLD for x in s], input_columns=["bleu"], batched=True, num_proc=2)
        out.mkdir(parents=True, exist_ok=True)
        kept.to_parquet(str(out / "kept.parquet"))
    t2, c2 = time.perf_counter(), _cpu_with_children()  # pool workers have exited and been reaped
    if task == "filter":
        result = _written(out)
    return result, t1 - t0, t2 - t1, c2 - c1


# ------------------------------------------------------------------------------------------ main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000000", help="comma-separated numbers of pairs")
    parser.add_argument("--runners", default=",".join(RUNNERS), help=f"subset of {','.join(RUNNERS)}")
    parser.add_argument("--tasks", default="corpus,filter")
    parser.add_argument("--file-rows", type=int, default=500_000, help="rows per Parquet file")
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--workdir", default=None, help="where the Parquet files and caches go (default: a temp dir)")
    args = parser.parse_args()
    runners = [r for r in args.runners.split(",") if r]
    tasks = [t for t in args.tasks.split(",") if t]
    unknown = set(runners) - set(RUNNERS) | set(tasks) - {"corpus", "filter"}
    if unknown:
        parser.error(f"unknown runner or task: {sorted(unknown)}")
    if "threads" in runners and not _threads_supported():
        print("# threads: bleukit.corpus_statistics has no threads= here; skipped")
        runners.remove("threads")
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="bleukit-scale-"))
    print(f"# engine {bleukit.engine_name()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, workdir {workdir}")
    if "ray" in runners:
        # Ray's workers import bleukit (and nothing from here) the way this process does.
        os.environ["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(HERE.parent / "src"), os.environ.get("PYTHONPATH")])
        )
        print(f"# ray start-up (ray.init + a first job): {start_ray():.1f} s")
    print("| pairs | task | runner | workers | read s | score s | rows/s | CPU s | rows/CPU-s | equal |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---|")
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            t0 = time.perf_counter()
            folder = workdir / f"corpus-{size}"
            files = write_corpus(folder, size, args.file_rows, args.seed)
            print(f"# {size} pairs generated and written in {time.perf_counter() - t0:.1f} s", flush=True)
            for task in tasks:
                reference = None
                for runner in runners:
                    out = workdir / f"kept-{size}-{runner}"
                    shutil.rmtree(out, ignore_errors=True)
                    run: Callable[[], Tuple[Any, float, float, float]] = {
                        "single": lambda: run_local(files, task, 1, out),
                        "threads": lambda: run_local(files, task, 2, out),
                        "ray": lambda: run_ray(folder, task, out),
                        "datasets": lambda: run_datasets(files, task, workdir / f"hf-{size}-{task}", out),
                    }[runner]
                    result, read_s, score_s, cpu_s = run()
                    if reference is None:
                        reference = result
                    equal = "yes" if result == reference else f"NO: {result} != {reference}"
                    workers = 1 if runner == "single" else 2
                    cpu = ("—", "—") if cpu_s != cpu_s else (f"{cpu_s:.1f}", f"{size / cpu_s:,.0f}")
                    print(
                        f"| {size:,} | {task} | {runner} | {workers} | {read_s:.1f} | {score_s:.1f} | "
                        f"{size / score_s:,.0f} | {cpu[0]} | {cpu[1]} | {equal} |",
                        flush=True,
                    )
                    if equal != "yes":
                        raise SystemExit(f"{runner} disagrees with {runners[0]} on {task} at {size} pairs")
                    shutil.rmtree(out, ignore_errors=True)
            shutil.rmtree(folder, ignore_errors=True)
            shutil.rmtree(workdir / f"hf-{size}-corpus", ignore_errors=True)
            shutil.rmtree(workdir / f"hf-{size}-filter", ignore_errors=True)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
