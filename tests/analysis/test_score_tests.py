"""compare_scores: paired tests, CIs and clusters on segment scores. p-values equal sacreBLEU 2.6's own
PairedTest driven with a mean-of-segments metric on integer-valued scores (bs and ar, several seeds),
and a float64 statement of the same algorithm on real-valued scores; the resamples are bleukit's
(sacreBLEU's) draws for the seed and length; lower-is-better metrics are respected."""

import itertools

import numpy as np
import pytest
from sacrebleu.metrics.base import Metric, Score
from sacrebleu.significance import PairedTest

import bleukit
from bleukit import resampling
from bleukit.analysis.score_tests import bootstrap_means, compare_scores
from bleukit.analysis.segment_scores import ScoreInputError, SegmentScores


class MeanOfSegments(Metric):
    """A sacreBLEU metric whose 'hypotheses' are segment scores: statistics [score, 1] per segment,
    the corpus score their sum over their count."""

    def __init__(self):
        super().__init__()
        self.num_refs = 1

    def _extract_corpus_statistics(self, hypotheses, references):
        return [[int(h), 1] for h in hypotheses]

    def _aggregate_and_compute(self, stats):
        return self._compute_score_from_stats(np.asarray(stats).sum(0))

    def _compute_score_from_stats(self, stats):
        return Score("MEAN", float(stats[0]) / float(stats[1]))

    def _preprocess_segment(self, sent):  # pragma: no cover - not used
        return sent

    def _compute_segment_statistics(self, hypothesis, ref_kwargs):  # pragma: no cover - not used
        raise NotImplementedError

    def _extract_reference_info(self, refs):  # pragma: no cover - not used
        raise NotImplementedError


def _integer_systems(n_segments=240):
    rng = np.random.default_rng(11)
    base = rng.integers(0, 101, size=n_segments)
    return {
        "base": base,
        "close": np.clip(base + rng.integers(-6, 8, size=n_segments), 0, 100),
        "better": np.clip(base + rng.integers(-3, 12, size=n_segments), 0, 100),
        "same": base.copy(),
    }


def _sacrebleu(systems, test_type, n, seed, monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    named = [(name, [str(int(v)) for v in values]) for name, values in systems.items()]
    _, results = PairedTest(named, {"MEAN": MeanOfSegments()}, None, test_type=test_type, n_samples=n)()
    return results["MEAN"]


@pytest.mark.parametrize("method, n", [("bs", 300), ("ar", 600)])
@pytest.mark.parametrize("seed", [12345, 1, 2024])
def test_equals_sacrebleu_paired_test_on_integer_scores(method, n, seed, monkeypatch):
    systems = _integer_systems()
    theirs = _sacrebleu(systems, method, n, seed, monkeypatch)
    ours = compare_scores({k: v.tolist() for k, v in systems.items()}, baseline="base", method=method, n_samples=n,
                          seed=seed, correction=None)
    names = list(systems)
    for k, name in enumerate(names):
        assert ours.systems[k].score == theirs[k].score
        if method == "bs":
            assert ours.systems[k].ci == theirs[k].ci
            assert ours.systems[k].mean == pytest.approx(theirs[k].mean, rel=1e-15)
        if k:
            assert ours.comparison("base", name).p_value == theirs[k].p_value, (name, method, seed)
    # identical systems: no resample exceeds 0, so sacreBLEU's p-value is 1 / (n + 1); neither is better
    assert ours.comparison("base", "same").p_value == 1 / (n + 1)
    assert ours.comparison("base", "same").better is None


def _float64_reference(x, method, n, seed, a, b):
    """sacreBLEU's algorithm, written out in float64 for real-valued scores (one pair)."""
    rows = x.shape[1]
    observed = abs(x[a].mean() - x[b].mean())
    rng = np.random.default_rng(seed)
    if method == "bs":
        idx = rng.choice(rows, size=(n, rows), replace=True)
        sa = np.array([x[a][i].sum() / rows for i in idx])
        sb = np.array([x[b][i].sum() / rows for i in idx])
        diffs = np.abs(sb - sa)
        stats = diffs - diffs.mean()
    else:
        flips = rng.integers(2, size=(n, rows), dtype=bool)
        sa = np.where(flips, x[a], x[b]).sum(1) / rows
        sb = np.where(flips, x[b], x[a]).sum(1) / rows
        stats = np.abs(sa - sb)
    return (int((stats > observed).sum()) + 1) / (n + 1)


@pytest.mark.parametrize("method, n", [("bs", 400), ("ar", 800)])
@pytest.mark.parametrize("seed", [12345, 99])
def test_equals_float64_statement_on_real_scores(method, n, seed):
    rng = np.random.default_rng(5)
    x = rng.normal(0.8, 0.1, size=(4, 300))
    x[1] += 0.004
    x[2] -= 0.02
    scores = {f"s{k}": x[k].tolist() for k in range(4)}
    ours = compare_scores(scores, method=method, n_samples=n, seed=seed, correction=None)
    for a, b in itertools.combinations(range(4), 2):
        assert ours.comparison(f"s{a}", f"s{b}").p_value == _float64_reference(x, method, n, seed, a, b)


def test_resamples_are_bleukits_draws():
    n_rows, n, seed = 37, 50, 7
    eye = np.eye(n_rows)  # system j scores 1 on segment j only: its resampled sum counts segment j
    counts = np.rint(bootstrap_means(eye, n, seed) * n_rows).astype(int)
    idx = np.random.default_rng(seed).choice(n_rows, size=(n, n_rows), replace=True)  # sacreBLEU's call
    assert np.array_equal(counts, np.stack([np.bincount(r, minlength=n_rows) for r in idx]))
    gen = resampling.generator(seed)
    if gen is not None:  # the compiled route BLEU/chrF/TER take
        from array import array

        out = array("q", bytes(8 * n * n_rows))
        gen.integers(n_rows, out)
        assert np.array_equal(np.frombuffer(out, dtype=np.int64).reshape(n, n_rows), idx)


def test_all_pairs_p_values_equal_the_one_pair_formula():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(6, 120))
    resampled = bootstrap_means(x, 200, 12345)
    c = compare_scores({f"s{k}": x[k] for k in range(6)}, n_samples=200, correction=None)
    means = x.mean(1)
    for a, b in itertools.combinations(range(6), 2):
        expected = resampling.paired_p_value(resampled[:, a].tolist(), resampled[:, b].tolist(),
                                             abs(c.systems[a].score - c.systems[b].score))
        assert c.comparison(f"s{a}", f"s{b}").p_value == expected
        assert c.systems[a].score == pytest.approx(means[a], abs=1e-15)


