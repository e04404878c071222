"""Moved to :mod:`bleukit.metrics.bleu.result`; ``BLEUResult`` is now ``BleuResult`` (the old name
still works for one release, with a ``DeprecationWarning``).

>>> from bleukit.result import BleuResult
>>> BleuResult.__name__
'BleuResult'
"""

from typing import Any

from ._deprecated import renamed
from .metrics.bleu.result import BleuResult

__all__ = ["BleuResult"]


def __getattr__(name: str) -> Any:
    return renamed(__name__, name, {"BLEUResult": BleuResult})
