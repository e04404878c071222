"""Where a warning points: the user's line, however deep inside bleukit it is raised.

>>> user_stacklevel() >= 1
True
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Optional

__all__ = ["user_stacklevel"]

_PACKAGE = __name__.split(".")[0] + "."


def user_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` called by this function's caller that names the
    first frame outside bleukit (entry points reach the same check at different depths)."""
    frame: Optional[FrameType] = sys._getframe(1)
    level = 1
    while frame is not None and (frame.f_globals.get("__name__", "") + ".").startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level
