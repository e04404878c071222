"""Pairwise sentence BLEU: every hypothesis against every reference (MBR decoding, reranking).

Element ``(i, j)`` of :func:`pairwise_bleu` is ``sacrebleu.sentence_bleu(hypotheses[i],
[references[j]])`` with the same options, but nothing is done N x M times except the clipping:

1. each distinct sentence is tokenized (``bleukit.engine.preprocess``) and its n-grams counted
   (``bleukit.statistics.ngram_counts``) once;
2. the references' n-grams get integer ids and an inverted index (for each n-gram, the
   references holding it and how often); hypothesis n-grams that no reference holds are dropped,
   since they can only add to the totals, which follow from the length;
3. for each hypothesis, its n-grams walk their postings and add ``min(hyp count, ref count)`` to
   the matches of each reference (compiled in ``bleukit._pairwise_kernel``, GIL released,
   ``threads=``; a numpy version of the same loop is the reference and fallback);
4. the (hyp length, ref length, matches, totals) rows are scored by the one BLEU formula,
   :func:`bleukit.scoring.score_table`, a block of hypotheses at a time (the kernel hands over
   only the distinct rows of a block: most pairs repeat another pair's row).

Memory is the (N, M) output plus the counted tables (linear in the number of tokens) plus one
block of statistics rows. The engine follows ``bleukit.engine_name()`` (``BLEUKIT_ENGINE``).

>>> pairwise_bleu(["the cat sat", "a dog"], ["the cat sat", "a dog ran", "the cat"]).round(2)
array([[100.  ,   0.  ,  55.03],
       [  0.  ,  60.65,   0.  ]])
"""

from __future__ import annotations

import importlib
import numbers
import os
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Dict, Hashable, List, Optional, Sequence, Tuple

import numpy as np

from . import _native
from ._torch import is_torch_tensor
from .engine import preprocess
from .options import DEFAULT_MAX_NGRAM_ORDER, DEFAULT_SENTENCE_SMOOTH, BleuOptions
from .scoring import score_table
from .statistics import ngram_counts, stats_columns
from .tokenizers import DEFAULT_TOKENIZER, get_tokenizer

__all__ = ["pairwise_bleu", "pairwise_statistics", "pairwise_bleu_ids", "pairwise_engine"]

try:
    _kernel = importlib.import_module(f"{__package__}._pairwise_kernel")
    _kernel_error: Optional[str] = None
except ImportError as err:  # not compiled: the numpy loop is used
    _kernel = None
    _kernel_error = f"the pairwise kernel is not built ({err})"

#: Statistics rows scored at once: bounds the scoring memory to a few MB whatever N x M is.
_BLOCK_PAIRS = 1 << 16
#: (hypothesis n-gram, posting) pairs the numpy loop expands at once (some 50 MB of arrays).
_NUMPY_PAIRS = 1 << 20


def pairwise_engine() -> str:
    """``'native'`` or ``'python'``: who runs the pair loop, following :func:`bleukit.engine_name`.

    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"BLEUKIT_ENGINE": "python"}):
    ...     pairwise_engine()
    'python'
    """
    name = _native.engine_name()  # validates BLEUKIT_ENGINE
    if name == "native" and _kernel is None:
        if os.environ.get("BLEUKIT_ENGINE", "").strip().lower() == "native":
            raise RuntimeError(f"BLEUKIT_ENGINE=native, but {_kernel_error}")
        return "python"
    return name


# --------------------------------------------------------------------------------------------
# Counted tables.


