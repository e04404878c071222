"""TER's public API beyond the harness's tables (tests/metrics/test_*.py check its scores, the
accumulator, significance, pairwise scores and the command line against live sacreBLEU): the
result's fields, the protocol's table and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import bleukit
from bleukit import corpus_ter, sentence_ter_scores
from bleukit.metrics import get_metric
from bleukit.metrics.ter import METRIC, TerOptions
from bleukit.metrics.ter.statistics import UNIT


def test_result_fields_and_format():
    result = corpus_ter(["a b c d"], ["c d a b"])
    assert result.format() == f"TER|{result.signature} = 25.00"
    assert result.to_dict()["num_edits"] == 1 and float(result) == 25.0
    assert get_metric("ter") is METRIC and METRIC.higher_is_better is False
    assert bleukit.TerOptions is TerOptions


def test_table_rows_are_average_lengths_in_units():
    table = METRIC.statistics(["a b", "c"], [["a b c", "a"], ["c d"]], TerOptions())
    assert table.rows.tolist() == [[1, 2 * UNIT], [1, 2 * UNIT]]
    assert table.nrefs.tolist() == [2, 1]


def test_too_many_references_is_a_clear_error():
    with pytest.raises(ValueError, match="at most 20 references"):
        corpus_ter(["a"], [["a"] * 21])


def test_an_empty_corpus_is_the_error_every_metric_gives():
    for function in (corpus_ter, sentence_ter_scores):
        with pytest.raises(ValueError, match="empty corpus"):
            function([], [])
    assert np.asarray(sentence_ter_scores(["a"], [""])).tolist() == [100.0]
