"""BLEU as an `evaluate` metric (bleukit, sacreBLEU-exact): the file a Space or Hub repo serves.

The implementation ships inside the package (``bleukit/metric/bleu_metric.py``); this file only
re-exports its class, so both load paths run one implementation::

    evaluate.load("./bleu_metric.py")          # this file, bleukit installed
    evaluate.load(bleukit.metric_path())       # the installed module itself

``evaluate`` copies this file into its cache and imports it on its own: the import below is an
absolute one, of the installed package (``pip install bleukit``). evaluate reads everything after a
``#`` on an import line as the package to install, so the line carries no comment (``__all__`` tells
linters the import is the point).
"""

from bleukit.metric.bleu_metric import Bleu

__all__ = ["Bleu"]