@dataclass
class _Tables:
    """Counted n-grams of the distinct hypotheses (rows) and references (columns), ids as int64."""

    order: int
    hyp_len: np.ndarray  # (Nu,)
    ref_len: np.ndarray  # (Mu,)
    hyp_ptr: np.ndarray  # (Nu + 1,) entries of hypothesis i: hyp_ptr[i] .. hyp_ptr[i + 1]
    hyp_gid: np.ndarray  # n-gram id of each entry
    hyp_ord: np.ndarray  # its order - 1
    hyp_cnt: np.ndarray  # its count in the hypothesis
    post_ptr: np.ndarray  # (G + 1,) postings of n-gram g: post_ptr[g] .. post_ptr[g + 1]
    post_ref: np.ndarray  # reference holding it
    post_cnt: np.ndarray  # its count there

    def matches(self, i0: int, i1: int, engine: str, threads: int) -> np.ndarray:
        """Clipped matches of hypotheses ``i0..i1-1`` against every reference: (i1-i0, Mu, order)."""
        m = len(self.ref_len)
        if engine == "native":
            out = np.empty((i1 - i0, m, self.order), dtype=np.int64)
            _kernel.pair_matches(
                self.hyp_ptr, self.hyp_gid, self.hyp_ord, self.hyp_cnt, self.post_ptr, self.post_ref,
                self.post_cnt, i0, i1, m, self.order, out, threads,
            )
            return out
        return self._matches_numpy(i0, i1)

    def _matches_numpy(self, i0: int, i1: int) -> np.ndarray:
        # The kernel's loop written with arrays: every (hypothesis entry, posting) pair at once,
        # for as many hypotheses as keep those pairs under _NUMPY_PAIRS (near-identical MBR
        # samples share most n-grams, so a block of rows can hold 100 x rows x M of them).
        m, order = len(self.ref_len), self.order
        out = np.empty((i1 - i0, m, order), dtype=np.int64)
        gid = self.hyp_gid[self.hyp_ptr[i0] : self.hyp_ptr[i1]]
        pairs = np.zeros(gid.size + 1, dtype=np.int64)
        np.cumsum(self.post_ptr[gid + 1] - self.post_ptr[gid], out=pairs[1:])
        before = pairs[self.hyp_ptr[i0 : i1 + 1] - self.hyp_ptr[i0]]  # pairs before each row
        a = i0
        while a < i1:
            # the most rows from a on whose pairs fit (at least one row)
            b = max(a + 1, i0 + int(np.searchsorted(before, before[a - i0] + _NUMPY_PAIRS, side="right")) - 1)
            out[a - i0 : b - i0] = self._matches_rows(a, b)
            a = b
        return out

    def _matches_rows(self, i0: int, i1: int) -> np.ndarray:
        m, order = len(self.ref_len), self.order
        lo, hi = self.hyp_ptr[i0], self.hyp_ptr[i1]
        gid = self.hyp_gid[lo:hi]
        starts = self.post_ptr[gid]
        sizes = self.post_ptr[gid + 1] - starts
        entry = np.repeat(np.arange(hi - lo), sizes)
        first = np.cumsum(sizes) - sizes
        post = starts[entry] + (np.arange(entry.size) - first[entry])
        row = np.repeat(np.arange(i1 - i0), np.diff(self.hyp_ptr[i0 : i1 + 1]))[entry]
        clipped = np.minimum(self.hyp_cnt[lo:hi][entry], self.post_cnt[post])
        flat = (row * m + self.post_ref[post]) * order + self.hyp_ord[lo:hi][entry]
        # float64 weights are exact here: a count is at most a sentence length
        summed = np.bincount(flat, weights=clipped, minlength=(i1 - i0) * m * order)
        return summed.astype(np.int64).reshape(i1 - i0, m, order)


def _as_int64(values: List[int]) -> np.ndarray:
    return np.asarray(values, dtype=np.int64).reshape(-1)


