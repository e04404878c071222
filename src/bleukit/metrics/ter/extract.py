"""TER statistics of a batch: the compiled kernel when it is built, the Python reference otherwise.

Both engines give the same table (:data:`.reference.COLUMNS`). ``BLEUKIT_ENGINE=python`` or
``native`` forces one (:func:`bleukit._native.kernel` reads it at each call, as for every
metric); ``native`` without this kernel built is an error.

>>> ter_statistics(["the cat sat on the mat"], [["the mat the cat sat on"]]).tolist()
[[1, 6, 1]]
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from ... import _native
from ...engine import thread_count
from . import reference
from .options import TerOptions

__all__ = ["KERNEL", "ter_statistics", "ter_engine", "kernel_available"]

#: The module name of TER's kernel (built from csrc/metrics/ter/).
KERNEL = "bleukit.metrics.ter._kernel"
#: The compiled module when it is built (its ``words`` entry point is what the tokenizer tests call).
_kernel = _native.load_kernel(KERNEL)


def kernel_available() -> bool:
    """Whether the compiled TER kernel could be imported.

    >>> isinstance(kernel_available(), bool)
    True
    """
    return _native.load_kernel(KERNEL) is not None


def ter_engine() -> str:
    """``'native'`` or ``'python'``: the engine :func:`ter_statistics` uses now
    (``BLEUKIT_ENGINE`` decides when it is set, through :func:`bleukit._native.kernel`).

    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"BLEUKIT_ENGINE": "python"}):
    ...     ter_engine()
    'python'
    """
    return "native" if _native.kernel(KERNEL) is not None else "python"


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
    kernel = _native.kernel(KERNEL)
    if kernel is None:
        return reference.ter_statistics(hypotheses, references, options)
    n = reference.check_layout(hypotheses, references)  # the items: the kernel checks them alike
    table = np.empty((n, len(reference.COLUMNS)), dtype=np.int64)
    kernel.statistics(hypotheses, references, options.normalized, options.no_punct, options.asian_support,
                       options.case_sensitive, table, n_threads)
    return table
