"""Offline drop-in for ``evaluate.load("ter")``: the same arguments and result keys, computed by bleukit.

    import evaluate
    import bleukit
    ter = evaluate.load(bleukit.metric_path("ter"))
    ter.compute(predictions=["the cat sat"], references=[["the cat sat down"]], case_sensitive=True)

evaluate copies this file into its cache and imports it on its own, so it imports only installed
packages (``bleukit``, ``evaluate``, ``datasets``). The Hub metric runs sacreBLEU's ``TER`` with
its own names for two of the options (``ignore_punct`` is sacreBLEU's ``no_punct``,
``support_zh_ja_chars`` its ``asian_support``); the numbers here are bleukit's, which equal
sacreBLEU's with ``==``. Unlike the original, predictions may have different numbers of references
(a missing one is ``None``, as in sacreBLEU), and bad input or options raise a
``ValueError``/``TypeError`` naming the problem before anything is scored.
"""

import evaluate  # noqa: F401  (the examples below run in this module's namespace)

import bleukit.ter
from bleukit.evaluate_module import base

_CITATION = """\
@inproceedings{snover-etal-2006-study,
    title = "A Study of Translation Edit Rate with Targeted Human Annotation",
    author = "Snover, Matthew  and Dorr, Bonnie  and Schwartz, Rich  and Micciulla, Linnea  and Makhoul, John",
    booktitle = "Proceedings of the 7th Conference of the Association for Machine Translation in the Americas",
    year = "2006",
    address = "Cambridge, Massachusetts, USA",
    publisher = "Association for Machine Translation in the Americas",
    url = "https://aclanthology.org/2006.amta-papers.25",
    pages = "223--231",
}
""" + base.SACREBLEU_CITATION

_DESCRIPTION = """\
TER (translation edit rate) counts the word insertions, deletions, substitutions and block shifts
that turn a prediction into its closest reference, divided by the average reference length, in
percent: lower is better, and above 100 when there are more edits than reference words. These are
sacreBLEU 2.x's TER numbers (tercom's shift search), computed by bleukit.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): translations to score.
    references (`list` of `str` or `list` of `list` of `str`): reference(s) for each prediction
        (`None` marks a missing one).
    normalized (`bool`): tercom's normalisation and punctuation tokenisation (default False).
    ignore_punct (`bool`): remove punctuation before scoring (default False).
    support_zh_ja_chars (`bool`): with the two options above, also Chinese and Japanese characters
        and punctuation (default False).
    case_sensitive (`bool`): keep case; by default text is lowercased (default False).
Returns:
    'score' (`float`): TER, 0-100 and above; 'num_edits' (`int`): the edits, summed over the
    predictions; 'ref_length' (`float`): the sum of the average reference lengths.
Examples:
    >>> import bleukit
    >>> ter = evaluate.load(bleukit.metric_path("ter"))
    >>> ter.compute(predictions=["the cat sat"], references=[["the cat sat down"]])
    {'score': 25.0, 'num_edits': 1, 'ref_length': 4.0}
"""


class Ter(
    base.MetricModule,
    metric="ter",
    facade=bleukit.ter,
    outputs=("score", "num_edits", "ref_length"),
    # the Hub metric's names of two of TerOptions' fields
    names={"ignore_punct": "no_punct", "support_zh_ja_chars": "asian_support"},
    description=_DESCRIPTION,
    citation=_CITATION,
    homepage="http://www.cs.umd.edu/~snover/tercom/",
    inputs_description=_KWARGS_DESCRIPTION,
    codebase_urls=["https://github.com/mjpost/sacreBLEU#ter"],
    reference_urls=["https://github.com/jhclark/tercom"],
):
    """evaluate's "ter", computed by bleukit."""
