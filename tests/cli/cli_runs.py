"""sacreBLEU's command line and bleukit's, each run in this process on the same arguments and
stdin (sacreBLEU's through real file descriptors, as it reopens stdin and stdout by number), and
``compare``, which asserts they agree: used by cli/test_cli_vs_sacrebleu.py and compat/test_spm.py."""

from __future__ import annotations

import io
import logging
import os
import re
import signal
import sys
import tempfile
from typing import List, Tuple

import pytest

from bleukit.cli import main as bleukit_main

sacrebleu_cli = pytest.importorskip("sacrebleu.sacrebleu")
# importing sacreBLEU's CLI sets SIGPIPE to its default: keep pytest's own handling
signal.signal(signal.SIGPIPE, signal.SIG_IGN) if hasattr(signal, "SIGPIPE") else None

_VERSION = re.compile(r'(version:|v:|"version": ")(bleukit-)?[0-9A-Za-z.+]+')


def normalise(text: str) -> str:
    return _VERSION.sub(r"\1V", text)


class _Fd:
    """Stands in for sys.stdin/sys.stdout: sacreBLEU reopens them by file number."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def fileno(self) -> int:
        return os.dup(self.fd)

    def isatty(self) -> bool:
        return False

    def flush(self) -> None:
        pass


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: List[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def run_sacrebleu(args: List[str], stdin: bytes = b"") -> Tuple[int, str, List[str]]:
    """(exit code, stdout, log messages) of sacreBLEU's command line, in this process."""
    logger = logging.getLogger("sacrebleu")
    handler = _Records()
    logger.addHandler(handler)
    # what sacreBLEU's logging.basicConfig(level=INFO) does unless --quiet (a no-op under pytest,
    # whose handlers are already on the root logger)
    level = logger.level
    logger.setLevel(logging.WARNING if ("--quiet" in args or "-q" in args) else logging.INFO)
    saved = sys.argv, sys.stdin, sys.stdout, os.environ.get("NO_COLOR")
    os.environ["NO_COLOR"] = "1"  # colorama would wrap sys.stdout once per call
    with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout:
        fin.write(stdin)
        fin.seek(0)
        sys.argv = ["sacrebleu", *args]
        sys.stdin, sys.stdout = _Fd(fin.fileno()), _Fd(fout.fileno())
        code = 0
        try:
            sacrebleu_cli.main()
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except Exception:  # sacreBLEU's traceback exits: status 1
            code = 1
        finally:
            reopened = sys.stdout
            sys.argv, sys.stdin, sys.stdout = saved[:3]
            if saved[3] is None:
                os.environ.pop("NO_COLOR", None)
            logger.removeHandler(handler)
            logger.setLevel(level)
        if reopened is not None and not isinstance(reopened, _Fd):
            reopened.flush()
            reopened.close()
        fout.seek(0)
        return code, fout.read().decode("utf-8"), handler.lines


def run_bleukit(args: List[str], stdin: bytes = b"") -> Tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        code = bleukit_main(args, stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    except SystemExit as e:  # argparse
        code = e.code
    return code, out.getvalue(), err.getvalue()


def compare(args: List[str], stdin: bytes = b"", messages: bool = False) -> Tuple[int, str]:
    """Run both; assert equal exit codes and (normalised) stdout; optionally equal log lines."""
    code_s, out_s, log_s = run_sacrebleu(args, stdin)
    code_b, out_b, err_b = run_bleukit(args, stdin)
    assert code_b == code_s, (args, code_s, code_b, err_b, log_s)
    assert normalise(out_b) == normalise(out_s), args
    if messages:
        ours = [line[len("bleukit: ") :] for line in err_b.splitlines()]
        assert ours == log_s, (ours, log_s)
    return code_b, out_b


def compare_stored(args: List[str], messages: bool = False) -> Tuple[int, str]:
    """``compare`` against sacreBLEU's stored answer to ``args`` (the ``cli`` stored oracle, whose
    cases write the shared data folder as ``{data}``): exit code, stdout and, with ``messages``, the
    log lines."""
    import stored_oracles
    from cli_oracle import case, in_data_folder, resolved

    with in_data_folder():
        code, out, err = run_bleukit(resolved(args))
    ours = {"code": [code], "stdout": normalise(out).splitlines()}
    if messages:
        ours["log"] = [line[len("bleukit: ") :] for line in err.splitlines()]
    stored_oracles.check("cli", case(args), ours)
    return code, out
