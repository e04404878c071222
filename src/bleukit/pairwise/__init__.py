"""Scores of sentence pairs: pairwise matrices (every hypothesis against every reference) and MBR.

- :mod:`.api`: :func:`pairwise_scores` (any metric), :func:`pairwise_bleu`, :func:`pairwise_chrf`,
  :func:`pairwise_statistics`, :func:`pairwise_bleu_ids`;
- :mod:`.mbr`: :func:`mbr_select`, minimum-Bayes-risk selection with a pairwise utility.

>>> pairwise_bleu(["the cat sat", "a dog"], ["the cat sat", "a dog ran", "the cat"]).round(2)
array([[100.  ,   0.  ,  55.03],
       [  0.  ,  60.65,   0.  ]])
"""

from __future__ import annotations

from ..metrics.bleu.pairs import pair_kernel
from .api import pairwise_bleu, pairwise_bleu_ids, pairwise_chrf, pairwise_scores, pairwise_statistics
from .mbr import MBRSelection, mbr_select

__all__ = [
    "pairwise_scores",
    "pairwise_bleu",
    "pairwise_chrf",
    "pairwise_statistics",
    "pairwise_bleu_ids",
    "mbr_select",
    "MBRSelection",
    "pairwise_engine",
]


def pairwise_engine() -> str:
    """``'native'`` or ``'python'``: who runs BLEU's pair loop now (``BLEUKIT_ENGINE`` decides).

    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"BLEUKIT_ENGINE": "python"}):
    ...     pairwise_engine()
    'python'
    """
    return "native" if pair_kernel() is not None else "python"
