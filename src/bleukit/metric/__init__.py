"""The `evaluate` metric that ships with the package, and the files of a Hub metric repository.

Only paths and text live here: importing this package does not import ``evaluate``.

>>> from pathlib import Path
>>> Path(metric_path()).name
'bleu_metric.py'
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["metric_path"]


def metric_path() -> str:
    """Path of the installed metric module, for ``evaluate.load`` (offline, no repository needed).

    >>> import bleukit
    >>> bleukit.metric_path().endswith("bleukit/metric/bleu_metric.py")
    True
    """
    return str(Path(__file__).resolve().with_name("bleu_metric.py"))
