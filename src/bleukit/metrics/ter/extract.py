"""TER statistics of a batch: the compiled kernel when it is built, the Python reference otherwise.

Both engines give the same table (:data:`.reference.COLUMNS`). ``BLEUKIT_ENGINE=python`` or
``native`` forces one (read at each call through :func:`bleukit._native.engine_name`, as for
BLEU); ``native`` without this kernel built is an error.

>>> ter_statistics(["the cat sat on the mat"], [["the mat the cat sat on"]]).tolist()
[[1, 6, 1]]
"""

from __future__ import annotations

import importlib
import os
from typing import Optional, Sequence

import numpy as np

from ..._native import engine_name
from ...engine import thread_count
from . import reference
from .options import TerOptions

__all__ = ["ter_statistics", "ter_engine", "kernel_available", "kernel_unavailable_reason"]

try:
    # import_module names the missing module in its error ("from . import" would blame a cycle)
    _kernel = importlib.import_module(f"{__package__}._kernel")
    kernel_unavailable_reason: Optional[str] = None
except ImportError as err:  # not compiled: the Python reference runs
    _kernel = None
    kernel_unavailable_reason = f"the TER kernel is not built ({err})"


def kernel_available() -> bool:
    """Whether the compiled TER kernel could be imported.

    >>> isinstance(kernel_available(), bool)
    True
    """
    return _kernel is not None


def ter_engine() -> str:
    """``'native'`` or ``'python'``: the engine :func:`ter_statistics` uses now.

    ``BLEUKIT_ENGINE`` decides when it is set (checked by :func:`bleukit._native.engine_name`);
    otherwise the kernel runs when it is built.

    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"BLEUKIT_ENGINE": "python"}):
    ...     ter_engine()
    'python'
    """
    requested = os.environ.get("BLEUKIT_ENGINE", "").strip().lower()
    if _kernel is None:
        if requested == "native":
            raise RuntimeError(f"BLEUKIT_ENGINE=native, but {kernel_unavailable_reason}")
        engine_name()  # a bad value is an error here too
        return "python"
    try:
        name = engine_name()
    except RuntimeError:  # BLEUKIT_ENGINE=native and the BLEU kernel is missing: this one is built
        return "native"
    # without BLEUKIT_ENGINE, engine_name() says "python" when the BLEU kernel alone is missing
    return name if requested else "native"


def ter_statistics(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                   options: Optional[TerOptions] = None, threads: int = 1) -> np.ndarray:
    """The statistics table (int64, ``(n, 3)``): fewest edits, sum of reference lengths, nrefs.

    ``references[i]`` is the non-empty list of reference strings of ``hypotheses[i]``.
    ``threads`` (0: every core) splits the sentences over threads in the kernel; the Python
    reference works in one thread whatever it says. The input is never modified.

    >>> ter_statistics(["a b c", "x"], [["a c b", "b a c"], ["y"]], threads=2).tolist()
    [[1, 6, 2], [1, 1, 1]]
    """
    options = TerOptions() if options is None else options
    if not isinstance(options, TerOptions):
        raise TypeError(f"options must be a TerOptions, got {type(options).__name__}")
    n_threads = thread_count(threads)
    if ter_engine() == "python":
        return reference.ter_statistics(hypotheses, references, options)
    n = reference.check_layout(hypotheses, references)  # the items: the kernel checks them alike
    table = np.empty((n, len(reference.COLUMNS)), dtype=np.int64)
    _kernel.statistics(hypotheses, references, options.normalized, options.no_punct, options.asian_support,
                       options.case_sensitive, table, n_threads)
    return table
