"""Scores per group: each group's result (and CI) equals the corpus score of its sentences alone,
against sacreBLEU for BLEU and chrF; the paired test per group; labels of every kind; bad input."""

import json

import numpy as np
import pytest
import sacrebleu
from sacrebleu.metrics import CHRF
from shared_data import read_lines

import bleukit
from bleukit.analysis.groups import check_labels, group_rows, paired_test_by_group, score_by_group
from bleukit.metrics.chrf import ChrfOptions


@pytest.fixture(scope="module")
def wmt22(shared_data):
    folder = shared_data / "wmt22-de-en"
    systems = {name: read_lines(folder / f"hyp.{name}.en") for name in ("JDExploreAcademy", "Online-A", "LT22")}
    streams = [read_lines(folder / "ref.A.en"), read_lines(folder / "ref.B.en")]
    # groups: the length bucket of the first reference (0-9, 10-19, ... words), a real-world grouping
    labels = [min(len(r.split()) // 10, 4) for r in streams[0]]
    return systems, streams, labels


def _subset(items, labels, label):
    return [x for x, lab in zip(items, labels) if lab == label]


def test_each_group_is_the_corpus_bleu_of_its_sentences(wmt22):
    systems, streams, labels = wmt22
    hyps = systems["LT22"]
    refs = bleukit.references_from_streams(streams)
    r = bleukit.corpus_bleu(hyps, refs, group_by=labels)
    assert r.score == bleukit.corpus_bleu(hyps, refs).score  # the corpus result is unchanged
    assert list(r.groups) == sorted(set(labels))
    for label, group in r.groups.items():
        sub_hyps = _subset(hyps, labels, label)
        theirs = sacrebleu.corpus_bleu(sub_hyps, [_subset(s, labels, label) for s in streams])
        assert group.counts == theirs.counts and group.totals == theirs.totals
        assert (group.sys_len, group.ref_len) == (theirs.sys_len, theirs.ref_len)
        assert group == bleukit.corpus_bleu(sub_hyps, _subset(refs, labels, label))
        assert group.score == theirs.score


def test_each_group_gets_its_own_bootstrap_ci(wmt22):
    systems, streams, labels = wmt22
    hyps, refs = systems["Online-A"], bleukit.references_from_streams(streams)
    r = bleukit.corpus_bleu(hyps, refs, group_by=labels, n_bootstrap=200, seed=9)
    assert (r.mean, r.ci) == (lambda x: (x.mean, x.ci))(bleukit.corpus_bleu(hyps, refs, n_bootstrap=200, seed=9))
    for label, group in r.groups.items():
        alone = bleukit.corpus_bleu(_subset(hyps, labels, label), _subset(refs, labels, label), n_bootstrap=200, seed=9)
        assert (group.score, group.mean, group.ci) == (alone.score, alone.mean, alone.ci)
        assert group.signature == alone.signature
        assert "|bs:200|seed:9|" in group.signature


def test_chrf_groups_equal_sacrebleu(wmt22):
    systems, streams, labels = wmt22
    hyps, refs = systems["JDExploreAcademy"], bleukit.references_from_streams(streams)
    r = score_by_group(hyps, refs, labels, options=ChrfOptions(word_order=2))
    chrf = CHRF(word_order=2)
    assert r.score == chrf.corpus_score(hyps, streams).score
    for label, group in r.groups.items():
        theirs = chrf.corpus_score(_subset(hyps, labels, label), [_subset(s, labels, label) for s in streams])
        assert group.score == theirs.score and group.name == "chrF2++"


def test_corpus_chrf_group_by_equals_sacrebleu_per_group_with_its_own_ci(wmt22):
    systems, streams, labels = wmt22
    hyps, refs = systems["LT22"], bleukit.references_from_streams(streams)
    r = bleukit.corpus_chrf(hyps, refs, word_order=2, group_by=labels, n_bootstrap=100, seed=3)
    chrf = CHRF(word_order=2)
    assert r.score == chrf.corpus_score(hyps, streams).score and list(r.groups) == sorted(set(labels))
    for label, group in r.groups.items():
        sub_hyps, sub_refs = _subset(hyps, labels, label), _subset(refs, labels, label)
        theirs = chrf.corpus_score(sub_hyps, [_subset(s, labels, label) for s in streams])
        alone = bleukit.corpus_chrf(sub_hyps, sub_refs, word_order=2, n_bootstrap=100, seed=3)
        assert group.score == theirs.score and group.matches == alone.matches
        assert (group.mean, group.ci, group.signature) == (alone.mean, alone.ci, alone.signature)


def test_chrf_paired_test_per_group_equals_the_test_on_each_group(wmt22):
    systems, streams, labels = wmt22
    refs = bleukit.references_from_streams(streams)
    named, options = list(systems.items()), ChrfOptions()
    out = paired_test_by_group(named, refs, labels, method="ar", n_samples=100, options=options)
    for label, results in out.items():
        subset = [(n, _subset(h, labels, label)) for n, h in named]
        assert results == bleukit.paired_test(subset, _subset(refs, labels, label), method="ar", n_samples=100,
                                              options=options)
        assert [r.score for r in results] == [CHRF().corpus_score(h, [_subset(s, labels, label) for s in streams]).score
                                              for _, h in subset]


def test_paired_test_per_group_equals_the_test_on_each_group(wmt22):
    systems, streams, labels = wmt22
    refs = bleukit.references_from_streams(streams)
    named = list(systems.items())
    out = paired_test_by_group(named, refs, labels, n_samples=200, correction="holm")
    assert list(out) == sorted(set(labels))
    for label, results in out.items():
        alone = bleukit.paired_test([(n, _subset(h, labels, label)) for n, h in named], _subset(refs, labels, label),
                                    n_samples=200, correction="holm")
        assert results == alone


def test_result_json_lists_the_groups():
    r = bleukit.corpus_bleu(["a b c d", "x y", "p q r s"], ["a b c d", "x z", "p q r s"], group_by=[("a", 1), 2, 2])
    d = r.to_dict()
    assert [g["group"] for g in d["groups"]] == [["a", 1], 2]  # order seen: a tuple and an int do not sort
    assert d["groups"][1]["score"] == r.groups[2].score
    json.dumps(d)
    plain = bleukit.corpus_bleu(["a"], ["a"])
    assert plain.groups is None and "groups" not in plain.to_dict()


def test_labels_of_every_kind():
    pd = pytest.importorskip("pandas")
    hyps, refs = ["a b", "c d", "e f"], ["a b", "c x", "e f"]
    expected = bleukit.corpus_bleu(hyps, refs, group_by=["x", "y", "x"])
    for labels in (np.array(["x", "y", "x"]), pd.Series(["x", "y", "x"]), ("x", "y", "x")):
        got = bleukit.corpus_bleu(hyps, refs, group_by=labels)
        assert {k: v.score for k, v in got.groups.items()} == {k: v.score for k, v in expected.groups.items()}
        assert all(type(k) is str for k in got.groups)
    assert list(group_rows(np.array([3, 1, 3]), 3)) == [1, 3]
    assert [type(k) for k in group_rows(np.array([3, 1, 3]), 3)] == [int, int]


@pytest.mark.parametrize(
    "labels, error, message",
    [
        ("abc", TypeError, "must be a list of labels"),
        (3, TypeError, "must be a list of labels"),
        ({"a", "b"}, TypeError, "must be a list of labels"),
        (["a"], ValueError, "1 labels but there are 3 sentences"),
        (["a", ["b"], "c"], TypeError, r"group_by\[1\] is a list, which cannot be a group label"),
        (["a", float("nan"), "c"], ValueError, r"group_by\[1\] is NaN"),
    ],
)
def test_bad_labels_are_named(labels, error, message):
    with pytest.raises(error, match=message):
        bleukit.corpus_bleu(["a", "b", "c"], ["a", "b", "c"], group_by=labels)


def test_labels_are_not_mutated_and_dataframes_are_refused():
    labels = ["b", "a"]
    check_labels(labels, 2)
    assert labels == ["b", "a"]
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError, match="one column of labels"):
        check_labels(pd.DataFrame({"x": [1, 2]}), 2)
