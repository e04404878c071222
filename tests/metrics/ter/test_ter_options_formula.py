"""TerOptions (validation, signature) and the TER formula against sacreBLEU 2.6.0's own code on the
same statistics (its score from statistics, its corpus sum), bit for bit."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import TER

from bleukit._version import __version__
from bleukit.metrics.ter.formula import corpus_ter, corpus_totals, sentence_ters
from bleukit.metrics.ter.options import TER_OPTION_NAMES, TerOptions
from bleukit.metrics.ter.tokenizer import TercomTokenizer

COMBOS = [dict(zip(TER_OPTION_NAMES, flags)) for flags in itertools.product([False, True], repeat=4)]


# --------------------------------------------------------------------------------------------
# options


def test_defaults_are_sacrebleus():
    metric = TER()
    assert {name: getattr(metric, name) for name in TER_OPTION_NAMES} == TerOptions().to_dict()


@pytest.mark.parametrize("bad", [1, 0, "yes", None, 1.0, [True]])
@pytest.mark.parametrize("name", TER_OPTION_NAMES)
def test_options_are_bools(name, bad):
    with pytest.raises(TypeError, match=f"TER option {name} must be a bool"):
        TerOptions(**{name: bad})


def test_options_take_numpy_bools_and_are_frozen():
    opts = TerOptions(normalized=np.bool_(True))
    assert opts.normalized is True and TerOptions(**opts.to_dict()) == opts
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.normalized = False  # type: ignore[misc]
    with pytest.raises(TypeError, match="options must be a TerOptions"):
        TercomTokenizer({"normalized": True})  # type: ignore[arg-type]


@pytest.mark.parametrize("nrefs", [1, 2, "var"])
@pytest.mark.parametrize("combo", COMBOS)
def test_signature_fields_are_sacrebleus(combo, nrefs):
    metric = TER(**combo)
    metric.num_refs = -1 if nrefs == "var" else nrefs  # what sacreBLEU sets when it reads references
    theirs = str(metric.get_signature())
    ours = TerOptions(**combo).signature(nrefs)
    assert ours.rsplit("|version:", 1)[0] == theirs.rsplit("|version:", 1)[0]
    assert ours.endswith(f"|version:bleukit-{__version__}") and theirs.endswith("|version:2.6.0")
    assert TercomTokenizer(TerOptions(**combo)).signature() == metric.tokenizer.signature()


def test_lowercasing_is_idempotent_on_every_code_point():
    """The tokenizers skip lowercasing a reference twice (sacreBLEU tokenizes references twice)."""
    for cp in range(0x110000):
        once = chr(cp).lower()
        assert once.lower() == once, hex(cp)


# --------------------------------------------------------------------------------------------
# formula


def _sacrebleu_stats(table):
    """sacreBLEU's per-sentence statistics for the same rows: [edits, sum_len / nrefs]."""
    return [[int(e), int(length) / int(n)] for e, length, n in table]


tables = st.lists(st.tuples(st.integers(0, 300), st.integers(0, 400), st.integers(1, 4)), min_size=1, max_size=60)


@settings(max_examples=300, deadline=None)
@given(rows=tables)
def test_scores_from_tables_equal_sacrebleus(rows):
    table = np.array(rows, dtype=np.int64)
    metric = TER()
    stats = _sacrebleu_stats(table)
    corpus = metric._aggregate_and_compute(stats)
    assert corpus_ter(table) == corpus.score
    assert corpus_totals(table) == (corpus.num_edits, corpus.ref_length)
    assert sentence_ters(table).tolist() == [metric._compute_score_from_stats(row).score for row in stats]


def test_non_integer_averages_are_summed_in_sentence_order():
    # 1/3 + 1/3 + ... in order differs from the pairwise sum numpy's sum() would use
    table = np.array([[1, 1, 3]] * 1000 + [[5, 7, 2]] * 333, dtype=np.int64)
    stats = _sacrebleu_stats(table)
    expected = TER()._aggregate_and_compute(stats)
    assert corpus_totals(table)[1] == expected.ref_length
    assert corpus_ter(table) == expected.score
    assert np.sum(table[:, 1] / table[:, 2]) != expected.ref_length  # the trap this avoids


def test_zero_reference_length():
    assert corpus_ter([[3, 0, 1]]) == TER()._compute_score_from_stats([3, 0.0]).score == 100.0
    assert corpus_ter([[0, 0, 2]]) == TER()._compute_score_from_stats([0, 0.0]).score == 0.0
    assert sentence_ters([[0, 0, 1], [2, 0, 3], [2, 4, 2]]).tolist() == [0.0, 100.0, 100.0]


def test_empty_table():
    empty = np.zeros((0, 3), np.int64)
    assert corpus_ter(empty) == 0.0
    assert corpus_totals(empty) == (0, 0.0)
    assert sentence_ters(empty).shape == (0,)


@pytest.mark.parametrize("bad, error, message", [
    (np.zeros((2, 2), np.int64), ValueError, "shape"),
    (np.zeros(3, np.int64), ValueError, "shape"),
    (np.zeros((1, 3), np.float64), TypeError, "integers"),
    (np.array([[1, 2, 0]]), ValueError, "at least one reference"),
    (np.array([[-1, 2, 1]]), ValueError, "no negative"),
])
def test_bad_tables(bad, error, message):
    for function in (corpus_ter, sentence_ters, corpus_totals):
        with pytest.raises(error, match=message):
            function(bad)


def test_torch_tables():
    torch = pytest.importorskip("torch")
    rows = np.array([[1, 5, 2], [3, 4, 1], [2, 0, 1], [0, 0, 3], [7, 9, 4]], dtype=np.int64)
    tensor = torch.from_numpy(rows)
    assert corpus_ter(tensor) == corpus_ter(rows)
    scores = sentence_ters(tensor)
    assert scores.dtype == torch.float64 and scores.device == tensor.device
    assert scores.tolist() == sentence_ters(rows).tolist()
    with pytest.raises(ValueError, match="at least one reference"):
        sentence_ters(torch.tensor([[1, 2, 0]]))
