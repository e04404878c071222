"""Other BLEUs, reproduced exactly from bleukit's statistics (README section "Other BLEUs").

One module per family, each function taking its original's inputs and returning its output:

* :mod:`~bleukit.compat.nltk` - NLTK ``corpus_bleu``/``sentence_bleu``/``SmoothingFunction`` (token lists)
* :mod:`~bleukit.compat.hf_evaluate` - evaluate's ``"bleu"`` (tensorflow/nmt ``compute_bleu``)
* :mod:`~bleukit.compat.gleu` - GLEU: NLTK ``corpus_gleu``, evaluate's ``"google_bleu"``
* :mod:`~bleukit.compat.moses` - ``multi-bleu.perl`` and ``multi-bleu-detok.perl`` output lines
* :mod:`~bleukit.compat.torchmetrics` - torchmetrics ``BLEUScore``/``SacreBLEUScore``
* :mod:`~bleukit.compat.presets` - T5's BLEU and spBLEU (flores101/flores200)
* :mod:`~bleukit.compat.variants` - :func:`compare_variants`, all of them on one corpus

>>> from bleukit.compat import compare_variants
>>> round(compare_variants(["a b c d"], ["a b c d"]).rows[0].score, 6)
100.0
"""

from __future__ import annotations

import os

from .variants import VariantRow, VariantTable, compare_variants

__all__ = ["compare_variants", "VariantTable", "VariantRow", "evaluate_module_path", "EVALUATE_MODULES"]

#: evaluate module files shipped in this package: metric name -> file name
EVALUATE_MODULES = {"bleu": "bleu.py", "google_bleu": "google_bleu.py"}


def evaluate_module_path(name: str) -> str:
    """Path of the offline drop-in for ``evaluate.load(name)``: ``evaluate.load(evaluate_module_path("bleu"))``.

    >>> os.path.basename(evaluate_module_path("google_bleu"))
    'google_bleu.py'
    """
    if name not in EVALUATE_MODULES:
        raise ValueError(f"no evaluate module {name!r} here; choose one of {', '.join(EVALUATE_MODULES)}")
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "evaluate_modules", EVALUATE_MODULES[name])
