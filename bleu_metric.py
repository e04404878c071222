"""BLEU as an `evaluate` metric (bleukit, sacreBLEU-exact): the file a Space or Hub repo serves.

The implementation ships inside the package (``bleukit/evaluate_module/bleu_metric.py``); this file only
re-exports its class, so both load paths run one implementation::

    evaluate.load("./bleu_metric.py")          # this file, bleukit installed
    evaluate.load(bleukit.metric_path())       # the installed module itself

``evaluate`` copies this file into its cache and imports it on its own: the import below is an
absolute one, of the installed package. When it fails, evaluate tells the user to ``pip install``
what follows ``# From:`` on the import line (else the module's name, ``bleukit``, which is not on
PyPI yet), so the comment names the install that works (``__all__`` tells linters the import is the
point).
"""

from bleukit.evaluate_module.bleu_metric import Bleu  # From: .  (in the root of a clone of bleukit)

__all__ = ["Bleu"]
