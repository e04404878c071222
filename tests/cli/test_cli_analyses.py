"""The command line's analyses: --rank and --correction (equal to the API), --report (the output it
adds to is unchanged, the file is the API's report), --documents and --doc-ids (document-level
scores equal to the API's), and their errors."""

import io
import json
import re

import pytest
from shared_data import read_lines

import bleukit
from bleukit.analysis.documents import document_bleu
from bleukit.analysis.htmlreport import build_report
from bleukit.analysis.ranking import compare_systems
from bleukit.cli import main
from bleukit.metrics.chrf import ChrfOptions

WMT17 = ["LIUM-NMT.4900", "online-B.0", "uedin-nmt.4722"]


def run(*args, stdin=b""):
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in args], stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def files(shared_data, tmp_path_factory):
    """The first 300 lines of three WMT17 systems and the reference, as files."""
    folder = shared_data / "wmt17-en-de"
    out = tmp_path_factory.mktemp("wmt17")
    paths = {}
    for name in ["ref"] + WMT17:
        source = folder / ("ref.de" if name == "ref" else f"hyp.{name}.de")
        lines = read_lines(source)[:300]
        path = out / (name + ".txt")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths[name] = path
    return paths


def _systems(files):
    return [(str(files[n]), read_lines(files[n])) for n in WMT17]


def test_rank_json_is_compare_systems(files):
    code, out, err = run(files["ref"], "-i", *(files[n] for n in WMT17), "--rank", "-pbsn", "200", "-m", "bleu", "chrf")
    assert code == 0, err
    got = json.loads(out)
    refs = read_lines(files["ref"])
    for d, options in zip(got, [bleukit.BleuOptions(), ChrfOptions()]):
        expected = compare_systems(_systems(files), refs, n_samples=200, options=options).to_dict()
        assert d == json.loads(json.dumps(expected))


def test_rank_text_and_latex(files):
    code, out, _ = run(files["ref"], "-i", *(files[n] for n in WMT17), "--rank", "--paired-ar", "-parn", "100",
                       "-f", "text", "-w", "2")
    assert code == 0 and "approximate randomization (100 trials" in out and "Rank range" in out
    c = compare_systems(_systems(files), read_lines(files["ref"]), method="ar", n_samples=100)
    assert out == c.format("text", 2) + "\n"
    code, out, _ = run(files["ref"], "-i", *(files[n] for n in WMT17), "--rank", "-pbsn", "50", "-f", "latex")
    assert code == 0 and "\\toprule" in out and "\\bottomrule" in out


def test_paired_test_with_a_correction_is_the_baseline_comparison(files):
    code, out, err = run(files["ref"], "-i", *(files[n] for n in WMT17), "--paired-bs", "-pbsn", "200",
                         "--correction", "bonferroni")
    assert code == 0, err
    (d,) = json.loads(out)
    refs = read_lines(files["ref"])
    paired = bleukit.paired_test(_systems(files), refs, n_samples=200, correction="bonferroni")
    assert d["baseline"] == str(files[WMT17[0]]) and d["ranking"] is None
    assert [c["p_value_adjusted"] for c in d["comparisons"]] == [r.p_value_adjusted for r in paired[1:]]
    assert [c["p_value"] for c in d["comparisons"]] == [r.p_value for r in paired[1:]]


@pytest.mark.parametrize(
    "extra",
    [[], ["-m", "bleu", "chrf"], ["--paired-bs", "-pbsn", "50"], ["--paired-ar", "-parn", "50"], ["-f", "text"],
     ["-m", "chrf", "-cw", "2", "--paired-ar", "-parn", "50"]],
)
def test_report_adds_a_file_and_changes_nothing_else(files, tmp_path, extra):
    systems = [files[n] for n in WMT17]
    code, plain, _ = run(files["ref"], "-i", *systems, "-q", *extra)
    report = tmp_path / "out.html"
    code_r, with_report, err = run(files["ref"], "-i", *systems, "-q", "--report", report, *extra)
    assert code == code_r == 0 and with_report == plain, err
    page = report.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="bleukit-report-data">(.*?)</script>', page, re.S).group(1).replace("<\\/", "</"))
    metrics = [bleukit.BleuOptions(), ChrfOptions()] if "bleu" in extra else [bleukit.BleuOptions()]
    if extra[:2] == ["-m", "chrf"]:
        metrics = [ChrfOptions(word_order=2)]
    paired = "--paired-ar" in extra
    expected = build_report(
        _systems(files), read_lines(files["ref"]), options=metrics,
        comparison="baseline" if ("--paired-bs" in extra or paired) else "rank", method="ar" if paired else "bs",
        n_samples=50 if "-pbsn" in extra or "-parn" in extra else None,
        title=f"bleukit report: {files['ref']}",
    )
    assert data == json.loads(json.dumps(expected.data))
    assert {e["metric"] for e in data["explanations"]} == {bleukit.metrics.metric_for(metrics[0]).name}


def test_report_of_one_system_and_of_a_document_level_run(files, tmp_path):
    report = tmp_path / "one.html"
    code, out, err = run(files["ref"], "-i", files[WMT17[0]], "--report", report, "-f", "text")
    assert code == 0 and out.startswith("BLEU|") and f"report written to {report}" in err
    assert "bleukit-report-data" in report.read_text(encoding="utf-8")