def _build_tables(
    hyp_counts: Sequence[Counter], hyp_len: Sequence[int], ref_counts: Sequence[Counter],
    ref_len: Sequence[int], order: int, same: bool = False,
) -> _Tables:
    """The counted tables; ``same`` says both sides are the same sentences (MBR), in the same order."""
    ids: Dict[Tuple[Hashable, ...], int] = {}
    setdefault = ids.setdefault
    r_gid: List[int] = []
    r_cnt: List[int] = []
    r_size: List[int] = []
    for counts in ref_counts:
        # len(ids) is read before setdefault inserts, so a new n-gram gets the next id
        r_gid.extend([setdefault(g, len(ids)) for g in counts])
        r_cnt.extend(counts.values())
        r_size.append(len(counts))
    n_ids = len(ids)
    order_of = _as_int64([len(g) - 1 for g in ids])
    gid, cnt, size = _as_int64(r_gid), _as_int64(r_cnt), _as_int64(r_size)
    by_id = np.argsort(gid, kind="stable")
    post_ptr = np.zeros(n_ids + 1, dtype=np.int64)
    np.cumsum(np.bincount(gid, minlength=n_ids), out=post_ptr[1:])
    post_ref = np.repeat(np.arange(len(r_size), dtype=np.int64), size)[by_id]

    if same:
        h_gid, h_cnt, h_size = gid, cnt, size
    else:
        # Hypothesis n-grams no reference holds (id -1) cannot match: only their totals count.
        get = ids.get
        h_list: List[int] = []
        c_list: List[int] = []
        s_list: List[int] = []
        for counts in hyp_counts:
            h_list.extend([get(g, -1) for g in counts])
            c_list.extend(counts.values())
            s_list.append(len(counts))
        h_gid, h_cnt = _as_int64(h_list), _as_int64(c_list)
        keep = h_gid >= 0
        owner = np.repeat(np.arange(len(s_list), dtype=np.int64), _as_int64(s_list))[keep]
        h_gid, h_cnt = h_gid[keep], h_cnt[keep]
        h_size = np.bincount(owner, minlength=len(s_list)).astype(np.int64)
    hyp_ptr = np.zeros(len(h_size) + 1, dtype=np.int64)
    np.cumsum(h_size, out=hyp_ptr[1:])
    return _Tables(
        order=order,
        hyp_len=_as_int64(list(hyp_len)),
        ref_len=_as_int64(list(ref_len)),
        hyp_ptr=hyp_ptr,
        hyp_gid=h_gid,
        hyp_ord=order_of[h_gid],
        hyp_cnt=h_cnt,
        post_ptr=post_ptr,
        post_ref=post_ref,
        post_cnt=cnt[by_id],
    )


@dataclass
class _Pairs:
    """The distinct sentences of both sides, counted once, and where each input item maps."""

    tables: _Tables
    hyp_index: np.ndarray  # input hypothesis -> distinct hypothesis row
    ref_index: np.ndarray  # input reference -> distinct reference column


def _distinct(items: Sequence[Hashable], slots: Dict[Hashable, int]) -> Tuple[List[int], np.ndarray]:
    """Sentence slots of the distinct items (first-appearance order) and each item's position among them."""
    local: Dict[int, int] = {}
    rows: List[int] = []
    index = []
    for item in items:
        s = slots.setdefault(item, len(slots))
        k = local.get(s)
        if k is None:
            k = local[s] = len(rows)
            rows.append(s)
        index.append(k)
    return rows, _as_int64(index)


def _pairs(hyps: Sequence[Hashable], refs: Sequence[Hashable], tokens: Callable[[Any], Sequence], order: int) -> _Pairs:
    # One slot per distinct sentence over both sides: MBR passes the same list twice, and sampled
    # candidates repeat, so each distinct sentence is tokenized and counted exactly once.
    slots: Dict[Hashable, int] = {}
    hyp_rows, hyp_index = _distinct(hyps, slots)
    ref_rows, ref_index = _distinct(refs, slots)
    sentences = list(slots)
    counted: List[Optional[Tuple[Counter, int]]] = [None] * len(sentences)

    def count(s: int) -> Tuple[Counter, int]:
        if counted[s] is None:
            toks = tokens(sentences[s])
            counted[s] = (ngram_counts(toks, order), len(toks))
        return counted[s]

    hyp_side = [count(s) for s in hyp_rows]
    ref_side = [count(s) for s in ref_rows]
    tables = _build_tables(
        [c for c, _ in hyp_side], [n for _, n in hyp_side], [c for c, _ in ref_side], [n for _, n in ref_side], order,
        same=hyp_rows == ref_rows,
    )
    return _Pairs(tables, hyp_index, ref_index)


