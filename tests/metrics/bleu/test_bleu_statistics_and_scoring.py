"""The statistics table and the one formula: sums, slices, custom weights, any order, torch arrays."""

import math

import numpy as np
import pytest
from sacrebleu.metrics import BLEU
from small_corpus import HYPS as SMALL_HYPS
from small_corpus import REFS as SMALL_REFS

import bleukit
from bleukit import BleuOptions, BleuStatistics, corpus_statistics
from bleukit.metrics.bleu.formula import score_rows

HYPS = [
    "The committee approved the new budget on Tuesday.",
    "A small dog was barking at the postman all morning.",
    "Prices rose by 3.5 percent.",
    "Yes.",
]
REFS = [
    ["The committee approved the new budget on Tuesday.", "On Tuesday the committee passed the budget."],
    "A little dog barked at the postman the whole morning.",
    ["Prices went up 3.5 percent.", None],
    "No.",
]


def test_rows_follow_sacrebleu_layout():
    opts = BleuOptions()
    stats = bleukit.corpus_statistics(HYPS, REFS, options=opts)
    metric = BLEU()
    theirs = metric._extract_corpus_statistics(HYPS, _streams(REFS))
    assert stats.rows.tolist() == theirs
    assert stats.rows.dtype == np.int64
    assert stats.nrefs.tolist() == [2, 1, 1, 1]
    assert stats.nrefs_signature == "var"


def _streams(refs):
    per = [[r] if isinstance(r, str) else list(r) for r in refs]
    width = max(len(r) for r in per)
    return [[r[k] if k < len(r) else None for r in per] for k in range(width)]


def test_corpus_score_is_score_of_summed_rows_and_streaming_adds_up():
    opts = BleuOptions()
    whole = bleukit.corpus_bleu(HYPS, REFS)
    batches = [bleukit.corpus_statistics(HYPS[i : i + 2], REFS[i : i + 2], options=opts) for i in (0, 2)]
    streamed = bleukit.score_statistics(BleuStatistics.concat(batches), opts)
    running = bleukit.score_statistics(BleuStatistics.concat([b.summed() for b in batches]), opts)
    assert streamed == whole and running.score == whole.score
    assert streamed.signature == whole.signature == running.signature


def test_bootstrap_resample_is_row_indexing():
    opts = BleuOptions()
    stats = bleukit.corpus_statistics(HYPS, REFS, options=opts)
    idx = np.array([0, 0, 1, 3])
    resampled = bleukit.score_statistics(stats[idx], opts)
    hyps = [HYPS[i] for i in idx]
    refs = [REFS[i] for i in idx]
    assert resampled.score == bleukit.corpus_bleu(hyps, refs).score


def test_sentence_scores_equal_rowwise_sentence_bleu():
    scores = bleukit.sentence_bleu_scores(HYPS, REFS)
    assert scores.dtype == np.float64 and scores.shape == (4,)
    for i in range(4):
        assert scores[i] == bleukit.sentence_bleu(HYPS[i], REFS[i]).score


def test_uniform_weights_equal_default_and_custom_weights_follow_the_definition():
    default = bleukit.corpus_bleu(HYPS, REFS)
    uniform = bleukit.corpus_bleu(HYPS, REFS, weights=[0.25] * 4)
    assert uniform.score == pytest.approx(default.score, abs=1e-12)
    w = [0.4, 0.3, 0.2, 0.1]
    custom = bleukit.corpus_bleu(HYPS, REFS, weights=w)
    expected = custom.bp * math.exp(sum(wi * math.log(p) for wi, p in zip(w, custom.precisions)))
    assert custom.score == pytest.approx(expected, rel=1e-12)
    assert "|weights:0.4,0.3,0.2,0.1|" in custom.signature


@pytest.mark.parametrize(
    "w, scale",
    [
        ([1e308] * 4, 2.0**-60),
        ([1e308] * 4, 2.0**-1000),
        ([1e308, 5e307, 0.0, 1e308], 2.0**-1),
        ([0.4, 0.3, 0.2, 0.1], 2.0**1000),
        ([0.4, 0.3, 0.2, 0.1], 2.0**-900),
    ],
)
def test_weights_count_by_their_ratios_even_when_their_sum_overflows(w, scale):
    # [1e308] * 4 sums to inf: the score was NaN. Weights times a power of two score the same,
    # to the bit (the formula divides by their sum), also past the float64 range of the sum.
    scaled = [v * scale for v in w]
    for hyps, refs in ((HYPS, REFS), (["a b c d e"], ["a b c x e"])):
        ours = bleukit.corpus_bleu(hyps, refs, weights=w, smooth_method="floor")
        assert math.isfinite(ours.score)
        assert ours.score == bleukit.corpus_bleu(hyps, refs, weights=scaled, smooth_method="floor").score
        assert bleukit.sentence_bleu(hyps[0], refs[0], weights=w).score == bleukit.sentence_bleu(
            hyps[0], refs[0], weights=scaled
        ).score
    assert bleukit.corpus_bleu(HYPS, REFS, weights=[1e308] * 4).score == pytest.approx(
        bleukit.corpus_bleu(HYPS, REFS).score, rel=1e-15
    )


