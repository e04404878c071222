"""A repetitive corpus (the same lines scored again and again) is scored from its distinct pairs,
each counted once and weighed by its multiplicity: the same score as sacreBLEU's and as the plain
path's, to the last bit, with the caller's lists left as they were."""

from __future__ import annotations

import copy

import pytest
import sacrebleu
from shared_data import read_lines

import bleukit
from bleukit import pipeline
from bleukit.metrics.bleu import BleuOptions
from bleukit.pipeline import corpus_result, distinct_pairs


def _fields(result):
    return (result.score, result.counts, result.totals, result.precisions, result.bp, result.sys_len,
            result.ref_len)


def _plain(monkeypatch, hyps, refs, options):
    with monkeypatch.context() as m:
        m.setattr(pipeline, "_repeated_summed_row", lambda *args: None)
        return corpus_result(hyps, refs, options)


@pytest.mark.slow
def test_repeated_real_lines_equal_sacrebleu_and_the_plain_path(each_engine, shared_data, monkeypatch):
    folder = shared_data / "wmt17-en-de"
    # the first 500 lines 40 times: the first sixteenth of the corpus already repeats
    hyps = read_lines(folder / "hyp.online-A.0.de")[:500] * 40
    refs = read_lines(folder / "ref.de")[:500] * 40
    kept = (list(hyps), list(refs))
    distinct = distinct_pairs(hyps, refs)
    assert distinct is not None and int(distinct[2].sum()) == len(hyps) and len(distinct[0]) == 500
    theirs = sacrebleu.corpus_bleu(hyps, [refs])  # once, for both engines
    for engine in each_engine():
        for options in (BleuOptions(), BleuOptions(tokenize="intl", lowercase=True, smooth_method="add-k")):
            ours, plain = corpus_result(hyps, refs, options), _plain(monkeypatch, hyps, refs, options)
            assert _fields(ours) == _fields(plain) and ours.signature == plain.signature, engine
        ours = bleukit.corpus_bleu(hyps, refs)
        assert _fields(ours) == _fields(theirs), engine
        assert (hyps, refs) == kept


@pytest.mark.slow
def test_repeated_multi_reference_entries_with_none(each_engine, shared_data, monkeypatch):
    folder = shared_data / "wmt22-de-en"
    base_h = read_lines(folder / "hyp.JDExploreAcademy.en")[:400]
    ref_a, ref_b = read_lines(folder / "ref.A.en")[:400], read_lines(folder / "ref.B.en")[:400]
    # lists (unhashable) with a missing reference now and then, and a plain string now and then
    base_r = [[a, None] if i % 7 == 0 else (a if i % 5 == 0 else [a, b]) for i, (a, b) in
              enumerate(zip(ref_a, ref_b))]
    reps = 48
    hyps, refs = base_h * reps, [copy.copy(r) for r in base_r] * reps
    kept = copy.deepcopy((hyps, refs))
    assert distinct_pairs(hyps, refs) is not None
    streams = [[r if isinstance(r, str) else r[0] for r in refs],
               [None if isinstance(r, str) else r[1] for r in refs]]
    theirs = sacrebleu.corpus_bleu(hyps, streams)  # once, for both engines
    for engine in each_engine():
        ours = bleukit.corpus_bleu(hyps, refs)
        assert _fields(ours) == _fields(theirs), engine
        plain = _plain(monkeypatch, hyps, refs, BleuOptions())
        assert _fields(ours) == _fields(plain) and ours.signature == plain.signature, engine
        assert (hyps, refs) == kept


def test_unique_or_short_corpora_are_not_deduplicated():
    n = 40000
    assert distinct_pairs([f"line {i}" for i in range(n)], ["r"] * n) is None
    assert distinct_pairs(["a"] * 1000, ["b"] * 1000) is None  # too short to gain
    # the hypotheses repeat but the pairs do not: counted, found mostly distinct, not used
    assert distinct_pairs(["a"] * n, [f"r {i}" for i in range(n)]) is None


def test_bad_input_in_a_repetitive_corpus_names_its_own_row(engine):
    hyps, refs = ["a b", "c d"] * 20000, ["a b", "c e"] * 20000
    hyps[30001] = 5
    with pytest.raises(TypeError) as plain:
        bleukit.corpus_bleu(hyps[:30001] + [5], refs[:30002])
    with pytest.raises(TypeError) as ours:
        bleukit.corpus_bleu(hyps, refs)
    assert "30001" in str(ours.value) and str(ours.value) == str(plain.value)
    refs[12345] = ["x", ["nested"]]
    hyps[30001] = "a b"
    with pytest.raises(TypeError, match="12345"):
        bleukit.corpus_bleu(hyps, refs)


def test_a_set_or_dict_entry_gets_the_plain_paths_error(engine):
    hyps, refs = ["a b", "c d"] * 20000, ["a b", ["c e", None]] * 20000
    plain_refs = list(refs[:30002])
    for bad in ({"a b"}, {"a b": 1}):
        refs[30001] = plain_refs[30001] = bad
        with pytest.raises((TypeError, ValueError)) as plain:
            bleukit.corpus_bleu(hyps[:30002], plain_refs)
        with pytest.raises(type(plain.value)) as ours:
            bleukit.corpus_bleu(hyps, refs)
        assert str(ours.value) == str(plain.value)
