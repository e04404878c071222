"""Runs recipes' ``--smoke`` one after another in this one interpreter, each as its own ``__main__``:

    python recipe_runner.py RESULTS.json RECIPE.py [RECIPE.py ...]

Each recipe gets fresh globals (``runpy``), ``sys.argv = [recipe, "--smoke"]``, its own folder on
``sys.path`` (as ``python recipe.py`` has) and an empty working folder; its exit code (``sys.exit``
as the interpreter reads it, 1 for an exception, with the traceback), stdout and stderr go to
RESULTS.json by recipe path. What the recipes share is the import of torch, transformers and the
rest, which took most of a smoke run's seconds when each ran in a fresh process.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import sys
import tempfile
import traceback
from typing import Any, Dict


def run(recipe: str) -> Dict[str, Any]:
    stdout, stderr = io.StringIO(), io.StringIO()
    saved = (os.getcwd(), list(sys.argv), list(sys.path))
    code = 0
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        sys.argv = [recipe, "--smoke"]
        sys.path.insert(0, os.path.dirname(os.path.abspath(recipe)))
        try:
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                try:
                    runpy.run_path(recipe, run_name="__main__")
                except SystemExit as exit:
                    if exit.code is None or isinstance(exit.code, int):
                        code = exit.code or 0
                    else:  # sys.exit("message"): the interpreter prints it and exits with 1
                        print(exit.code, file=sys.stderr)
                        code = 1
                except Exception:
                    traceback.print_exc()
                    code = 1
        finally:
            os.chdir(saved[0])
            sys.argv[:], sys.path[:] = saved[1], saved[2]
    return {"returncode": code, "stdout": stdout.getvalue(), "stderr": stderr.getvalue()}


def main(argv: list) -> int:
    results_path, recipes = argv[0], argv[1:]
    results = {recipe: run(recipe) for recipe in recipes}
    with open(results_path, "w", encoding="utf-8") as f:
        json.dump(results, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
