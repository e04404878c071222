"""Other BLEUs, reproduced exactly from bleukit's statistics (docs page "Other BLEUs", docs/other-bleus.md).

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

from .variants import VariantRow, VariantTable, compare_variants

__all__ = ["compare_variants", "VariantTable", "VariantRow"]

