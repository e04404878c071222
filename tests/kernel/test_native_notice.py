"""Without the compiled kernel: one notice at install time where pip shows it, one warning per
process at run time at most, and neither when the user chose BLEUKIT_NO_NATIVE=1."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from shared_data import REPO

_NO_KERNEL = """
import sys, warnings
sys.modules["bleukit.metrics.bleu._kernel"] = None   # as if it had not been built
warnings.simplefilter("always")                # every warning shows: the count is bleukit's own
import bleukit
for _ in range(3):
    bleukit.corpus_bleu(["a b c d ."], ["a b c d ."])
    bleukit.sentence_bleu_scores(["x y"], ["x z"], tokenize="intl")
print(bleukit.engine_name())
"""


def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("BLEUKIT_NO_NATIVE", "BLEUKIT_ENGINE")}
    environment.update(env, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment, cwd=REPO, timeout=120
    )


def test_one_warning_per_process_without_the_kernel():
    proc = _python(_NO_KERNEL)
    assert proc.returncode == 0 and proc.stdout == "python\n", proc.stderr
    assert proc.stderr.count("RuntimeWarning: bleukit: the native kernel is not built") == 1, proc.stderr


def test_no_warning_when_the_user_chose_the_python_engine():
    proc = _python(_NO_KERNEL, BLEUKIT_NO_NATIVE="1")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    proc = _python(_NO_KERNEL, BLEUKIT_ENGINE="python")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


def test_no_warning_when_built_with_bleukit_no_native(tmp_path):
    """setup.py leaves a marker in a BLEUKIT_NO_NATIVE build; the installed package reads it."""
    env = {k: v for k, v in os.environ.items() if k != "BLEUKIT_NO_NATIVE"}
    for choice, build in (("1", tmp_path / "declined"), ("", tmp_path / "default")):
        out = subprocess.run(
            [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(build)],
            cwd=REPO,
            env=dict(env, BLEUKIT_NO_NATIVE=choice),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
    assert (tmp_path / "declined" / "bleukit" / "_no_native").exists()
    assert not (tmp_path / "default" / "bleukit" / "_no_native").exists()
    code = _NO_KERNEL.replace(
        "import bleukit\n", f"sys.path.insert(0, {str(tmp_path / 'declined')!r})\nimport bleukit\n", 1
    )
    proc = _python(code)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    code = _NO_KERNEL.replace(
        "import bleukit\n", f"sys.path.insert(0, {str(tmp_path / 'default')!r})\nimport bleukit\n", 1
    )
    assert "native kernel is not built" in _python(code).stderr


@pytest.mark.skipif(not hasattr(os, "setsid"), reason="needs a POSIX terminal")
def test_failed_build_notice_reaches_the_terminal_even_when_pip_captures_output(tmp_path):
    """pip pipes the build's stdout/stderr away (shown only with -v); the notice goes to /dev/tty too."""
    import pty
    import select

    master, slave = pty.openpty()
    slave_name = os.ttyname(slave)

    def own_terminal():  # the build runs in its own session whose controlling terminal is the pty
        os.setsid()
        os.close(os.open(slave_name, os.O_RDWR))

    env = {k: v for k, v in os.environ.items() if k != "BLEUKIT_NO_NATIVE"}
    env["CC"] = "false"  # a compiler that always fails
    proc = subprocess.run(
        [
            sys.executable,
            "setup.py",
            "build_ext",
            "--build-lib",
            str(tmp_path / "lib"),
            "--build-temp",
            str(tmp_path / "tmp"),
        ],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=own_terminal,
    )
    os.close(slave)
    seen = b""
    while select.select([master], [], [], 0.5)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    assert proc.returncode == 0, proc.stderr  # the install goes on without the kernel
    assert "bleukit: native kernel not built" in proc.stderr  # pip -v, --log
    assert b"bleukit: native kernel not built" in seen  # the user's terminal
    assert seen.count(b"bleukit: native kernel not built") == 1
