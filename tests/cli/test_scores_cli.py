"""bleukit-scores: score files (and text for BLEU/chrF/TER) to one table system × metric with CIs,
clusters, AutoRank and signatures, in text and JSON; WMT25's files read as they are."""

import io
import json

import pytest

from bleukit.cli.scores import main
from bleukit.schemas import validate


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_wmt25_folder_json_and_text(shared_data):
    folder = str(shared_data / "wmt25-scores")
    code, out, err = _run([folder, "--language-pair", "cs-de_DE", "--autorank", "wmt25", "--n-samples", "100",
                           "--metrics", "XCOMET-XL", "GEMBA-ESA-GPT4.1", "--format", "json"])
    assert code == 0, err
    data = json.loads(out)
    validate(data, "cli-scores")
    assert data["metrics"] == ["XCOMET-XL", "GEMBA-ESA-GPT4.1"] and len(data["systems"]) == 40
    first = data["rows"][0]
    assert first["system"] == "Shy" and first["autorank"] == 1.0
    assert set(first["XCOMET-XL"]) == {"score", "mean", "ci", "cluster", "rank_range"}
    assert "hash:" in data["signatures"]["XCOMET-XL"] and "format:wmt25" in data["signatures"]["XCOMET-XL"]
    code, text, _ = _run([folder, "--language-pair", "en-ar_EG", "--n-samples", "50", "--missing", "drop",
                          "--metrics", "GEMBA-ESA-CMDA"])
    assert code == 0 and "dropped:2" in text and "Note: with 666 comparisons" in text


def test_comet_file_with_lexical_metrics(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\na dog barked\nit is raining\n", encoding="utf-8")
    hyps = {"sysA": "the cat sat on the mat\na dog barked\nit rains\n", "sysB": "cat mat\ndog\nrain\n"}
    paths = []
    for name, text in hyps.items():
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
        paths.append(str(tmp_path / f"{name}.txt"))
    comet = tmp_path / "comet.out"
    comet.write_text("".join(f"{p}\tSegment {i}\tscore: {0.9 - 0.3 * k - 0.01 * i:.4f}\n"
                             for i in range(3) for k, p in enumerate(paths))
                     + "".join(f"{p}\tscore: 0.5000\n" for p in paths), encoding="utf-8")
    code, out, err = _run([str(comet), "-i", *paths, "-r", str(ref), "--lexical", "bleu", "chrf", "ter",
                           "--model", "Unbabel/wmt22-comet-da", "--n-samples", "50", "--autorank", "wmt25",
                           "--format", "json"])
    assert code == 0, err
    data = json.loads(out)
    validate(data, "cli-scores")
    assert data["metrics"] == ["COMET", "BLEU", "chrF2", "TER"]
    assert [r["system"] for r in data["rows"]] == ["sysA", "sysB"]
    assert "model:Unbabel/wmt22-comet-da" in data["signatures"]["COMET"]
    assert data["comparisons"]["TER"]["higher_is_better"] is False


def test_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "sysA.txt"
    bad.write_text("0.5\nabc\n", encoding="utf-8")
    code, _, err = _run([str(bad)])
    assert code == 1 and "sysA.txt, line 2: 'abc' is not a number" in err
    code, _, err = _run([str(tmp_path / "nope.txt")])
    assert code == 1 and "no such file" in err
    a = tmp_path / "a.txt"
    a.write_text("1\n2\n", encoding="utf-8")
    code, _, err = _run([str(a), str(a)])
    assert code == 1 and "duplicate system" in err


def test_latex_output(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("90\n80\n85\n", encoding="utf-8")
    b.write_text("60\n70\n65\n", encoding="utf-8")
    code, out, _ = _run([str(a), str(b), "--metric", "judge", "--n-samples", "20", "--format", "latex"])
    assert code == 0 and "\\toprule" in out and "judge" in out
    code, _, err = _run([str(a), str(b), "--metric", "judge", "--n-samples", "20", "--progress"])
    assert code == 0 and "resampled: 20" in err
    code, out, _ = _run([str(a), str(b), "--metric", "judge", "--n-samples", "20", "--format", "html"])
    assert code == 0 and out.startswith("<!DOCTYPE html>") and 'id="ranking-judge"' in out


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_on_a_terminal_only_and_never_in_the_output(tmp_path, monkeypatch):
    import bleukit.cli.scores as scores

    monkeypatch.setattr(scores, "_PROGRESS_DELAY_S", 0.0)  # a quick run shows its bar too
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("90\n80\n85\n", encoding="utf-8")
    b.write_text("60\n70\n65\n", encoding="utf-8")
    argv = [str(a), str(b), "--metric", "judge", "--n-samples", "30", "--format", "json"]
    out, err = io.StringIO(), _Terminal()
    assert main(argv, stdout=out, stderr=err) == 0
    assert "resampling" in err.getvalue() and "/30" in err.getvalue()  # one metric × 30 resamples
    assert json.loads(out.getvalue())["systems"] == ["a", "b"] and "resampling" not in out.getvalue()
    out, err = io.StringIO(), _Terminal()
    assert main(argv + ["--no-progress"], stdout=out, stderr=err) == 0 and err.getvalue() == ""
    code, out, err = _run(argv)  # not a terminal: no bar
    assert code == 0 and err == ""


def test_score_files_and_text_must_be_the_same_segments(tmp_path):
    """score_table itself refuses score files and references of different lengths (the command
    line said so before it; the app and Python callers now hear it too), and read_score_files names
    systems as the command line does."""
    import bleukit
    from bleukit.analysis.score_table import read_score_files

    (tmp_path / "sysA.txt").write_text("0.5\n0.7\n", encoding="utf-8")
    (tmp_path / "sysB.txt").write_text("0.4\n0.6\n", encoding="utf-8")
    table = read_score_files([tmp_path / "sysA.txt", tmp_path / "sysB.txt"], metric="judge",
                             lower_is_better=["judge"])
    assert table.systems == ("sysA", "sysB") and table.lower_is_better == frozenset({"judge"})
    hyps = {"sysA": ["a b", "c d", "e"], "sysB": ["a", "c", "e"]}
    with pytest.raises(ValueError, match="the score files have 2 segments but the references 3 lines"):
        bleukit.score_table(table, hypotheses=hyps, references=["a b", "c d", "e"], lexical=[bleukit.BleuOptions()])
    with pytest.raises(ValueError, match="no metric 'COMET'"):
        read_score_files([tmp_path / "sysA.txt"], lower_is_better=["COMET"])
