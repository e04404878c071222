"""Former name of :mod:`bleukit.ids` (token-id BLEU): importing it still works for one release,
with a ``DeprecationWarning``.

>>> import warnings
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     import bleukit.tensor
>>> import bleukit.ids
>>> bleukit.tensor.sentence_bleu_ids is bleukit.ids.sentence_bleu_ids
True
"""

import warnings

from .ids import PadIds, corpus_bleu_ids, id_statistics, id_statistics_rows, sentence_bleu_ids

__all__ = ["sentence_bleu_ids", "corpus_bleu_ids", "id_statistics", "id_statistics_rows", "PadIds"]

warnings.warn("bleukit.tensor is now bleukit.ids; the old name goes away in the next release", DeprecationWarning, 2)
