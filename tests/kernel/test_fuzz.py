"""The kernels' fuzz targets (tests/kernel/fuzz/fuzz_kernel.py for BLEU, fuzz_chrf.py for chrF, fuzz_ter.py
for TER) and a sanitizer build of the kernel.

- every seed of tests/kernel/fuzz/corpus (BLEU), corpus_chrf (chrF) and corpus_ter (TER) replays through its
  differential check (fast);
- a brief coverage-guided atheris run of each target from its seeds (slow; ``make fuzz`` runs them
  for ten minutes each, and is where fuzzing finds things). Brief is ``FUZZ_SECONDS`` per target
  (``BLEUKIT_FUZZ_SECONDS`` sets all): enough for the target to go through every seed and some
  thousands of mutations of them, which shows that the fuzzer, the target and the kernels run
  together, not to search. The BLEU target from its seeds (530 runs/s) reaches its edge coverage
  after about 12 s (6,500 runs; 194 → 204), so it gets 12 s; chrF's and TER's (each run scores
  with the Python reference) get 20 s: 2,449 runs from chrF's 16 seeds and 341 from TER's 6 on a
  quiet core (they still add features after 30 s: the search is ``make fuzz``'s);
- the kernel compiled with AddressSanitizer and UndefinedBehaviorSanitizer, into a temporary
  directory, running the kernel's own tests and the seeds in a subprocess (slow; marked
  ``sanitizer``: ``make test-sanitizers`` runs it, as a CI step of its own).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig

import pytest
from shared_data import REPO

from bleukit.metrics.bleu import kernel as _native
from bleukit.metrics.chrf import extract as chrf_extract
from bleukit.metrics.ter import extract as ter_extract

FUZZ = REPO / "tests" / "kernel" / "fuzz"
SEEDS = sorted((FUZZ / "corpus").iterdir())
CHRF_SEEDS = sorted((FUZZ / "corpus_chrf").iterdir())
TER_SEEDS = sorted((FUZZ / "corpus_ter").iterdir())
FUZZ_SECONDS = {name: os.environ.get("BLEUKIT_FUZZ_SECONDS", default)
                for name, default in {"fuzz_kernel": "12", "fuzz_chrf": "20", "fuzz_ter": "20"}.items()}
needs_kernel = pytest.mark.skipif(not _native.available(), reason="BLEUKIT_NO_NATIVE build")
needs_chrf_kernel = pytest.mark.skipif(not chrf_extract.available(), reason="the chrF kernel is not built")
needs_ter_kernel = pytest.mark.skipif(not ter_extract.kernel_available(), reason="the TER kernel is not built")


def _target(name: str = "fuzz_kernel"):
    spec = importlib.util.spec_from_file_location(name, FUZZ / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@needs_kernel
@pytest.mark.parametrize("seed", SEEDS, ids=[p.name for p in SEEDS])
def test_seed_corpus_replays(seed):
    _target().check(seed.read_bytes())


@needs_kernel
def test_the_target_finds_a_difference():
    """The check is not vacuous: a kernel that miscounts is caught."""
    target = _target()
    real = _native.native_text_statistics

    def off_by_one(*args, **kwargs):
        stats = real(*args, **kwargs)
        stats.rows[0, 0] += 1
        return stats

    _native.native_text_statistics = off_by_one
    try:
        with pytest.raises(AssertionError, match="kernel != reference"):
            target.check((FUZZ / "corpus" / "13a-basic").read_bytes())
    finally:
        _native.native_text_statistics = real


@needs_chrf_kernel
@pytest.mark.parametrize("seed", CHRF_SEEDS, ids=[p.name for p in CHRF_SEEDS])
def test_chrf_seed_corpus_replays(seed, monkeypatch):
    monkeypatch.delenv("BLEUKIT_ENGINE", raising=False)
    _target("fuzz_chrf").check(seed.read_bytes())


@needs_chrf_kernel
@pytest.mark.parametrize("seed", ["chrfpp-punct", "pairwise"])
def test_the_chrf_target_finds_a_difference(seed, monkeypatch):
    """The chrF check is not vacuous: a kernel that miscounts (table or pairwise rows) is caught."""
    monkeypatch.delenv("BLEUKIT_ENGINE", raising=False)
    target = _target("fuzz_chrf")
    for name in ("chrf_statistics", "pairwise_chrf_statistics"):
        real = getattr(chrf_extract, name)

        def off_by_one(*args, real=real, **kwargs):
            rows = real(*args, **kwargs)
            rows.reshape(-1)[2] += 1
            return rows

        monkeypatch.setattr(chrf_extract, name, off_by_one)
    with pytest.raises(AssertionError, match="kernel != reference"):
        target.check((FUZZ / "corpus_chrf" / seed).read_bytes())


@needs_chrf_kernel
@pytest.mark.parametrize("twin", ["value", "type"])
def test_the_chrf_target_finds_a_float32_formula_off(twin, monkeypatch):
    """The float32 formula check is not vacuous: one ulp off, or float64 where sacreBLEU's is
    float32, is caught."""
    import numpy as np

    from bleukit.metrics.chrf import float32 as formula

    monkeypatch.delenv("BLEUKIT_ENGINE", raising=False)
    real = formula.float32_sums_scores

    def off(sums, options):
        out = real(sums, options)
        if twin == "type":
            return out.astype(np.float64)
        return np.nextafter(out, np.inf).astype(out.dtype)

    monkeypatch.setattr(formula, "float32_sums_scores", off)
    with pytest.raises(AssertionError, match="float32 formula"):
        _target("fuzz_chrf").check((FUZZ / "corpus_chrf" / "chrf-basic").read_bytes())


@needs_ter_kernel
@pytest.mark.parametrize("seed", TER_SEEDS, ids=[p.name for p in TER_SEEDS])
def test_ter_seed_corpus_replays(seed, monkeypatch):
    monkeypatch.delenv("BLEUKIT_ENGINE", raising=False)
    _target("fuzz_ter").check(seed.read_bytes())


@needs_ter_kernel
def test_the_ter_target_finds_a_difference(monkeypatch):
    """The TER check is not vacuous: a kernel that miscounts edits, or splits words otherwise, is caught."""
    monkeypatch.delenv("BLEUKIT_ENGINE", raising=False)
    target = _target("fuzz_ter")
    seed = (FUZZ / "corpus_ter" / "basic").read_bytes()
    real = ter_extract.ter_statistics

    def off_by_one(*args, **kwargs):
        rows = real(*args, **kwargs)
        rows[0, 0] += 1
        return rows

    monkeypatch.setattr(ter_extract, "ter_statistics", off_by_one)
    with pytest.raises(AssertionError, match="kernel != reference"):
        target.check(seed)
    monkeypatch.setattr(ter_extract, "ter_statistics", real)

    built = ter_extract._kernel

    class Kernel:
        @staticmethod
        def words(line, *flags):
            return built.words(line, *flags)[::-1]

    monkeypatch.setattr(ter_extract, "_kernel", Kernel)
    with pytest.raises(AssertionError, match="kernel words"):
        target.check(seed)


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("target, seeds", [
    pytest.param("fuzz_chrf", "corpus_chrf", marks=needs_chrf_kernel),
    pytest.param("fuzz_ter", "corpus_ter", marks=needs_ter_kernel),
])
def test_fuzz_metric_kernel_briefly(tmp_path, target, seeds):
    pytest.importorskip("atheris", reason="atheris (the dev extra) runs the fuzz target")
    env = {k: v for k, v in os.environ.items() if k != "BLEUKIT_ENGINE"}
    proc = subprocess.run(
        [
            sys.executable,
            str(FUZZ / f"{target}.py"),
            f"-max_total_time={FUZZ_SECONDS[target]}",
            "-timeout=20",
            "-rss_limit_mb=4096",
            str(tmp_path),
            str(FUZZ / seeds),
        ],
        capture_output=True,
        text=True,
        timeout=280,
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(REPO / "src")},
    )
    tail = (proc.stdout + proc.stderr)[-4000:]
    assert proc.returncode == 0, tail
    assert "Done" in tail, tail


@needs_kernel
@pytest.mark.parametrize("name", ["exp", "log"])
def test_the_target_finds_a_last_bit_off_in_libm(name, monkeypatch):
    """The libm mode is not vacuous either: one value off by one ulp is caught."""
    import numpy as np

    from bleukit import _native as loader
    from bleukit.metrics.bleu import libm

    kernel = loader.load_kernel(libm.KERNEL)
    real = getattr(kernel, name)

    def one_ulp_off(x, out):
        real(x, out)
        finite = np.flatnonzero(np.isfinite(out) & (out != 0))
        if finite.size:
            out[finite[0]] = np.nextafter(out[finite[0]], np.inf)

    monkeypatch.setattr(kernel, name, one_ulp_off)
    with pytest.raises(AssertionError, match=f"{name}"):
        _target().check((FUZZ / "corpus" / "libm-bleu-range").read_bytes())


@needs_kernel
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_fuzz_kernel_briefly(tmp_path):
    pytest.importorskip("atheris", reason="atheris (the dev extra) runs the fuzz target")
    proc = subprocess.run(
        [
            sys.executable,
            str(FUZZ / "fuzz_kernel.py"),
            f"-max_total_time={FUZZ_SECONDS['fuzz_kernel']}",
            "-timeout=20",
            "-rss_limit_mb=4096",
            str(tmp_path),
            str(FUZZ / "corpus"),
        ],
        capture_output=True,
        text=True,
        timeout=280,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    )
    tail = (proc.stdout + proc.stderr)[-4000:]
    assert proc.returncode == 0, tail
    assert "Done" in tail, tail  # libFuzzer's closing line: the run went the whole time


def _sanitizer_runtime() -> str:
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    cc = cc.split()[0]
    if not shutil.which(cc):
        pytest.skip(f"no C compiler ({cc})")
    probe = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True, text=True)
    path = probe.stdout.strip()
    if probe.returncode != 0 or not os.path.isabs(path) or not os.path.exists(path):
        pytest.skip(f"{cc} has no AddressSanitizer runtime")
    return path


@needs_kernel
@pytest.mark.slow
@pytest.mark.sanitizer  # make test-sanitizers (a CI step), not make test
@pytest.mark.timeout(600)
def test_kernel_under_address_and_undefined_behaviour_sanitizers(tmp_path):
    libasan = _sanitizer_runtime()
    flags = "-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
    build = subprocess.run(
        [
            sys.executable,
            "setup.py",
            "-q",
            "build_ext",
            "--build-lib",
            str(tmp_path / "lib"),
            "--build-temp",
            str(tmp_path / "tmp"),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
        env={**os.environ, "CFLAGS": flags, "LDFLAGS": "-fsanitize=address,undefined"},
    )
    built = list((tmp_path / "lib" / "bleukit" / "metrics" / "bleu").glob("_kernel*.so"))
    if not built:
        pytest.skip(f"the sanitizer build failed: {(build.stdout + build.stderr)[-1500:]}")
    # The package as it is here, with the sanitizer build of every kernel in it (the engine
    # fixture runs the native engine only when all of them are there).
    package = tmp_path / "site" / "bleukit"
    shutil.copytree(REPO / "src" / "bleukit", package, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    for lib in (tmp_path / "lib" / "bleukit").rglob("*.so"):
        shutil.copy(lib, package / lib.relative_to(tmp_path / "lib" / "bleukit"))
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path / "site"),
        "LD_PRELOAD": libasan,
        # CPython itself is not instrumented: leaks at exit are its own, not the kernel's
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:allocator_may_return_null=1",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
        "BLEUKIT_PROPERTY_EXAMPLES": "30",
        "BLEUKIT_SANITIZER_RUN": "1",  # the peer's rows were compared in the plain run (test_bleu_kernel.py)
        "BLEUKIT_ENGINE": "",
    }
    tests = [
        "tests/metrics/bleu/test_bleu_kernel.py",
        "tests/kernel/test_build.py",
        "tests/kernel/test_kernel_hardening.py",
        "tests/kernel/test_fuzz.py",
        "tests/metrics/bleu/test_libm.py",
        "tests/kernel/test_kernel_modules.py",
        "tests/metrics/bleu/test_bleu_pairwise.py",
        "tests/metrics/chrf/test_chrf_kernel.py",
        "tests/metrics/ter/test_ter_kernel.py",
        "tests/analysis/test_resampling.py",
    ]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-x",
            "-m",
            "not slow",
            "-k",
            # the sanitizers watch the kernels: not the Python engine's runs ([python...], python_engine)
            "not real_data and not ctrl_c and not releases_the_gil and not build_without and not [python"
            " and not python_engine and not python_sum_on_torch and not fast[python]"
            # nor the checks of what runs around the kernels: the command line's imports (a process
            # per case; the random-table tests drive the same compiled resampling) and torch's
            # tensors (a torch import, for the formula's torch route)
            " and not imports_no_numpy and not cpu_tensors",
            *tests,
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=540,
        env=env,
    )
    out = proc.stdout + proc.stderr
    # the subprocess must really have run the sanitizer build
    assert "ERROR: AddressSanitizer" not in out and "runtime error:" not in out, out[-6000:]
    assert proc.returncode == 0 and " passed" in out, out[-6000:]
    check = subprocess.run(
        [
            sys.executable,
            "-c",
            "import bleukit.metrics.bleu._kernel as k, bleukit._resample_kernel as r, "
            "bleukit.metrics.chrf._kernel as c; "
            "print(k.__file__, r.__file__, c.__file__, 'libasan' in open('/proc/self/maps').read())",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    native, resample, chrf_where, asan_loaded = check.stdout.split()
    assert native.startswith(str(tmp_path)) and asan_loaded == "True", check.stdout + check.stderr
    assert len(built) == 1 and resample.startswith(str(tmp_path)), check.stdout
    assert chrf_where.startswith(str(tmp_path)), check.stdout + check.stderr  # the chrF tests ran on it too
