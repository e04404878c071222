"""Doctests of modules that need an optional extra skip, with the reason, where it is not installed.

The suite collects the doctests of ``src`` (``--doctest-modules``). A module such as
``integrations/ray.py`` imports its extra at import time, or its examples do, so without the extra
its doctests would fail with ModuleNotFoundError instead of saying what is missing. A new adapter
adds one row to ``NEEDS`` (and to ``SLOW`` if its examples start a runtime).
"""

from __future__ import annotations

import atexit
import fnmatch
import importlib.util
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent

#: module path (a glob, from the repository root) -> (the extra that installs it, the imports its doctests need)
NEEDS = {
    "src/bleukit/compat/torchmetrics.py": ("torch", ("torch",)),
    "src/bleukit/ids/torch_counting.py": ("torch", ("torch",)),
    "src/bleukit/evaluate_module/base.py": ("hf", ("datasets", "evaluate")),
    "src/bleukit/integrations/datasets.py": ("hf", ("datasets",)),
    "src/bleukit/integrations/openrlhf.py": ("torch", ("torch",)),
    "src/bleukit/integrations/torchmetrics.py": ("torchmetrics", ("torch", "torchmetrics")),
    "src/bleukit/integrations/ray.py": ("ray", ("ray", "pyarrow")),
    "src/bleukit/integrations/pandas.py": ("pandas", ("pandas",)),
    "src/bleukit/integrations/lm_eval.py": ("lm-eval", ("lm_eval",)),
    "src/bleukit/integrations/hub.py": ("hub", ("huggingface_hub", "yaml")),
    "src/bleukit/integrations/lighteval.py": ("lighteval", ("lighteval",)),
    "src/bleukit/integrations/transformers.py": ("hf", ("transformers",)),
    "src/bleukit/evaluate_module/bleu_metric.py": ("hf", ("datasets", "evaluate")),
    "src/bleukit/evaluate_module/hub.py": ("hf", ("datasets", "evaluate")),
}

#: doctests that start a runtime (Ray: 10-20 s), marked slow like the tests of the same adapter, and
#: kept on the worker of that adapter's tests under pytest-xdist (the group of their shared fixture)
SLOW = {"src/bleukit/integrations/ray.py": "ray"}

#: where the tests marked serial (those that drive a real Chromium) live: make test's serial run
#: collects only these (collecting the whole tree imports torch, transformers, Ray and gradio)
SERIAL_PATHS = ("tests/app/", "tests/analysis/test_html_report.py")


def _relative(path: Path) -> str | None:
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return None


def missing_extra(path: Path) -> str | None:
    """Why the doctests of ``path`` cannot run here (its extra is not installed), or None."""
    relative = _relative(path)
    if relative is None:
        return None
    for pattern, (extra, imports) in NEEDS.items():
        if fnmatch.fnmatch(relative, pattern):
            absent = [name for name in imports if importlib.util.find_spec(name) is None]
            if absent:
                return f"doctests of {relative} need {', '.join(absent)} (pip install 'bleukit[{extra}]')"
    return None


class _SkippedModule(pytest.File):
    """Stands in for a module whose extra is absent: collecting it reports one skip, with the reason."""

    def __init__(self, *, reason: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.reason = reason

    def collect(self):
        pytest.skip(self.reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    outcome = yield
    if outcome.get_result():  # the doctest plugin would import the module: skip it instead
        reason = missing_extra(file_path)
        if reason is not None:
            outcome.force_result([_SkippedModule.from_parent(parent, path=file_path, reason=reason)])


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks it adds
def pytest_collection_modifyitems(items: list) -> None:
    """Marks the doctests listed in ``SLOW``, then puts the slow tests first: pytest-xdist hands out
    work in collection order, so the long end-to-end runs start at once and the many short tests
    fill the workers' last minutes instead of one long test running alone at the end."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):  # a real Chromium: see the serial marker
            item.add_marker(pytest.mark.serial)
        if item.get_closest_marker("serial") and not (_relative(item.path) or "").startswith(SERIAL_PATHS):
            raise pytest.UsageError(f"{item.nodeid} is marked serial, but make test's serial run collects only "
                                    f"{', '.join(SERIAL_PATHS)}: add its file to SERIAL_PATHS in conftest.py")
        relative = _relative(item.path)
        if relative is None:
            continue
        for pattern, group in SLOW.items():
            if fnmatch.fnmatch(relative, pattern):
                item.add_marker(pytest.mark.slow)
                item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: slow ones first


def pytest_configure(config: pytest.Config) -> None:
    """What every test process needs, set before any test module is imported. One folder of
    evaluate's metric cache per test process: evaluate writes a computation's
    predictions to ``HF_METRICS_CACHE/<module>/default/`` under a file lock and deletes them when
    done; two processes computing the same module at once (the two xdist workers, or a second
    checkout's run) can take each other's file and fail with "another evaluation module instance is
    already using the local cache file" (seen on a loaded machine, and in CI). Every pytest process
    makes its own: the xdist workers start after the controller's configure and inherit its
    environment, so a folder the controller made (marked by ``BLEUKIT_TEST_METRICS_CACHE``) is
    replaced, not shared; a folder the user set is kept. Subprocesses a test starts inherit its
    worker's folder."""
    if "HF_METRICS_CACHE" not in os.environ or os.environ.get("BLEUKIT_TEST_METRICS_CACHE") == "1":
        os.environ["HF_METRICS_CACHE"] = folder = tempfile.mkdtemp(prefix="bleukit-hf-metrics-")
        os.environ["BLEUKIT_TEST_METRICS_CACHE"] = "1"
        atexit.register(shutil.rmtree, folder, True)
    # A run started in the background (`nohup make test &`, a script's `cmd &`) has SIGINT ignored,
    # and every process it starts inherits that: the Ctrl-C tests' subprocesses would then never see
    # the SIGINT they send themselves. Python's own handler here resets the children to the default
    # (a handled signal is reset at exec; an ignored one is not).
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Under ``--dist loadgroup``, fails the run when the ``xdist_group`` marks did not reach the
    scheduler. pytest-xdist tells its controller a test's group by appending ``@group`` to the node
    id on the worker; where pytest ignores that (pytest 9.2 with pytest-xdist 3.8,
    pytest-dev/pytest-xdist#1386) every group is spread over all workers without a word: each worker
    then starts its own Ray cluster, app server, package build and fine-tuning run."""
    if not getattr(session.config.option, "loadgroup", False):  # set on the workers of --dist loadgroup
        return
    for item in session.items:
        groups = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                         for m in item.iter_markers("xdist_group")})
        if groups and not item.nodeid.endswith("@" + "_".join(groups)):
            message = (
                f"{item.nodeid} is marked xdist_group({groups[0]!r}) but pytest-xdist could not tell the "
                f"scheduler (pytest {pytest.__version__}): install the versions pyproject.toml's dev extra "
                "pins (make install-dev), or run without --dist loadgroup"
            )
            print(f"\nERROR: {message}", file=sys.__stderr__, flush=True)  # a worker's own report is lost
            pytest.exit(message, returncode=pytest.ExitCode.USAGE_ERROR)
