"""The statistics accumulator: batches, merges and the (no-op) all-reduce give the one-pass score."""

from __future__ import annotations

import math

import pytest
from small_corpus import HYPS, REFS, sacre_corpus

from bleukit import BleuOptions, StatisticsAccumulator, corpus_bleu, corpus_statistics


@pytest.mark.parametrize("split", [1, 2, 3])
def test_accumulated_batches_equal_the_one_pass_score_and_sacrebleu(split):
    opts = BleuOptions(smooth_method="floor", lowercase=True)
    acc = StatisticsAccumulator(opts, extras=["tokens"])
    for start in range(0, len(HYPS), split):
        acc.add_text(HYPS[start : start + split], REFS[start : start + split], tokens=start)
    result = acc.result()
    assert result == corpus_bleu(HYPS, REFS, smooth_method="floor", lowercase=True)
    assert math.isclose(
        result.score, sacre_corpus(HYPS, REFS, smooth_method="floor", lowercase=True).score, abs_tol=1e-9
    )
    assert acc.n_rows == len(HYPS) and acc.counters == {"tokens": sum(range(0, len(HYPS), split))}
    assert result.signature.split("|")[0] == "nrefs:var"


def test_accumulator_keeps_a_common_reference_count_and_merges():
    opts = BleuOptions()
    left, right = StatisticsAccumulator(opts), StatisticsAccumulator(opts)
    left.add_text(["a b c"], [["a b c", "a"]])
    right.add(corpus_statistics(["d e"], [["d e", "f"]], options=opts))
    left.merge(right)
    assert left.result() == corpus_bleu(["a b c", "d e"], [["a b c", "a"], ["d e", "f"]])
    assert left.result().signature.startswith("nrefs:2|")


def test_accumulator_errors_name_the_problem():
    acc = StatisticsAccumulator(BleuOptions())
    with pytest.raises(ValueError, match="empty corpus"):
        acc.result()
    with pytest.raises(ValueError, match="max_ngram_order=2"):
        acc.add(corpus_statistics(["a"], ["a"], options=BleuOptions(max_ngram_order=2)))
    with pytest.raises(TypeError, match="unknown counter"):
        acc.add_text(["a"], ["a"], tokens=1)
    with pytest.raises(TypeError, match="BleuStatistics"):
        acc.add([[1, 1, 1, 0, 0, 0, 1, 0, 0, 0]])
    with pytest.raises(ValueError, match="different options"):
        acc.merge(StatisticsAccumulator(BleuOptions(lowercase=True)))


def test_all_reduce_without_torch_distributed_changes_nothing():
    acc = StatisticsAccumulator(BleuOptions())
    acc.add_text(HYPS, REFS)
    before = acc.result()
    acc.all_reduce()
    assert acc.result() == before
