"""Former name of :mod:`bleukit.ids` (token-id BLEU), kept so existing imports keep working.

>>> import bleukit.ids, bleukit.tensor
>>> bleukit.tensor.sentence_bleu_ids is bleukit.ids.sentence_bleu_ids
True
"""

from .ids import PadIds, corpus_bleu_ids, id_statistics, id_statistics_rows, sentence_bleu_ids

__all__ = ["sentence_bleu_ids", "corpus_bleu_ids", "id_statistics", "id_statistics_rows", "PadIds"]
