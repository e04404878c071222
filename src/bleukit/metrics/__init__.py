"""Metrics other than BLEU, one subpackage each (``bleukit.metrics.chrf``: chrF and chrF++)."""
