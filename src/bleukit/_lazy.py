"""A package's names imported on first use (PEP 562): the module ``__getattr__`` and ``__dir__``
that the facade and every metric package share.

Why: a process pays for what it imports. The command line builds its parser from every metric's
options, and importing a metric package used to import its formula, result and table too, with
their dataclasses (~8 ms of a 10-line run). Now a package imports a module when one of its names
is first asked for, and keeps the name as a plain attribute from then on.

>>> import bleukit.metrics.chrf as chrf
>>> chrf.ChrfOptions(word_order=2).name
'chrF2++'
>>> "ChrfOptions" in vars(chrf)  # now a plain attribute
True
"""

from __future__ import annotations

import importlib
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (about 5 ms of a --echo run)
if TYPE_CHECKING:
    from typing import Any, Callable, List, Mapping, Tuple

__all__ = ["lazy_attributes"]


def lazy_attributes(package: str, exports: Mapping[str, str]) -> Tuple[Callable[[str], Any], Callable[[], List[str]]]:
    """``(__getattr__, __dir__)`` for the module ``package``: name ``n`` of ``exports`` is
    ``getattr(import_module(f"{package}.{exports[n]}"), n)``, imported when first asked for; any
    other name is an ``AttributeError`` (which also lets ``from . import submodule`` import it).

    >>> import bleukit.metrics.bleu
    >>> getter, listing = lazy_attributes("bleukit.metrics.bleu", {"BleuOptions": "options"})
    >>> getter("BleuOptions").__name__, "BleuOptions" in listing()
    ('BleuOptions', True)
    """
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        if name in exports:
            value = getattr(importlib.import_module(f"{package}.{exports[name]}"), name)
            namespace[name] = value  # the next access is a plain attribute
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> List[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
