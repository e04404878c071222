"""The `evaluate` modules that ship with the package, and the files of a Hub metric repository.

Every evaluate module file lives here: :func:`metric_path` names them. ``metric_path()`` is
bleukit's own sacreBLEU-exact BLEU metric (its signature, every option); ``metric_path(name)``
for another ``name`` is an offline drop-in for ``evaluate.load(name)`` (the same argument names and
result keys as that Hub metric, the numbers computed by bleukit). Only paths and text live here:
importing this package does not import ``evaluate``.

>>> from pathlib import Path
>>> Path(metric_path()).name, Path(metric_path("google_bleu")).name
('bleu_metric.py', 'google_bleu.py')
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict

__all__ = ["metric_path", "EVALUATE_MODULES"]

_HERE = Path(__file__).resolve().parent


def _modules() -> Dict[str, Path]:
    found = {"bleukit": _HERE / "bleu_metric.py"}
    found.update({p.stem: p for p in sorted((_HERE / "modules").glob("*.py"))})
    return found


#: The evaluate modules by name: ``"bleukit"`` and the drop-ins (``"bleu"``, ``"chrf"``, ``"google_bleu"``, ...).
EVALUATE_MODULES = tuple(_modules())


def metric_path(name: str = "bleukit") -> str:
    """Path of an evaluate module, for ``evaluate.load`` (offline, no repository needed).

    ``"bleukit"`` (the default) is bleukit's BLEU metric; any other name is the drop-in for
    ``evaluate.load(name)``: ``evaluate.load(bleukit.metric_path("bleu"))`` behaves as
    ``evaluate.load("bleu")``.

    >>> import bleukit
    >>> bleukit.metric_path().endswith("bleukit/evaluate_module/bleu_metric.py")
    True
    """
    modules = _modules()
    if name not in modules:
        raise ValueError(f"no evaluate module {name!r} in bleukit; choose one of {', '.join(modules)}")
    return str(modules[name])
