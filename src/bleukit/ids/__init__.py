"""BLEU on token ids: per-sentence scores and corpus results for whole batches, on any device.

Reinforcement learning from BLEU rewards and quick in-training evaluation have ids, not text.
This package counts the same statistics the text path counts (one row per hypothesis, sacreBLEU's
column order) straight from the ids, with array operations over the whole batch, and scores them
with :func:`bleukit.metrics.bleu.formula.score_table` (the one BLEU formula). The numbers equal sacreBLEU with
``tokenize="none"`` on the ids written as space-separated strings.

Inputs are padded 2-D torch tensors or numpy arrays ``(batch, length)``, or lists of id lists.
References are a 2-D array (one per row), a 3-D array ``(batch, n_refs, length)``, a list of 2-D
arrays (one per reference set), or, for lists, ``refs[i]`` = one id list or a list of id lists
(``None`` marks a missing one). torch is optional: it is imported only when a tensor is given,
and a torch result stays on the device of its input.

Ids are token ids: a negative id (``-100``, the ``ignore_index`` of labels) is a ``ValueError``
unless ``pad_id`` names it (``pad_id=(pad, -100)`` drops both), and a padded 2-D batch given
without ``pad_id`` gets a :class:`~bleukit.ids.layout.PaddingWarning`, since its padding would
be scored as tokens.

How the counting stays linear in the number of ids: one order at a time, every n-gram becomes a
single int64 holding its key (dense codes of two shorter pieces, so ids of any size fit), its
row and its slot (hypothesis or k-th reference); one sort puts equal n-grams of a row side by
side, hypothesis first, and runs in the sorted array are the counts. No batch x vocabulary matrix
is ever built (dense count matrices grow with batch x distinct n-grams).

Where each step lives: :mod:`~bleukit.ids.api` (these four functions and the dispatch to a
counter), :mod:`~bleukit.ids.layout` (input layouts -> one flat batch), :mod:`~bleukit.ids.backends`
(numpy/torch operations and the choice of counter), :mod:`~bleukit.ids.keys` (how n-gram keys are
built from shorter pieces), :mod:`~bleukit.ids.host_counting` (the sort-and-count steps on the
host) and :mod:`~bleukit.ids.torch_counting` (the fixed-shape torch counter). The compiled kernel
counts host ids where it is built.

>>> import numpy as np
>>> hyps = np.array([[1, 2, 3, 4, 0], [5, 6, 7, 0, 0]])
>>> refs = np.array([[1, 2, 3, 4, 5], [5, 6, 8, 0, 0]])
>>> sentence_bleu_ids(hyps, refs, pad_id=0).round(4).tolist()
[77.8801, 55.0321]
>>> corpus_bleu_ids([[1, 2, 3, 4]], [[[1, 2, 3, 4], [9]]]).signature.split("|")[:4]
['nrefs:2', 'case:mixed', 'eff:no', 'tok:none']
"""

from .api import corpus_bleu_ids, id_statistics, id_statistics_rows, sentence_bleu_ids
from .layout import PadIds

__all__ = ["sentence_bleu_ids", "corpus_bleu_ids", "id_statistics", "id_statistics_rows", "PadIds"]