# --------------------------------------------------------------------------------------------
# Rows and scores.


def _check_threads(threads: Any) -> int:
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or threads < 1:
        raise ValueError(f"threads must be an int >= 1, got {threads!r}")
    return int(threads)


def _block_rows(tables: _Tables, i0: int, i1: int, engine: str, threads: int) -> np.ndarray:
    """Statistics of hypotheses i0..i1-1 against every reference: (i1-i0, Mu, 2 + 2 * order)."""
    order, m = tables.order, len(tables.ref_len)
    rows = np.empty((i1 - i0, m, stats_columns(order)), dtype=np.int64)
    rows[:, :, 0] = tables.hyp_len[i0:i1, None]
    rows[:, :, 1] = tables.ref_len[None, :]
    rows[:, :, 2 : 2 + order] = tables.matches(i0, i1, engine, threads)
    totals = np.maximum(tables.hyp_len[i0:i1, None] - np.arange(order)[None, :], 0)
    rows[:, :, 2 + order :] = totals[:, None, :]
    return rows


def _blocks(n_rows: int, n_cols: int):
    step = max(1, _BLOCK_PAIRS // max(n_cols, 1))
    for i0 in range(0, n_rows, step):
        yield i0, min(n_rows, i0 + step)


def _distinct_scores(pairs: _Pairs, options: BleuOptions, threads: int) -> np.ndarray:
    """Scores of the distinct hypotheses against the distinct references (Nu, Mu)."""
    tables = pairs.tables
    engine = pairwise_engine()
    nu, mu = len(tables.hyp_len), len(tables.ref_len)
    out = np.empty((nu, mu), dtype=np.float64)
    for i0, i1 in _blocks(nu, mu):
        if engine == "native":
            out[i0:i1] = _native_block_scores(tables, i0, i1, options, threads)
        else:
            rows = _block_rows(tables, i0, i1, engine, threads)
            out[i0:i1] = score_table(rows.reshape(-1, rows.shape[-1]), options).score.reshape(i1 - i0, mu)
    return out


def _native_block_scores(tables: _Tables, i0: int, i1: int, options: BleuOptions, threads: int) -> np.ndarray:
    """The block's scores, scoring only its distinct rows: pairs repeat rows a lot (at N = 1024
    real sentences some 4% of the pairs are distinct), so the kernel keys each pair by
    (hyp length, ref length, matches) (the totals follow from the hypothesis length), finds the
    distinct keys, and score_table sees those alone."""
    order, m = tables.order, len(tables.ref_len)
    width = 2 + order
    keys = np.empty((i1 - i0, m, width), dtype=np.int64)
    _kernel.pair_matches(
        tables.hyp_ptr, tables.hyp_gid, tables.hyp_ord, tables.hyp_cnt, tables.post_ptr, tables.post_ref,
        tables.post_cnt, i0, i1, m, order, keys, threads, width, 2,
    )
    keys[:, :, 0] = tables.hyp_len[i0:i1, None]
    keys[:, :, 1] = tables.ref_len[None, :]
    keys = keys.reshape(-1, width)
    first = np.empty(len(keys), dtype=np.int64)
    inverse = np.empty(len(keys), dtype=np.int64)
    k = _kernel.unique_rows(keys, width, first, inverse)
    rows = np.empty((k, stats_columns(order)), dtype=np.int64)
    rows[:, :width] = keys[first[:k]]
    rows[:, width:] = np.maximum(rows[:, :1] - np.arange(order)[None, :], 0)
    return score_table(rows, options).score[inverse].reshape(i1 - i0, m)


def _scores(pairs: _Pairs, options: BleuOptions, threads: int) -> np.ndarray:
    return _expand(_distinct_scores(pairs, options, threads), pairs)


def _aggregate_scores(pairs: _Pairs, ref_weights: np.ndarray, options: BleuOptions) -> np.ndarray:
    """BLEU of each distinct hypothesis against one expected reference (DeNero et al. 2009).

    The expected reference's n-gram counts and length are the ``ref_weights``-weighted means over
    the distinct references (weights summing to one), so its counts are fractional; the clip is
    ``min(hyp count, expected count)`` and the one formula scores the fractional rows. Linear in
    the number of n-grams, and an approximation of the mean of pairwise BLEU, not equal to it.
    """
    tb = pairs.tables
    nu, order = len(tb.hyp_len), tb.order
    n_ids = len(tb.post_ptr) - 1
    post_gid = np.repeat(np.arange(n_ids), np.diff(tb.post_ptr))
    expected = np.bincount(post_gid, weights=ref_weights[tb.post_ref] * tb.post_cnt, minlength=n_ids)
    hyp_row = np.repeat(np.arange(nu), np.diff(tb.hyp_ptr))
    clipped = np.minimum(tb.hyp_cnt, expected[tb.hyp_gid])
    matches = np.bincount(hyp_row * order + tb.hyp_ord, weights=clipped, minlength=nu * order).reshape(nu, order)
    rows = np.empty((nu, stats_columns(order)), dtype=np.float64)
    rows[:, 0] = tb.hyp_len
    rows[:, 1] = float(ref_weights @ tb.ref_len)
    rows[:, 2 : 2 + order] = matches
    rows[:, 2 + order :] = np.maximum(tb.hyp_len[:, None] - np.arange(order)[None, :], 0)
    return score_table(rows, options).score


def _expand(distinct: np.ndarray, pairs: _Pairs) -> np.ndarray:
    """The distinct rows/columns laid out as the inputs were (a copy only where items repeat)."""
    nu, mu = distinct.shape[:2]
    if len(pairs.hyp_index) != nu:
        distinct = distinct[pairs.hyp_index]
    if len(pairs.ref_index) != mu:
        distinct = distinct[:, pairs.ref_index]
    return distinct


def _check_texts(texts: Any, what: str) -> List[str]:
    if isinstance(texts, (str, bytes)) or texts is None or isinstance(texts, dict) or not hasattr(texts, "__len__"):
        raise TypeError(f"{what} must be a list of strings, got {type(texts).__name__}")
    texts = list(texts)
    if not texts:
        raise ValueError(f"{what} is empty: pairwise BLEU needs at least one sentence on each side")
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"{what}[{i}] must be a str, got {type(t).__name__}")
    return texts