def test_lower_is_better_clusters_and_ranking():
    rng = np.random.default_rng(8)
    good = rng.normal(1.0, 0.5, 400)
    table = SegmentScores(["good", "bad", "mid"], {"MetricX": np.stack([good, good + 2, good + 1])},
                          lower_is_better=["MetricX"])
    c = compare_scores(table, n_samples=200)
    assert not c.higher_is_better
    assert [r.name for r in c.ranking] == ["good", "mid", "bad"]
    assert [r.cluster for r in c.ranking] == [1, 2, 3]
    assert c.comparison("good", "bad").better == "good"
    flipped = compare_scores(table, n_samples=200, lower_is_better=False)
    assert [r.name for r in flipped.ranking] == ["bad", "mid", "good"]
    assert "MetricX" in c.format(width=3) and c.to_dict()["higher_is_better"] is False
    assert "hash:" in c.signature and "bs:200" in c.signature
    from bleukit.schemas import validate

    validate(c.to_dict(), "comparison")  # the same JSON as compare_systems'


def test_missing_scores_and_errors():
    scores = {"a": [1.0, None, 3.0, 4.0], "b": [2.0, 2.0, None, 1.0]}
    with pytest.raises(ScoreInputError, match="segment 2"):
        compare_scores(scores, n_samples=10)
    c = compare_scores(scores, n_samples=10, missing="drop")
    assert c.systems[0].result.n_segments == 2 and "dropped:2" in c.signature
    with pytest.raises(ValueError, match="choose one with metric="):
        compare_scores({"a": {"X": [1], "Y": [1]}, "b": {"X": [1], "Y": [2]}})
    with pytest.raises(ValueError, match="baseline"):
        compare_scores({"a": [1, 2], "b": [2, 3]}, baseline="z")
    assert bleukit.compare_scores is compare_scores


def test_shape_matches_compare_systems():
    c = compare_scores({"a": [1, 2, 3, 4], "b": [1, 1, 2, 2], "c": [0, 1, 1, 1]}, method="ar", n_samples=100)
    assert sorted(c.to_dict()) == sorted(bleukit.compare_systems(
        {"a": ["x y"], "b": ["x"]}, ["x y"], n_samples=10).to_dict())
    assert c.systems[0].mean is None and c.ranking is not None
