"""Offline drop-in for ``evaluate.load("google_bleu")`` (GLEU), computed by bleukit.

    import evaluate
    import bleukit
    gleu = evaluate.load(bleukit.metric_path("google_bleu"))
    gleu.compute(predictions=["the cat sat"], references=[["the cat sat"]])

evaluate copies this file into its cache and imports it on its own, so it imports only installed
packages. Numbers come from ``bleukit.compat.gleu`` (NLTK ``corpus_gleu`` on 13a tokens).
"""

from typing import Any, Dict, List, Optional

import evaluate

from bleukit.compat import gleu
from bleukit.evaluate_module.base import check_arrow_text, text_features

_CITATION = """\
@misc{wu2016googles,
      title={Google's Neural Machine Translation System: Bridging the Gap between Human and Machine Translation},
      author={Yonghui Wu and others},
      year={2016},
      eprint={1609.08144},
      archivePrefix={arXiv},
      primaryClass={cs.CL}
}
"""

_DESCRIPTION = """\
GLEU ("Google BLEU"): for each sentence, min(precision, recall) over all 1..4-grams against its
best single reference; the corpus score sums matches and denominators. 0-1 scale.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): translations to score.
    references (`list` of `str` or `list` of `list` of `str`): reference(s) for each prediction.
    tokenizer: callable `str -> list of tokens` (default: 13a).
    min_len (`int`): smallest n-gram order (default 1).
    max_len (`int`): largest n-gram order (default 4).
Returns:
    'google_bleu': GLEU score.
Examples:
    >>> import bleukit
    >>> gleu = evaluate.load(bleukit.metric_path("google_bleu"))
    >>> gleu.compute(predictions=["the cat sat"], references=[["the cat sat"]])
    {'google_bleu': 1.0}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GoogleBleu(evaluate.Metric):
    """evaluate's "google_bleu", computed by bleukit."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=text_features(),
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
                 min_len: int = 1, max_len: int = 4) -> Dict[str, float]:
        return gleu.google_bleu(predictions, references, tokenizer=tokenizer, min_len=min_len, max_len=max_len)