def test_weights_renormalised_over_effective_orders():
    # "Yes ." has 2 unigrams, 1 bigram and no trigrams: with effective order only orders 1-2 count.
    r = bleukit.sentence_bleu("Yes.", "Yes.", weights=[0.5, 0.3, 0.1, 0.1])
    assert r.score == pytest.approx(100.0, abs=1e-9)
    # "Yes sir ." has 3 unigrams, 2 bigrams, 1 trigram: orders 1-3 count, weights 0.6+0.2+0.1.
    r = bleukit.sentence_bleu("Yes sir.", "Yes.", weights=[0.6, 0.2, 0.1, 0.1])
    p = r.precisions
    assert p[3] == 0.0
    expected = r.bp * math.exp((0.6 * math.log(p[0]) + 0.2 * math.log(p[1]) + 0.1 * math.log(p[2])) / 0.9)
    assert r.score == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("order", [1, 2, 3, 6, 9])
def test_any_max_order_matches_sacrebleu(order):
    ours = bleukit.corpus_bleu(HYPS, REFS, max_ngram_order=order)
    theirs = BLEU(max_ngram_order=order).corpus_score(HYPS, _streams(REFS))
    assert ours.score == theirs.score
    assert len(ours.counts) == order
    assert ("order:" in ours.signature) == (order != 4)


def test_unigram_bleu_is_a_max_order():
    r = bleukit.corpus_bleu(["the cat sat on the mat"], ["the cat is on the mat"], max_ngram_order=1)
    assert r.score == pytest.approx(100 * 5 / 6, abs=1e-9)


def test_statistics_shape_is_checked():
    with pytest.raises(ValueError, match=r"shape \(n, 10\)"):
        BleuStatistics(np.zeros((2, 9)), [1, 1], 4)
    stats = bleukit.corpus_statistics(HYPS, REFS, options=BleuOptions())
    with pytest.raises(ValueError, match="max_ngram_order=4, options say max_ngram_order=2"):
        bleukit.score_statistics(stats, BleuOptions(max_ngram_order=2))
    with pytest.raises(ValueError, match="empty corpus"):
        bleukit.score_statistics(stats[np.array([], dtype=int)], BleuOptions())


def test_result_object():
    r = bleukit.corpus_bleu(HYPS, REFS)
    d = r.to_dict()
    assert set(d) == {
        "name",
        "score",
        "counts",
        "totals",
        "precisions",
        "bp",
        "ratio",
        "sys_len",
        "ref_len",
        "signature",
    }
    assert d["ratio"] == r.sys_len / r.ref_len
    line = r.format()
    assert line.startswith("BLEU|nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|version:bleukit-")
    assert f"= {r.score:.2f} " in line and f"hyp_len = {r.sys_len} ref_len = {r.ref_len})" in line
    assert r.format(width=4, score_only=True) == f"{r.score:.4f}"
    theirs = BLEU().corpus_score(HYPS, _streams(REFS))
    assert line.split(" = ", 1)[1] == theirs.format(width=2).split(" = ", 1)[1]
    assert float(r) == r.score and r.to_json().startswith("{")


def test_formula_runs_on_torch_tensors():
    torch = pytest.importorskip("torch")
    stats = bleukit.corpus_statistics(HYPS, REFS, options=BleuOptions())
    for opts in [
        BleuOptions(effective_order=True),
        BleuOptions(smooth_method="add-k"),
        BleuOptions(smooth_method="floor", weights=[0.4, 0.3, 0.2, 0.1]),
    ]:
        rows = stats.rows.astype(np.float64)
        expected = score_rows(stats.counts.astype(float), stats.totals.astype(float), rows[:, 0], rows[:, 1], opts)
        t = torch.from_numpy(rows)
        got = score_rows(t[:, 2:6], t[:, 6:], t[:, 0], t[:, 1], opts)
        assert isinstance(got.score, torch.Tensor) and got.score.dtype == torch.float64
        assert got.score.tolist() == expected.score.tolist()
        assert got.precisions.tolist() == expected.precisions.tolist()


def test_statistics_tables_compare_by_value():
    a = corpus_statistics(SMALL_HYPS, SMALL_REFS, options=BleuOptions())
    b = corpus_statistics(list(SMALL_HYPS), [list(r) for r in SMALL_REFS], options=BleuOptions())
    assert a == b and not (a != b)
    assert a != a[:2] and a != corpus_statistics(SMALL_HYPS, SMALL_REFS, options=BleuOptions(max_ngram_order=3))
    assert (a == "not a table") is False
