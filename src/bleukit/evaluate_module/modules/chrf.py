"""Offline drop-in for ``evaluate.load("chrf")``: the same arguments and result keys, computed by bleukit.

    import evaluate
    import bleukit
    chrf = evaluate.load(bleukit.metric_path("chrf"))
    chrf.compute(predictions=["the cat sat"], references=[["the cat sat"]], word_order=2)

evaluate copies this file into its cache and imports it on its own, so it imports only installed
packages (``bleukit``, ``evaluate``, ``datasets``). The Hub metric runs sacreBLEU's ``CHRF``; the
numbers here are bleukit's, which equal sacreBLEU's with ``==``. Unlike the original, predictions
may have different numbers of references (a missing one is ``None``, as in sacreBLEU), and bad
input or options raise a ``ValueError``/``TypeError`` naming the problem before anything is scored.
"""

import evaluate  # noqa: F401  (the examples below run in this module's namespace)

import bleukit.chrf
from bleukit.evaluate_module import base

_CITATION = """\
@inproceedings{popovic-2015-chrf,
    title = "chr{F}: character n-gram {F}-score for automatic {MT} evaluation",
    author = "Popovi{\\'c}, Maja",
    booktitle = "Proceedings of the Tenth Workshop on Statistical Machine Translation",
    year = "2015",
    address = "Lisbon, Portugal",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/W15-3049",
    pages = "392--395",
}
@inproceedings{popovic-2017-chrf,
    title = "chr{F}++: words helping character n-grams",
    author = "Popovi{\\'c}, Maja",
    booktitle = "Proceedings of the Second Conference on Machine Translation",
    year = "2017",
    address = "Copenhagen, Denmark",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/W17-4770",
    pages = "612--618",
}
""" + base.SACREBLEU_CITATION

_DESCRIPTION = """\
chrF is the F-score of character n-gram precision and recall (orders 1-6, recall weighted by beta=2);
chrF++ adds word unigrams and bigrams (word_order=2). These are sacreBLEU 2.x's CHRF numbers, 0-100
scale, computed by bleukit: each prediction keeps the statistics of its best-scoring reference and
the corpus score is the F-score of the summed statistics.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): translations to score.
    references (`list` of `str` or `list` of `list` of `str`): reference(s) for each prediction
        (`None` marks a missing one).
    char_order (`int`): character n-gram order (default 6).
    word_order (`int`): word n-gram order; 2 is chrF++ (default 0).
    beta (`int`): weight of recall against precision (default 2).
    lowercase (`bool`): case-insensitive (default False).
    whitespace (`bool`): keep whitespace in character n-grams (default False).
    eps_smoothing (`bool`): chrF++.py/NLTK/Moses epsilon smoothing instead of sacreBLEU's effective
        order (default False).
Returns:
    'score' (`float`): chrF (chrF++), 0-100; 'char_order', 'word_order', 'beta' as used.
Examples:
    >>> import bleukit
    >>> chrf = evaluate.load(bleukit.metric_path("chrf"))
    >>> chrf.compute(predictions=["the cat sat"], references=[["the cat sat"]])
    {'score': 100.0, 'char_order': 6, 'word_order': 0, 'beta': 2}
"""


class ChrF(
    base.MetricModule,
    metric="chrf",
    facade=bleukit.chrf,
    outputs=("score", "char_order", "word_order", "beta"),
    description=_DESCRIPTION,
    citation=_CITATION,
    homepage="https://github.com/mjpost/sacreBLEU#chrf--chrf",
    inputs_description=_KWARGS_DESCRIPTION,
    codebase_urls=["https://github.com/mjpost/sacreBLEU#chrf--chrf"],
    reference_urls=["https://github.com/m-popovic/chrF"],
):
    """evaluate's "chrf", computed by bleukit."""
