"""BLEU as an `evaluate` metric, scored by bleukit: identical to sacreBLEU 2.x, with its signature.

This file ships inside the package, so a pip user loads it offline without the repository::

    import bleukit, evaluate
    bleu = evaluate.load(bleukit.metric_path())
    bleu.compute(predictions=["The cat sat on the mat."], references=[["The cat sat on the mat."]])

The repository's top-level ``bleu_metric.py`` (the Space / Hub layout) and a Hub metric repo
written by ``python -m bleukit.evaluate_module`` only re-export the class defined here: one implementation.
``evaluate`` copies a loaded file into its cache and imports it on its own, so everything this
module needs comes from absolute imports of the installed ``bleukit``.

This module only converts inputs and calls the bleukit core; every number comes from there.
"""

from __future__ import annotations

import evaluate  # noqa: F401  (the examples below run in this module's namespace)

import bleukit.bleu

# The module, not the class: evaluate.load takes the first evaluate.Metric subclass it finds here.
from bleukit.evaluate_module import base
from bleukit.tokenizers import TOKENIZERS

_CITATION = """\
@inproceedings{papineni-etal-2002-bleu,
    title = "{B}leu: a Method for Automatic Evaluation of Machine Translation",
    author = "Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing",
    booktitle = "Proceedings of the 40th Annual Meeting of the Association for Computational Linguistics",
    month = jul,
    year = "2002",
    address = "Philadelphia, Pennsylvania, USA",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/P02-1040",
    doi = "10.3115/1073083.1073135",
    pages = "311--318",
}
@inproceedings{post-2018-call,
    title = "A Call for Clarity in Reporting {BLEU} Scores",
    author = "Post, Matt",
    booktitle = "Proceedings of the Third Conference on Machine Translation: Research Papers",
    month = oct,
    year = "2018",
    address = "Belgium, Brussels",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/W18-6319",
    doi = "10.18653/v1/W18-6319",
    pages = "186--191",
}
"""

_DESCRIPTION = """\
BLEU (Papineni et al., 2002) scores generated text by its clipped n-gram precisions against one or
more references, combined by a geometric mean and a brevity penalty. This metric gives exactly the
numbers of sacreBLEU 2.x (Post, 2018) -- the standard for reporting BLEU -- for every tokenizer,
smoothing method, effective order, lowercasing and multiple or missing references, and returns the
sacreBLEU-style signature that makes a score reproducible. Scores are on the 0-100 scale.

It is computed by bleukit, whose core keeps per-sentence integer statistics: the corpus score is the
score of their sum, which is what makes streaming, distributed and bootstrap evaluation exact.
"""

_KWARGS_DESCRIPTION = """
Computes corpus BLEU.

Args:
    predictions (`list` of `str`): hypotheses (detokenized system outputs), one per segment.
    references (`list` of `str` or `list` of `list` of `str`): for each prediction, its reference or
        its references. With several references per prediction, `None` marks a missing one.
    tokenize (`str`, default "13a"): {tokenizers}.
    lowercase (`bool`, default False): case-insensitive BLEU.
    smooth_method (`str`, default "exp"): "none", "floor", "add-k" or "exp".
    smooth_value (`float`, optional): value for "floor" (default 0.1) or "add-k" (default 1).
    max_ngram_order (`int`, default 4): largest n-gram order.
    weights (`list` of `float`, optional): one weight per n-gram order (default uniform).
    effective_order (`bool`, default False): ignore orders without any n-gram (for short segments).
    n_bootstrap (`int`, optional): also estimate the score's 95% confidence interval from this many
        bootstrap resamples (sacreBLEU's `--confidence`; 1000 is its default).
    seed (`int` or `None`, default 12345): seed of the resampling (`None`: unseeded).

Returns:
    score (`float`): BLEU, 0-100.
    counts (`list`): matched n-grams per order.
    totals (`list`): hypothesis n-grams per order.
    precisions (`list` of `float`): n-gram precisions per order, in percent.
    bp (`float`): brevity penalty.
    sys_len (`int`): hypothesis length in tokens.
    ref_len (`int`): effective reference length in tokens.
    signature (`str`): the reproducibility signature, e.g.
        "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:bleukit-0.1.0".
    mean (`float`), ci (`float`): only with `n_bootstrap`: the mean of the resampled scores and the
        half-width of their 95% interval (sacreBLEU's "μ = mean ± ci").

Examples:
    >>> import bleukit
    >>> bleu = evaluate.load(bleukit.metric_path())
    >>> predictions = ["The cat sat on the mat.", "It is raining today."]
    >>> references = [["The cat sat on the mat.", "A cat sat on the mat."],
    ...               ["It rains today.", "It is raining today!"]]
    >>> results = bleu.compute(predictions=predictions, references=references)
    >>> round(results["score"], 2)
    92.41
""".format(tokenizers=", ".join(f'"{name}"' for name in TOKENIZERS))

class Bleu(
    base.MetricModule,
    metric="bleu",
    facade=bleukit.bleu,
    outputs=("score", "counts", "totals", "precisions", "bp", "sys_len", "ref_len", "signature"),
    resampling=True,  # n_bootstrap and seed: sacreBLEU's --confidence
    description=_DESCRIPTION,
    citation=_CITATION,
    inputs_description=_KWARGS_DESCRIPTION,
    codebase_urls=["https://github.com/mjpost/sacrebleu"],
    reference_urls=["https://aclanthology.org/P02-1040", "https://aclanthology.org/W18-6319"],
):
    """sacreBLEU-exact BLEU computed by bleukit."""
