"""Old names kept for one release: a moved module re-exports, a renamed name warns.

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     renamed("bleukit", "OldName", {"OldName": int}) is int
True
"""

from __future__ import annotations

import warnings
from typing import Any, Mapping

__all__ = ["renamed"]


def renamed(module: str, name: str, table: Mapping[str, Any], *, stacklevel: int = 3) -> Any:
    """The object now called otherwise that ``module.name`` was, with a ``DeprecationWarning``;
    an ``AttributeError`` for a name that never existed (a module ``__getattr__`` helper).
    ``stacklevel`` counts the frames from here to the user's line (3: called by ``__getattr__``)."""
    if name not in table:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    new = table[name]
    warnings.warn(
        f"{module}.{name} is now called {new.__name__}; the old name goes away in the next release",
        DeprecationWarning,
        stacklevel=stacklevel,
    )
    return new
