"""Self-BLEU: how alike a set of generated texts are (higher = less diverse), defined exactly.

Self-BLEU (Zhu et al. 2018, Texygen) scores each text against the others. Research code computes
it in several ways that give different numbers (the mean of sentence scores or one corpus score,
every other text as a reference or each pair on its own, asymmetric pairs counted once or twice),
so :func:`self_bleu` names its definition and computes each of them exactly:

- ``"sentence"`` (the default, the common one): the mean over texts ``i`` of
  ``sacrebleu.sentence_bleu(texts[i], texts[:i] + texts[i+1:])``, every other text a reference
  of text ``i`` (sentence-level options: exp smoothing, effective order);
- ``"corpus"``: one corpus BLEU, ``sacrebleu.corpus_bleu`` of the texts with text ``i``'s
  references being all the others (corpus options): the statistics of each text against the rest,
  summed, then scored once;
- ``"pairwise"``: the mean of ``sacrebleu.sentence_bleu(texts[i], [texts[j]])`` over all ordered
  pairs ``i != j`` (both directions: BLEU is not symmetric), one reference at a time.

A mean is exact: the exact mean of the float scores, rounded once (as :func:`statistics.mean`
computes it), so it equals that of a loop of sacreBLEU calls with ``==``, in any order. A repeated
text is another text: it is a reference of its copies. Nothing is compared N² times for the first
two definitions: each distinct text is tokenized and counted once, and the multi-reference clips
of all texts follow from three numbers per n-gram (:func:`bleukit.metrics.bleu.pairs.self_rows`).
Other metrics work through their options (``options=ChrfOptions()``: Self-chrF; ``TerOptions()``:
Self-TER, for any number of texts: each text's fewest edits over the others and their average
length follow from the statistics of every ordered pair, :mod:`bleukit.metrics.ter.pairs`, then
are scored as sacreBLEU scores them); :func:`self_bleu_ids` scores token ids (RL diversity
monitoring).

>>> texts = ["the cat sat on the mat", "the cat is on the mat", "a dog barked"]
>>> r = self_bleu(texts)
>>> round(r.score, 4), r.definition, r.scores.round(2).tolist()
(25.3279, 'sentence', [37.99, 37.99, 0.0])
>>> round(self_bleu(texts, definition="corpus").score, 4), round(self_bleu(texts, definition="pairwise").score, 4)
(22.9489, 12.6639)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..defaults import DEFAULT_THREADS
from ..engine import thread_count
from ..inputs import check_texts
from ..metrics import fast, metric_for, resolve_options
from ..metrics.base import MetricOptions, MetricResult, Statistics
from ..metrics.bleu import pairs
from ..metrics.bleu.options import BleuOptions
from ..metrics.bleu.statistics import BleuStatistics
from ..metrics.ter.options import TerOptions

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..metrics.bleu.options import BleuIdOptionKeywords, BleuOptionKeywords

__all__ = ["DEFINITIONS", "SelfScore", "self_bleu", "self_bleu_ids", "exact_mean"]

#: The definitions :func:`self_bleu` computes, the default first.
DEFINITIONS = ("sentence", "corpus", "pairwise")
#: Pairs scored at once by the generic pairwise path (bounds its memory).
_BLOCK_PAIRS = 1 << 22


@dataclass(frozen=True)
class SelfScore:
    """Self-BLEU (or Self-chrF, ...) of a set of texts, with the definition that produced it.

    ``score`` is the number. ``scores`` holds each text's own score for the ``"sentence"``
    definition (its sentence score against all the others) and is ``None`` otherwise;
    ``corpus`` is the metric's corpus result for the ``"corpus"`` definition. ``signature`` is
    the metric's, with ``nrefs`` the number of other texts (one for ``"pairwise"``).
    """

    score: float
    definition: str
    metric: str
    n_texts: int
    signature: str
    #: The metric's result name (``BLEU``, ``chrF2``, ...).
    result_name: str
    scores: Optional[np.ndarray] = field(default=None, repr=False, compare=False)
    corpus: Optional[MetricResult] = field(default=None, repr=False, compare=False)
    options: Any = field(default=None, repr=False, compare=False)

    @property
    def name(self) -> str:
        """``Self-BLEU``, ``Self-chrF2``, ...: the metric's result name after ``Self-``."""
        return f"Self-{self.result_name}"

    def format(self, width: int = 2) -> str:
        """One line: name, definition, number of texts, signature and score.

        >>> print(self_bleu(["a b c d", "a b c e"]).format())  # doctest: +ELLIPSIS
        Self-BLEU (sentence, 2 texts)|nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|version:bleukit-... = 59.46
        """
        return f"{self.name} ({self.definition}, {self.n_texts} texts)|{self.signature} = {self.score:.{width}f}"

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready: ``name``, ``score``, ``definition``, ``metric``, ``n_texts``, ``signature``
        and, where the definition has them, the per-text ``scores`` and the ``corpus`` result.

        >>> sorted(self_bleu(["a b", "a c"]).to_dict())
        ['definition', 'metric', 'n_texts', 'name', 'score', 'scores', 'signature']
        """
        out: Dict[str, Any] = {
            "name": self.name,
            "score": self.score,
            "definition": self.definition,
            "metric": self.metric,
            "n_texts": self.n_texts,
            "signature": self.signature,
        }
        if self.scores is not None:
            out["scores"] = self.scores.tolist()
        if self.corpus is not None:
            out["corpus"] = self.corpus.to_dict()
        return out

    def __float__(self) -> float:
        return float(self.score)


def self_bleu(
    texts: Sequence[str],
    *,
    definition: str = "sentence",
    threads: int = DEFAULT_THREADS,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> SelfScore:
    """Self-BLEU of ``texts`` (at least two) under one of the :data:`DEFINITIONS` (see the module).

    The metric is BLEU with the option ``keywords`` (sentence defaults for ``"sentence"`` and
    ``"pairwise"``, corpus defaults for ``"corpus"``), or the metric of ``options``, used as given
    (``options=ChrfOptions()`` is Self-chrF). ``threads`` as everywhere (0: all cores).

    >>> round(self_bleu(["a b c d", "a b c d"]).score, 4)  # identical texts: 100
    100.0
    >>> from bleukit.metrics.chrf import ChrfOptions
    >>> r = self_bleu(["the cat sat", "the cat sits", "dogs bark"], options=ChrfOptions())
    >>> r.name, round(r.score, 4)
    ('Self-chrF2', 43.8019)
    """
    definition = _check_definition(definition)
    opts = resolve_options(options, keywords, sentence=definition != "corpus")
    checked = _check_texts(texts, "texts")
    n_threads = thread_count(threads)
    metric = metric_for(opts)
    if definition == "pairwise":
        if isinstance(opts, BleuOptions):
            total = _bleu_pairwise_sum(pairs.text_pairs(checked, checked, opts), opts, n_threads)
        else:
            total = _ExactSum()
            n = len(checked)
            step = max(1, _BLOCK_PAIRS // n)
            for i0 in range(0, n, step):
                block = fast.pairwise_scores(metric, checked[i0 : i0 + step], checked, opts, threads=n_threads)
                total.add(block)
                total.add(block[np.arange(len(block)), np.arange(i0, i0 + len(block))], sign=-1)
        name = _result_name(metric.statistics(checked[:1], [checked[1:2]], opts), opts)
        return _pairwise_score(total, len(checked), opts, name)
    if isinstance(opts, TerOptions):
        return _self_ter(checked, definition, opts, n_threads)
    return _from_statistics(fast.self_statistics(metric, checked, opts, threads=n_threads), definition, opts)


def self_bleu_ids(
    sequences: Any,
    *,
    pad_id: Optional[int] = None,
    definition: str = "sentence",
    threads: int = DEFAULT_THREADS,
    options: Optional[BleuOptions] = None,
    **keywords: Unpack[BleuIdOptionKeywords],
) -> SelfScore:
    """Self-BLEU of token-id sequences (e.g. a batch of sampled completions, for diversity monitoring
    during RL), equal to :func:`self_bleu` of the ids written as text with ``tokenize="none"``.

    ``sequences`` is a 2-D array/tensor ``(N, length)`` padded with ``pad_id`` (dropped wherever it
    occurs) or a list of 1-D id sequences; a tensor is read on the host. Options are BLEU's
    formula keywords (sentence defaults except for ``"corpus"``), or ``options`` as given
    (``BleuOptions(tokenize="none", ...)``).

    >>> import numpy as np
    >>> batch = np.array([[5, 6, 7, 8, 0], [5, 6, 7, 9, 0], [1, 2, 3, 4, 5]])
    >>> round(self_bleu_ids(batch, pad_id=0).score, 4)
    43.201
    """
    from ..ids.api import id_options
    from ..ids.layout import id_tuples

    definition = _check_definition(definition)
    opts = id_options(options, keywords, sentence=definition != "corpus")
    seqs = id_tuples(sequences, pad_id, "sequences")
    if len(seqs) < 2:
        raise ValueError(f"Self-BLEU needs at least 2 sequences (each is scored against the others), got {len(seqs)}")
    counted = pairs.count_pairs(seqs, seqs, lambda seq: seq, opts.max_ngram_order)
    n_threads = thread_count(threads)
    if definition == "pairwise":
        return _pairwise_score(_bleu_pairwise_sum(counted, opts, n_threads), len(seqs), opts, "BLEU")
    n = len(seqs)
    table = BleuStatistics(pairs.self_rows(counted), np.full(n, n - 1, dtype=np.int64), opts.max_ngram_order)
    return _from_statistics(table, definition, opts)


def exact_mean(values: Any) -> float:
    """The mean of float values computed exactly and rounded once (what :func:`statistics.mean`
    gives for floats), in time linear in their number.

    >>> exact_mean([0.1] * 10), sum([0.1] * 10) / 10
    (0.1, 0.09999999999999999)
    """
    total = _ExactSum()
    total.add(np.asarray(values, dtype=np.float64))
    return total.mean()


# ------------------------------------------------------------------------------------------ internals


def _check_definition(definition: Any) -> str:
    if definition not in DEFINITIONS:
        raise ValueError(f"unknown Self-BLEU definition={definition!r}; choose one of {', '.join(DEFINITIONS)}")
    return str(definition)


def _check_texts(texts: Any, what: str) -> List[str]:
    checked = check_texts(texts, what)
    if len(checked) < 2:
        raise ValueError(f"Self-BLEU needs at least 2 {what} (each is scored against the others), got {len(checked)}")
    return checked


def _result_name(table: Statistics, options: MetricOptions) -> str:
    """The metric's result name (``BLEU``, ``chrF2``, ...) for these options."""
    return str(metric_for(options).result(table[:1], options).name)


