"""What a bleukit command does to its process: a closed pipe ends it quietly, and it ends without the
interpreter's teardown (:func:`exit_now`). Used by the command lines (``bleukit``,
``bleukit-scores``) and by ``python -m bleukit``'s quick ``--echo``; nothing here is imported by
the library.

>>> default_sigpipe()  # idempotent; nothing to see in a test
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (about 5 ms of a --echo run)
if TYPE_CHECKING:
    from typing import IO, NoReturn

__all__ = ["default_sigpipe", "utf8_output", "closed_pipe", "exit_now"]


def default_sigpipe() -> None:
    """As sacreBLEU: a closed pipe (``bleukit ... | head``) ends the process quietly, no traceback."""
    # `signal` is a wrapper over CPython's `_signal` that makes enums of the signals (~0.5 ms of a
    # run), so that is called where it exists.
    try:
        try:
            from _signal import SIG_DFL, SIGPIPE, signal
        except ImportError:
            from signal import SIG_DFL, SIGPIPE, signal

        signal(SIGPIPE, SIG_DFL)
    except (ImportError, ValueError):  # no SIGPIPE on Windows; not the main thread
        pass


def utf8_output(stream: IO) -> IO:
    """``stream`` writing UTF-8, as sacreBLEU writes whatever the locale says."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    if encoding.lower().replace("-", "") != "utf8" and hasattr(stream, "reconfigure"):
        stream.reconfigure(encoding="utf-8")
    return stream


def closed_pipe() -> int:
    """The exit status after a ``BrokenPipeError``, where SIGPIPE cannot end the process
    (Windows): quiet, like a killed process (stdout goes nowhere, so the exit's flush is silent)."""
    try:
        sys.stdout = open(os.devnull, "w")
    except OSError:
        pass
    return 1


def exit_now(code: int) -> NoReturn:
    """End the process with ``code`` without the interpreter's teardown, which frees every module
    and object one by one: ~7 ms, a tenth of a ``--confidence`` run, spent on memory the system
    takes back anyway. What an exit must do still happens first: the output is flushed and the
    ``atexit`` handlers (a coverage tool's, a user's ``sitecustomize``'s) run. With another thread
    still running, or output that cannot be flushed, or under ``python -i``, it exits the usual way.
    """
    if sys.flags.inspect:
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        sys.exit(code)
    import atexit

    atexit._run_exitfuncs()
    os._exit(code)
