"""Pairwise sentence scores of every metric (every hypothesis against every single reference,
``bleukit.pairwise_scores`` and ``pairwise_<metric>``) against sacreBLEU's ``sentence_score`` of
each pair, with ``==``, on both engines, through the harness (tests/metrics/harness.py).

BLEU's pairwise tests (tokenizers, smoothing, ids, the kernel) are in bleu/test_bleu_pairwise.py;
chrF's kernel, MBR and aggregation in chrf/test_chrf_pairwise.py."""

from __future__ import annotations

import random

import pytest
from metrics.harness import PAIR_CANDS as CANDS
from metrics.harness import PAIR_REFS as REFS
from metrics.harness import Corpus, MetricCase, MetricTester
from sacrebleu.metrics import CHRF

from bleukit.metrics.chrf import extract
from bleukit.metrics.chrf.formula import sentence_scores
from bleukit.metrics.chrf.options import ChrfOptions

CHRF_OPTIONS = [
    {},
    {"word_order": 2},
    {"word_order": 2, "lowercase": True, "beta": 1},
    {"char_order": 3, "whitespace": True, "eps_smoothing": True},
]
POOL_OPTIONS = [
    {},
    {"word_order": 2},
    {"word_order": 2, "lowercase": True, "beta": 1},
    {"char_order": 3, "whitespace": True, "eps_smoothing": True, "beta": 0.5},
]


def pool():
    """60 lines drawn from a WMT22 de-en system and its references, one repeated and one empty:
    40 hypotheses against 35 references (rows 25-39 on both sides)."""
    hyps, streams = Corpus("wmt22-de-en", "hyp.Online-A.en", "ref.A.en+ref.B.en").load()
    lines = random.Random(0).sample(hyps + streams[0] + streams[1], 60)
    lines[7] = lines[3]
    lines[11] = ""
    return lines[:40], lines[25:]


# (case, hypotheses and references (or a function that reads them), the stride of the rows checked)
TABLE = [
    *[(MetricCase("chrf", options, name="toy"), lambda: (CANDS, REFS), 1) for options in CHRF_OPTIONS],
    *[(MetricCase("chrf", options, name="toy-self"), lambda: (CANDS, CANDS), 1) for options in CHRF_OPTIONS],
    *[(MetricCase("chrf", options, name="wmt22-pool"), pool, 3) for options in POOL_OPTIONS],
    (MetricCase("ter", {}, name="toy"), lambda: (["a b c", "the cat sat", "x"], ["a c b", "cat the sat on", ""]), 1),
]


@pytest.mark.parametrize("case, sides, step", [pytest.param(*row, id=row[0].id) for row in TABLE])
def test_pairwise_scores_are_sacrebleus_sentence_scores(case, sides, step, each_engine):
    hyps, refs = sides()
    # the same list twice (MBR's candidates against candidates) on all cores
    threads = 0 if case.name == "toy-self" else 1
    MetricTester(case, each_engine).check_pairwise(list(hyps), list(refs) if refs is not hyps else hyps,
                                                   step=step, threads=threads)


@pytest.mark.parametrize("options", POOL_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "chrF")
def test_chrf_pairwise_statistics_are_sacrebleus_rows(options, engine):
    hyps, refs = pool()
    opts = ChrfOptions(**options)
    metric = CHRF(**options)
    rows = extract.pairwise_chrf_statistics(hyps, refs, opts)
    for i, j in [(0, 0), (3, 5), (11, 2), (39, 34)]:
        assert rows[i, j].tolist() == metric._extract_corpus_statistics([hyps[i]], [[refs[j]]])[0]
    matrix = extract.pairwise_chrf(hyps, refs, opts)
    assert sentence_scores(rows.reshape(-1, opts.columns), opts).reshape(40, 35).tolist() == matrix.tolist()
