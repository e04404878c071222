"""What a pip user gets: a wheel built from the repository ships the evaluate metric, and the
metric loads from the installed package alone (no repository), offline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from shared_data import REPO

pytest.importorskip("evaluate")

PROBE = r"""
import json, sys
import bleukit, evaluate
metric = evaluate.load(bleukit.metric_path())
result = metric.compute(predictions=["The cat sat on the mat."], references=["The cat sat on the mat."])
print(json.dumps({"bleukit": bleukit.__file__, "path": bleukit.metric_path(), "score": result["score"],
                  "signature": result["signature"]}))
"""


pytestmark = pytest.mark.xdist_group("package")  # the session's one build (built_dist, tests/conftest.py)


@pytest.fixture(scope="module")
def wheel(built_dist) -> Path:
    return built_dist[1]


@pytest.mark.slow
def test_wheel_ships_the_metric(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in ("__init__.py", "bleu_metric.py", "hub.py", "__main__.py"):
        assert f"bleukit/evaluate_module/{module}" in names
    assert "bleu_metric.py" not in names  # the repository's top-level file is not a package module


@pytest.mark.slow
def test_wheel_ships_the_kernel_stubs(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    stubs = {"bleukit/_resample_kernel.pyi"}
    stubs |= {f"bleukit/metrics/{p.name}/_kernel.pyi" for p in (REPO / "csrc" / "metrics").iterdir() if p.is_dir()}
    assert stubs <= names


@pytest.mark.slow
def test_metric_loads_from_the_unpacked_wheel_alone(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)  # what pip install puts in site-packages
    env = dict(
        os.environ, PYTHONPATH=str(site), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_HOME=str(tmp_path / "hf")
    )
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert Path(got["bleukit"]).is_relative_to(site) and Path(got["path"]).is_relative_to(site)
    assert got["score"] == pytest.approx(100.0, abs=1e-9)
    assert got["signature"].startswith("nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|")

    # The Hub metric repository is written from the installed package too.
    out = tmp_path / "hub" / "bleukit"
    proc = subprocess.run(
        [sys.executable, "-m", "bleukit.evaluate_module", str(out), "--repo-id", "me/bleukit"],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "app.py", "bleukit.py", "requirements.txt", "wheels"]
    # ... with the package it was written from as the pure-Python wheel the Space installs
    (bundled,) = (out / "wheels").iterdir()
    names = zipfile.ZipFile(bundled).namelist()
    assert "bleukit/evaluate_module/bleu_metric.py" in names and not any(n.endswith(".so") for n in names)