def _text_pairs(
    hypotheses: Any, references: Any, options: BleuOptions, names: Tuple[str, str] = ("hypotheses", "references")
) -> _Pairs:
    hyps = _check_texts(hypotheses, names[0])
    refs = hyps if references is hypotheses else _check_texts(references, names[1])
    tok = get_tokenizer(options.tokenize)
    lc = options.lowercase
    return _pairs(hyps, refs, lambda line: preprocess(line, tok, lc), options.max_ngram_order)


# --------------------------------------------------------------------------------------------
# Public API.


def pairwise_bleu(
    hypotheses: Sequence[str],
    references: Sequence[str],
    *,
    tokenize: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    smooth_method: str = DEFAULT_SENTENCE_SMOOTH,
    smooth_value: Optional[float] = None,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    weights: Optional[Sequence[float]] = None,
    effective_order: bool = True,
    threads: int = 1,
) -> np.ndarray:
    """Sentence BLEU of every hypothesis against every single reference: a float64 (N, M) matrix.

    Element ``(i, j)`` equals ``sacrebleu.sentence_bleu(hypotheses[i], [references[j]], ...)``
    with the same options (sentence defaults: exp smoothing, effective order). Pass the same list
    twice for MBR's candidates-against-candidates matrix. ``threads`` splits the compiled pair
    loop over hypotheses.

    >>> m = pairwise_bleu(["It is raining today."], ["It rains today.", "It is raining today."])
    >>> m.shape, m.round(4).tolist()
    ((1, 2), [[23.6435, 100.0]])
    """
    options = BleuOptions(
        tokenize=tokenize, lowercase=lowercase, smooth_method=smooth_method, smooth_value=smooth_value,
        max_ngram_order=max_ngram_order, weights=weights, effective_order=effective_order,
    )
    threads = _check_threads(threads)
    return _scores(_text_pairs(hypotheses, references, options), options, threads)


