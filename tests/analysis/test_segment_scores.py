"""Segment scores in: the table (systems × segments per metric) from Python mappings, numpy, pandas
(long and wide) and Hugging Face datasets, and from the files the tools write (COMET's text and
--to_json output, MetricX JSONL, mt-metrics-eval, one number per line, TSV/CSV); errors name the
file and line; missing scores stay missing."""

import json
import math

import numpy as np
import pytest

from bleukit.analysis.score_files import detect_format, read_scores, read_table
from bleukit.analysis.segment_scores import ScoreInputError, SegmentScores

# comet-score -s src.txt -t sysA.txt sysB.txt -r ref.txt (COMET 2.x prints every system's segment
# i before segment i + 1, then the system scores)
COMET_TEXT = """sysA.txt\tSegment 0\tscore: 0.8123
sysB.txt\tSegment 0\tscore: 0.7011
sysA.txt\tSegment 1\tscore: 0.6543
sysB.txt\tSegment 1\tscore: 0.6999
sysA.txt\tSegment 2\tscore: 0.9000
sysB.txt\tSegment 2\tscore: 0.5000
sysA.txt\tscore: 0.7889
sysB.txt\tscore: 0.6337
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_mapping_numpy_and_missing():
    t = SegmentScores.from_mapping({"a": {"M": [1, None, 3]}, "b": {"M": np.array([2.0, 2.0, 2.0])}})
    assert t.missing("M").tolist() == [[False, True, False], [False, False, False]]
    assert t.means("M").tolist() == [2.0, 2.0]
    assert t.to_mapping()["a"]["M"] == [1.0, None, 3.0]
    n = SegmentScores.from_numpy({"M": np.ma.masked_invalid([[1.0, np.nan], [2.0, 3.0]])}, ["a", "b"])
    assert n.missing("M").tolist() == [[False, True], [False, False]]
    # a metric a system lacks is missing throughout, never zeros
    t2 = SegmentScores.from_mapping({"a": {"M": [1, 2], "N": [0.5, 0.5]}, "b": {"M": [1, 1]}})
    assert np.isnan(t2.array("N")[1]).all()


@pytest.mark.parametrize("bad, message", [
    ({"a": {"M": [1, float("nan")]}}, "segment 2: NaN"),
    ({"a": {"M": [1, float("inf")]}}, "segment 2: inf"),
    ({"a": {"M": [1, "x"]}}, "segment 2: 'x' is not a number"),
    ({"a": {"M": [True]}}, "boolean"),
    ({"a": {"M": [1, 2]}, "b": {"M": [1]}}, "has 1 segment scores but system 'a'"),
])
def test_mapping_errors(bad, message):
    with pytest.raises(ScoreInputError, match=message):
        SegmentScores.from_mapping(bad)


def test_duplicate_systems_and_merge():
    with pytest.raises(ScoreInputError, match="duplicate system name 'a'"):
        SegmentScores(["a", "a"], {"M": np.zeros((2, 1))})
    a = SegmentScores.from_mapping({"a": {"M": [1, 2]}})
    b = SegmentScores.from_mapping({"b": {"M": [3, 4]}, "a": {"N": [0, 1]}})
    both = a.merge(b)
    assert both.systems == ("a", "b") and both.metrics == ("M", "N")
    assert np.isnan(both.array("N")[1]).all()
    with pytest.raises(ScoreInputError, match="twice: duplicate system"):
        a.merge(SegmentScores.from_mapping({"a": {"M": [1, 2]}}))
    with pytest.raises(ScoreInputError, match="same segments"):
        a.merge(SegmentScores.from_mapping({"c": {"M": [1]}}))


def test_pandas_long_and_wide_and_datasets():
    import pandas as pd

    wide = pd.DataFrame({"system": ["a", "a", "b", "b"], "segment": [1, 0, 0, 1],
                         "COMET": [0.2, 0.1, 0.3, None], "BLEURT": [1, 2, 3, 4]})
    t = SegmentScores.from_pandas(wide, segment="segment")
    assert t.array("COMET")[0].tolist() == [0.1, 0.2]
    assert t.missing("COMET")[1].tolist() == [False, True]
    long = wide.melt(id_vars=["system", "segment"], var_name="metric", value_name="score")
    t2 = SegmentScores.from_pandas(long, metric="metric", segment="segment")
    assert np.array_equal(t2.array("BLEURT"), t.array("BLEURT"))
    assert np.array_equal(t2.missing("COMET"), t.missing("COMET"))
    with pytest.raises(ScoreInputError, match="two rows"):
        SegmentScores.from_pandas(pd.concat([long, long.iloc[:1]]), metric="metric", segment="segment")
    from datasets import Dataset

    ds = Dataset.from_dict({"system": ["a", "b", "a", "b"], "COMET": [0.1, 0.3, 0.2, None]})
    t3 = SegmentScores.from_dataset(ds, metrics=["COMET"])
    assert t3.array("COMET")[0].tolist() == [0.1, 0.2] and t3.missing("COMET")[1].tolist() == [False, True]


def test_comet_text_and_json(tmp_path):
    text = _write(tmp_path, "comet.txt", COMET_TEXT)
    assert detect_format(text) == "comet"
    t = read_scores(text, model="Unbabel/wmt22-comet-da")
    assert t.systems == ("sysA.txt", "sysB.txt") and t.metrics == ("COMET",)
    assert t.array("COMET")[0].tolist() == [0.8123, 0.6543, 0.9]
    assert t.info("COMET")["model"] == "Unbabel/wmt22-comet-da" and t.higher_is_better("COMET")
    data = {"sysA.txt": [{"src": "s", "mt": "m", "ref": "r", "COMET": 0.81234567},
                         {"src": "s", "mt": "m", "ref": "r", "COMET": 0.5}]}
    js = _write(tmp_path, "out.json", json.dumps(data, indent=4))
    assert detect_format(js) == "comet-json"
    assert read_scores(js).array("COMET")[0].tolist() == [0.81234567, 0.5]
    broken = _write(tmp_path, "b.txt", COMET_TEXT.replace("score: 0.6543", "score: nan"))
    with pytest.raises(ScoreInputError, match=r"b\.txt, line 3: 'nan'"):
        read_scores(broken)
    short = _write(tmp_path, "c.txt", "\n".join(COMET_TEXT.splitlines()[:5]))
    with pytest.raises(ScoreInputError, match="system 'sysB.txt' has 2 segments"):
        read_scores(short)


def test_metricx_jsonl(tmp_path):
    lines = [{"source": "s", "hypothesis": "h", "reference": "r", "prediction": p} for p in (1.5, 3.25)]
    a = _write(tmp_path, "sysA.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")
    t = read_scores(a, model="google/metricx-24-hybrid-xl-v2p6")
    assert t.systems == ("sysA",) and t.metrics == ("MetricX",) and not t.higher_is_better("MetricX")
    bad = _write(tmp_path, "sysB.jsonl", json.dumps(lines[0]) + "\n" + json.dumps({"prediction": "oops"}) + "\n")
    with pytest.raises(ScoreInputError, match=r"sysB\.jsonl, line 2: 'oops' is not a number"):
        read_scores(bad)
    nofield = _write(tmp_path, "sysC.jsonl", json.dumps({"x": 1}) + "\n")
    with pytest.raises(ScoreInputError, match="line 1"):
        read_scores(nofield)


def test_mtme_lines_and_tables(tmp_path):
    mtme = _write(tmp_path, "COMET-22-refA.seg.score", "sysA\t0.5\nsysA\t0.6\nsysB\tNone\nsysB\t0.7\n")
    t = read_scores(mtme)
    assert t.metrics == ("COMET-22",) and t.info("COMET-22")["reference"] == "refA"
    assert t.missing("COMET-22")[1].tolist() == [True, False]
    uneven = _write(tmp_path, "BLEU-refA.seg.score", "a\t1\na\t2\nb\t3\n")
    with pytest.raises(ScoreInputError, match="'b' has 1 segment scores but 'a' has 2"):
        read_scores(uneven)
    col = _write(tmp_path, "sysA.txt", "1\n2\n\n4\n")
    c = read_scores(col, metric="human")
    assert c.array("human")[0, :2].tolist() == [1.0, 2.0] and c.missing("human")[0].tolist() == [
        False, False, True, False]
    badcol = _write(tmp_path, "sysB.txt", "1\ninf\n")
    with pytest.raises(ScoreInputError, match=r"sysB\.txt, line 2"):
        read_scores(badcol)
    tsv = _write(tmp_path, "scores.tsv", "system\tsegment\tCOMET\tMetricX\na\t1\t0.2\t3\na\t0\t0.1\t\nb\t0\t0.3\t2\n"
                 "b\t1\t0.4\t1\n")
    t = read_table(tsv, lower_is_better=["MetricX"])
    assert t.array("COMET").tolist() == [[0.1, 0.2], [0.3, 0.4]] and t.missing("MetricX")[0].tolist() == [True, False]
    assert not t.higher_is_better("MetricX")
    csvfile = _write(tmp_path, "long.csv", "system,metric,score\na,M,1\na,M,x\n")
    with pytest.raises(ScoreInputError, match=r"long\.csv, line 3: 'x'"):
        read_scores(csvfile)


def test_scores_hash_is_stable():
    t = SegmentScores.from_mapping({"a": {"M": [1, None]}})
    assert t.scores_hash("M") == SegmentScores.from_mapping({"a": {"M": [1.0, None]}}).scores_hash("M")
    assert t.scores_hash("M") != SegmentScores.from_mapping({"a": {"M": [1.0, 0.0]}}).scores_hash("M")
    assert not math.isnan(t.means("M")[0])


def test_wmt25_reader_errors_name_file_and_line(tmp_path):
    def doc(lp, doc_id, scores):
        return json.dumps({"language_pair": lp, "domain": "news", "document_id": doc_id,
                           "metric_scores": {"M": scores}})

    folder = tmp_path / "scores"
    folder.mkdir()
    (folder / "A.jsonl").write_text(doc("x-y", "d1", [1, 2]) + "\n" + doc("x-y", "d2", [3]) + "\n", encoding="utf-8")
    (folder / "B.jsonl").write_text(doc("x-y", "d1", [1, 2]) + "\n" + doc("x-y", "d3", [3]) + "\n", encoding="utf-8")
    with pytest.raises(ScoreInputError, match=r"B\.jsonl: document 2 of x-y is \('news', 'd3', 1\)"):
        read_scores(folder)
    (folder / "B.jsonl").write_text(doc("x-y", "d1", [1, 2]) + "\n" + doc("x-y", "d2", ["bad"]) + "\n",
                                    encoding="utf-8")
    with pytest.raises(ScoreInputError, match=r"B\.jsonl, line 2, metric 'M', segment 1 of the document: 'bad'"):
        read_scores(folder)
    (folder / "B.jsonl").write_text(doc("x-y", "d1", [1, None]) + "\n" + doc("x-y", "d2", [3]) + "\n",
                                    encoding="utf-8")
    t = read_scores(folder)
    assert t.documents == ("d1", "d1", "d2") and t.missing("M")[1].tolist() == [False, True, False]
