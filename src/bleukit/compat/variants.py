"""One corpus scored by every BLEU people report, each with the reason it differs from sacreBLEU.

>>> table = compare_variants(["The cat sat on the mat."], ["The cat sat on the mat."])
>>> [row.name for row in table.rows][:3]
['sacreBLEU', 'evaluate "bleu"', 'NLTK corpus_bleu']
>>> round(table.rows[0].score, 6)
100.0
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from ..bleu import corpus_bleu
from ..inputs import check_hypotheses, check_references
from ..tokenizers import get_tokenizer
from . import coco, gleu, hf_evaluate, moses, nltk, presets, torchmetrics

__all__ = ["VariantRow", "VariantTable", "compare_variants"]


@dataclass(frozen=True)
class VariantRow:
    """One implementation's score on the 0-100 scale and what makes it differ from sacreBLEU."""

    name: str
    score: float
    note: str


@dataclass
class VariantTable:
    """The rows of :func:`compare_variants`, printable (:meth:`format`) and JSON-able (:meth:`to_dict`).

    >>> t = VariantTable([VariantRow("x", 12.3456, "why")], n_sentences=1)
    >>> print(t.format())
    variant   BLEU  differs from sacreBLEU by
    -------  -----  -------------------------
    x        12.35  why
    >>> t.to_dict()["rows"][0]["score"]
    12.3456
    """

    rows: List[VariantRow]
    n_sentences: int = 0
    skipped: Dict[str, str] = field(default_factory=dict)

    def format(self) -> str:
        """A plain-text table: name, score (2 decimals), note."""
        head = ("variant", "BLEU", "differs from sacreBLEU by")
        body = [(r.name, f"{r.score:.2f}", r.note) for r in self.rows]
        widths = [max(len(x[i]) for x in [head] + body) for i in range(2)]
        lines = [f"{head[0]:<{widths[0]}}  {head[1]:>{widths[1]}}  {head[2]}"]
        lines.append(f"{'-' * widths[0]}  {'-' * widths[1]}  {'-' * len(head[2])}")
        for name, score, note in body:
            lines.append(f"{name:<{widths[0]}}  {score:>{widths[1]}}  {note}")
        for name, why in self.skipped.items():
            lines.append(f"({name} not scored: {why})")
        return "\n".join(lines)

    def to_dict(self) -> Dict[str, Any]:
        """Plain dicts, lists, strings and floats (for JSON)."""
        return {"n_sentences": self.n_sentences, "rows": [asdict(r) for r in self.rows], "skipped": dict(self.skipped)}


NOTES = {
    "sacreBLEU": "the reference: 13a tokens, closest reference length (ties to the shorter), exp smoothing",
    'evaluate "bleu"': "shortest reference length instead of the closest; no smoothing "
    "(one order without a match gives 0)",
    "NLTK corpus_bleu": "max(1, n) denominators per sentence; a zero precision becomes a tiny number (method0), not 0",
    "multi-bleu.perl": "splits on whitespace only (expects tokenized text: 'mat.' is one word), no smoothing",
    "multi-bleu-detok.perl": "same 13a rules (Perl whitespace); no smoothing, so one order without a match gives 0",
    "torchmetrics BLEUScore": "splits on whitespace only; ties go to the first-listed reference; float32 arithmetic",
    "T5 (sacreBLEU intl)": "intl tokenization (Unicode punctuation and symbols split off)",
    "GLEU (google_bleu)": "a different metric: min(precision, recall) over 1-4-grams, best single reference, "
    "no brevity penalty",
    "spBLEU (flores200)": "SentencePiece pieces of the FLORES-200 model instead of 13a words",
    "spBLEU (flores101)": "SentencePiece pieces of the FLORES-101 model instead of 13a words",
    "COCO caption Bleu_4": "captioning's toolkit (pycocoevalcap) on the 13a tokens: every precision smoothed "
    "by 1e-15/1e-9, so no match gives a tiny score, not 0",
}


def compare_variants(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    spm_model_files: Optional[Dict[str, str]] = None,
) -> VariantTable:
    """Score one corpus with every variant (0-100 each; the 0-1 ones scaled by 100).

    ``references[i]`` holds the reference(s) of ``hypotheses[i]``, as for :func:`bleukit.corpus_bleu`.
    spBLEU rows appear when a FLORES model is configured (``spm_model_files={"flores200": path}``,
    the ``BLEUKIT_SPM_MODEL_*`` variables or sacreBLEU's cache); otherwise ``skipped`` says why.
    The torchmetrics row needs ``torch``.

    >>> t = compare_variants(["It is raining today."], [["It rains today.", "It is raining today!"]])
    >>> scores = {r.name: round(r.score, 2) for r in t.rows}
    >>> scores["sacreBLEU"], scores["multi-bleu.perl"]
    (75.98, 0.0)
    """
    hyps = check_hypotheses(hypotheses)
    refs = check_references(references, len(hyps))
    tok13a = get_tokenizer("13a")
    hyp13 = [tok13a(h.rstrip()).split() for h in hyps]
    ref13 = [[tok13a(r.rstrip()).split() for r in rs] for rs in refs]
    rows: List[VariantRow] = []
    skipped: Dict[str, str] = {}

    def add(name: str, score: float) -> None:
        rows.append(VariantRow(name, float(score), NOTES[name]))

    add("sacreBLEU", corpus_bleu(hyps, refs).score)
    add('evaluate "bleu"', 100 * float(hf_evaluate.compute_bleu(ref13, hyp13)[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nltk.NltkQuirkWarning)
        add("NLTK corpus_bleu", 100 * float(nltk.corpus_bleu(ref13, hyp13)))  # type: ignore[arg-type]
    plain_h = [moses._plain_tokens(h) for h in hyps]
    plain_r = [[moses._plain_tokens(r) for r in rs] for rs in refs]
    add("multi-bleu.perl", 100 * moses._numbers(plain_h, plain_r)["bleu"])
    add("multi-bleu-detok.perl", 100 * moses._numbers(
        [moses._detok_tokens(h) for h in hyps], [[moses._detok_tokens(r) for r in rs] for rs in refs])["bleu"])
    try:
        add("torchmetrics BLEUScore", 100 * float(torchmetrics.bleu_score(hyps, refs)))
    except ImportError as err:
        skipped["torchmetrics BLEUScore"] = f"needs torch ({err})"
    # T5's metric is this call (its list-of-lists targets are sacreBLEU streams; see presets.t5_bleu)
    add("T5 (sacreBLEU intl)", corpus_bleu(hyps, refs, tokenize="intl", smooth_method="exp", smooth_value=0.0).score)
    add("GLEU (google_bleu)", 100 * gleu.corpus_gleu(ref13, hyp13))
    joined = [" ".join(h) for h in hyp13], [[" ".join(r) for r in rs] for rs in ref13]
    add("COCO caption Bleu_4", 100 * coco.coco_bleu(*joined)[0][3])
    for name in ("flores200", "flores101"):
        try:
            from ..tokenizers.spm import spm_model_path

            # a model given or already in sacreBLEU's cache: a table of variants never downloads one
            spm_model_path(name, (spm_model_files or {}).get(name), download=False)
            result = presets.spbleu(hyps, refs, tokenize=name, model_file=(spm_model_files or {}).get(name))
        except (FileNotFoundError, ImportError) as err:
            skipped[f"spBLEU ({name})"] = str(err).split(":")[0]
            continue
        add(f"spBLEU ({name})", result.score)
    return VariantTable(rows, n_sentences=len(hyps), skipped=skipped)