def pairwise_statistics(
    hypotheses: Sequence[str],
    references: Sequence[str],
    *,
    tokenize: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    threads: int = 1,
) -> np.ndarray:
    """Statistics of every (hypothesis, reference) pair: int64 ``(N, M, 2 + 2 * max_ngram_order)``.

    ``table[i, j]`` is the row ``bleukit.corpus_statistics([hypotheses[i]], [references[j]], ...)``
    would hold (sacreBLEU's column order), so ``table.reshape(-1, table.shape[-1])`` is a
    :class:`bleukit.BleuStatistics` table (one reference per row) that
    :func:`bleukit.sentence_scores_from_statistics` scores. Memory is N x M rows: prefer
    :func:`pairwise_bleu` when only scores are needed.

    >>> pairwise_statistics(["a b c"], ["a b d", "c"], max_ngram_order=2).tolist()
    [[[3, 3, 2, 1, 3, 2], [3, 1, 1, 0, 3, 2]]]
    """
    options = BleuOptions(tokenize=tokenize, lowercase=lowercase, max_ngram_order=max_ngram_order)
    threads = _check_threads(threads)
    pairs = _text_pairs(hypotheses, references, options)
    tables = pairs.tables
    rows = _block_rows(tables, 0, len(tables.hyp_len), pairwise_engine(), threads)
    return _expand(rows, pairs)


