"""Many systems: corrected p-values (Holm, Bonferroni), all-pairs tests equal to sacreBLEU's paired
test of each pair, significance clusters and rank ranges, for BLEU and chrF."""

import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import PairedTest
from shared_data import read_lines

import bleukit
from bleukit.analysis.ranking import clusters, compare_systems
from bleukit.analysis.significance import adjust_p_values
from bleukit.metrics.chrf import ChrfOptions

WMT17 = ["LIUM-NMT.4900", "online-B.0", "uedin-nmt.4722", "KIT.4950", "online-A.0"]


@pytest.fixture(scope="module")
def wmt17(shared_data):
    folder = shared_data / "wmt17-en-de"
    return {name: read_lines(folder / f"hyp.{name}.de") for name in WMT17}, read_lines(folder / "ref.de")


# ------------------------------------------------------------------------------------------ corrections


def _holm_rejects(p_values, alpha):
    """Holm's step-down procedure as published: reject in ascending order while p(k) <= alpha / (m - k)."""
    m = len(p_values)
    rejected = set()
    for k, i in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        if p_values[i] > alpha / (m - k):
            break
        rejected.add(i)
    return rejected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=12),
       st.sampled_from([0.001, 0.01, 0.05, 0.1, 0.2]))
def test_holm_adjusted_p_values_reject_exactly_what_holms_procedure_rejects(p_values, alpha):
    adjusted = adjust_p_values(p_values, "holm")
    assert {i for i, q in enumerate(adjusted) if q <= alpha} == _holm_rejects(p_values, alpha)
    assert all(p <= q <= 1.0 for p, q in zip(p_values, adjusted))
    # never less powerful than Bonferroni, whose adjusted values are m * p capped at 1
    bonferroni = adjust_p_values(p_values, "bonferroni")
    assert bonferroni == [min(1.0, len(p_values) * p) for p in p_values]
    assert all(q <= b for q, b in zip(adjusted, bonferroni))


def test_correction_errors():
    with pytest.raises(ValueError, match="unknown correction='bh'"):
        adjust_p_values([0.1], "bh")
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        adjust_p_values([1.5])
    assert adjust_p_values([]) == []


def test_paired_test_with_a_correction_carries_adjusted_p_values(wmt17):
    systems, refs = wmt17
    named = [(name, systems[name][:500]) for name in WMT17]
    plain = bleukit.paired_test(named, refs[:500], n_samples=300)
    holm = bleukit.paired_test(named, refs[:500], n_samples=300, correction="holm")
    assert [r.p_value for r in holm] == [r.p_value for r in plain]  # the raw p-values are kept
    assert holm[0].p_value_adjusted is None
    assert [r.p_value_adjusted for r in holm[1:]] == adjust_p_values([r.p_value for r in plain[1:]])
    assert "p_value_adjusted" in holm[1].to_dict() and "p_value_adjusted" not in plain[1].to_dict()
    with pytest.raises(ValueError, match="unknown correction"):
        bleukit.paired_test(named, refs[:500], correction="fdr")


# ------------------------------------------------------------------------------------------ all pairs


