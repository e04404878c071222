"""WMT25's general test set, which sacreBLEU 2.6 lacks (its issue #290): not registered yet.

>>> REGISTRY_ENTRY
{}
"""

from __future__ import annotations

from typing import Any, Dict

__all__ = ["REGISTRY_ENTRY"]

#: registry records bleukit adds to sacreBLEU's (none yet)
REGISTRY_ENTRY: Dict[str, Any] = {}
