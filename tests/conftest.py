"""Fixtures shared by every test folder.

Constants and helpers that tests import by name (``REPO``, ``SHARED_DATA``, ``read_lines``,
``load_corpus``) live in ``shared_data.py``: a conftest is not imported by name (each folder may
have its own). ``tests/`` is on ``pythonpath``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from shared_data import REPO, SHARED_DATA


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED_DATA / "expected_scores.jsonl").exists():
        pytest.skip(f"real MT data not found at {SHARED_DATA} (CI has ../shared beside the clone)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def expected_rows(shared_data):
    with open(shared_data / "expected_scores.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _kernels_missing() -> str | None:
    """Why the native engine cannot run in this build (a compiled kernel is missing), or None."""
    from bleukit import _native, resampling
    from bleukit.metrics.bleu.kernel import KERNEL

    for module in (KERNEL, resampling.KERNEL):
        if _native.load_kernel(module) is None:
            return _native.kernel_error(module)
    return None


@pytest.fixture(params=["native", "python"])
def engine(request, monkeypatch) -> str:
    """Runs a test once per engine (``BLEUKIT_ENGINE``): the compiled kernels, then their
    pure-Python twins, which are the reference. The native run is skipped in a build without
    the kernels (``BLEUKIT_NO_NATIVE``)."""
    if request.param == "native" and _kernels_missing():
        pytest.skip(f"BLEUKIT_NO_NATIVE build ({_kernels_missing()})")
    monkeypatch.setenv("BLEUKIT_ENGINE", request.param)
    return request.param


@pytest.fixture
def each_engine(monkeypatch):
    """Both engines inside one test, where the oracle is the costly part and runs once for both:
    ``for name in each_engine(): ...`` sets ``BLEUKIT_ENGINE`` to the compiled engine (where it is
    built) and then to its pure-Python twin."""
    def engines():
        for name in ([] if _kernels_missing() else ["native"]) + ["python"]:
            monkeypatch.setenv("BLEUKIT_ENGINE", name)
            yield name

    return engines


@pytest.fixture
def sacrebleu_edits_once(monkeypatch):
    """sacreBLEU's TER edit function memoized on its word lists (a pure function of them) for the
    test, so that a module asking sacreBLEU for the same pairs again (paired tests of the same
    systems, a loop, a corpus score and all pairs of the same texts) has each pair computed once per
    worker: ``pytestmark = pytest.mark.usefixtures("sacrebleu_edits_once")``."""
    from metrics.ter.ter_oracle import memoized_edit_rate
    from sacrebleu.metrics import ter

    monkeypatch.setattr(ter, "translation_edit_rate", memoized_edit_rate)


@pytest.fixture(scope="session")
def ray_local():
    """One local Ray (2 CPUs) for the whole run: its start-up takes tens of seconds on a loaded 2-core
    machine. Tests that use it carry ``xdist_group("ray")``, so under pytest-xdist one worker starts it."""
    ray = pytest.importorskip("ray")
    pytest.importorskip("pyarrow")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    from ray.data import DataContext

    DataContext.get_current().enable_progress_bars = False
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture(scope="session")
def built_dist(tmp_path_factory):
    """The sdist and the wheel built from it (``python -m build``, no isolation: the environment's
    setuptools, no download), once for every test that checks or installs the package. Such tests
    carry ``xdist_group("package")`` so that one worker builds it."""
    pytest.importorskip("build")
    dist = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(REPO)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (sdist,) = dist.glob("bleukit-*.tar.gz")
    (wheel,) = dist.glob("bleukit-*.whl")
    return sdist, wheel
