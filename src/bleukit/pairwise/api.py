"""Pairwise sentence scores: every hypothesis against every reference (MBR decoding, reranking).

:func:`pairwise_scores` works for every metric through its ``pairwise_scores``
(:mod:`bleukit.metrics.base`); :func:`pairwise_chrf` is chrF's (each sentence's character and
word n-grams counted once, then the compiled pair loop of :mod:`bleukit.metrics.chrf.extract`).
For BLEU, element ``(i, j)`` of :func:`pairwise_bleu` is
``sacrebleu.sentence_bleu(hypotheses[i], [references[j]])`` with the same options, but nothing is
done N x M times except the clipping (:mod:`bleukit.metrics.bleu.pairs`):

1. each distinct sentence is tokenized and its n-grams counted once;
2. the references' n-grams get integer ids and an inverted index (for each n-gram, the
   references holding it and how often); hypothesis n-grams that no reference holds are dropped,
   since they can only add to the totals, which follow from the length;
3. for each hypothesis, its n-grams walk their postings and add ``min(hyp count, ref count)`` to
   the matches of each reference (compiled in BLEU's kernel, ``bleukit.metrics.bleu._kernel``, GIL released,
   ``threads=``; a numpy version of the same loop is the reference and fallback);
4. the (hyp length, ref length, matches, totals) rows are scored by the one BLEU formula,
   :func:`bleukit.metrics.bleu.formula.score_table`, a block of hypotheses at a time (the kernel hands over
   only the distinct rows of a block: most pairs repeat another pair's row).

Memory is the (N, M) output plus the counted tables (linear in the number of tokens) plus one
block of statistics rows. ``BLEUKIT_ENGINE`` chooses the compiled loop or the numpy one.

>>> pairwise_bleu(["the cat sat", "a dog"], ["the cat sat", "a dog ran", "the cat"]).round(2)
array([[100.  ,   0.  ,  55.03],
       [  0.  ,  60.65,   0.  ]])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

from .._torch import is_torch_tensor
from ..defaults import DEFAULT_THREADS
from ..engine import thread_count
from ..ids.api import id_options
from ..ids.backends import TorchOps
from ..ids.layout import PadIds, id_tuples, sequences
from ..inputs import check_texts
from ..metrics import fast, metric_for, resolve_options
from ..metrics.base import MetricOptions
from ..metrics.bleu import pairs
from ..metrics.bleu.options import BleuOptions
from ..metrics.chrf.options import ChrfOptions

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..metrics.bleu.options import BleuIdOptionKeywords, BleuOptionKeywords
    from ..metrics.chrf.options import ChrfOptionKeywords

__all__ = ["pairwise_scores", "pairwise_bleu", "pairwise_chrf", "pairwise_statistics", "pairwise_bleu_ids"]


def pairwise_scores(
    hypotheses: Sequence[str],
    references: Sequence[str],
    *,
    threads: int = DEFAULT_THREADS,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> np.ndarray:
    """The score of every hypothesis against every single reference: a float64 ``(N, M)`` matrix.
    The metric of ``options`` (any metric's, as given: pass ``options.sentence_level()`` for
    sentence scores), or else BLEU with the option ``keywords`` and the sentence defaults.

    Pass the same list twice for MBR's candidates-against-candidates matrix. ``threads`` as
    everywhere (0: all cores).

    >>> pairwise_scores(["a b c d"], ["a b c d", "a b"], options=BleuOptions(effective_order=True)).round(2).tolist()
    [[100.0, 31.95]]
    """
    opts = resolve_options(options, keywords, sentence=True)
    hyps = check_texts(hypotheses, "hypotheses")
    refs = hyps if references is hypotheses else check_texts(references, "references")
    return fast.pairwise_scores(metric_for(opts), hyps, refs, opts, threads=thread_count(threads))


def pairwise_bleu(
    hypotheses: Sequence[str],
    references: Sequence[str],
    *,
    threads: int = DEFAULT_THREADS,
    options: Optional[BleuOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> np.ndarray:
    """Sentence BLEU of every hypothesis against every single reference: a float64 (N, M) matrix.

    Element ``(i, j)`` equals ``sacrebleu.sentence_bleu(hypotheses[i], [references[j]], ...)``
    with the same options (sentence defaults: exp smoothing, effective order). Pass the same list
    twice for MBR's candidates-against-candidates matrix. ``threads`` splits the compiled pair
    loop over hypotheses (0: all cores).

    >>> m = pairwise_bleu(["It is raining today."], ["It rains today.", "It is raining today."])
    >>> m.shape, m.round(4).tolist()
    ((1, 2), [[23.6435, 100.0]])
    """
    opts = resolve_options(options, keywords, sentence=True)
    if not isinstance(opts, BleuOptions):
        raise TypeError(f"options must be a BleuOptions, got {type(opts).__name__}")
    return pairwise_scores(hypotheses, references, options=opts, threads=threads)


def pairwise_chrf(
    hypotheses: Sequence[str],
    references: Sequence[str],
    *,
    threads: int = DEFAULT_THREADS,
    options: Optional[ChrfOptions] = None,
    **keywords: Unpack[ChrfOptionKeywords],
) -> np.ndarray:
    """Sentence chrF (chrF++ with ``word_order=2``) of every hypothesis against every single
    reference: a float64 (N, M) matrix.

    Element ``(i, j)`` equals sacreBLEU's ``CHRF(**keywords).sentence_score(hypotheses[i],
    [references[j]]).score``. Pass the same list twice for MBR's candidates-against-candidates
    matrix. ``threads`` splits the compiled pair loop over hypotheses (0: all cores).

    >>> m = pairwise_chrf(["It is raining today."], ["It rains today.", "It is raining today."], word_order=2)
    >>> m.shape, m.round(4).tolist()
    ((1, 2), [[48.3735, 100.0]])
    """
    opts = resolve_options(options, keywords, sentence=True, default_metric="chrf")
    if not isinstance(opts, ChrfOptions):
        raise TypeError(f"options must be a ChrfOptions, got {type(opts).__name__}")
    return pairwise_scores(hypotheses, references, options=opts, threads=threads)


def pairwise_statistics(
    hypotheses: Sequence[str],
    references: Sequence[str],
    *,
    threads: int = DEFAULT_THREADS,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> np.ndarray:
    """Statistics of every (hypothesis, reference) pair: int64 ``(N, M, columns)``.

    ``table[i, j]`` is the row ``bleukit.corpus_statistics([hypotheses[i]], [references[j]], ...)``
    would hold, so ``table.reshape(-1, table.shape[-1])`` is a statistics table (one reference per
    row) that :func:`bleukit.sentence_scores_from_statistics` scores. BLEU with the option
    ``keywords`` (only ``tokenize``, ``lowercase`` and ``max_ngram_order`` change statistics), or
    the metric of ``options``. Memory is N x M rows: prefer :func:`pairwise_scores` when only
    scores are needed.

    >>> pairwise_statistics(["a b c"], ["a b d", "c"], max_ngram_order=2).tolist()
    [[[3, 3, 2, 1, 3, 2], [3, 1, 1, 0, 3, 2]]]
    """
    opts = resolve_options(options, keywords)
    hyps = check_texts(hypotheses, "hypotheses")
    refs = hyps if references is hypotheses else check_texts(references, "references")
    return fast.pairwise_statistics(metric_for(opts), hyps, refs, opts, threads=thread_count(threads))


def pairwise_bleu_ids(
    hyp_ids: Any,
    ref_ids: Any,
    *,
    pad_id: PadIds = None,
    threads: int = DEFAULT_THREADS,
    backend: str = "auto",
    options: Optional[BleuOptions] = None,
    **keywords: Unpack[BleuIdOptionKeywords],
) -> Any:
    """Pairwise sentence BLEU on token ids (candidates that were never detokenized).

    ``hyp_ids`` and ``ref_ids`` are 2-D arrays/tensors ``(N, length)`` padded with ``pad_id``
    (an id or several, dropped wherever they occur), or lists of 1-D id sequences, checked as
    :func:`bleukit.ids.sentence_bleu_ids` checks them. Element ``(i, j)`` equals
    ``sacrebleu.sentence_bleu(" ".join(map(str, hyp_i)), [" ".join(map(str, ref_j))],
    tokenize="none")``. Host data (numpy, lists, CPU tensors) goes through the counted tables and
    pair loop of :func:`pairwise_bleu`; tensors on an accelerator (or ``backend="torch"``) are
    scored with torch ops on their device, a block of pairs at a time, by
    :func:`bleukit.ids.sentence_bleu_ids`. Tensor input gives a float64 tensor on its device.

    >>> import numpy as np
    >>> pairwise_bleu_ids(np.array([[5, 6, 7, 0], [8, 9, 0, 0]]), [[5, 6, 7], [8, 9, 10]], pad_id=0).round(2)
    array([[100.  ,   0.  ],
           [  0.  ,  60.65]])
    """
    opts = id_options(options, keywords, sentence=True)
    threads = thread_count(threads)
    if backend not in ("auto", "numpy", "torch"):
        raise ValueError(f"unknown backend={backend!r}; choose one of auto, numpy, torch")
    device = _torch_device(hyp_ids, ref_ids)
    if backend == "torch" or (backend == "auto" and device is not None and device.type != "cpu"):
        return _pairwise_ids_torch(hyp_ids, ref_ids, pad_id, opts, device)
    same = ref_ids is hyp_ids
    hyps = id_tuples(hyp_ids, pad_id, "hyp_ids")
    refs = hyps if same else id_tuples(ref_ids, pad_id, "ref_ids")
    out = pairs.scores(pairs.count_pairs(hyps, refs, lambda seq: seq, opts.max_ngram_order), opts, threads)
    if device is None:
        return out
    import torch

    return torch.from_numpy(out).to(device)


def _torch_device(*objs: Any):
    for obj in objs:
        if is_torch_tensor(obj):
            return obj.device
        if isinstance(obj, (list, tuple)) and obj and is_torch_tensor(obj[0]):
            return obj[0].device
    return None


def _pairwise_ids_torch(hyp_ids: Any, ref_ids: Any, pad_id: PadIds, options: BleuOptions, device) -> Any:
    import torch

    from ..ids import sentence_bleu_ids

    ops = TorchOps(torch, device if device is not None else torch.device("cpu"))
    hyps, hyp_len = sequences(hyp_ids, pad_id, "hyp_ids", ops, padded=True)
    refs, ref_len = (hyps, hyp_len) if ref_ids is hyp_ids else sequences(ref_ids, pad_id, "ref_ids", ops, padded=True)
    n, m = hyps.shape[0], refs.shape[0]
    out = torch.empty((n, m), dtype=torch.float64, device=ops.device)
    # Each block repeats its hypotheses against all references; its size bounds the ids in flight.
    width = max(1, hyps.shape[1] + refs.shape[1])
    step = max(1, (1 << 22) // (m * width))
    for i0 in range(0, n, step):
        i1 = min(n, i0 + step)
        b = i1 - i0
        out[i0:i1] = sentence_bleu_ids(
            hyps[i0:i1].repeat_interleave(m, 0), refs.repeat(b, 1),
            hyp_lengths=hyp_len[i0:i1].repeat_interleave(m, 0), ref_lengths=ref_len.repeat(b),
            max_ngram_order=options.max_ngram_order, smooth_method=options.smooth_method,
            smooth_value=options.smooth_value, effective_order=options.effective_order,
            weights=options.weights, backend="torch",
        ).reshape(b, m)
    return out
