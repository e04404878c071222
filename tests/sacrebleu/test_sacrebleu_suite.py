"""sacreBLEU 2.6.0's own tests, run unchanged against bleukit.sacrebleu.

The source distribution is downloaded from the package registry at test time (never kept in this
repository), its ``test/`` folder and ``pytest.ini`` are unpacked into a temporary folder, and each
test file runs in a fresh interpreter in which a plugin loaded before collection calls
``bleukit.sacrebleu.install()``: ``import sacrebleu`` (and ``sacrebleu.metrics``, ``.compat``,
``.significance``) then gives the shim. The plugin records which modules the names resolved to, and
the test checks that every one is bleukit's, so a pass cannot come from the real sacreBLEU.

Every test of the BLEU, sentence BLEU, chrF, TER (metric and tercom tokenizer) and significance files
must pass; a failure is allowed only if listed in ``INTENDED_DIFFERENCES`` with the reason the README
gives (none today). The dataset and download API files are not about scoring.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, Optional

import pytest
from shared_data import skip_unless_required

VERSION = "2.6.0"
#: sacreBLEU's test files about the metrics, and why one is skipped (None: it runs).
SUITE: Dict[str, Optional[str]] = {
    "test_bleu.py": None,
    "test_sentence_bleu.py": None,
    "test_chrf.py": None,
    "test_significance.py": None,
    "test_ter.py": None,
    "test_tokenizer_ter.py": None,
}
#: "file::test id" -> the reason, as the README's "Switching from sacreBLEU" lists it.
INTENDED_DIFFERENCES: Dict[str, str] = {}

PLUGIN = """\
import json, os, sys
import bleukit.sacrebleu

bleukit.sacrebleu.install()


def pytest_sessionfinish(session):
    modules = {k: v.__name__ for k, v in sys.modules.items() if k == "sacrebleu" or k.startswith("sacrebleu.")}
    with open(os.environ["BLEUKIT_SHIM_REPORT"], "w") as f:
        json.dump(modules, f)
"""


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    download = tmp_path_factory.mktemp("sdist")
    pip = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-binary",
            ":all:",
            "--no-deps",
            f"sacrebleu=={VERSION}",
            "-d",
            str(download),
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    archives = list(download.glob(f"sacrebleu-{VERSION}.tar.gz"))
    if pip.returncode != 0 or not archives:
        skip_unless_required(
            f"cannot download sacreBLEU {VERSION}'s sdist from the package registry: {pip.stderr[-500:]}",
            "BLEUKIT_REQUIRE_REGISTRY",
        )
    root = tmp_path_factory.mktemp("suite")
    prefix = f"sacrebleu-{VERSION}/"
    with tarfile.open(archives[0]) as tar:
        members = [
            m for m in tar.getmembers() if m.name.startswith(prefix + "test/") or m.name == prefix + "pytest.ini"
        ]
        for member in members:
            member.name = member.name[len(prefix) :]
        extra = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(root, members=members, **extra)
    (root / "_bleukit_shim.py").write_text(PLUGIN, encoding="utf-8")
    return root


@pytest.mark.slow
@pytest.mark.parametrize("test_file", list(SUITE))
def test_sacrebleu_test_file_passes_against_the_shim(suite, test_file, tmp_path):
    if SUITE[test_file]:
        pytest.skip(SUITE[test_file])
    report, junit = tmp_path / "modules.json", tmp_path / "junit.xml"
    env = {**os.environ, "PYTHONPATH": str(suite), "BLEUKIT_SHIM_REPORT": str(report)}
    env.pop("SACREBLEU_SEED", None)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "_bleukit_shim",
            "-p",
            "no:cacheprovider",
            "-q",
            f"--junitxml={junit}",
            f"test/{test_file}",
        ],
        cwd=suite,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    modules = json.loads(report.read_text(encoding="utf-8"))
    assert modules and all(name.startswith("bleukit.sacrebleu") for name in modules.values()), modules
    cases = ET.parse(junit).getroot().iter("testcase")
    outcomes = {}
    for case in cases:
        failed = any(child.tag in ("failure", "error") for child in case)
        skipped = any(child.tag == "skipped" for child in case)
        outcomes[f"{test_file}::{case.get('name')}"] = "failed" if failed else "skipped" if skipped else "passed"
    failed = {name for name, outcome in outcomes.items() if outcome == "failed"}
    assert outcomes and failed <= set(INTENDED_DIFFERENCES), run.stdout[-4000:]
    assert "skipped" not in outcomes.values(), run.stdout[-4000:]
    assert run.returncode == (1 if failed else 0), run.stdout[-4000:] + run.stderr[-2000:]
