"""The one-row paths: a sentence or a corpus's column sums scored without a table or arrays.

``score_row`` (plain floats, ``math.exp``/``math.log``) must give the very floats of the vectorised
formula and of sacreBLEU; ``sentence_row``/``summed_row`` the rows of the table; ``row_result`` the
result of the table. All compared with ``==``, on real data and on rows built to reach every branch.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
import sacrebleu
from sacrebleu.metrics.bleu import BLEU as SacreBLEU
from shared_data import read_lines

import bleukit
from bleukit.inputs import check_sentence_references
from bleukit.metrics import fast
from bleukit.metrics.bleu import METRIC, formula
from bleukit.metrics.bleu.formula import score_row, score_table
from bleukit.metrics.bleu.options import BleuOptions
from bleukit.pipeline import corpus_result, corpus_statistics, score_statistics, sentence_result

SMOOTHING = [("exp", None), ("floor", None), ("floor", 0.3), ("add-k", None), ("add-k", 2), ("none", None)]


def _rows(order: int, count: int, seed: int) -> list:
    """Statistics rows that reach every branch: no match, closed orders, zero counts, short hypotheses."""
    rng = random.Random(seed)
    rows = []
    for _ in range(count):
        sys_len = rng.choice([0, 1, 2, 3, 5, 9, 40, 1000])
        ref_len = rng.choice([0, 1, sys_len, sys_len + 1, sys_len + 7, max(0, sys_len - 2)])
        totals = [max(0, sys_len - n) for n in range(order)]
        counts = [rng.randint(0, t) if rng.random() < 0.7 else 0 for t in totals]
        rows.append([sys_len, ref_len, *counts, *totals])
    return rows


def _options(order: int) -> list:
    out = []
    for (method, value), eff in itertools.product(SMOOTHING, (False, True)):
        out.append(BleuOptions(smooth_method=method, smooth_value=value, effective_order=eff, max_ngram_order=order))
    out.append(BleuOptions(weights=[0.1, 0.2, 0.3, 0.4], max_ngram_order=4))
    out.append(BleuOptions(weights=[0.0, 0.5, 0.0, 0.5], effective_order=True, max_ngram_order=4))
    return out


# The vectorised formula takes exp and log from the C library (as math does) once
# bleukit.metrics.bleu.libm exists; before, numpy's SIMD exp/log differ in the last bit on AVX-512
# CPUs, and only the parts without them can be compared (sacreBLEU checks the rest below).
VECTORISED_IS_LIBM = getattr(formula, "libm", None) is not None


@pytest.mark.parametrize("order", [1, 2, 4, 6])
def test_score_row_equals_the_vectorised_formula(order):
    rows = _rows(order, 400, seed=order)
    for options in _options(order):
        if options.weights is not None and len(options.weights) != order:
            continue
        table = score_table(np.asarray(rows, dtype=np.int64), options)
        for i, row in enumerate(rows):
            score, precisions, bp, counts, totals = score_row(row, options)
            assert precisions == table.precisions[i].tolist(), (row, options)
            assert counts == table.counts[i].tolist() and totals == table.totals[i].tolist()
            if VECTORISED_IS_LIBM or row[0] >= row[1]:
                assert bp == table.bp[i]
            if VECTORISED_IS_LIBM or score in (0.0, 100.0):
                assert score == table.score[i], (row, options)


@pytest.mark.parametrize("order", [1, 4])
def test_tables_longer_than_a_block_score_as_their_rows(order):
    # table_scores scores numpy tables in blocks of ROW_BLOCK rows: a table of several blocks (the
    # branch-reaching rows again and again, cut at odd places) gives each row the score it gets
    # in a table of one block (checked against score_row above)
    rows = np.asarray(_rows(order, 401, seed=20 + order), dtype=np.int64)
    big = np.tile(rows, (2 * formula.ROW_BLOCK // len(rows) + 2, 1))
    assert len(big) > 2 * formula.ROW_BLOCK
    for options in _options(order):
        if options.weights is not None and len(options.weights) != order:
            continue
        want = np.tile(score_table(rows, options).score, len(big) // len(rows))
        for threads in (1, 3):
            got = formula.table_scores(big, options, threads)
            assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True), (options, threads)
        assert np.array_equal(METRIC.scores(big, options), want, equal_nan=True)


@pytest.mark.parametrize("order", [1, 2, 4])
def test_score_row_equals_sacrebleu_compute_bleu(order):
    for row in _rows(order, 300, seed=10 + order):
        for (method, value), eff in itertools.product(SMOOTHING, (False, True)):
            options = BleuOptions(smooth_method=method, smooth_value=value, effective_order=eff, max_ngram_order=order)
            theirs = SacreBLEU.compute_bleu(
                list(row[2 : 2 + order]), list(row[2 + order :]), row[0], row[1], smooth_method=method,
                smooth_value=value, effective_order=eff, max_ngram_order=order,
            )
            score, precisions, bp, _, _ = score_row(row, options)
            assert (score, precisions, bp) == (theirs.score, theirs.precisions, theirs.bp), (row, options)


def test_sentence_bleu_equals_sacrebleu_on_real_data(shared_data):
    folder = shared_data / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.LT22.en")[:300]
    refs_a, refs_b = read_lines(folder / "ref.A.en")[:300], read_lines(folder / "ref.B.en")[:300]
    for h, a, b in zip(hyps, refs_a, refs_b):
        for refs in ([a], [a, b]):
            ours, theirs = bleukit.sentence_bleu(h, refs), sacrebleu.sentence_bleu(h, refs)
            assert (ours.score, ours.precisions, ours.bp) == (theirs.score, theirs.precisions, theirs.bp)
            assert (ours.counts, ours.totals, ours.sys_len, ours.ref_len) == (
                theirs.counts, theirs.totals, theirs.sys_len, theirs.ref_len)
    ours = bleukit.sentence_bleu(hyps[0], [refs_a[0]], smooth_method="add-k", tokenize="intl", lowercase=True)
    theirs = sacrebleu.sentence_bleu(hyps[0], [refs_a[0]], smooth_method="add-k", tokenize="intl", lowercase=True)
    assert (ours.score, ours.counts, ours.totals) == (theirs.score, theirs.counts, theirs.totals)


def test_sentence_path_equals_the_table_path(engine, shared_data):
    folder = shared_data / "wmt17-en-de"
    hyps = read_lines(folder / "hyp.online-A.0.de")[:200]
    refs = read_lines(folder / "ref.de")[:200]
    entries = [r if i % 3 else [r, None, hyps[(i + 1) % 200]] for i, r in enumerate(refs)]
    for options in (BleuOptions().sentence_level(), BleuOptions(tokenize="intl", lowercase=True).sentence_level(),
                    BleuOptions(tokenize="char", max_ngram_order=3)):
        table = corpus_statistics(hyps, entries, options=options)
        expected = METRIC.sentence_results(table, options)
        for i, (h, entry) in enumerate(zip(hyps, entries)):
            row, nrefs = fast.sentence_row(METRIC, h, entry, options)
            assert row == table.rows[i].tolist() and nrefs == table.nrefs[i]
            ours = sentence_result(h, entry, options)
            if VECTORISED_IS_LIBM:
                assert ours == expected[i]
            else:
                assert ours.precisions == expected[i].precisions and ours.signature == expected[i].signature


def test_summed_row_and_corpus_result_equal_the_table(engine, shared_data):
    folder = shared_data / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.JDExploreAcademy.en")
    refs = [list(pair) for pair in zip(read_lines(folder / "ref.A.en"), read_lines(folder / "ref.B.en"))]
    refs[5] = [refs[5][0], None]  # nrefs varies: the signature says var
    for options in (BleuOptions(), BleuOptions(smooth_method="floor", effective_order=True, max_ngram_order=3)):
        table = corpus_statistics(hyps, refs, options=options)
        summed = table.summed()
        assert fast.summed_row(METRIC, hyps, refs, options) == (summed.rows[0].tolist(), int(summed.nrefs[0]))
        ours = corpus_result(hyps, refs, options)
        assert ours == score_statistics(table, options)
        assert "nrefs:var" in ours.signature
    theirs = sacrebleu.corpus_bleu(hyps, [[r[0] for r in refs], [r[1] for r in refs]])
    ours = bleukit.corpus_bleu(hyps, refs)
    assert (ours.score, ours.counts, ours.totals, ours.bp) == (theirs.score, theirs.counts, theirs.totals, theirs.bp)


def test_row_result_default_of_the_protocol_equals_bleus():
    # the Metric base class scores a table of one row; BLEU's override uses plain floats
    from bleukit.metrics.base import Metric

    for options in _options(4):
        for row in _rows(4, 50, seed=99):
            for nrefs in (1, 3, -1):
                assert METRIC.row_result(row, nrefs, options) == Metric.row_result(METRIC, row, nrefs, options)


def test_sentence_bleu_checks_its_references_like_the_corpus(engine):
    with pytest.raises(ValueError, match=r"^references is None: every hypothesis needs at least one reference$"):
        bleukit.sentence_bleu("a", None)
    with pytest.raises(TypeError, match=r"^references\[1\] must be a str or None, got int$"):
        bleukit.sentence_bleu("a", ["a", 3])
    # any other type: bleukit.inputs.check_sentence_references' messages, word for word
    for entry in (3, {"a"}, {"a": 1}, b"a b"):
        with pytest.raises(TypeError) as python:
            check_sentence_references(entry)
        for call in (bleukit.sentence_bleu, bleukit.sentence_chrf):
            with pytest.raises(TypeError) as ours:
                call("a", entry)
            assert str(ours.value) == str(python.value)
    generator = (r for r in ["a b", "a c"])  # read once
    assert bleukit.sentence_bleu("a b", generator).score == bleukit.sentence_bleu("a b", ["a b", "a c"]).score
    with pytest.raises(ValueError, match=r"^references holds no reference \(empty or all None\)"):
        bleukit.sentence_bleu("a", (None,))
    # any sequence of str is read as the Python check reads it
    as_array = bleukit.sentence_bleu("a b c", np.array(["a b c", "x"]))
    assert as_array.score == bleukit.sentence_bleu("a b c", ["a b c"]).score


def test_cached_options_never_mix_values_of_different_types():
    # True == 1 and hash alike: a cached entry for one must not serve the other
    bleukit.sentence_bleu("a b", "a b", smooth_method="add-k", smooth_value=1)
    with pytest.raises(TypeError, match="smooth_value must be a number"):
        bleukit.sentence_bleu("a b", "a b", smooth_method="add-k", smooth_value=True)
    with pytest.raises(TypeError, match=r"weights\[0\] must be a number, got bool"):
        bleukit.sentence_bleu("a b", "a b", weights=(True, False, False, False))
    ours = bleukit.sentence_bleu("a b", "A b", lowercase=True)
    assert ours.score == sacrebleu.sentence_bleu("a b", ["A b"], lowercase=True).score
    result = bleukit.sentence_bleu("a b", "a b", smooth_method="add-k", smooth_value=1)
    assert result.signature.endswith(bleukit.__version__)


def test_corpus_result_of_a_metric_that_keeps_its_table_is_the_table_s(shared_data):
    # TER has no summed_row of its own (its corpus score adds the sentences' averages in order):
    # corpus_result scores its table, the result sacreBLEU gives, on every entry form
    from bleukit.metrics.ter import TerOptions

    folder = shared_data / "wmt17-en-de"
    hyps, refs = read_lines(folder / "hyp.online-A.0.de")[:600], read_lines(folder / "ref.de")[:600]
    options = TerOptions()
    ours = corpus_result(hyps, [r if i % 2 else [r, None] for i, r in enumerate(refs)], options)
    assert ours.score == score_statistics(corpus_statistics(hyps, refs, options=options), options).score
    assert ours.score == sacrebleu.corpus_ter(hyps, [refs]).score