def _from_statistics(table: Statistics, definition: str, options: MetricOptions) -> SelfScore:
    metric = metric_for(options)
    n = len(table)
    if definition == "corpus":
        result = metric.result(table, options)
        return SelfScore(result.score, definition, metric.name, n, result.signature, result.name, corpus=result,
                         options=options)
    # each text's score as its sentence score is computed (the metric's one-row formula in Python
    # floats, math.exp/math.log as the reference), not the vectorised formula's numpy floats
    scores = np.array(
        [metric.row_result(row, nrefs, options).score for row, nrefs in zip(table.rows.tolist(), table.nrefs.tolist())],
        dtype=np.float64,
    )
    signature = options.signature(table.nrefs_signature)
    return SelfScore(exact_mean(scores), definition, metric.name, n, signature, _result_name(table, options),
                     scores=scores, options=options)


def _self_ter(texts: List[str], definition: str, options: TerOptions, threads: int) -> SelfScore:
    """Self-TER's ``"sentence"`` and ``"corpus"`` definitions for any number of texts. A TER table
    holds averages over at most 20 references; here each text's average reference length is the
    float sacreBLEU computes (``sum_len / nrefs``), from the counts of every pair."""
    from ..metrics.ter.formula import edit_rates, summed_totals, ter_score
    from ..metrics.ter.pairs import self_counts
    from ..metrics.ter.result import TerResult

    counts = self_counts(texts, options, threads=threads)
    n = len(texts)
    edits, averages = counts[:, 0], counts[:, 1] / (n - 1)  # int64 / int: sacreBLEU's one division
    signature = options.signature(n - 1)
    total_edits, ref_length = summed_totals(edits, averages)
    corpus = TerResult(score=ter_score(total_edits, ref_length), num_edits=total_edits, ref_length=ref_length,
                       signature=signature, options=options)
    name = metric_for(options).name
    if definition == "corpus":
        return SelfScore(corpus.score, definition, name, n, signature, corpus.name, corpus=corpus, options=options)
    scores = edit_rates(edits, averages)
    return SelfScore(exact_mean(scores), definition, name, n, signature, corpus.name, scores=scores, options=options)


