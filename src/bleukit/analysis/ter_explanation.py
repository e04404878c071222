"""Why a sentence gets its TER: the edits to each reference, the closest one, and the operations.

Built from the pieces the statistics come from (:mod:`bleukit.metrics.ter.reference`: tercom's
tokenizer, the same shift search and edit distance), so ``row`` is exactly the sentence's row of
the statistics table (fewest edits, sum of the reference lengths, number of references) and
``score`` its sentence TER. The BLEU and chrF counterparts are :mod:`bleukit.analysis.explain` and
:mod:`bleukit.analysis.chrf_explanation`.

>>> ex = explain_ter("a b c d", ["c d a x", "a b x"])
>>> ex.reference_index, ex.edits_per_reference, ex.row, ex.score
(0, (2, 2), (2, 7, 2), 57.14285714285714)
>>> [(s.words, s.start, s.target) for s in ex.shifts]
[(('c', 'd'), 2, 0)]
>>> [op for op, _, _ in ex.operations]
['match', 'match', 'match', 'substitute']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple

from ..inputs import check_sentence_references
from ..metrics import resolve_options
from ..metrics.ter.options import TerOptions
from ..metrics.ter.reference import EditTrace, Shift, edit_trace
from ..metrics.ter.tokenizer import TercomTokenizer
from ..pipeline import sentence_result

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..metrics.ter.options import TerOptionKeywords

__all__ = ["TerExplanation", "explain_ter"]


@dataclass(frozen=True)
class TerExplanation:
    """The edits behind one sentence's TER.

    ``hypothesis_words`` and ``reference_words`` are tercom's tokens (after ``normalized``,
    ``no_punct``, ``asian_support`` and lowercasing unless ``case_sensitive``), one tuple per
    reference; ``edits_per_reference`` the edits to each reference; ``reference_index`` the
    closest one (the fewest edits, the first on a tie), whose edits are ``num_edits``; ``shifts``
    the block shifts applied to the hypothesis in order, ``shifted_words`` the hypothesis after
    them, and ``operations`` its word-by-word alignment with the closest reference:
    ``(name, hypothesis position, reference position)``, ``-1`` where a side has no word, ``name``
    one of ``match``, ``substitute``, ``insert`` (a reference word missing from the hypothesis),
    ``delete`` (a hypothesis word not in the reference). ``ref_length`` is the average reference
    length, ``row`` the statistics row and ``score`` the sentence TER (lower is better).
    """

    hypothesis: str
    references: Tuple[str, ...]
    hypothesis_words: Tuple[str, ...]
    reference_words: Tuple[Tuple[str, ...], ...]
    edits_per_reference: Tuple[int, ...]
    reference_index: int
    shifts: Tuple[Shift, ...]
    shifted_words: Tuple[str, ...]
    operations: Tuple[Tuple[str, int, int], ...]
    score: float
    options: TerOptions

    @property
    def num_edits(self) -> int:
        """The fewest edits over the references (shifts included): the row's first column."""
        return self.edits_per_reference[self.reference_index]

    @property
    def ref_length(self) -> float:
        """The average reference length in words, as sacreBLEU divides by it."""
        return sum(len(r) for r in self.reference_words) / len(self.reference_words)

    @property
    def row(self) -> Tuple[int, int, int]:
        """The sentence's statistics row: (fewest edits, sum of reference lengths, references)."""
        return self.num_edits, sum(len(r) for r in self.reference_words), len(self.reference_words)

    def __str__(self) -> str:
        lines = [f"hypothesis  {' '.join(self.hypothesis_words)}  ({len(self.hypothesis_words)} words)"]
        for k, words in enumerate(self.reference_words):
            mark = "*" if k == self.reference_index else " "
            lines.append(f"reference{mark}  {' '.join(words)}  ({self.edits_per_reference[k]} edits)")
        for s in self.shifts:
            lines.append(f"shift       {' '.join(s.words)!r} from {s.start} to before {s.target}")
        ref = self.reference_words[self.reference_index]
        for name, i, j in self.operations:
            if name != "match":
                hyp_word = self.shifted_words[i] if i >= 0 else "-"
                ref_word = ref[j] if j >= 0 else "-"
                lines.append(f"{name:<11} {hyp_word} -> {ref_word}")
        lines.append(f"TER = {self.score:.2f} ({self.num_edits} edits / {self.ref_length:g} reference words)")
        return "\n".join(lines)

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-ready dictionary of every field and the row.

        >>> explain_ter("a b", "a c").to_dict()["operations"][1]
        {'operation': 'substitute', 'hypothesis': 1, 'reference': 1}
        """
        return {
            "hypothesis": self.hypothesis,
            "references": list(self.references),
            "hypothesis_words": list(self.hypothesis_words),
            "reference_words": [list(r) for r in self.reference_words],
            "edits_per_reference": list(self.edits_per_reference),
            "reference_index": self.reference_index,
            "num_edits": self.num_edits,
            "ref_length": self.ref_length,
            "score": self.score,
            "row": list(self.row),
            "shifts": [{"start": s.start, "length": s.length, "target": s.target, "words": list(s.words)}
                       for s in self.shifts],
            "shifted_words": list(self.shifted_words),
            "operations": [{"operation": name, "hypothesis": i, "reference": j} for name, i, j in self.operations],
        }


def explain_ter(
    hypothesis: str,
    references: Any,
    *,
    options: Optional[TerOptions] = None,
    **keywords: Unpack[TerOptionKeywords],
) -> TerExplanation:
    """The edits that turn ``hypothesis`` into each of its reference(s), and the operations on the
    closest one, tokenized as TER sees them. ``references`` is a string or a list of strings
    (``None`` entries are missing references); ``options`` (a ``TerOptions``) or the option
    ``keywords`` (``normalized``, ``case_sensitive``, ...) default to TER's. ``row`` and ``score``
    equal the sentence's statistics row and ``sentence_ter``'s score.

    >>> print(explain_ter("It is raining today", "today it rains"))
    hypothesis  it is raining today  (4 words)
    reference*  today it rains  (3 edits)
    shift       'today' from 3 to before 0
    delete      is -> -
    substitute  raining -> rains
    TER = 100.00 (3 edits / 3 reference words)
    """
    if not isinstance(hypothesis, str):
        raise TypeError(f"hypothesis must be a str, got {type(hypothesis).__name__}")
    opts = resolve_options(options, keywords, default_metric="ter")
    if not isinstance(opts, TerOptions):
        raise TypeError(f"options must be a TerOptions, got {type(opts).__name__}")
    refs = check_sentence_references(references)
    tokenizer = TercomTokenizer(opts)
    hyp_words = tokenizer.hypothesis_words(hypothesis)
    ref_words = [tokenizer.reference_words(r) for r in refs]
    traces: Tuple[EditTrace, ...] = tuple(edit_trace(hyp_words, words) for words in ref_words)
    per_reference = tuple(t.edits for t in traces)
    best = per_reference.index(min(per_reference))
    score = sentence_result(hypothesis, refs, opts.sentence_level()).score
    return TerExplanation(
        hypothesis=hypothesis,
        references=tuple(refs),
        hypothesis_words=tuple(hyp_words),
        reference_words=tuple(tuple(w) for w in ref_words),
        edits_per_reference=per_reference,
        reference_index=best,
        shifts=traces[best].shifts,
        shifted_words=traces[best].shifted,
        operations=traces[best].operations,
        score=score,
        options=opts,
    )
