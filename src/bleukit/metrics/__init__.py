"""Metrics other than BLEU, one sub-package each (``bleukit.metrics.ter``: translation edit rate)."""