def _bleu_pairwise_sum(counted: pairs.Pairs, options: BleuOptions, threads: int) -> "_ExactSum":
    """The exact sum of BLEU over all ordered pairs of different input items, from counted tables."""
    total = _ExactSum()
    copies = np.bincount(counted.hyp_index, minlength=len(counted.tables.hyp_len))
    for i0, i1, block in pairs.block_scores(counted, options, threads):
        # every input item of distinct row a, against every input item: copies[a] times the row
        # laid out over the inputs; then each item's score against itself is taken out again
        rows = block[:, counted.ref_index] if len(counted.ref_index) != block.shape[1] else block
        if np.any(copies[i0:i1] != 1):
            rows = np.repeat(rows, copies[i0:i1], axis=0)
        total.add(rows)
        diagonal = block[np.arange(i1 - i0), np.arange(i0, i1)]
        total.add(np.repeat(diagonal, copies[i0:i1]), sign=-1)
    return total


def _pairwise_score(total: "_ExactSum", n: int, options: MetricOptions, name: str) -> SelfScore:
    return SelfScore(total.mean(n * (n - 1)), "pairwise", metric_for(options).name, n, options.signature(1), name,
                     options=options)


class _ExactSum:
    """A sum of float64 values without any rounding: a Python int counting units of 2**-1126.

    Each value is ``mantissa * 2**(exponent - 53)`` (``numpy.frexp``) with a 53-bit integer
    mantissa, which splits into three 18-bit parts; per exponent, ``bincount`` adds the parts in
    float64, exactly (fewer than 2**35 integers below 2**18 sum below 2**53). Only the few sums
    per exponent become Python ints. ``mean`` divides two ints, which Python rounds correctly.
    """

    # frexp's smallest exponent (subnormals) is -1073: 2**(e - 53) is then 2**-1126
    _UNIT = 1126
    _PART = 18
    _CALL = 1 << 30  # values per bincount call (well below 2**35)

    def __init__(self) -> None:
        self.total = 0
        self.count = 0

    def add(self, values: np.ndarray, sign: int = 1) -> None:
        x = np.asarray(values, dtype=np.float64).ravel()
        if not np.isfinite(x).all():
            raise ValueError("cannot average scores that are not finite")
        self.count += sign * x.size
        for k in range(0, x.size, self._CALL):
            self._add(x[k : k + self._CALL], sign)

    def _add(self, x: np.ndarray, sign: int) -> None:
        if not x.size:
            return
        m, e = np.frexp(x)
        mantissa = (m * 2.0**53).astype(np.int64)
        e0 = int(e.min())
        slot = (e - e0).astype(np.intp)
        mask = (1 << self._PART) - 1
        parts: Tuple[Tuple[np.ndarray, int], ...] = (
            (mantissa & mask, 0),
            ((mantissa >> self._PART) & mask, self._PART),
            (mantissa >> (2 * self._PART), 2 * self._PART),  # signed: floor parts add back exactly
        )
        for part, shift in parts:
            sums = np.bincount(slot, weights=part.astype(np.float64))
            for k in np.flatnonzero(sums).tolist():
                self.total += sign * (int(sums[k]) << (shift + k + e0 - 53 + self._UNIT))

    def mean(self, count: Optional[int] = None) -> float:
        n = self.count if count is None else count
        if n <= 0:
            raise ValueError("no values to average")
        return self.total / (n << self._UNIT)