def test_documents_from_blank_lines_equal_document_bleu(tmp_path):
    hyps = ["The cat sat.", "It was happy.", "", "Rain fell.", "It was cold.", "", "The end."]
    refs = ["The cat sat.", "It was glad.", "", "Rain fell.", "It was cold!", "", "The end."]
    (tmp_path / "h.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    code, out, err = run(tmp_path / "r.txt", "-i", tmp_path / "h.txt", "--documents", "-w", "6", "-b")
    assert code == 0, err
    keep = [i for i, line in enumerate(refs) if line]
    ids = [0, 0, 1, 1, 2]
    expected = document_bleu([hyps[i] for i in keep], [refs[i] for i in keep], ids)
    assert out == f"{expected.score:.6f}\n" and "3 documents of 5 segments" in err
    (tmp_path / "ids.txt").write_text("a\na\nx\nb\nb\ny\nc\n", encoding="utf-8")
    with_ids = run(tmp_path / "r.txt", "-i", tmp_path / "h.txt", "--doc-ids", tmp_path / "ids.txt", "-w", "6", "-b")
    expected_ids = document_bleu(hyps, refs, ["a", "a", "x", "b", "b", "y", "c"])
    assert with_ids[1] == f"{expected_ids.score:.6f}\n"


def test_document_level_chrf_and_ranking_equal_sacrebleu_on_the_joined_documents(files, tmp_path):
    """Documents of ten consecutive WMT17 segments: --doc-ids and --documents (blank lines) with -m chrf
    give sacreBLEU's chrF++ of the joined documents, and --rank ranks the documents' scores."""
    from sacrebleu.metrics import CHRF

    ref, hyps = read_lines(files["ref"]), read_lines(files[WMT17[0]])
    ids = [str(i // 10) for i in range(len(ref))]
    (tmp_path / "ids.txt").write_text("\n".join(ids) + "\n", encoding="utf-8")
    joined = lambda lines: [" ".join(lines[k : k + 10]) for k in range(0, len(lines), 10)]  # noqa: E731
    expected = CHRF(word_order=2).corpus_score(joined(hyps), [joined(ref)])
    code, out, err = run(files["ref"], "-i", files[WMT17[0]], "--doc-ids", tmp_path / "ids.txt", "-m", "chrf",
                         "-cw", "2", "-w", "6", "-b")
    assert code == 0 and out == f"{expected.score:.6f}\n" and "30 documents of 300 segments" in err
    blank = lambda lines: "".join(line + "\n" + ("\n" if k % 10 == 9 else "") for k, line in enumerate(lines))  # noqa
    (tmp_path / "h.txt").write_text(blank(hyps), encoding="utf-8")
    (tmp_path / "r.txt").write_text(blank(ref), encoding="utf-8")
    code, out, _ = run(tmp_path / "r.txt", "-i", tmp_path / "h.txt", "--documents", "-m", "chrf", "-cw", "2", "-w", "6",
                       "-b")
    assert code == 0 and out == f"{expected.score:.6f}\n"
    code, out, _ = run(files["ref"], "-i", *(files[n] for n in WMT17), "--doc-ids", tmp_path / "ids.txt", "--rank",
                       "-m", "chrf", "-pbsn", "100")
    systems = [(str(files[n]), joined(read_lines(files[n]))) for n in WMT17]
    want = compare_systems(systems, joined(ref), n_samples=100, options=ChrfOptions())
    assert code == 0 and json.loads(out) == [json.loads(json.dumps(want.to_dict()))]
    assert [s.score for s in want.systems] == [CHRF().corpus_score(h, [joined(ref)]).score for _, h in systems]


def test_document_errors(tmp_path):
    (tmp_path / "h.txt").write_text("a\n\nb\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("a\nb\n\n", encoding="utf-8")
    (tmp_path / "ids.txt").write_text("1\n", encoding="utf-8")
    code, _, err = run(tmp_path / "r.txt", "-i", tmp_path / "h.txt", "--documents")
    assert code == 1 and "blank lines of system 1 are not where the first reference's are" in err
    code, _, err = run(tmp_path / "r.txt", "-i", tmp_path / "h.txt", "--doc-ids", tmp_path / "ids.txt")
    assert code == 1 and "1 lines but there are 3 segments" in err
    code, _, err = run(tmp_path / "r.txt", "-i", tmp_path / "h.txt", "--doc-ids", tmp_path / "ids.txt", "--documents")
    assert code == 1 and "not both" in err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rank"], "--rank and --correction compare several systems"),
        (["--report", "x.html", "--explain", "1"], "--report cannot be combined"),
    ],
)
def test_errors(files, args, message):
    code, _, err = run(files["ref"], "-i", files[WMT17[0]], *args)
    assert code == 1 and message in err


def test_help_lists_the_new_options_among_bleukits_additions(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    additions = text.split("bleukit additions (not in sacreBLEU)")[1]
    for flag in ("--rank", "--correction", "--alpha", "--report", "--documents", "--doc-ids"):
        assert flag in additions
