"""The example gallery: each example sets the texts and every form option (the core's default for
those it does not name), so clicking one never leaves an earlier choice in force.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, List

from .forms import DEFAULTS, FORM_OPTIONS, MAX_REFERENCE_SETS

#: The repository's examples folder (``make demo``'s corpus); absent from an installed wheel, where
#: that example is left out.
EXAMPLES_DIR = Path(__file__).resolve().parents[3] / "examples"


def _read_example(name: str) -> str:
    """A bundled example file's text (empty where the examples folder is not shipped)."""
    path = EXAMPLES_DIR / name
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _example(hypotheses: str, *reference_sets: str, **options: Any) -> List[Any]:
    """One row of the examples table: the texts, then every form option, the core's default for
    each one the example does not set (so clicking an example never leaves an earlier choice)."""
    unknown = set(options) - set(FORM_OPTIONS)
    assert not unknown, unknown
    sets = list(reference_sets) + [""] * (MAX_REFERENCE_SETS - len(reference_sets))
    defaults = {**DEFAULTS.to_dict(), "smooth_value": None}
    return [hypotheses, *sets] + [options.get(name, defaults[name]) for name in FORM_OPTIONS]


EXAMPLES = [
    # The README's Python example: the second hypothesis has two references.
    _example(
        "The cat sat on the mat.\nIt is raining today.",
        "The cat sat on the mat.\nIt rains today.",
        "The cat sat on the mat.\nIt is raining today!",
    ),
    # The bundled corpus of `make demo`, against both of its reference files.
    _example(_read_example("hyps.txt"), _read_example("refs.a.txt"), _read_example("refs.b.txt")),
    # The textbook seed examples, on BLEU's 0-100 scale: unigram precision 5/6 -> 83.33 ...
    _example("the cat sat on the mat", "the cat is on the mat", smooth_method="none", max_ngram_order=1),
    # ... and bigram BLEU of "a b c d" against "a b x d": sqrt(3/4 * 1/3) -> 50.00.
    _example("a b c d", "a b x d", smooth_method="none", max_ngram_order=2),
    # Three references, lowercased, floor smoothing.
    _example(
        "The quick brown fox jumps over the lazy dog.\nShe reads a book every evening.",
        "A quick brown fox jumped over the lazy dog.\nEvery evening she reads a book.",
        "The fast brown fox leaps over the lazy dog.\nShe reads one book each evening.",
        "the quick brown fox jumps over a sleepy dog.\nShe is reading a book every night.",
        smooth_method="floor",
        smooth_value=0.1,
        lowercase=True,
    ),
    # Clipping: a hypothesis cannot get credit for a word more often than a reference has it.
    _example(
        "the the the the the the the",
        "The cat is on the mat.",
        "There is a cat on the mat.",
        lowercase=True,
        max_ngram_order=2,
    ),
    # Chinese needs the zh tokenizer (13a would see one long token).
    _example("今天天气很好，我们去公园散步。", "今天天气不错，我们去公园散步吧。", tokenize="zh"),
]

#: What the gallery shows of each example, in :data:`EXAMPLES` order: a short label instead of a
#: table of eleven columns that a page cannot show whole.
EXAMPLE_LABELS = [
    "README: 2 sentences, 2 reference sets",
    "make demo: a small corpus, 2 reference files",
    "textbook unigram: 83.33",
    "textbook bigram: a b c d vs a b x d = 50.00",
    "3 reference sets, lowercase, floor smoothing",
    "clipping: the the the the the the the",
    "Chinese with the zh tokenizer",
]
assert len(EXAMPLE_LABELS) == len(EXAMPLES)
if not EXAMPLES[1][0]:  # an installed package has no examples folder: no empty example in the gallery
    del EXAMPLES[1], EXAMPLE_LABELS[1]
