"""TER's edit distance with block shifts and the statistics table, in pure Python (the exact reference).

The number of edits is what sacreBLEU 2.6's tercom port computes, decision for decision:

- **Edit distance with a beam.** The Levenshtein matrix (hypothesis words down, reference words
  across, every operation costs 1) is filled only in a band around the "pseudo-diagonal"
  ``floor(i * len(ref) / len(hyp))``: 25 cells either side, or ``ceil(ratio / 2 + 25)`` when
  half the length ratio exceeds 25; row 0 is whole and the last row runs to the end. Cells
  outside the band are unreachable. Ties prefer the diagonal (match or substitution), then
  consuming a hypothesis word, then consuming a reference word; the path read back from the
  last cell gives the alignment (which hypothesis word each reference word sits at) and which
  words are in error.
- **Greedy shifts.** While a shift lowers the distance, the best one is applied. The candidates
  are word blocks of 1 to 10 words that occur in both sentences, starting at most 50 positions
  apart, in order of hypothesis start, reference start and length, skipping blocks without an
  error on either side and blocks already aligned onto themselves. Each block is moved to just
  after the hypothesis word aligned to the reference word before the block's reference start
  (to the very start when there is none), then just after those aligned to each of the block's
  words, skipping a target equal to the one before. The best candidate has the largest gain,
  then the longest block, then the earliest hypothesis start, then the earliest target.
- **The candidate cap.** The count of tried candidates runs across the whole sentence pair; a
  search that ends with 1000 or more stops the shifting and its best shift is not applied.

Each shift counts one edit: ``edits = shifts + distance`` of the final hypothesis.

How this module computes it (the C kernel, ``csrc/metrics/ter/edits.c``, does the same): a
cell depends only on the words above and left of it, and a shift changes the hypothesis only in
a span ``[p, q)``. So the candidate's distance needs only its rows ``p+1 .. q``, started from the
current hypothesis' row ``p``, and then the cheapest way on from row ``q``: the current
hypothesis' backward distances (computed once per search, over the same band) of row ``q``:
``distance = min_j forward[q][j] + backward[q][j]``. That is the band's shortest path, exactly
the number sacreBLEU gets by recomputing the rows after ``p`` from its row cache.

The statistics table has one row per hypothesis and three integer columns (:data:`COLUMNS`):
the fewest edits over its references, the sum of the references' lengths in words, and the
number of references. Integers sum exactly. sacreBLEU keeps the *average* reference length per
sentence as a float and adds those floats in sentence order; :mod:`.formula` reproduces that
from the integer columns (``sum_len / nrefs`` per row, added one row after the other), so the
scores are sacreBLEU's bit for bit. With one reference per sentence every average is an
integer and the float sum is exact.

>>> edits("a b c d".split(), "c d a b".split())
1
>>> ter_statistics(["the cat sat", ""], [["a cat sat", "the cat"], [""]]).tolist()
[[1, 5, 2], [0, 0, 1]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

from .options import TerOptions
from .tokenizer import TercomTokenizer

__all__ = ["COLUMNS", "edits", "edit_trace", "EditTrace", "Shift", "OPERATIONS",
           "sentence_row", "ter_statistics", "check_layout", "check_batch",
           "BEAM_WIDTH", "MAX_SHIFT_SIZE", "MAX_SHIFT_DISTANCE", "MAX_SHIFT_CANDIDATES"]

#: The columns of the statistics table.
COLUMNS = ("edits", "ref_length_sum", "nrefs")
#: Cells either side of the pseudo-diagonal (before the widening for very unequal lengths).
BEAM_WIDTH = 25
#: Longest block a shift moves.
MAX_SHIFT_SIZE = 10
#: Largest distance between a block's start in the hypothesis and in the reference.
MAX_SHIFT_DISTANCE = 50
#: Tried candidates per sentence pair after which the search stops.
MAX_SHIFT_CANDIDATES = 1000

_UNREACHABLE = 1 << 62  # a cell outside the band; finite distances are at most len(hyp) + len(ref)

# How a cell was reached (the path read back from the last cell).
_MATCH, _SUBSTITUTE, _HYP_WORD, _REF_WORD = 0, 1, 2, 3


class _Band:
    """The cells of the matrix inside the beam: row ``i`` holds columns ``lo[i] .. hi[i] - 1``."""

    def __init__(self, n_hyp: int, n_ref: int) -> None:
        ratio = n_ref / n_hyp if n_hyp else 1.0
        half = ratio / 2
        width = math.ceil(half + BEAM_WIDTH) if half > BEAM_WIDTH else BEAM_WIDTH
        self.lo = [0]
        self.hi = [n_ref + 1]
        for i in range(1, n_hyp + 1):
            diagonal = math.floor(i * ratio)
            self.lo.append(max(0, diagonal - width))
            self.hi.append(n_ref + 1 if i == n_hyp else min(n_ref + 1, diagonal + width))


def _next_row(band: _Band, i: int, prev: List[int], word: str, ref: Sequence[str]) -> List[int]:
    """Row ``i`` of the distances from row ``i - 1`` (``word`` is hypothesis word ``i - 1``)."""
    lo, hi = band.lo[i], band.hi[i]
    plo, phi = band.lo[i - 1], band.hi[i - 1]
    row = [0] * (hi - lo)
    left = _UNREACHABLE
    for j in range(lo, hi):
        best = _UNREACHABLE
        if j == 0:
            best = prev[0] + 1  # lo[i] == 0 implies lo[i - 1] == 0
        else:
            if plo <= j - 1 < phi:
                best = prev[j - 1 - plo] + (word != ref[j - 1])
            if j < phi and prev[j - plo] + 1 < best:
                best = prev[j - plo] + 1
            if left + 1 < best:
                best = left + 1
        row[j - lo] = best
        left = best
    return row


class _Alignment:
    """Distances of one hypothesis against the reference, and what its cheapest path says.

    ``forward[i]`` and ``backward[i]`` are the band's row ``i`` of the distances from the
    start and to the end; ``align[k]`` is the hypothesis position reference word ``k`` sits at
    (-1 before the first word); ``hyp_err`` and ``ref_err`` mark words off the matches.
    """

    def __init__(self, band: _Band, hyp: Sequence[str], ref: Sequence[str]) -> None:
        n_hyp, n_ref = len(hyp), len(ref)
        lo, hi = band.lo, band.hi
        forward = [list(range(n_ref + 1))]
        moves = [[_REF_WORD] * (n_ref + 1)]
        for i in range(1, n_hyp + 1):
            prev, plo, phi = forward[i - 1], lo[i - 1], hi[i - 1]
            word = hyp[i - 1]
            row, how = [], []
            left = _UNREACHABLE
            for j in range(lo[i], hi[i]):
                if j == 0:
                    best, move = prev[0] + 1, _HYP_WORD
                else:
                    # the first of (diagonal, hypothesis word, reference word) that is cheapest
                    best, move = _UNREACHABLE, -1
                    if plo <= j - 1 < phi:
                        same = word == ref[j - 1]
                        best = prev[j - 1 - plo] + (0 if same else 1)
                        move = _MATCH if same else _SUBSTITUTE
                    if j < phi and prev[j - plo] + 1 < best:
                        best, move = prev[j - plo] + 1, _HYP_WORD
                    if left + 1 < best:
                        best, move = left + 1, _REF_WORD
                row.append(best)
                how.append(move)
                left = best
            forward.append(row)
            moves.append(how)
        self.forward = forward
        self.distance = forward[n_hyp][n_ref - lo[n_hyp]]

        # Read the path back from the last cell.
        self.align = [0] * n_ref
        self.hyp_err = [0] * n_hyp
        self.ref_err = [0] * n_ref
        self.path: List[Tuple[int, int, int]] = []  # (move, i, j) from the last cell back
        i, j = n_hyp, n_ref
        while i > 0 or j > 0:
            move = moves[i][j - lo[i]]
            self.path.append((move, i, j))
            if move == _MATCH or move == _SUBSTITUTE:
                error = 1 if move == _SUBSTITUTE else 0
                self.align[j - 1] = i - 1
                self.hyp_err[i - 1] = error
                self.ref_err[j - 1] = error
                i -= 1
                j -= 1
            elif move == _HYP_WORD:
                self.hyp_err[i - 1] = 1
                i -= 1
            else:
                self.align[j - 1] = i - 1
                self.ref_err[j - 1] = 1
                j -= 1

        # Distances to the end, over the same band.
        backward: List[List[int]] = [[]] * (n_hyp + 1)
        backward[n_hyp] = [n_ref - j for j in range(lo[n_hyp], n_ref + 1)]
        for i in range(n_hyp - 1, -1, -1):
            below, blo, bhi = backward[i + 1], lo[i + 1], hi[i + 1]
            word = hyp[i]
            row = [0] * (hi[i] - lo[i])
            right = _UNREACHABLE
            for j in range(hi[i] - 1, lo[i] - 1, -1):
                best = right + 1
                if j < n_ref and blo <= j + 1 < bhi:
                    cost = below[j + 1 - blo] + (word != ref[j])
                    if cost < best:
                        best = cost
                if blo <= j < bhi and below[j - blo] + 1 < best:
                    best = below[j - blo] + 1
                row[j - lo[i]] = best
                right = best
            backward[i] = row
        self.backward = backward


def _shifted(words: List[str], start: int, length: int, target: int) -> List[str]:
    """``words`` with the block ``[start, start + length)`` moved in front of position ``target``.

    A target inside the block or just after it (``start <= target <= start + length``) moves
    the block ``target - start`` words to the right (tercom's port does so), never past the end.
    """
    block = words[start:start + length]
    rest = words[:start] + words[start + length:]
    if target < start:
        at = target
    elif target > start + length:
        at = target - length
    else:
        at = min(target, len(rest))
    return rest[:at] + block + rest[at:]


def _distance_after_change(band: _Band, current: _Alignment, hyp: List[str], new: List[str],
                           ref: Sequence[str]) -> int:
    """Distance of ``new``, a permutation of ``hyp`` (whose alignment is ``current``)."""
    n = len(hyp)
    p = 0
    while p < n and new[p] == hyp[p]:
        p += 1
    if p == n:
        return current.distance
    q = n
    while new[q - 1] == hyp[q - 1]:
        q -= 1
    row = current.forward[p]
    for i in range(p + 1, q + 1):
        row = _next_row(band, i, row, new[i - 1], ref)
    return min(f + b for f, b in zip(row, current.backward[q]))


def _best_shift(band: _Band, hyp: List[str], ref: Sequence[str], current: _Alignment,
                tried: int) -> Tuple[int, Optional[List[str]], int, Optional[Tuple[int, int, int, int]]]:
    """(gain, shifted hypothesis, candidates tried so far, its key ``(gain, length, -start,
    -target)``) of the best shift; gain 0 when none."""
    n_hyp, n_ref = len(hyp), len(ref)
    align, hyp_err, ref_err = current.align, current.hyp_err, current.ref_err
    best_key: Optional[Tuple[int, int, int, int]] = None
    best_words: Optional[List[str]] = None
    for h in range(n_hyp):
        for r in range(max(0, h - MAX_SHIFT_DISTANCE), min(n_ref, h + MAX_SHIFT_DISTANCE + 1)):
            length = 0
            while length < MAX_SHIFT_SIZE and h + length < n_hyp and r + length < n_ref \
                    and hyp[h + length] == ref[r + length]:
                length += 1
                # a block worth moving has an error on both sides and is not aligned onto itself
                if not any(hyp_err[h:h + length]) or not any(ref_err[r:r + length]):
                    continue
                if h <= align[r] < h + length:
                    continue
                last_target = -1
                for k in range(r - 1, r + length):
                    target = 0 if k < 0 else align[k] + 1
                    if target == last_target:
                        continue
                    last_target = target
                    words = _shifted(hyp, h, length, target)
                    gain = current.distance - _distance_after_change(band, current, hyp, words, ref)
                    tried += 1
                    key = (gain, length, -h, -target)
                    if best_key is None or key > best_key:
                        best_key, best_words = key, words
                if tried >= MAX_SHIFT_CANDIDATES:
                    return (best_key[0] if best_key else 0), best_words, tried, best_key
    return (best_key[0] if best_key else 0), best_words, tried, best_key


def edits(hyp_words: Sequence[str], ref_words: Sequence[str]) -> int:
    """TER's number of edits (shifts included) turning ``hyp_words`` into ``ref_words``.

    Equals ``sacrebleu.metrics.lib_ter.translation_edit_rate(hyp_words, ref_words)[0]``.

    >>> edits([], ["a", "b"]), edits(["a", "b"], [])
    (2, 2)
    >>> edits("one two three four five".split(), "three four five one two".split())
    1
    """
    hyp = list(hyp_words)
    ref = list(ref_words)
    if not ref:
        return len(hyp)
    band = _Band(len(hyp), len(ref))
    shifts = 0
    tried = 0
    while True:
        current = _Alignment(band, hyp, ref)
        gain, words, tried, _ = _best_shift(band, hyp, ref, current, tried)
        if tried >= MAX_SHIFT_CANDIDATES or gain <= 0:
            return shifts + current.distance
        shifts += 1
        hyp = words  # type: ignore[assignment]


@dataclass(frozen=True)
class Shift:
    """One block shift of TER's search: the ``length`` words at ``start`` of the hypothesis as it
    was before this shift, moved in front of its word ``target`` (positions before the move)."""

    start: int
    length: int
    target: int
    words: Tuple[str, ...]


#: The operations of the final alignment: the reference word is the hypothesis word, replaces it,
#: is missing from the hypothesis (inserted), or the hypothesis word has none (deleted).
OPERATIONS = ("match", "substitute", "insert", "delete")


@dataclass(frozen=True)
class EditTrace:
    """How TER edits one hypothesis into one reference: the ``shifts`` applied in order, the
    hypothesis after them (``shifted``) and its alignment with the reference as ``operations``
    ``(name, hypothesis position or -1, reference position or -1)``, left to right, ``name`` one of
    :data:`OPERATIONS`. ``edits`` (the shifts and the operations other than ``match``) is
    :func:`edits`."""

    shifts: Tuple[Shift, ...]
    shifted: Tuple[str, ...]
    operations: Tuple[Tuple[str, int, int], ...]

    @property
    def edits(self) -> int:
        return len(self.shifts) + sum(op != "match" for op, _, _ in self.operations)


def edit_trace(hyp_words: Sequence[str], ref_words: Sequence[str]) -> EditTrace:
    """The shifts and the alignment behind :func:`edits` (the same search, recorded).

    >>> t = edit_trace("a b c d".split(), "c d a x".split())
    >>> t.shifts, t.shifted
    ((Shift(start=2, length=2, target=0, words=('c', 'd')),), ('c', 'd', 'a', 'b'))
    >>> [op for op, _, _ in t.operations], t.edits
    (['match', 'match', 'match', 'substitute'], 2)
    """
    hyp = list(hyp_words)
    ref = list(ref_words)
    if not ref:
        return EditTrace((), tuple(hyp), tuple(("delete", i, -1) for i in range(len(hyp))))
    band = _Band(len(hyp), len(ref))
    shifts: List[Shift] = []
    tried = 0
    while True:
        current = _Alignment(band, hyp, ref)
        gain, words, tried, key = _best_shift(band, hyp, ref, current, tried)
        if tried >= MAX_SHIFT_CANDIDATES or gain <= 0 or key is None or words is None:
            break
        _, length, start, target = key[0], key[1], -key[2], -key[3]
        shifts.append(Shift(start, length, target, tuple(hyp[start:start + length])))
        hyp = words
    names = {_MATCH: "match", _SUBSTITUTE: "substitute", _HYP_WORD: "delete", _REF_WORD: "insert"}
    operations = []
    for move, i, j in reversed(current.path):
        if move in (_MATCH, _SUBSTITUTE):
            operations.append((names[move], i - 1, j - 1))
        elif move == _HYP_WORD:
            operations.append(("delete", i - 1, -1))
        else:
            operations.append(("insert", -1, j - 1))
    return EditTrace(tuple(shifts), tuple(hyp), tuple(operations))


_SEQUENCES = "hypotheses and references must be sequences (of str, of lists of str)"


def check_layout(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> int:
    """The outer layout of a batch (two sequences of the same length); returns that length.

    >>> check_layout(["a", "b"], [["a"], ["b"]])
    2
    """
    for obj in (hypotheses, references):
        if isinstance(obj, (str, bytes)) or not hasattr(obj, "__len__") or not hasattr(obj, "__getitem__"):
            raise TypeError(_SEQUENCES)
    if len(hypotheses) != len(references):
        raise ValueError(f"got {len(hypotheses)} hypotheses but {len(references)} reference lists")
    return len(hypotheses)


def check_batch(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> None:
    """The layout the table functions take: ``references[i]``, a non-empty list of the
    reference strings of ``hypotheses[i]`` (the compiled kernel checks the same, in the same words).

    >>> check_batch(["a"], [["a", "b"]])
    >>> check_batch(["a"], [[]])
    Traceback (most recent call last):
    ...
    ValueError: references[0] is empty: every hypothesis needs at least one reference
    """
    check_layout(hypotheses, references)
    for i, (hyp, refs) in enumerate(zip(hypotheses, references)):  # read as the kernel reads them
        if not isinstance(hyp, str):
            raise TypeError(f"hypotheses[{i}] must be a str, got {type(hyp).__name__}")
        if not isinstance(refs, (list, tuple)):
            raise TypeError(f"references[{i}] must be a list of str, got {type(refs).__name__}")
        if not refs:
            raise ValueError(f"references[{i}] is empty: every hypothesis needs at least one reference")
        for j, ref in enumerate(refs):
            if not isinstance(ref, str):
                raise TypeError(f"references[{i}][{j}] must be a str, got {type(ref).__name__}")


def sentence_row(hyp_words: Sequence[str], refs_words: Sequence[Sequence[str]]) -> Tuple[int, int, int]:
    """One row of the table from tokenized words: (fewest edits, sum of reference lengths, nrefs).

    >>> sentence_row(["a", "b"], [["a"], ["b", "a"]])
    (1, 3, 2)
    """
    best = min(edits(hyp_words, ref) for ref in refs_words)
    return best, sum(len(ref) for ref in refs_words), len(refs_words)


def ter_statistics(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                   options: Optional[TerOptions] = None) -> np.ndarray:
    """The statistics table (int64, ``(len(hypotheses), 3)``, columns :data:`COLUMNS`).

    ``references[i]`` is the list of reference strings of ``hypotheses[i]`` (at least one).

    >>> ter_statistics(["Hello world !"], [["hello , world!"]], TerOptions(normalized=True)).tolist()
    [[1, 4, 1]]
    """
    options = TerOptions() if options is None else options
    check_batch(hypotheses, references)
    tokenizer = TercomTokenizer(options)
    table = np.zeros((len(hypotheses), len(COLUMNS)), dtype=np.int64)
    for i, (hyp, refs) in enumerate(zip(hypotheses, references)):
        table[i] = sentence_row(tokenizer.hypothesis_words(hyp), [tokenizer.reference_words(r) for r in refs])
    return table
