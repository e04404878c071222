"""Minimum-Bayes-risk selection with a sentence score (BLEU by default, any metric) as the utility.

MBR decoding picks, among candidate translations, the one with the highest expected utility
against translations drawn from the model (the pseudo-references; by default the candidates
themselves, each one included in its own expectation, as in ``mbrs`` and most MBR papers):

    utility(c) = sum_j w_j * sentence_score(c, [r_j])

with ``w_j`` uniform, given probabilities or given log-probabilities. The N x M matrix comes from
the metric's ``pairwise_scores`` (:func:`bleukit.pairwise.pairwise_scores`; for BLEU every sentence
is counted once and a compiled loop clips the pairs).

A BLAS dot product rounds in an order that depends on the position of a pseudo-reference, so
utilities that are mathematically equal (candidates scoring the same against the
pseudo-references in another order, say) could differ in the last bit and the rounding would
break the tie. Every utility within the product's rounding bound of another is therefore
recomputed as the correctly rounded value of the exact sum of the exact products (error-free
products, summed by ``math.fsum``): mathematically equal utilities are bit-equal, and the tie rule
(the lowest index first) decides between them. (Exact as long as no product falls below 2**-969,
some 1e-292, where its rounding error would underflow.)

``aggregate=True`` uses reference aggregation instead (DeNero et al. 2009; Vamvas & Sennrich
2024): one expected reference whose n-gram counts and length are the weighted means of the
pseudo-references', and each candidate's sentence score against it (BLEU and chrF implement it).
That is linear in the number of pseudo-references instead of quadratic, and only an
approximation: neither metric is linear in the counts, so its utilities differ from the exact
expectation and may rank candidates differently.

>>> pick = mbr_select(["the cat sat on the mat", "a cat sat on the mat", "the cat is on a mat"])
>>> pick.index, pick.best
(0, 'the cat sat on the mat')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .._torch import is_torch_tensor
from ..defaults import DEFAULT_THREADS
from ..engine import thread_count
from ..inputs import check_count, check_sequence, check_texts
from ..metrics import fast, metric_for, resolve_options
from ..metrics.base import MetricOptions
from ..metrics.bleu.formula import binary_scaled

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..metrics.bleu.options import BleuMbrOptionKeywords

__all__ = ["MBRSelection", "mbr_select"]


@dataclass(frozen=True)
class MBRSelection:
    """The outcome of MBR selection for one source sentence.

    ``indices`` are the ``nbest`` chosen candidates, best first (ties: lowest index first);
    ``utilities`` the expected score (BLEU: 0-100) of every candidate, in input order.
    """

    indices: List[int]
    selected: List[str]
    utilities: np.ndarray

    @property
    def index(self) -> int:
        """Index of the best candidate."""
        return self.indices[0]

    @property
    def best(self) -> str:
        """The best candidate."""
        return self.selected[0]


def _normalised_weights(weights: Any, log_weights: bool, m: int, where: str) -> np.ndarray:
    if is_torch_tensor(weights):
        weights = weights.detach().cpu().numpy()
    if not isinstance(weights, np.ndarray):
        weights = check_sequence(weights, where, of="numbers")
    w = np.asarray(weights)
    if w.ndim != 1 or w.shape[0] != m:
        raise ValueError(f"{where} has shape {w.shape}, but there are {m} pseudo-references: give one weight each")
    if w.dtype == bool or not (np.issubdtype(w.dtype, np.integer) or np.issubdtype(w.dtype, np.floating)):
        raise TypeError(f"{where} must hold numbers, got dtype {w.dtype}")
    w = w.astype(np.float64)
    if log_weights:
        if np.isnan(w).any() or (w == np.inf).any():
            raise ValueError(f"{where} (log-probabilities) must not hold NaN or +inf")
        if not np.isfinite(w).any():
            raise ValueError(f"{where} (log-probabilities) are all -inf: no pseudo-reference has any weight")
        # softmax: shifting by the maximum keeps exp in range and changes nothing after normalising
        w = np.exp(w - w.max())
    elif not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(
            f"{where} (probabilities) must be finite and >= 0; pass log_weights=True for "
            "log-probabilities"
        )
    if not w.max(initial=0.0) > 0:
        raise ValueError(f"{where} sum to zero: no pseudo-reference has any weight")
    if (w == w[0]).all():
        return np.full(m, 1.0 / m)  # equal weights are the plain mean, to the bit
    # A power of two changes no bit of the normalised weights, and keeps a sum of huge weights
    # ([1e308] * 3) finite.
    w = np.asarray(binary_scaled(w.tolist()), dtype=np.float64)
    return w / w.sum()


_SPLIT = 134217729.0  # 2**27 + 1: Dekker's splitter for float64


def _halves(x: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Each float as the exact sum of two with at most 26 significant bits (Dekker)."""
    c = _SPLIT * x
    high = c - (c - x)
    return high, x - high


