"""Building and installing the kernel is optional: without a compiler setup.py and pip still
succeed with a notice, and without the kernel bleukit runs its pure-Python engine."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from shared_data import REPO


def _run(code: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        cwd=REPO,
        timeout=120,
    )


def test_fallback_when_the_kernel_is_missing():
    # None in sys.modules makes `import bleukit.metrics.bleu._kernel` fail as an unbuilt one would.
    proc = _run(
        """
        import sys, warnings
        sys.modules["bleukit.metrics.bleu._kernel"] = None
        import bleukit
        print(bleukit.engine_name())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            print(round(bleukit.corpus_bleu(["a b c d ."], ["a b c d ."]).score, 6))
            bleukit.corpus_bleu(["x"], ["x"])
        print(len(caught), caught[0].message)
        """,
        BLEUKIT_ENGINE="",
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "python"
    assert lines[1] == "100.0"
    assert lines[2].startswith("1 bleukit: the native kernel is not built")
    proc = _run(
        """
        import sys
        sys.modules["bleukit.metrics.bleu._kernel"] = None
        import bleukit
        bleukit.corpus_bleu(["a"], ["a"])
        """,
        BLEUKIT_ENGINE="native",
    )
    assert proc.returncode != 0 and "BLEUKIT_ENGINE=native, but the native kernel is not built" in proc.stderr


def test_build_without_a_compiler_still_succeeds(tmp_path):
    """setup.py's optional build: a failing compiler gives a notice, not a failed install."""
    pytest.importorskip("setuptools", reason="building needs setuptools in this environment")
    for name in ("setup.py", "csrc"):
        src = REPO / name
        dst = tmp_path / name
        if src.is_dir():
            for f in src.rglob("*"):
                if f.is_file():
                    (dst / f.relative_to(src)).parent.mkdir(parents=True, exist_ok=True)
                    (dst / f.relative_to(src)).write_bytes(f.read_bytes())
        else:
            dst.write_bytes(src.read_bytes())
    (tmp_path / "src" / "bleukit").mkdir(parents=True)
    proc = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "CC": "/bin/false", "LDSHARED": "/bin/false"},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "bleukit: native kernel not built" in proc.stderr
    assert not list((tmp_path / "out").rglob("*.so"))


@pytest.mark.slow
def test_pip_install_without_a_compiler_falls_back(tmp_path):
    """`pip install .` of a clean tree with a broken compiler: installs, notices, runs on Python."""
    pytest.importorskip("setuptools", reason="building without isolation needs setuptools here")
    src = tmp_path / "src"
    src.mkdir()
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=REPO, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    kernel_sources = [str(p.relative_to(REPO)) for p in (REPO / "csrc").rglob("*") if p.is_file()]
    for name in ("setup.py", "src/bleukit/_native.py", *kernel_sources):  # the working copy
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_bytes((REPO / name).read_bytes())
    target = tmp_path / "site"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-v",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            ".",
        ],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "CC": "/bin/false", "LDSHARED": "/bin/false"},
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "bleukit: native kernel not built" in proc.stdout + proc.stderr
    # (the stubs ship anyway)
    assert not [p for p in target.rglob("*kernel*") if p.suffix not in (".pyi", ".py", ".pyc")]
    # The editable install of this checkout is a meta-path finder that would win over PYTHONPATH.
    check = _run(
        """
        import sys
        sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
        import bleukit
        print(bleukit.__file__)
        print(bleukit.engine_name(), round(bleukit.corpus_bleu(["a b c d ."], ["a b c d ."]).score, 6))
        """,
        PYTHONPATH=str(target),
        BLEUKIT_ENGINE="",
    )
    assert check.returncode == 0, check.stderr
    where, result = check.stdout.splitlines()
    assert where.startswith(str(target))
    assert result == "python 100.0"
