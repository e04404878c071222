"""Offline drop-in for ``evaluate.load("bleu")``: the same arguments and numbers, computed by bleukit.

    import evaluate
    import bleukit
    bleu = evaluate.load(bleukit.metric_path("bleu"))
    bleu.compute(predictions=["the cat sat"], references=[["the cat sat"]])

evaluate copies this file into its cache and imports it on its own, so it imports only installed
packages (``bleukit``, ``evaluate``, ``datasets``). Numbers come from ``bleukit.compat.hf_evaluate``.
Unlike the original, empty input raises a ``ValueError`` naming the problem.
"""

from typing import Any, Dict, List, Optional

import evaluate

from bleukit.compat import hf_evaluate
from bleukit.evaluate_module.base import check_arrow_text, text_features

_CITATION = """\
@INPROCEEDINGS{Papineni02bleu:a,
    author = {Kishore Papineni and Salim Roukos and Todd Ward and Wei-jing Zhu},
    title = {BLEU: a Method for Automatic Evaluation of Machine Translation},
    booktitle = {},
    year = {2002},
    pages = {311--318}
}
"""

_DESCRIPTION = """\
BLEU as Hugging Face evaluate's "bleu" metric computes it: tensorflow/nmt's compute_bleu on 13a
tokens, the shortest reference length, optional add-one smoothing of every order, 0-1 scale.
It differs from sacreBLEU (closest reference length, exp smoothing); see bleukit's "Other BLEUs".
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): translations to score.
    references (`list` of `str` or `list` of `list` of `str`): reference(s) for each prediction.
    tokenizer: callable `str -> list of tokens` (default: 13a).
    max_order (`int`): maximum n-gram order (default 4).
    smooth (`bool`): add one to every order's numerator and denominator (default False).
Returns:
    'bleu', 'precisions', 'brevity_penalty', 'length_ratio', 'translation_length', 'reference_length'
Examples:
    >>> import bleukit
    >>> bleu = evaluate.load(bleukit.metric_path("bleu"))
    >>> sentence = "hello there general kenobi"
    >>> bleu.compute(predictions=[sentence], references=[[sentence]])["bleu"]
    1.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Bleu(evaluate.Metric):
    """evaluate's "bleu", computed by bleukit."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=text_features(),
            codebase_urls=["https://github.com/tensorflow/nmt/blob/master/nmt/scripts/bleu.py"],
            reference_urls=["https://en.wikipedia.org/wiki/BLEU"],
        )

    def compute(self, *, predictions: Optional[List[str]] = None, references: Optional[List[Any]] = None,
                **kwargs: Any) -> Optional[Dict[str, Any]]:
        """As evaluate's, but empty input is a ValueError (evaluate's own code fails with IndexError)."""
        if predictions is None and references is None:
            return super().compute(**kwargs)
        if predictions is not None and len(predictions) == 0:
            raise ValueError("empty input: no predictions to score")
        check_arrow_text(predictions, references)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions: Optional[List[str]] = None, references: Optional[List[Any]] = None,
                  **kwargs: Any) -> None:
        """As evaluate's; a lone surrogate is a ValueError naming its item."""
        check_arrow_text(predictions, references)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """As evaluate's; a lone surrogate is a ValueError naming it."""
        check_arrow_text([prediction], [reference])
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def _compute(self, predictions: List[str], references: List[Any], tokenizer: Any = None,
                 max_order: int = 4, smooth: bool = False) -> Dict[str, Any]:
        return hf_evaluate.bleu(predictions, references, tokenizer=tokenizer, max_order=max_order, smooth=smooth)
