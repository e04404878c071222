"""BLEU of sentence pairs: every distinct sentence counted once, then the clipped matches of every pair.

What :func:`bleukit.pairwise_bleu` and MBR run for BLEU (``BLEU.pairwise_scores``):

1. each distinct sentence is tokenized (``bleukit.metrics.bleu.extract.preprocess``) and its n-grams
   counted (``bleukit.metrics.bleu.statistics.ngram_counts``) once;
2. the references' n-grams get integer ids and an inverted index (for each n-gram, the
   references holding it and how often); hypothesis n-grams that no reference holds are dropped,
   since they can only add to the totals, which follow from the length;
3. for each hypothesis, its n-grams walk their postings and add ``min(hyp count, ref count)`` to
   the matches of each reference (compiled in BLEU's kernel, ``bleukit.metrics.bleu._kernel``, GIL released,
   ``threads=``; a numpy version of the same loop is the reference and fallback);
4. the (hyp length, ref length, matches, totals) rows are scored by the one BLEU formula,
   :func:`bleukit.metrics.bleu.formula.score_table`, a block of hypotheses at a time (the kernel
   hands over only the distinct rows of a block: most pairs repeat another pair's row).

Memory is the (N, M) output plus the counted tables (linear in the number of tokens) plus one
block of statistics rows.

>>> from bleukit import BleuOptions
>>> pairs = text_pairs(["a b", "a b"], ["a b", "c"], BleuOptions(max_ngram_order=2))
>>> len(pairs.tables.hyp_len), pairs.hyp_index.tolist()
(1, [0, 0])
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Dict, Hashable, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from ... import _native
from ...inputs import check_texts
from ...tokenizers import get_tokenizer
from .extract import preprocess
from .formula import score_table
from .options import BleuOptions
from .statistics import ngram_counts, stats_columns

__all__ = [
    "pair_kernel",
    "Tables",
    "Pairs",
    "build_tables",
    "count_pairs",
    "text_pairs",
    "block_rows",
    "block_scores",
    "distinct_scores",
    "self_rows",
    "aggregate_scores",
    "scores",
    "expand",
]

def pair_kernel() -> Optional[ModuleType]:
    """The compiled pair loop to use now, or ``None`` for the numpy loop (``bleukit._native`` decides).

    >>> pair_kernel() is None or hasattr(pair_kernel(), "pair_matches")
    True
    """
    return _native.kernel(_native.MAIN_KERNEL)


#: Statistics rows scored at once: bounds the scoring memory to a few MB whatever N x M is.
_BLOCK_PAIRS = 1 << 16
#: (hypothesis n-gram, posting) pairs the numpy loop expands at once (some 50 MB of arrays).
_NUMPY_PAIRS = 1 << 20


# --------------------------------------------------------------------------------------------
# Counted tables.


@dataclass
class Tables:
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

    def matches(self, i0: int, i1: int, kernel: Optional[ModuleType], threads: int) -> np.ndarray:
        """Clipped matches of hypotheses ``i0..i1-1`` against every reference: (i1-i0, Mu, order),
        by the compiled loop ``kernel`` or, when it is ``None``, the numpy loop."""
        m = len(self.ref_len)
        if kernel is not None:
            out = np.empty((i1 - i0, m, self.order), dtype=np.int64)
            kernel.pair_matches(
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


def build_tables(
    hyp_counts: Sequence[Counter], hyp_len: Sequence[int], ref_counts: Sequence[Counter],
    ref_len: Sequence[int], order: int, same: bool = False,
) -> Tables:
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
    return Tables(
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
class Pairs:
    """The distinct sentences of both sides, counted once, and where each input item maps."""

    tables: Tables
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


def count_pairs(
    hyps: Sequence[Hashable], refs: Sequence[Hashable], tokens: Callable[[Any], Sequence[Any]], order: int
) -> Pairs:
    # One slot per distinct sentence over both sides: MBR passes the same list twice, and sampled
    # candidates repeat, so each distinct sentence is tokenized and counted exactly once.
    slots: Dict[Hashable, int] = {}
    hyp_rows, hyp_index = _distinct(hyps, slots)
    ref_rows, ref_index = _distinct(refs, slots)
    sentences = list(slots)
    counted: List[Optional[Tuple[Counter, int]]] = [None] * len(sentences)

    def count(s: int) -> Tuple[Counter, int]:
        found = counted[s]
        if found is None:
            toks = tokens(sentences[s])
            found = counted[s] = (ngram_counts(toks, order), len(toks))
        return found

    hyp_side = [count(s) for s in hyp_rows]
    ref_side = [count(s) for s in ref_rows]
    tables = build_tables(
        [c for c, _ in hyp_side], [n for _, n in hyp_side], [c for c, _ in ref_side], [n for _, n in ref_side], order,
        same=hyp_rows == ref_rows,
    )
    return Pairs(tables, hyp_index, ref_index)


# --------------------------------------------------------------------------------------------
# Rows and scores.


def block_rows(tables: Tables, i0: int, i1: int, kernel: Optional[ModuleType], threads: int) -> np.ndarray:
    """Statistics of hypotheses i0..i1-1 against every reference: (i1-i0, Mu, 2 + 2 * order)."""
    order, m = tables.order, len(tables.ref_len)
    rows = np.empty((i1 - i0, m, stats_columns(order)), dtype=np.int64)
    rows[:, :, 0] = tables.hyp_len[i0:i1, None]
    rows[:, :, 1] = tables.ref_len[None, :]
    rows[:, :, 2 : 2 + order] = tables.matches(i0, i1, kernel, threads)
    totals = np.maximum(tables.hyp_len[i0:i1, None] - np.arange(order)[None, :], 0)
    rows[:, :, 2 + order :] = totals[:, None, :]
    return rows


def _blocks(n_rows: int, n_cols: int) -> Iterator[Tuple[int, int]]:
    step = max(1, _BLOCK_PAIRS // max(n_cols, 1))
    for i0 in range(0, n_rows, step):
        yield i0, min(n_rows, i0 + step)


def block_scores(pairs: Pairs, options: BleuOptions, threads: int) -> Iterator[Tuple[int, int, np.ndarray]]:
    """Scores of the distinct hypotheses against the distinct references, a block of hypotheses at a
    time: ``(i0, i1, scores)`` with ``scores`` float64 ``(i1 - i0, Mu)`` (memory: one block)."""
    tables = pairs.tables
    kernel = pair_kernel()
    nu, mu = len(tables.hyp_len), len(tables.ref_len)
    for i0, i1 in _blocks(nu, mu):
        if kernel is not None:
            yield i0, i1, _native_block_scores(kernel, tables, i0, i1, options, threads)
        else:
            rows = block_rows(tables, i0, i1, None, threads)
            yield i0, i1, score_table(rows.reshape(-1, rows.shape[-1]), options).score.reshape(i1 - i0, mu)


def distinct_scores(pairs: Pairs, options: BleuOptions, threads: int) -> np.ndarray:
    """Scores of the distinct hypotheses against the distinct references (Nu, Mu)."""
    out = np.empty((len(pairs.tables.hyp_len), len(pairs.tables.ref_len)), dtype=np.float64)
    for i0, i1, scores in block_scores(pairs, options, threads):
        out[i0:i1] = scores
    return out


def _native_block_scores(
    kernel: ModuleType, tables: Tables, i0: int, i1: int, options: BleuOptions, threads: int
) -> np.ndarray:
    """The block's scores, scoring only its distinct rows: pairs repeat rows a lot (at N = 1024
    real sentences some 4% of the pairs are distinct), so the kernel keys each pair by
    (hyp length, ref length, matches) (the totals follow from the hypothesis length), finds the
    distinct keys, and score_table sees those alone."""
    order, m = tables.order, len(tables.ref_len)
    width = 2 + order
    keys = np.empty((i1 - i0, m, width), dtype=np.int64)
    kernel.pair_matches(
        tables.hyp_ptr, tables.hyp_gid, tables.hyp_ord, tables.hyp_cnt, tables.post_ptr, tables.post_ref,
        tables.post_cnt, i0, i1, m, order, keys, threads, width, 2,
    )
    keys[:, :, 0] = tables.hyp_len[i0:i1, None]
    keys[:, :, 1] = tables.ref_len[None, :]
    flat_keys = keys.reshape(-1, width)
    first = np.empty(len(flat_keys), dtype=np.int64)
    inverse = np.empty(len(flat_keys), dtype=np.int64)
    k = kernel.unique_rows(flat_keys, width, first, inverse)
    rows = np.empty((k, stats_columns(order)), dtype=np.int64)
    rows[:, :width] = flat_keys[first[:k]]
    rows[:, width:] = np.maximum(rows[:, :1] - np.arange(order)[None, :], 0)
    return score_table(rows, options).score[inverse].reshape(i1 - i0, m)


def scores(pairs: Pairs, options: BleuOptions, threads: int) -> np.ndarray:
    """Scores of every input hypothesis against every input reference (N, M)."""
    return expand(distinct_scores(pairs, options, threads), pairs)


def aggregate_scores(pairs: Pairs, ref_weights: np.ndarray, options: BleuOptions) -> np.ndarray:
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


def expand(distinct: np.ndarray, pairs: Pairs) -> np.ndarray:
    """The distinct rows/columns laid out as the inputs were (a copy only where items repeat)."""
    nu, mu = distinct.shape[:2]
    if len(pairs.hyp_index) != nu:
        distinct = distinct[pairs.hyp_index]
    if len(pairs.ref_index) != mu:
        distinct = distinct[:, pairs.ref_index]
    return distinct


def text_pairs(
    hypotheses: Any, references: Any, options: BleuOptions, names: Tuple[str, str] = ("hypotheses", "references")
) -> Pairs:
    """The counted tables of two lists of sentences (checked; the same list twice is counted once)."""
    hyps = check_texts(hypotheses, names[0])
    refs = hyps if references is hypotheses else check_texts(references, names[1])
    tok = get_tokenizer(options.tokenize)
    lc = options.lowercase
    return count_pairs(hyps, refs, lambda line: preprocess(line, tok, lc), options.max_ngram_order)




def self_rows(pairs: Pairs) -> np.ndarray:
    """Statistics of each input sentence against all the other input sentences as its references:
    int64 ``(N, 2 + 2 * order)``, from the tables of one list counted against itself
    (``text_pairs(texts, texts, ...)`` or ``count_pairs(seqs, seqs, ...)``).

    Multi-reference BLEU clips each n-gram at its largest count in any one reference. Among "all
    the others" that is the n-gram's largest count over all sentences, unless sentence ``i`` alone
    holds that count (a repeated sentence counts as often as it occurs), in which case it is the
    second largest: so three numbers per n-gram, from one pass over its postings, give every
    sentence's clips, and the work is linear in the number of n-grams instead of quadratic in the
    number of sentences. The reference length is the others' length closest to the sentence's own
    (ties to the shorter one), as sacreBLEU chooses it.

    >>> from bleukit import BleuOptions
    >>> texts = ["a b c", "a b", "a b c"]
    >>> self_rows(text_pairs(texts, texts, BleuOptions(max_ngram_order=2))).tolist()
    [[3, 3, 3, 2, 3, 2], [2, 3, 2, 1, 2, 1], [3, 3, 3, 2, 3, 2]]
    """
    tb = pairs.tables
    if not np.array_equal(pairs.hyp_index, pairs.ref_index):
        raise ValueError("self_rows needs the tables of one list of sentences counted against itself")
    n, nu, order = len(pairs.hyp_index), len(tb.hyp_len), tb.order
    if n < 2:
        raise ValueError(f"scoring each sentence against the others needs at least 2 sentences, got {n}")
    copies = np.bincount(pairs.ref_index, minlength=nu)
    matches = np.zeros((nu, order), dtype=np.int64)
    if len(tb.post_ptr) > 1:
        # Every n-gram id has at least one posting (ids are made from the sentences' n-grams).
        starts = tb.post_ptr[:-1]
        top = np.maximum.reduceat(tb.post_cnt, starts)
        at_top = tb.post_cnt == np.repeat(top, np.diff(tb.post_ptr))
        holders = np.add.reduceat(np.where(at_top, copies[tb.post_ref], 0), starts)
        second = np.maximum.reduceat(np.where(at_top, 0, tb.post_cnt), starts)
        g, c = tb.hyp_gid, tb.hyp_cnt
        clip = np.where((c == top[g]) & (holders[g] == 1), second[g], top[g])
        entry_row = np.repeat(np.arange(nu, dtype=np.int64), np.diff(tb.hyp_ptr))
        # float64 weights are exact here: a count is at most a sentence length
        flat = np.bincount(entry_row * order + tb.hyp_ord, weights=np.minimum(c, clip), minlength=nu * order)
        matches = flat.astype(np.int64).reshape(nu, order)
    lengths = tb.hyp_len[pairs.hyp_index]
    rows = np.empty((n, stats_columns(order)), dtype=np.int64)
    rows[:, 0] = lengths
    rows[:, 1] = _closest_other_length(lengths)
    rows[:, 2 : 2 + order] = matches[pairs.hyp_index]
    rows[:, 2 + order :] = np.maximum(lengths[:, None] - np.arange(order)[None, :], 0)
    return rows


def _closest_other_length(lengths: np.ndarray) -> np.ndarray:
    """For each length, the closest one among the other entries (ties to the shorter)."""
    values, counts = np.unique(lengths, return_counts=True)
    pos = np.searchsorted(values, lengths)
    last = len(values) - 1
    below = np.where(pos > 0, values[np.maximum(pos - 1, 0)], -1)
    above = np.where(pos < last, values[np.minimum(pos + 1, last)], -1)
    gap_below = np.where(below >= 0, lengths - below, np.iinfo(np.int64).max)
    gap_above = np.where(above >= 0, above - lengths, np.iinfo(np.int64).max)
    nearest = np.where(gap_below <= gap_above, below, above)
    # another entry of the same length is at distance 0
    return np.where(counts[pos] > 1, lengths, nearest)