def _sacrebleu_pair(a, b, refs, method, n, seed, metric, monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    _, scores = PairedTest([a, b], {"M": metric}, None, test_type=method, n_samples=n)()
    (records,) = [v for k, v in scores.items() if k != "System"]
    return records[1].p_value


@pytest.mark.parametrize("method,n", [("bs", 300), ("ar", 400)])
def test_every_pair_equals_sacrebleus_paired_test_of_that_pair(wmt17, monkeypatch, method, n):
    systems, refs = wmt17
    lines = 600
    names = WMT17[:4]
    named = [(name, systems[name][:lines]) for name in names]
    c = compare_systems(named, refs[:lines], method=method, n_samples=n, seed=7)
    assert [(p.a, p.b) for p in c.comparisons] == list(itertools.combinations(names, 2))
    for p in c.comparisons:
        metric = BLEU(references=[refs[:lines]])
        theirs = _sacrebleu_pair((p.a, systems[p.a][:lines]), (p.b, systems[p.b][:lines]), refs[:lines], method, n,
                                 7, metric, monkeypatch)
        assert p.p_value == theirs
        assert p.delta == c.systems[names.index(p.a)].score - c.systems[names.index(p.b)].score
    assert [p.p_value_adjusted for p in c.comparisons] == adjust_p_values([p.p_value for p in c.comparisons])
    for p in c.comparisons:
        assert p.significant == (p.p_value_adjusted <= 0.05)
        if p.significant:
            assert p.better == (p.a if p.delta > 0 else p.b)


def test_chrf_pairs_equal_sacrebleu(wmt17, monkeypatch):
    systems, refs = wmt17
    lines = 300
    named = [(name, systems[name][:lines]) for name in WMT17[:3]]
    c = compare_systems(named, refs[:lines], n_samples=200, options=ChrfOptions(word_order=2))
    assert c.name == "chrF2++" and c.metric == "chrf"
    for p in c.comparisons:
        metric = CHRF(word_order=2, references=[refs[:lines]])
        theirs = _sacrebleu_pair((p.a, systems[p.a][:lines]), (p.b, systems[p.b][:lines]), refs[:lines], "bs", 200,
                                 12345, metric, monkeypatch)
        assert p.p_value == theirs


def test_baseline_mode_equals_paired_test(wmt17):
    systems, refs = wmt17
    named = [(name, systems[name][:400]) for name in WMT17]
    c = compare_systems(named, refs[:400], baseline="uedin-nmt.4722", method="ar", n_samples=300)
    reordered = [named[2]] + named[:2] + named[3:]
    paired = bleukit.paired_test(reordered, refs[:400], method="ar", n_samples=300, correction="holm")
    assert c.ranking is None and [(p.a, p.b) for p in c.comparisons] == [("uedin-nmt.4722", r.name) for r in paired[1:]]
    assert [p.p_value for p in c.comparisons] == [r.p_value for r in paired[1:]]
    assert [p.p_value_adjusted for p in c.comparisons] == [r.p_value_adjusted for r in paired[1:]]


def test_ranking_on_the_five_wmt17_systems(wmt17):
    systems, refs = wmt17
    c = compare_systems(systems, refs, n_samples=1000)
    scores = {s.name: s.score for s in c.systems}
    order = [r.name for r in c.ranking]
    assert order == sorted(WMT17, key=lambda name: -scores[name])
    assert [r.rank for r in c.ranking] == [1, 2, 3, 4, 5]
    _check_cluster_rule(c)
    for s in c.systems:  # each system's CI is the one corpus_bleu's --confidence gives
        ours = bleukit.corpus_bleu(systems[s.name], refs, n_bootstrap=1000)
        assert (s.mean, s.ci) == (ours.mean, ours.ci)


def _check_cluster_rule(c):
    """Not significantly different => same cluster; a boundary <=> all above beat all below."""
    cluster = {r.name: r.cluster for r in c.ranking}
    order = [r.name for r in c.ranking]
    beats = {(p.better, p.b if p.better == p.a else p.a) for p in c.comparisons if p.better}
    for p in c.comparisons:
        if not p.significant:
            assert cluster[p.a] == cluster[p.b]
    for k in range(len(order) - 1):
        boundary = cluster[order[k]] != cluster[order[k + 1]]
        assert boundary == all((x, y) in beats for x in order[: k + 1] for y in order[k + 1 :])
    for r in c.ranking:
        above = sum((other, r.name) in beats for other in order)
        below = sum((r.name, other) in beats for other in order)
        assert r.rank_range == (1 + above, len(order) - below)
        assert r.rank_range[0] <= r.rank <= r.rank_range[1]


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 7), st.randoms(use_true_random=False))
def test_cluster_rule_on_any_significance_relation(n, rng):
    names = [f"s{k}" for k in range(n)]
    better = {(a, b): rng.random() < 0.6 for i, a in enumerate(names) for b in names[i + 1 :]}
    numbers = clusters(names, better)
    assert numbers[0] == 1 and all(b - a in (0, 1) for a, b in zip(numbers, numbers[1:]))
    for (a, b), significant in better.items():
        if not significant:
            assert numbers[names.index(a)] == numbers[names.index(b)]
    for k in range(n - 1):
        assert (numbers[k] != numbers[k + 1]) == all(better[(x, y)] for x in names[: k + 1] for y in names[k + 1 :])


def test_lower_is_better_metrics_rank_the_lowest_first():
    """For TER-like metrics (higher_is_better False) the better system has the lower score."""
    from bleukit.analysis.ranking import PairComparison, _ranking

    class R:
        def __init__(self, score):
            self.score, self.mean, self.ci = score, None, None

    comparisons = [PairComparison("a", "b", 10.0, 0.001, 0.002, True, "b")]
    ranked = _ranking(["a", "b"], [R(40.0), R(30.0)], comparisons, higher_is_better=False)
    assert [(r.name, r.rank, r.cluster) for r in ranked] == [("b", 1, 1), ("a", 2, 2)]


def test_json_and_formats(wmt17):
    systems, refs = wmt17
    named = [(name, systems[name][:200]) for name in WMT17[:3]]
    c = compare_systems(named, refs[:200], n_samples=100)
    d = json.loads(c.format("json"))
    assert d == json.loads(json.dumps(c.to_dict()))
    assert d["ranking"][0]["cluster"] == 1 and len(d["comparisons"]) == 3
    text = c.format("text", width=2)
    assert "Rank range" in text and "p (Holm)" in text and f"{c.systems[0].score:.2f}" in text
    assert "\\toprule" in c.format("latex")
    assert c.comparison(WMT17[1], WMT17[0]) is c.comparisons[0]
    with pytest.raises(ValueError, match="unknown format"):
        c.format("html")


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"baseline": "nobody"}, ValueError, "baseline 'nobody' is not one of the systems"),
        ({"alpha": 1.5}, ValueError, "alpha must be a number between 0 and 1"),
        ({"correction": "bh"}, ValueError, "unknown correction"),
        ({"method": "t"}, ValueError, "unknown method"),
        ({"n_samples": 0}, ValueError, "n_samples must be >= 1"),
    ],
)
def test_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        compare_systems({"a": ["x y"], "b": ["x z"]}, ["x y"], **kwargs)


def test_one_system_is_not_a_comparison():
    with pytest.raises(ValueError, match="at least 2 systems"):
        compare_systems({"a": ["x"]}, ["x"])


def test_seeded_runs_repeat_and_names_keep_their_order(wmt17):
    systems, refs = wmt17
    named = [(name, systems[name][:150]) for name in random.Random(1).sample(WMT17, 4)]
    one = compare_systems(named, refs[:150], n_samples=100, seed=3)
    two = compare_systems(named, refs[:150], n_samples=100, seed=3)
    assert one == two and [s.name for s in one.systems] == [name for name, _ in named]
