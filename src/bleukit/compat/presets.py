"""sacreBLEU configurations that papers cite by name: T5's BLEU and spBLEU (flores101/flores200).

* T5 (``t5.evaluation.metrics.bleu``): sacreBLEU corpus BLEU with ``tokenize="intl"``,
  ``smooth_method="exp"``, ``smooth_value=0.0`` (ignored by exp), case-sensitive; returns
  ``{"bleu": score}``. Its ``targets`` are a list of strings (one reference each) or, when
  ``targets[0]`` is a list, sacreBLEU reference *streams* (``targets[k][i]``: k-th reference of
  sentence i), passed on as given.
* spBLEU: sacreBLEU BLEU on SentencePiece pieces of the FLORES models (see
  :mod:`bleukit.tokenizers.spm` for where the model file comes from).

>>> round(t5_bleu(["The cat sat on the mat."], ["The cat sat on the mat."])["bleu"], 6)
100.0
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ..inputs import check_hypotheses, check_references, check_sequence, references_from_streams
from ..metrics.bleu import METRIC
from ..metrics.bleu.extract import text_statistics
from ..metrics.bleu.options import BleuOptions
from ..metrics.bleu.result import BleuResult
from ..tokenizers.spm import TokenizerSPM

__all__ = ["t5_bleu", "spbleu"]


def t5_bleu(targets: Sequence[Any], predictions: Sequence[str], tokenizer: str = "intl") -> Dict[str, float]:
    """T5's ``bleu(targets, predictions)`` metric (0-100).

    >>> round(t5_bleu([["a b c d", "x"]], ["a b c d", "y"])["bleu"], 4)
    94.5742
    """
    preds = check_hypotheses(predictions)
    refs: List[List[Any]]
    targets = check_sequence(targets, "targets")
    if targets and isinstance(targets[0], list):
        refs = references_from_streams(targets)
    else:
        refs = check_references(targets, len(preds))
    from ..bleu import corpus_bleu

    result = corpus_bleu(preds, refs, tokenize=tokenizer, smooth_method="exp", smooth_value=0.0, lowercase=False)
    return {"bleu": result.score}


def spbleu(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    *,
    tokenize: str = "flores200",
    model_file: Optional[str] = None,
    lowercase: bool = False,
) -> BleuResult:
    """spBLEU: sacreBLEU's corpus BLEU with ``tokenize="flores200"`` (or ``"flores101"``).

    ``model_file`` overrides the environment variable / sacreBLEU cache lookup. Equal to
    ``sacrebleu.corpus_bleu(hyps, streams, tokenize="flores200")`` with the same model file.

    >>> try:
    ...     spbleu(["a"], ["a"], model_file="/nonexistent.model")
    ... except FileNotFoundError as err:
    ...     print(err)
    model_file /nonexistent.model does not exist
    """
    tok = TokenizerSPM(tokenize, model_file)
    options = BleuOptions(tokenize=tokenize, lowercase=lowercase)
    hyps = check_hypotheses(hypotheses)
    refs = check_references(references, len(hyps))
    return METRIC.result(text_statistics(hyps, refs, options, tokenizer=tok), options)
