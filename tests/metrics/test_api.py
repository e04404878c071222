"""Every metric's public functions (``corpus_<metric>``, ``sentence_<metric>``,
``sentence_<metric>_scores``) against live sacreBLEU 2.6, on both engines, through the harness:
scores with ==, the summed statistics, the name, the printed line and the signature.

One table per metric; a new metric adds its table here (see ``harness.py``)."""

from __future__ import annotations

import pytest
from metrics.harness import LINES_HYPS, LINES_REFS, Corpus, MetricCase, MetricTester, params


def lines(metric, **options):
    return MetricCase(metric, options, hyps=LINES_HYPS, refs=LINES_REFS, name="lines")


# 300 WMT22 de-en sentences with two references each (the first of them missing on every 7th)
WMT22_TWO_REFS = Corpus("wmt22-de-en", "hyp.Online-A.en", "ref.A.en+ref.B.en", 300, missing=((0, 7),))

TABLES = {
    "bleu": [
        lines("bleu"),
        lines("bleu", tokenize="intl", lowercase=True),
        lines("bleu", smooth_method="floor", smooth_value=0.2),
    ],
    "chrf": [
        lines("chrf"),
        lines("chrf", word_order=2),
        lines("chrf", char_order=4, word_order=1, beta=1),
        lines("chrf", lowercase=True, whitespace=True),
        lines("chrf", eps_smoothing=True, word_order=2, beta=3),
        lines("chrf", beta=0.5),
    ],
    "ter": [
        # the default engine: TER's pure-Python engine on real data is test_ter_vs_sacrebleu.py's
        MetricCase("ter", options, corpus=WMT22_TWO_REFS, ref_layout="present", name="wmt22", engines="default")
        for options in (
            {},
            {"normalized": True},
            {"no_punct": True, "case_sensitive": True},
            {"normalized": True, "asian_support": True, "no_punct": True},
        )
    ],
}
#: the stride of the sentences checked one by one (sacreBLEU's TER of 300 sentences: every 13th)
SENTENCE_STEP = {"bleu": 1, "chrf": 1, "ter": 13}


@pytest.mark.parametrize("case", params([case for table in TABLES.values() for case in table]))
def test_corpus_and_sentence_scores_are_sacrebleus(case, each_engine):
    tester = MetricTester(case, each_engine)
    tester.check_corpus()
    tester.check_sentences(step=SENTENCE_STEP[case.metric])


# (case, the argument lists given to both command lines)
CLI = [
    (MetricCase("ter", {}, corpus=WMT22_TWO_REFS, ref_layout="present", name="wmt22"), [
        ["-m", "ter", "-w", "14"], ["-m", "bleu", "chrf", "ter", "-f", "text"],
        ["-m", "ter", "--ter-normalized", "--ter-no-punct", "-b"], ["-m", "ter", "-sl", "-f", "text"],
        # bootstrap estimates to the last digit (sacreBLEU's float32 arithmetic)
        ["-m", "ter", "--confidence", "-w", "14"],
        ["-m", "ter", "chrf", "--confidence", "--confidence-n", "200", "-f", "text", "-w", "14"],
    ]),
]


@pytest.mark.parametrize("case, argument_sets", [pytest.param(case, args, id=case.id) for case, args in CLI])
def test_command_line_prints_sacrebleus_lines(case, argument_sets, tmp_path, each_engine):
    MetricTester(case, each_engine).check_cli(tmp_path, argument_sets)
