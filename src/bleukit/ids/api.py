"""The public functions of token-id BLEU: statistics rows, sentence scores, corpus results.

Each call picks where to count (:func:`bleukit.ids.backends.choose_plan`), lays the inputs out as
one batch (:mod:`bleukit.ids.layout`), counts (:func:`count_batch`: the compiled kernel,
:mod:`bleukit.ids.host_counting` or :mod:`bleukit.ids.torch_counting`) and scores the rows
with :func:`bleukit.metrics.bleu.formula.score_table`, the one BLEU formula.

>>> import numpy as np
>>> hyps = np.array([[1, 2, 3, 4, 0], [5, 6, 7, 0, 0]])
>>> refs = np.array([[1, 2, 3, 4, 5], [5, 6, 8, 0, 0]])
>>> sentence_bleu_ids(hyps, refs, pad_id=0).round(4).tolist()
[77.8801, 55.0321]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Tuple, Union

from ..metrics.bleu import METRIC
from ..metrics.bleu.formula import score_table
from ..metrics.bleu.kernel import native_flat_ids_statistics
from ..metrics.bleu.options import DEFAULT_MAX_NGRAM_ORDER, BleuOptions
from ..metrics.bleu.result import BleuResult
from ..metrics.bleu.statistics import BleuStatistics
from .backends import Counter, NumpyOps, Plan, choose_plan, to_output
from .host_counting import host_blocks
from .layout import Flat, Padded, PadIds, gather
from .torch_counting import padded_rows

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..metrics.bleu.options import BleuIdOptionKeywords

__all__ = ["sentence_bleu_ids", "corpus_bleu_ids", "id_statistics", "id_statistics_rows", "id_options"]


def count_batch(flat: Union[Flat, Padded], max_order: int, plan: Plan) -> Tuple[Any, Any]:
    """Statistics rows and nrefs of the whole batch, by the counter ``plan`` names (the torch
    counter takes the :class:`~bleukit.ids.layout.Padded` batch :func:`gather` makes for it)."""
    if isinstance(flat, Padded):
        return padded_rows(flat, max_order)
    if plan.counter is Counter.KERNEL:
        stats = native_flat_ids_statistics(flat.tokens, flat.lengths, flat.owner, flat.n_rows, max_order)
        return stats.rows, stats.nrefs
    assert isinstance(plan.ops, NumpyOps)  # the host counter is numpy code
    return host_blocks(flat, max_order, plan.ops)


def id_options(options: Optional[BleuOptions], keywords: Any, sentence: bool) -> BleuOptions:
    """BLEU options of token ids: ``options`` as given (a ``BleuOptions`` with ``tokenize="none"``
    and no lowercasing: the ids are the tokens), or else from the option ``keywords``, with
    ``tokenize="none"`` (``tokenize`` and ``lowercase`` are a ``TypeError``) and the sentence
    defaults with ``sentence=True``.

    >>> id_options(None, {"max_ngram_order": 2}, sentence=True).effective_order
    True
    """
    if options is not None:
        if keywords:
            raise TypeError(f"give either options= or option keywords, not both (got {', '.join(sorted(keywords))})")
        if not isinstance(options, BleuOptions) or options.tokenize != "none" or options.lowercase:
            raise TypeError("token ids take BleuOptions(tokenize='none') without lowercase (the ids are the tokens), "
                            f"got {options!r}")
        return options
    text = sorted(set(keywords) & {"tokenize", "lowercase"})
    if text:
        raise TypeError(f"{', '.join(text)} do(es) not apply to token ids (the ids are the tokens); drop it")
    return BleuOptions.from_keywords(dict(keywords, tokenize="none"), sentence=sentence)


def _count(hyp_ids, ref_ids, pad_id, hyp_lengths, ref_lengths, max_order: int, backend: str) -> Tuple[Plan, Any, Any]:
    """Plan, statistics rows and nrefs (in the plan's array library) of one call."""
    plan = choose_plan((hyp_ids, ref_ids), backend)
    batch = gather(hyp_ids, ref_ids, pad_id, hyp_lengths, ref_lengths, plan.ops,
                   padded=plan.counter is Counter.TORCH_PADDED)
    rows, nrefs = count_batch(batch, max_order, plan)
    return plan, rows, nrefs


def id_statistics_rows(
    hyp_ids: Any,
    ref_ids: Any,
    *,
    pad_id: PadIds = None,
    hyp_lengths: Any = None,
    ref_lengths: Any = None,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    backend: str = "auto",
) -> Tuple[Any, Any]:
    """Statistics rows of a batch of ids and the number of references of each row.

    Rows are int64 ``(batch, 2 + 2 * max_ngram_order)`` in sacreBLEU's column order
    (``sys_len, ref_len, matches 1..N, totals 1..N``): a torch tensor on the ids' device when
    the ids are tensors, else a numpy array. ``backend`` picks who counts: ``"auto"`` uses torch
    ops for tensors on an accelerator and, on the host, the compiled kernel (the numpy array code
    where the kernel is not built or ``BLEUKIT_ENGINE=python``); ``"torch"`` forces torch ops (the
    GPU code, also on CPU), ``"numpy"`` forces the numpy array code.

    >>> rows, nrefs = id_statistics_rows([[7, 8, 9]], [[[7, 8], [7, 8, 9, 9]]], max_ngram_order=2)
    >>> rows.tolist(), nrefs.tolist()
    ([[3, 2, 3, 2, 3, 2]], [2])
    """
    options = BleuOptions(tokenize="none", max_ngram_order=max_ngram_order)
    plan, rows, nrefs = _count(hyp_ids, ref_ids, pad_id, hyp_lengths, ref_lengths, options.max_ngram_order, backend)
    return to_output(plan, rows), to_output(plan, nrefs)


def id_statistics(
    hyp_ids: Any,
    ref_ids: Any,
    *,
    pad_id: PadIds = None,
    hyp_lengths: Any = None,
    ref_lengths: Any = None,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    backend: str = "auto",
) -> BleuStatistics:
    """The core's :class:`~bleukit.BleuStatistics` of a batch of ids (on the host).

    Tables of several batches concatenate (``BleuStatistics.concat``) for a streaming corpus
    score with ``bleukit.score_statistics``.

    >>> id_statistics([[1, 2, 3]], [[1, 2, 4]], max_ngram_order=2).rows.tolist()
    [[3, 3, 2, 1, 3, 2]]
    """
    options = BleuOptions(tokenize="none", max_ngram_order=max_ngram_order)
    plan, rows, nrefs = _count(hyp_ids, ref_ids, pad_id, hyp_lengths, ref_lengths, options.max_ngram_order, backend)
    return BleuStatistics(plan.ops.to_numpy(rows), plan.ops.to_numpy(nrefs), options.max_ngram_order)


def sentence_bleu_ids(
    hyp_ids: Any,
    ref_ids: Any,
    *,
    pad_id: PadIds = None,
    hyp_lengths: Any = None,
    ref_lengths: Any = None,
    backend: str = "auto",
    options: Optional[BleuOptions] = None,
    **keywords: Unpack[BleuIdOptionKeywords],
) -> Any:
    """Sentence BLEU (0-100) of every row: a float64 tensor on the ids' device, or a numpy array.

    Equal to ``sacrebleu.sentence_bleu(" ".join(map(str, hyp)), [" ".join(map(str, ref)), ...],
    tokenize="none")`` for each row. ``pad_id`` (an id or several) is dropped wherever it occurs,
    so left and right padding both work; ``hyp_lengths``/``ref_lengths`` keep the first ``n`` ids
    of each padded row (``ref_lengths`` has shape ``(batch, n_refs)`` for 3-D references).
    ``backend`` as in :func:`id_statistics_rows`.

    >>> import numpy as np
    >>> sentence_bleu_ids(np.array([[5, 6, 7, 8]]), np.array([[[5, 6, 7, 9], [5, 6, 7, 8]]])).round(6).tolist()
    [100.0]
    """
    opts = id_options(options, keywords, sentence=True)
    plan, rows, _ = _count(hyp_ids, ref_ids, pad_id, hyp_lengths, ref_lengths, opts.max_ngram_order, backend)
    return to_output(plan, score_table(rows, opts).score)


def corpus_bleu_ids(
    hyp_ids: Any,
    ref_ids: Any,
    *,
    pad_id: PadIds = None,
    hyp_lengths: Any = None,
    ref_lengths: Any = None,
    backend: str = "auto",
    options: Optional[BleuOptions] = None,
    **keywords: Unpack[BleuIdOptionKeywords],
) -> BleuResult:
    """Corpus BLEU of a batch of ids: the core's :class:`~bleukit.BleuResult` (signature ``tok:none``).

    Equal to ``sacrebleu.corpus_bleu`` with ``tokenize="none"`` on the ids as space-separated
    strings (sacreBLEU's corpus defaults: ``exp`` smoothing, no effective order).

    >>> r = corpus_bleu_ids([[1, 2, 3, 4], [5, 6]], [[1, 2, 3, 4], [5, 7]])
    >>> round(r.score, 4), r.counts
    (88.914, [5, 3, 2, 1])
    """
    opts = id_options(options, keywords, sentence=False)
    stats = id_statistics(
        hyp_ids, ref_ids, pad_id=pad_id, hyp_lengths=hyp_lengths, ref_lengths=ref_lengths,
        max_ngram_order=opts.max_ngram_order, backend=backend,
    )
    return METRIC.result(stats, opts)