def _exact_dot(matrix: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``matrix @ weights``, each element the correctly rounded exact sum of the exact products:
    every product split into its rounded value and its rounding error (Dekker), each row's terms
    summed by ``math.fsum``."""
    product = matrix * weights
    m_high, m_low = _halves(matrix)
    w_high, w_low = _halves(weights)
    error = ((m_high * w_high - product) + m_high * w_low + m_low * w_high) + m_low * w_low
    terms = np.ascontiguousarray(np.concatenate([product, error], axis=1))
    return np.array([math.fsum(memoryview(row)) for row in terms], dtype=np.float64)


def expected_utilities(matrix: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``matrix @ weights`` (the expected utility of every candidate) where a value that could tie
    with another is exact: mathematically equal utilities come out bit-equal.

    The BLAS product rounds in an order that depends on the columns' positions, so two candidates
    with the same scores against permuted pseudo-references may differ in the last bit. Its error
    is bounded (``gamma(M+1) * sum |terms|``, whatever the order, FMA or not); every value within
    twice that bound of its neighbour in sorted order is recomputed as the correctly rounded exact
    sum (:func:`_exact_dot`). Values further apart are ordered correctly as they are.

    >>> m = np.array([[0.1, 0.7, 0.2], [0.2, 0.1, 0.7], [0.5, 0.5, 0.5]])
    >>> u = expected_utilities(m, np.full(3, 1 / 3))
    >>> bool(u[0] == u[1]), bool(u[2] == m[2] @ np.full(3, 1 / 3))
    (True, True)
    """
    utilities = matrix @ weights
    n, m = matrix.shape
    if n < 2:
        return utilities
    unit = 2.0**-53
    gamma = (m + 1) * unit / (1 - (m + 1) * unit)  # Higham's bound for a dot product of length m
    slack = 2 * gamma * float((np.abs(matrix) @ weights).max()) + 4 * float(np.spacing(np.abs(utilities).max()))
    order = np.argsort(utilities, kind="stable")
    near = np.diff(utilities[order]) <= slack
    rows = order[np.concatenate(([False], near)) | np.concatenate((near, [False]))]
    if rows.size:
        utilities[rows] = _exact_dot(matrix[rows], weights)
    return utilities


def _distinct(items: List[str]) -> Tuple[List[str], np.ndarray]:
    """The distinct items (first-appearance order) and each item's position among them."""
    slots: Dict[str, int] = {}
    index = np.fromiter((slots.setdefault(item, len(slots)) for item in items), dtype=np.int64, count=len(items))
    return list(slots), index


def _select_one(
    candidates: Any, pseudo_references: Any, weights: Any, nbest: int, log_weights: bool, aggregate: bool,
    options: MetricOptions, threads: int, where: str,
) -> MBRSelection:
    cands = check_texts(candidates, where)
    refs = cands if pseudo_references is None else check_texts(
        pseudo_references, "pseudo_references" + where[len("candidates"):])
    n, m = len(cands), len(refs)
    if nbest > n:
        raise ValueError(f"nbest={nbest} but {where} has only {n} candidates")
    if weights is None:
        w = np.full(m, 1.0 / m)
    else:
        w = _normalised_weights(weights, log_weights, m, "weights" + where[len("candidates"):])
    # Sampled candidates repeat: each distinct sentence is scored once, equal pseudo-references'
    # weights add up.
    distinct_cands, cand_index = _distinct(cands)
    distinct_refs, ref_index = _distinct(refs)
    w_distinct = np.bincount(ref_index, weights=w, minlength=len(distinct_refs))
    metric = metric_for(options)
    if aggregate:
        distinct = fast.aggregate_scores(metric, distinct_cands, distinct_refs, w_distinct, options)
    else:
        distinct = expected_utilities(
            fast.pairwise_scores(metric, distinct_cands, distinct_refs, options, threads=threads), w_distinct
        )
    utilities = distinct[cand_index]
    # A stable sort of the negated utilities: among equal utilities the lowest index comes first.
    order = np.argsort(-utilities, kind="stable")[:nbest]
    indices = [int(i) for i in order]
    return MBRSelection(indices=indices, selected=[cands[i] for i in indices], utilities=utilities)


def _is_batch(items: List[Any]) -> bool:
    # A list whose first item is a collection (list, tuple, set, generator, ...) is a batch; its
    # items are then checked as candidate lists, so a set among them is named by its index.
    return bool(items) and not isinstance(items[0], (str, bytes)) and hasattr(items[0], "__iter__")


def mbr_select(
    candidates: Sequence[Any],
    pseudo_references: Optional[Sequence[Any]] = None,
    weights: Optional[Sequence[Any]] = None,
    nbest: int = 1,
    *,
    log_weights: bool = False,
    aggregate: bool = False,
    threads: int = DEFAULT_THREADS,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuMbrOptionKeywords],
) -> Union[MBRSelection, List[MBRSelection]]:
    """Pick the candidate(s) with the highest expected sentence score against the pseudo-references.

    ``candidates`` is a list of strings (one source sentence: returns an :class:`MBRSelection`)
    or a list of such lists (a batch of source sentences: returns a list of them, one per
    source; ``pseudo_references`` and ``weights`` are then per-source lists too).
    ``pseudo_references`` defaults to the candidates. ``weights`` weigh the pseudo-references:
    probabilities (any non-negative numbers, normalised to sum to one) or, with
    ``log_weights=True``, log-probabilities (normalised with a softmax); ``None`` is the plain
    mean. Nothing is guessed from the values: log-probabilities are recognised only by the
    keyword. The ``nbest`` best come first; equal utilities are ordered by the lowest index.
    ``aggregate=True`` scores each candidate against one expected reference instead of averaging
    pairwise BLEU: linear time, approximate (see the module docstring). The utility is sentence
    BLEU with the option ``keywords`` (:func:`bleukit.sentence_bleu`'s defaults), or the sentence
    score of the metric of ``options`` (any metric's options object, used as given).

    >>> cands = ["the cat sat", "the cat sat down", "a dog"]
    >>> mbr_select(cands, weights=[0.1, 0.1, 0.8]).best
    'a dog'
    >>> [s.index for s in mbr_select([cands, ["x y", "x y z", "x y z"]])]
    [0, 1]
    >>> mbr_select(cands, weights=[-0.5, -0.7, -3.0], log_weights=True, nbest=2).indices
    [0, 1]
    """
    opts = resolve_options(options, keywords, sentence=True)
    threads = thread_count(threads)
    nbest = check_count(nbest, "nbest")
    for flag, name in ((log_weights, "log_weights"), (aggregate, "aggregate")):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name} must be a bool, got {type(flag).__name__}")
    items = check_sequence(candidates, "candidates", of="strings (or a batch of lists of strings)")
    if not _is_batch(items):
        return _select_one(items, pseudo_references, weights, nbest, log_weights, aggregate, opts, threads,
                           "candidates")
    per_source: Dict[str, List[Any]] = {}
    for value, name in ((pseudo_references, "pseudo_references"), (weights, "weights")):
        if value is None:
            continue
        entries = check_sequence(value, name, of="entries, one per source")
        if len(entries) != len(items):
            raise ValueError(
                f"candidates is a batch of {len(items)} source sentences, so {name} must be a list of "
                f"{len(items)} entries (one per source), got {len(entries)}"
            )
        per_source[name] = entries
    return [
        _select_one(
            cands,
            per_source["pseudo_references"][k] if "pseudo_references" in per_source else None,
            per_source["weights"][k] if "weights" in per_source else None,
            nbest, log_weights, aggregate, opts, threads, f"candidates[{k}]",
        )
        for k, cands in enumerate(items)
    ]
