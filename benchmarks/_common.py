"""What the benchmark scripts share: where the data is, the load, memory probes, fresh processes.

- paths: ``HERE``, ``CACHE`` (generated corpora), ``SHARED`` (the real MT data, read in place);
- the machine: :func:`machine_line` (cores, Python, load average) and :func:`versions` (the peers'
  package versions, for the tables);
- memory: :func:`reset_peak` and :func:`peak_mb_above` (the peak resident set size of this process
  above a baseline, Linux's ``/proc/self/clear_refs``);
- processes: :func:`run_json` (a worker in a fresh process that prints one JSON line) and
  :func:`process_cpu` (a whole command's CPU and wall time, the fastest of a few runs);
- data: :func:`read_lines` (a segment file as a command-line scorer reads it) and
  :func:`wmt17_repeated` (real WMT17 pairs repeated to any size).

Every script prints the load average with its numbers: on a shared machine ratios measured in the
same run mean something, absolute times much less.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CACHE = HERE / ".cache"
SHARED = Path(os.environ.get("BLEUKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
WMT17 = SHARED / "wmt17-en-de"
WMT17_SYSTEMS = ["LIUM-NMT.4900", "online-B.0", "uedin-nmt.4722", "KIT.4950", "online-A.0"]
VENV_BIN = Path(sys.executable).parent

#: Every tool on one thread: bleuscore's Rayon pool, numpy's BLAS pools (which only idle here).
ONE_THREAD = {"RAYON_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, e.g. ``"2.1 1.8 1.5"``."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def machine_line(title: str) -> str:
    """One line naming the run: title, CPU, cores, Python, load average."""
    return (
        f"# {title}: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load average {load_average()}"
    )


def versions(*packages: str) -> str:
    """``name version`` of each installed package, comma-separated (``name -`` when absent)."""
    out = []
    for name in packages:
        try:
            out.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            out.append(f"{name} -")
    return ", ".join(out)


# ---------------------------------------------------------------------------------------- memory


def status_kb(field: str) -> int:
    """A ``/proc/self/status`` field in kB (``VmRSS``, ``VmHWM``)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def reset_peak() -> bool:
    """Reset this process' peak resident set size (VmHWM) to its current size; False where the
    kernel does not allow it (the peak then counts from the start of the process)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_mb_above(base_kb: int) -> float:
    """The peak resident set size since :func:`reset_peak` above ``base_kb``, in MB."""
    return (status_kb("VmHWM") - base_kb) / 1024


# ------------------------------------------------------------------------------------- processes


def child_env(env: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """The environment of a measured process: ours plus ``env``, with bytecode caching on.

    With ``PYTHONDONTWRITEBYTECODE`` set (some sandboxes and CI images set it) a source checkout
    (bleukit installed editable) compiles every module in every process, while the peers run from
    the ``.pyc`` files pip wrote at install: tens of ms charged to bleukit alone. Every tool runs
    from cached bytecode here, as after any ``pip install``.
    """
    merged = {**os.environ, **(env or {})}
    merged.pop("PYTHONDONTWRITEBYTECODE", None)
    return merged


def compile_bleukit() -> None:
    """Write bleukit's bytecode once before measuring (see :func:`child_env`), so that the first
    measured process does not compile it either (pip compiles an installed package at install)."""
    import importlib.util

    spec = importlib.util.find_spec("bleukit")
    if spec is not None and spec.submodule_search_locations:
        folder = list(spec.submodule_search_locations)[0]
        subprocess.run([sys.executable, "-m", "compileall", "-q", folder], env=child_env(), check=False,
                       capture_output=True)


def run_json(argv: Sequence[str], env: Optional[Dict[str, str]] = None, timeout: float = 3600) -> dict:
    """Run a worker (a fresh Python process) that prints one JSON object on its last line."""
    proc = subprocess.run(list(argv), capture_output=True, text=True, env=child_env(env), timeout=timeout)
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"
        return {"error": tail}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def process_cpu(
    argv: Sequence[str], repeats: int = 5, env: Optional[Dict[str, str]] = None, stdin: Optional[bytes] = None,
    cwd: Optional[Path] = None,
) -> Tuple[float, float, bytes]:
    """A whole command, ``repeats`` times: the least CPU time (user + system, the process and its
    children) and the least wall time, in seconds, and the output of the last run."""
    best_cpu = best_wall = float("inf")
    out = b""
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(
            list(argv), input=stdin, capture_output=True, env=child_env(env), cwd=cwd
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, argv))} failed: {proc.stderr.decode()[-500:]}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best_cpu, best_wall, out = min(best_cpu, cpu), min(best_wall, wall), proc.stdout
    return best_cpu, best_wall, out


# ------------------------------------------------------------------------------------------ data


def read_lines(path: Path) -> List[str]:
    """A segment file as a command-line scorer reads it (split on newlines, right-stripped)."""
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip() for line in f]


def wmt17_repeated(size: int) -> Tuple[List[str], List[str]]:
    """``size`` real pairs: the 5 WMT17 en-de systems' 3004 lines against the reference, repeated
    in order (real text whose lines recur, as in a large evaluation of many systems)."""
    ref = read_lines(WMT17 / "ref.de")
    hyps: List[str] = []
    refs: List[str] = []
    for name in WMT17_SYSTEMS:
        hyps += read_lines(WMT17 / f"hyp.{name}.de")
        refs += ref
    reps = -(-size // len(hyps))
    return (hyps * reps)[:size], (refs * reps)[:size]
