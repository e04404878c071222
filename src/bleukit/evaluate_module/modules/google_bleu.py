"""Offline drop-in for ``evaluate.load("google_bleu")`` (GLEU), computed by bleukit.

    import evaluate
    import bleukit
    gleu = evaluate.load(bleukit.metric_path("google_bleu"))
    gleu.compute(predictions=["the cat sat"], references=[["the cat sat"]])

evaluate copies this file into its cache and imports it on its own, so it imports only installed
packages. Numbers come from ``bleukit.compat.gleu`` (NLTK ``corpus_gleu`` on 13a tokens).
"""

import evaluate  # noqa: F401  (the examples below run in this module's namespace)

from bleukit.compat import gleu
from bleukit.evaluate_module import base

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


class GoogleBleu(
    base.CompatModule,
    compute=gleu.google_bleu,
    description=_DESCRIPTION,
    citation=_CITATION,
    inputs_description=_KWARGS_DESCRIPTION,
):
    """evaluate's "google_bleu", computed by bleukit."""
