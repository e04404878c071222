"""chrF's one-sentence path: one kernel call for the row, the formula on plain floats.

``score_row`` must give the floats of the vectorised formula; the one-sentence row the row of the
table; the result sacreBLEU's ``CHRF.sentence_score``, all with ``==``, on both engines.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from metrics.chrf.chrf_cases import corpus
from sacrebleu.metrics import CHRF

import bleukit
from bleukit.metrics.chrf import METRIC, extract
from bleukit.metrics.chrf.formula import corpus_score, score_row, sentence_scores
from bleukit.metrics.chrf.options import ChrfOptions
from bleukit.pipeline import corpus_result, score_statistics, sentence_result

OPTIONS = [
    ChrfOptions(),
    ChrfOptions(word_order=2),
    ChrfOptions(char_order=3, word_order=1, beta=1, lowercase=True),
    ChrfOptions(eps_smoothing=True, whitespace=True),
    ChrfOptions(beta=0.5, word_order=2),
]


def test_score_row_equals_the_vectorised_formula():
    rng = random.Random(3)
    for options in OPTIONS:
        rows = []
        for _ in range(300):
            row = []
            for _ in range(options.order):
                n_hyp, n_ref = rng.choice([0, 1, 5, 40]), rng.choice([0, 1, 7, 40])
                row += [n_hyp, n_ref, rng.randint(0, min(n_hyp, n_ref))]
            rows.append(row)
        expected = sentence_scores(np.asarray(rows, dtype=np.int64), options).tolist()
        assert [score_row(row, options) for row in rows] == expected


@pytest.mark.parametrize("options", OPTIONS, ids=repr)
def test_one_sentence_equals_the_table_and_sacrebleu(engine, shared_data, options):
    hyps, _, per_hyp = corpus("wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en", 120)
    ref_sets = [[refs[0]] if i % 2 else [refs[0], None, refs[1]] for i, refs in enumerate(per_hyp)]
    table = extract.chrf_statistics(hyps, [[r for r in rs if r is not None] for rs in ref_sets], options)
    theirs = CHRF(char_order=options.char_order, word_order=options.word_order, beta=options.beta,
                  lowercase=options.lowercase, whitespace=options.whitespace, eps_smoothing=options.eps_smoothing)
    for i, (h, refs) in enumerate(zip(hyps, ref_sets)):
        row, nrefs = extract.sentence_row(h, refs, options)
        assert row == table[i].tolist() and nrefs == sum(r is not None for r in refs)
        ours = sentence_result(h, refs, options)
        assert ours.score == theirs.sentence_score(h, [r for r in refs if r is not None]).score
        one = METRIC.statistics([h], [[r for r in refs if r]], options)
        assert ours.signature == METRIC.result(one, options).signature


def test_corpus_result_from_the_sums_equals_the_table(engine):
    hyps, _, per_hyp = corpus("wmt17-en-de", "hyp.KIT.4950.de", "ref.de", 400)
    options = ChrfOptions(word_order=2)
    assert corpus_result(hyps, per_hyp, options) == score_statistics(METRIC.statistics(hyps, per_hyp, options), options)


def test_one_sentence_checks_its_references_like_bleu(engine):
    options = ChrfOptions()
    with pytest.raises(ValueError, match=r"^references is None: every hypothesis needs at least one reference$"):
        sentence_result("a", None, options)
    with pytest.raises(TypeError, match=r"^references\[1\] must be a str or None, got int$"):
        sentence_result("a", ["a", 3], options)
    with pytest.raises(ValueError, match=r"^references holds no reference \(empty or all None\)"):
        sentence_result("a", [], options)
    with pytest.raises(TypeError, match=r"^hypothesis must be a str, got bytes$"):
        sentence_result(b"a", "a", options)
    assert sentence_result("a b", np.array(["a b", "c"]), options) == sentence_result("a b", ["a b", "c"], options)


def test_kept_options_never_mix_values_of_different_types():
    # sentence_chrf keeps its options per set of keyword values (bleukit.metrics.cached_options):
    # 2 and 2.0 are equal keys to a dict, but sacreBLEU names them chrF2 and chrF2.0
    assert bleukit.sentence_chrf("a b", "a b", beta=2).name == "chrF2"
    assert bleukit.sentence_chrf("a b", "a b", beta=2.0).name == "chrF2.0"
    assert bleukit.sentence_chrf("a b", "a b", beta=2).name == "chrF2"
    assert bleukit.sentence_chrf("a b", "A b", lowercase=True).score == 100.0
    with pytest.raises(TypeError, match="lowercase must be a bool, got int"):
        bleukit.sentence_chrf("a b", "A b", lowercase=1)
    with pytest.raises(TypeError):
        bleukit.sentence_chrf("a b", "a b", beta=[2])  # unhashable: built, and refused, each time
    theirs = CHRF(beta=3, word_order=2).sentence_score("the cat sat", ["the cat sat down"])
    ours = bleukit.sentence_chrf("the cat sat", ["the cat sat down"], beta=3, word_order=2)
    assert (ours.score, ours.name) == (theirs.score, theirs.name)


@pytest.mark.parametrize("shape", [(0, 3), (3,), (1, 1, 3)])
def test_corpus_score_refuses_a_table_that_is_not_2d_with_rows(shape):
    """No score for an empty or mis-shaped table (mutation testing found the check untested)."""
    with pytest.raises(ValueError, match="2-D table with at least one row"):
        corpus_score(np.zeros(shape, dtype=np.int64), ChrfOptions(char_order=1))
