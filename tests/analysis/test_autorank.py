"""WMT's AutoRank: the organisers' published WMT25 preliminary ranking tables reproduced to every
printed digit from their per-segment score files read as they are; WMT24's method; weights and
metrics where lower is better."""

import json

import numpy as np
import pytest

import bleukit
from bleukit.analysis.autorank import autorank
from bleukit.analysis.score_files import read_wmt25
from bleukit.analysis.segment_scores import SegmentScores

PAIRS = ["cs-de_DE", "en-ar_EG"]
# The precision each column is printed with in the published tables.
DECIMALS = {"AutoRank": 1, "CometKiwi-XL": 3, "GEMBA-ESA-CMDA": 1, "GEMBA-ESA-GPT4.1": 1,
            "MetricX-24-Hybrid-XL": 1, "XCOMET-XL": 3}


@pytest.fixture(scope="module")
def wmt25(shared_data):
    folder = shared_data / "wmt25-scores"
    tables = json.loads((folder / "preliminary_ranking_tables.json").read_text(encoding="utf-8"))
    return folder, tables


def _printed(value: float, decimals: int) -> str:
    """A number as the tables print it: rounded, trailing zeros after the first decimal dropped."""
    return str(round(value, decimals))


@pytest.mark.parametrize("pair", PAIRS)
def test_wmt25_tables_every_printed_digit(wmt25, pair):
    folder, tables = wmt25
    published = tables[pair]
    scores = read_wmt25(folder, language_pair=pair)
    result = bleukit.autorank(scores, metrics=published["metrics"], method="wmt25")
    assert len(result.rows) == len(published["rows"]) == len(scores.systems)
    mine = [[_printed(r.autorank, 1)] + [_printed(r.means[m], DECIMALS[m]) for m in published["metrics"]]
            for r in result.rows]
    theirs = [[row["AutoRank"]] + [row[m] for m in published["metrics"]] for row in published["rows"]]
    # Rank order and every cell of every row (names differ: the tables print display names).
    assert mine == theirs
    # ... and the names agree where the display name is the file name
    same = [(r.system, row["table_name"]) for r, row in zip(result.rows, published["rows"])
            if row["table_name"].replace("\\_", "_") in scores.systems]
    assert all(a == b.replace("\\_", "_") for a, b in same) and len(same) > 25
    assert result.rows[0].autorank == 1.0 and result.rows[-1].autorank == pytest.approx(len(result.rows))
    # Both published tables include CometKiwi-XL in AutoRank (main.tex leaves it out for pairs without
    # human references, and cs-de_DE has none): without it the printed AutoRanks are not reproduced.
    without = bleukit.autorank(scores, metrics=[m for m in published["metrics"] if m != "CometKiwi-XL"])
    assert [_printed(r.autorank, 1) for r in without.rows] != [row[0] for row in theirs]


def test_wmt25_files_read_as_they_are(wmt25):
    folder, _ = wmt25
    cs = read_wmt25(folder, language_pair="cs-de_DE")
    ar = read_wmt25(folder, language_pair="en-ar_EG")
    assert (len(cs.systems), cs.n_segments) == (40, 457)
    assert (len(ar.systems), ar.n_segments) == (37, 332)
    # the two missing GEMBA-ESA-CMDA scores stay missing (not zeros) and the means skip them
    assert int(ar.missing("GEMBA-ESA-CMDA").sum()) == 2
    k = ar.systems.index("Llama-3.1-8B")
    row = ar.array("GEMBA-ESA-CMDA")[k]
    assert ar.means("GEMBA-ESA-CMDA")[k] == pytest.approx(np.nanmean(row))
    assert ar.documents is not None and len(set(ar.documents)) == 87
    with pytest.raises(ValueError, match="several language pairs"):
        read_wmt25(folder)


def _by_hand_wmt25(means: np.ndarray) -> np.ndarray:
    z = (means - np.median(means, 0)) / np.maximum(1e-12, means.max(0) - np.percentile(means, 25, 0))
    avg = z.mean(1)
    return 1 + (avg.max() - avg) / (avg.max() - avg.min()) * (len(avg) - 1)


def test_wmt25_formula_and_lower_is_better():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(6, 50))
    b = rng.normal(size=(6, 50)) * 10
    names = [f"s{k}" for k in range(6)]
    table = SegmentScores(names, {"A": a, "B": b})
    got = [autorank(table).row(s).autorank for s in names]
    assert got == pytest.approx(_by_hand_wmt25(np.column_stack([a.mean(1), b.mean(1)])).tolist(), abs=1e-12)
    # the same metric written lower-is-better and declared so gives the same ranking
    flipped = SegmentScores(names, {"A": a, "B": -b}, lower_is_better=["B"])
    assert [r.autorank for r in autorank(flipped).rows] == pytest.approx([r.autorank for r in autorank(table).rows])
    assert autorank(flipped).lower_is_better == ("B",)


def test_wmt24_method_and_weights():
    table = {"x": {"A": [10.0], "B": [0.0]}, "y": {"A": [5.0], "B": [1.0]}, "z": {"A": [0.0], "B": [0.5]}}
    r = autorank(table, method="wmt24")
    # A maps x,y,z to 1, 2, 3; B maps y, z, x to 1, 2, 3; AutoRank is their mean
    assert {row.system: row.autorank for row in r.rows} == {"x": 2.0, "y": 1.5, "z": 2.5}
    assert [row.system for row in r.rows] == ["y", "x", "z"]
    w = autorank(table, method="wmt24", weights={"A": 3, "B": 1})
    assert {row.system: row.autorank for row in w.rows} == pytest.approx({"x": 1.5, "y": 1.75, "z": 2.75})
    # wmt25 with all weight on one metric is that metric's own order
    only = autorank(table, weights={"A": 1.0})
    assert [row.system for row in only.rows] == ["x", "y", "z"]


def test_errors():
    table = {"x": {"A": [1.0, 2.0]}, "y": {"A": [None, None]}}
    with pytest.raises(ValueError, match="no score at all"):
        autorank(table)
    with pytest.raises(ValueError, match="unknown method"):
        autorank({"x": {"A": [1.0]}}, method="wmt23")
    with pytest.raises(ValueError, match="not used"):
        autorank({"x": {"A": [1.0]}}, weights={"B": 1})
    with pytest.raises(KeyError):
        autorank({"x": {"A": [1.0]}}, metrics=["B"])


def test_format_and_json(wmt25):
    folder, _ = wmt25
    r = autorank(read_wmt25(folder, language_pair="cs-de_DE"))
    text = r.format()
    assert "Shy" in text.splitlines()[4] and "0.596" in text.splitlines()[4]
    assert json.loads(r.format("json"))["rows"][0]["system"] == "Shy"


def test_clusters_beside_autorank():
    rng = np.random.default_rng(4)
    base = rng.normal(0.7, 0.1, 300)
    noisy = base + rng.normal(0, 0.05, 300)
    table = SegmentScores(["a", "b", "c"], {"M": np.stack([base + 0.1, base, noisy]),
                                             "J": np.stack([base * 100 + 5, base * 100, base * 100])})
    r = autorank(table, clusters=True, n_samples=200)
    assert r.rows[0].system == "a" and r.rows[0].cluster == {"M": 1, "J": 1}
    assert r.row("b").cluster == r.row("c").cluster == {"M": 2, "J": 2}
    assert "[2]" in r.format()
