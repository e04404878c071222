"""The one place that loads the compiled kernels and chooses between them and the Python engines.

Every kernel is optional: each metric's one compiled module ``bleukit.metrics.<name>._kernel``
(BLEU's holds its tokenizers and counters for text and token ids, the pairwise matches and the
formula's libm and float32 scores) and ``bleukit._resample_kernel`` (the bootstrap's draws and
sums, shared by every metric). Each has a pure-Python twin that gives the same tables. The
environment variable ``BLEUKIT_ENGINE`` (``python`` or ``native``) is read here and nowhere else,
at each call: ``python`` forces the twins, ``native`` requires the kernels (an error names the one
that is missing), unset uses each kernel that is built. A missing kernel is reported once per
process with a ``RuntimeWarning``, unless the user chose the Python engine (``BLEUKIT_NO_NATIVE``
now or at build time).

>>> engine_name() in ("native", "python")
True
>>> from unittest import mock
>>> with mock.patch.dict("os.environ", {"BLEUKIT_ENGINE": "python"}):
...     kernel("bleukit.metrics.bleu._kernel") is None
True
"""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType
from typing import Dict, Optional, Tuple

__all__ = [
    "ENGINES",
    "load_kernel",
    "kernel_error",
    "requested_engine",
    "kernel",
    "engine_name",
    "native_declined",
    "NO_NATIVE_MARKER",
]

ENGINES = ("native", "python")
#: File that ``setup.py`` puts beside this module when the package is built with BLEUKIT_NO_NATIVE.
NO_NATIVE_MARKER = "_no_native"
#: BLEU's kernel (its statistics, pairwise matches and formula), whose presence :func:`engine_name` reports.
MAIN_KERNEL = "bleukit.metrics.bleu._kernel"

_loaded: Dict[str, Tuple[Optional[ModuleType], Optional[str]]] = {}
_warned = False


def load_kernel(module: str) -> Optional[ModuleType]:
    """The compiled module ``module`` (a full dotted name), or ``None`` when it is not built.

    >>> load_kernel("bleukit._no_such_kernel") is None
    True
    """
    if module not in _loaded:
        try:
            # import_module names the missing module in its error ("from . import" would blame a cycle)
            _loaded[module] = (importlib.import_module(module), None)
        except ImportError as err:
            _loaded[module] = (None, f"the native kernel is not built ({err})")
    return _loaded[module][0]


def kernel_error(module: str) -> Optional[str]:
    """Why ``module`` could not be loaded (``None`` when it is built).

    >>> "bleukit._no_such_kernel" in kernel_error("bleukit._no_such_kernel")
    True
    """
    load_kernel(module)
    return _loaded[module][1]


def requested_engine() -> Optional[str]:
    """``BLEUKIT_ENGINE`` checked: ``'native'``, ``'python'`` or ``None`` when unset.

    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"BLEUKIT_ENGINE": "Python"}):
    ...     requested_engine()
    'python'
    """
    value = os.environ.get("BLEUKIT_ENGINE")
    if not value or not (value := value.strip().lower()):
        return None
    if value not in ENGINES:
        raise ValueError(f"BLEUKIT_ENGINE={value!r} is not one of {', '.join(ENGINES)}")
    return value


def kernel(module: str) -> Optional[ModuleType]:
    """The kernel to run now, or ``None`` when the Python twin runs: ``BLEUKIT_ENGINE=python`` or
    a kernel that is not built (reported once per process); ``BLEUKIT_ENGINE=native`` with a
    missing kernel is a ``RuntimeError``.

    >>> kernel(MAIN_KERNEL) is load_kernel(MAIN_KERNEL) or engine_name() == "python"
    True
    """
    global _warned
    requested = requested_engine()
    if requested == "python":
        return None
    if module in _loaded and _loaded[module][0] is not None:  # the common case, once loaded
        return _loaded[module][0]
    found = load_kernel(module)
    if found is None:
        reason = kernel_error(module)
        if requested == "native":
            raise RuntimeError(f"BLEUKIT_ENGINE=native, but {reason}")
        if not _warned and not native_declined():
            _warned = True
            warnings.warn(f"bleukit: {reason}; using the pure-Python engine", RuntimeWarning, 3)
    return found


def engine_name() -> str:
    """``'native'`` or ``'python'``: the engine that turns text into BLEU statistics.

    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"BLEUKIT_ENGINE": "python"}):
    ...     engine_name()
    'python'
    """
    requested = requested_engine()
    if requested == "native" and load_kernel(MAIN_KERNEL) is None:
        raise RuntimeError(f"BLEUKIT_ENGINE=native, but {kernel_error(MAIN_KERNEL)}")
    if requested is not None:
        return requested
    return "native" if load_kernel(MAIN_KERNEL) is not None else "python"


def native_declined() -> bool:
    """Whether the user chose the pure-Python engine, so its use needs no warning.

    ``BLEUKIT_NO_NATIVE`` set now, or set when the package was built (``setup.py`` then leaves
    the marker file ``_no_native`` beside this module).

    >>> isinstance(native_declined(), bool)
    True
    """
    if os.environ.get("BLEUKIT_NO_NATIVE"):
        return True
    return os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), NO_NATIVE_MARKER))
