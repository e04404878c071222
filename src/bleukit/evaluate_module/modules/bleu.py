"""Offline drop-in for ``evaluate.load("bleu")``: the same arguments and numbers, computed by bleukit.

    import evaluate
    import bleukit
    bleu = evaluate.load(bleukit.metric_path("bleu"))
    bleu.compute(predictions=["the cat sat"], references=[["the cat sat"]])

evaluate copies this file into its cache and imports it on its own, so it imports only installed
packages (``bleukit``, ``evaluate``, ``datasets``). Numbers come from ``bleukit.compat.hf_evaluate``.
Unlike the original, empty input raises a ``ValueError`` naming the problem.
"""

import evaluate  # noqa: F401  (the examples below run in this module's namespace)

from bleukit.compat import hf_evaluate
from bleukit.evaluate_module import base

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


class Bleu(
    base.CompatModule,
    compute=hf_evaluate.bleu,
    description=_DESCRIPTION,
    citation=_CITATION,
    inputs_description=_KWARGS_DESCRIPTION,
    codebase_urls=["https://github.com/tensorflow/nmt/blob/master/nmt/scripts/bleu.py"],
    reference_urls=["https://en.wikipedia.org/wiki/BLEU"],
):
    """evaluate's "bleu", computed by bleukit."""
