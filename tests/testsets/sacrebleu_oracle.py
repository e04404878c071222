"""Run sacreBLEU 2.6's command line on many argument lists in ONE process (its start-up and its
cache directory, read at import, are shared): ``python sacrebleu_oracle.py < cases.json`` prints
``[{"code": int|"crash", "stdout": str}, ...]``. Each run's stdout is caught on file descriptor 1,
which sacreBLEU reopens; a traceback exit is ``"crash"`` and its exception type."""

from __future__ import annotations

import json
import os
import sys
import tempfile


class _Fd:
    """sys.stdin/sys.stdout for one run: sacreBLEU reopens them by number; a duplicate each time."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def fileno(self) -> int:
        return os.dup(self.fd)

    def flush(self) -> None:
        pass


def main() -> None:
    cases = json.load(sys.stdin)
    real_out = os.dup(1)
    os.environ["NO_COLOR"] = "1"
    import sacrebleu.sacrebleu as cli

    results = []
    for argv in cases:
        with tempfile.TemporaryFile() as fout, open(os.devnull, "rb") as fin:
            sys.stdout, sys.stdin = _Fd(fout.fileno()), _Fd(fin.fileno())  # type: ignore[assignment]
            sys.argv = ["sacrebleu", *argv]
            code: object = 0
            try:
                cli.main()
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except Exception as e:  # noqa: BLE001 - sacreBLEU's crashes are part of the oracle
                code = f"crash:{type(e).__name__}"
            if not isinstance(sys.stdout, _Fd):
                try:
                    sys.stdout.flush()
                    sys.stdout.close()
                except (OSError, ValueError):
                    pass
            fout.seek(0)
            results.append({"code": code, "stdout": fout.read().decode("utf-8")})
    sys.stdout = os.fdopen(real_out, "w", encoding="utf-8")
    json.dump(results, sys.stdout)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
