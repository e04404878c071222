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
from bleukit.metrics.ter.statistics import MAX_REFERENCES, UNIT, from_counts
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


def _rows(table):
    """The protocol table of (edits, sum_len, nrefs) counts."""
    return from_counts(np.asarray(table, dtype=np.int64)).rows


tables = st.lists(st.tuples(st.integers(0, 300), st.integers(0, 400), st.integers(1, MAX_REFERENCES)),
                  min_size=1, max_size=60)


@settings(max_examples=300, deadline=None)
@given(rows=tables)
def test_scores_from_tables_equal_sacrebleus(rows):
    table = np.array(rows, dtype=np.int64)
    metric = TER()
    stats = _sacrebleu_stats(table)
    corpus = metric._aggregate_and_compute(stats)
    assert corpus_ter(_rows(table)) == corpus.score
    assert corpus_totals(_rows(table)) == (corpus.num_edits, corpus.ref_length)
    assert sentence_ters(_rows(table)).tolist() == [metric._compute_score_from_stats(row).score for row in stats]


def test_non_integer_averages_are_summed_in_sentence_order():
    # 1/3 + 1/3 + ... in order differs from the pairwise sum numpy's sum() would use
    table = np.array([[1, 1, 3]] * 1000 + [[5, 7, 2]] * 333, dtype=np.int64)
    stats = _sacrebleu_stats(table)
    expected = TER()._aggregate_and_compute(stats)
    assert corpus_totals(_rows(table))[1] == expected.ref_length
    assert corpus_ter(_rows(table)) == expected.score
    assert np.sum(table[:, 1] / table[:, 2]) != expected.ref_length  # the trap this avoids


def test_zero_reference_length():
    assert corpus_ter(_rows([[3, 0, 1]])) == TER()._compute_score_from_stats([3, 0.0]).score == 100.0
    assert corpus_ter(_rows([[0, 0, 2]])) == TER()._compute_score_from_stats([0, 0.0]).score == 0.0
    assert sentence_ters(_rows([[0, 0, 1], [2, 0, 3], [2, 4, 2]])).tolist() == [0.0, 100.0, 100.0]


def test_empty_table():
    empty = _rows(np.zeros((0, 3), np.int64))
    assert corpus_ter(empty) == 0.0
    assert corpus_totals(empty) == (0, 0.0)
    assert sentence_ters(empty).shape == (0,)


@pytest.mark.parametrize("bad, error, message", [
    (np.zeros((2, 3), np.int64), ValueError, "shape"),
    (np.zeros(3, np.int64), ValueError, "shape"),
    (np.zeros((1, 2), np.float64), TypeError, "integers"),
    (np.array([[-1, 2]]), ValueError, "no negative"),
])
def test_bad_tables(bad, error, message):
    for function in (corpus_ter, sentence_ters, corpus_totals):
        with pytest.raises(error, match=message):
            function(bad)


@pytest.mark.parametrize("bad, message", [
    (np.array([[1, 2, 0]]), "at least one reference"),
    (np.array([[-1, 2, 1]]), "no negative"),
    (np.array([[1, 2, MAX_REFERENCES + 1]]), "at most 20 references"),
    (np.zeros((2, 2), np.int64), "shape"),
])
def test_bad_counts(bad, message):
    with pytest.raises(ValueError, match=message):
        from_counts(bad)


def test_summed_rows_are_sacrebleus_total_when_its_additions_are_exact():
    """One, two or four references: sacreBLEU's float additions are exact, so the summed row's one
    division is its total; the table's units are exact for every count up to MAX_REFERENCES."""
    rng = np.random.default_rng(7)
    for nrefs in (1, 2, 4):
        counts = np.stack([rng.integers(0, 50, 500), rng.integers(0, 90, 500), np.full(500, nrefs)], axis=1)
        expected = TER()._aggregate_and_compute(_sacrebleu_stats(counts))
        summed = _rows(counts).sum(axis=0, keepdims=True)
        assert corpus_totals(summed) == (expected.num_edits, expected.ref_length)
        assert corpus_ter(summed) == expected.score
    assert all(UNIT % n == 0 for n in range(1, MAX_REFERENCES + 1))


def test_averages_beyond_2_53_units_are_not_rounded_twice():
    units = np.array([[0, 2**53 + UNIT], [0, 3 * 2**53]], dtype=np.int64)
    from bleukit.metrics.ter.formula import average_lengths

    expected = [(2**53 + UNIT) / UNIT, (3 * 2**53) / UNIT]  # Python's int division rounds once
    assert average_lengths(units).tolist() == expected


def test_torch_tables():
    torch = pytest.importorskip("torch")
    rows = _rows([[1, 5, 2], [3, 4, 1], [2, 0, 1], [0, 0, 3], [7, 9, 4]])
    tensor = torch.from_numpy(rows)
    assert corpus_ter(tensor) == corpus_ter(rows)
    scores = sentence_ters(tensor)
    assert scores.dtype == torch.float64 and scores.device == tensor.device
    assert scores.tolist() == sentence_ters(rows).tolist()
    with pytest.raises(ValueError, match="no negative"):
        sentence_ters(torch.tensor([[1, -2]]))
