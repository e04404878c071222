"""The check each recipe makes, after parsing its arguments, that the libraries it needs beyond
bleukit are installed: ``--help`` works without them, and a missing one is answered with the
command that installs it instead of a ``ModuleNotFoundError`` traceback."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def require(install: str, *modules: str) -> None:
    """Exit, naming what to install, when one of ``modules`` cannot be imported.

    ``install`` is what follows ``pip install``: ``"'.[lightning,hf]'"`` for extras of
    pyproject.toml (run from the repository's root: the recipes run from a clone), or a package
    name. Only the modules' specs are looked up, so nothing heavy is imported twice.

    >>> require("'.[hf]'", "sys", "pathlib")  # all there: nothing happens
    >>> require("'.[lightning]'", "bleukit_no_such_module")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    SystemExit: ... needs bleukit_no_such_module, which is not installed: pip install '.[lightning]' (...)
    """
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        recipe = Path(sys.argv[0]).name or "this recipe"
        where = " (from the repository's root)" if install.startswith("'.") else ""
        raise SystemExit(f"{recipe} needs {', '.join(missing)}, which is not installed: pip install {install}{where}")