def pairwise_bleu_ids(
    hyp_ids: Any,
    ref_ids: Any,
    *,
    pad_id: Optional[int] = None,
    smooth_method: str = DEFAULT_SENTENCE_SMOOTH,
    smooth_value: Optional[float] = None,
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER,
    weights: Optional[Sequence[float]] = None,
    effective_order: bool = True,
    threads: int = 1,
    backend: str = "auto",
) -> Any:
    """Pairwise sentence BLEU on token ids (candidates that were never detokenized).

    ``hyp_ids`` and ``ref_ids`` are 2-D arrays/tensors ``(N, length)`` padded with ``pad_id``
    (dropped wherever it occurs), or lists of 1-D id sequences. Element ``(i, j)`` equals
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
    options = BleuOptions(
        tokenize="none", smooth_method=smooth_method, smooth_value=smooth_value,
        max_ngram_order=max_ngram_order, weights=weights, effective_order=effective_order,
    )
    threads = _check_threads(threads)
    if backend not in ("auto", "numpy", "torch"):
        raise ValueError(f"unknown backend={backend!r}; choose one of auto, numpy, torch")
    device = _torch_device(hyp_ids, ref_ids)
    if backend == "torch" or (backend == "auto" and device is not None and device.type != "cpu"):
        return _pairwise_ids_torch(hyp_ids, ref_ids, pad_id, options, device)
    same = ref_ids is hyp_ids
    hyps = _id_tuples(hyp_ids, pad_id, "hyp_ids")
    refs = hyps if same else _id_tuples(ref_ids, pad_id, "ref_ids")
    scores = _scores(_pairs(hyps, refs, lambda seq: seq, options.max_ngram_order), options, threads)
    if device is None:
        return scores
    import torch

    return torch.from_numpy(scores).to(device)


def _torch_device(*objs: Any):
    for obj in objs:
        if is_torch_tensor(obj):
            return obj.device
        if isinstance(obj, (list, tuple)) and obj and is_torch_tensor(obj[0]):
            return obj[0].device
    return None


def _id_tuples(seqs: Any, pad_id: Optional[int], what: str) -> List[Tuple[int, ...]]:
    """Each sequence as a tuple of Python ints without padding (hashable: equal ones count once)."""
    if seqs is None or isinstance(seqs, (str, bytes, dict)) or not hasattr(seqs, "__len__"):
        raise TypeError(f"{what} must be a 2-D array/tensor of ids or a list of id sequences, got {type(seqs).__name__}")
    if hasattr(seqs, "detach"):
        seqs = seqs.detach().cpu().numpy()
    if isinstance(seqs, np.ndarray) and seqs.ndim != 2:
        raise ValueError(f"{what} must be 2-D (sequences, length) or a list of sequences, got shape {seqs.shape}")
    if len(seqs) == 0:
        raise ValueError(f"{what} is empty: pairwise BLEU needs at least one sequence on each side")
    out = []
    for i, seq in enumerate(seqs):
        if hasattr(seq, "detach"):
            seq = seq.detach().cpu().numpy()
        arr = np.asarray(seq)
        if arr.ndim != 1:
            raise ValueError(f"{what}[{i}] must be a 1-D sequence of token ids, got shape {arr.shape}")
        if arr.size and not np.issubdtype(arr.dtype, np.integer):
            raise TypeError(f"{what}[{i}] must hold integer token ids, got dtype {arr.dtype}")
        if pad_id is not None:
            arr = arr[arr != pad_id]
        out.append(tuple(arr.tolist()))
    return out


def _pairwise_ids_torch(hyp_ids: Any, ref_ids: Any, pad_id: Optional[int], options: BleuOptions, device) -> Any:
    import torch

    from .ids import sentence_bleu_ids

    if device is None:
        device = torch.device("cpu")
    hyps, hyp_len = _padded(torch, hyp_ids, pad_id, device, "hyp_ids")
    refs, ref_len = (hyps, hyp_len) if ref_ids is hyp_ids else _padded(torch, ref_ids, pad_id, device, "ref_ids")
    n, m = hyps.shape[0], refs.shape[0]
    out = torch.empty((n, m), dtype=torch.float64, device=device)
    # Each block repeats its hypotheses against all references; its size bounds the ids in flight.
    width = max(1, hyps.shape[1] + refs.shape[1])
    step = max(1, (1 << 22) // (m * width))
    for i0 in range(0, n, step):
        i1 = min(n, i0 + step)
        b = i1 - i0
        out[i0:i1] = sentence_bleu_ids(
            hyps[i0:i1].repeat_interleave(m, 0), refs.repeat(b, 1),
            pad_id=pad_id, hyp_lengths=hyp_len[i0:i1].repeat_interleave(m, 0), ref_lengths=ref_len.repeat(b),
            max_ngram_order=options.max_ngram_order, smooth_method=options.smooth_method,
            smooth_value=options.smooth_value, effective_order=options.effective_order,
            weights=options.weights, backend="torch",
        ).reshape(b, m)
    return out


def _padded(torch, seqs: Any, pad_id: Optional[int], device, what: str):
    """A (n, L) int64 tensor on ``device`` and each row's length (pads are dropped by the scorer)."""
    if seqs is None or isinstance(seqs, (str, bytes, dict)) or not hasattr(seqs, "__len__") or len(seqs) == 0:
        raise TypeError(f"{what} must be a non-empty 2-D tensor of ids or a list of id sequences")
    if hasattr(seqs, "detach") or isinstance(seqs, np.ndarray):
        x = torch.as_tensor(seqs).to(device=device, dtype=torch.int64)
        if x.ndim != 2:
            raise ValueError(f"{what} must be 2-D (sequences, length) or a list of sequences, got shape {tuple(x.shape)}")
        return x, torch.full((x.shape[0],), x.shape[1], dtype=torch.int64, device=device)
    rows = [torch.as_tensor(np.asarray(r) if not hasattr(r, "detach") else r).to(device=device, dtype=torch.int64)
            for r in seqs]
    for i, r in enumerate(rows):
        if r.ndim != 1:
            raise ValueError(f"{what}[{i}] must be a 1-D sequence of token ids, got shape {tuple(r.shape)}")
    lengths = torch.tensor([r.shape[0] for r in rows], dtype=torch.int64, device=device)
    x = torch.nn.utils.rnn.pad_sequence(rows, batch_first=True, padding_value=0)
    if x.shape[1] == 0:
        x = torch.zeros((len(rows), 1), dtype=torch.int64, device=device)
    return x, lengths
