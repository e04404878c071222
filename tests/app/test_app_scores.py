"""The app's "Systems × metrics" tab (issue 44): segment-score files uploaded next to the systems'
text give bleukit.score_table's table, cell for cell (WMT25's own files; WMT17 text with a judge's
scores), with the signatures and the HTML page to download; a bad file is one message naming it.
The page in a real browser is in test_app.py, which owns the server and the browser."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from shared_data import read_lines

import bleukit

pytest.importorskip("gradio")

WMT25_SYSTEMS = ["Shy", "GPT-4.1", "Gemini-2.5-Pro", "Claude-4", "DeepSeek-V3", "CommandA", "Algharb", "Wenyiil"]
WMT17 = ["KIT.4950", "LIUM-NMT.4900", "online-A.0"]
LINES = 200


def _embedded(page: str) -> dict:
    return json.loads(re.search(r'id="bleukit-scores-data">(.*?)</script>', page, re.S).group(1))


def _shown(outputs):
    """The tab's outputs: notice, table (as text cells), summary, the downloaded page."""
    notice, frame, summary, download = outputs
    page = Path(download["value"]).read_text(encoding="utf-8") if download.get("value") else None
    return notice, [list(frame.columns)] + frame.values.tolist(), summary, page


def test_wmt25_score_files_give_score_tables_table(app, shared_data):
    folder = shared_data / "wmt25-scores"
    paths = [str(folder / f"{name}.jsonl") for name in WMT25_SYSTEMS]
    notice, cells, summary, page = _shown(app.on_scores(
        paths, None, None, language_pair="cs-de_DE", lexical=[], n_samples=300, seed=7,
        autorank="WMT25 (scaled by median and P100 − P25)"))
    assert notice == ""
    full = bleukit.read_scores(folder, language_pair="cs-de_DE")  # the folder, read at once
    keep = [full.systems.index(s) for s in WMT25_SYSTEMS]
    scores = bleukit.SegmentScores(WMT25_SYSTEMS, {m: full.array(m)[keep] for m in full.metrics},
                                   lower_is_better=full.lower_is_better, info={m: full.info(m) for m in full.metrics})
    table = bleukit.score_table(scores, n_samples=300, seed=7, autorank="wmt25")
    headers, body = table.text_rows()
    assert cells == [headers] + body  # every cell: score ± CI [cluster], AutoRank
    assert headers == ["System", "AutoRank", "CometKiwi-XL", "GEMBA-ESA-CMDA", "GEMBA-ESA-GPT4.1",
                       "MetricX-24-Hybrid-XL", "XCOMET-XL"]
    assert _embedded(page) == json.loads(table.format("json"))  # the download: the same numbers
    for m, signature in table.signatures().items():
        assert "hash:" in signature and "format:wmt25" in signature
        shown = re.search(rf'<li data-metric="{re.escape(m)}">.*?<code>(.*?)</code>', summary).group(1)
        assert shown.replace("<wbr>", "") == signature
    assert "300 resamples, seed 7, Holm correction" in summary and "AutoRank wmt25" in summary


def test_text_and_score_files_in_one_table(app, shared_data, tmp_path):
    """WMT17 systems' text (BLEU, chrF++, TER) beside a judge's segment scores from one-number-per-line
    files named after the systems: the table of bleukit.score_table on the same inputs."""
    folder = shared_data / "wmt17-en-de"
    refs = read_lines(folder / "ref.de")[:LINES]
    hyps = {name: read_lines(folder / f"hyp.{name}.de")[:LINES] for name in WMT17}
    system_files, score_files = [], []
    for name, lines in hyps.items():
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        system_files.append(str(path))
        judged = [bleukit.sentence_bleu(h, [r]).score for h, r in zip(lines, refs)]
        score = tmp_path / "judge" / f"{name}.txt"
        score.parent.mkdir(exist_ok=True)
        score.write_text("".join(f"{v!r}\n" for v in judged), encoding="utf-8")
        score_files.append(str(score))
    ref = tmp_path / "ref.de"
    ref.write_text("".join(f"{line}\n" for line in refs), encoding="utf-8")
    notice, cells, summary, page = _shown(app.on_scores(
        score_files, system_files, [str(ref)], metric="judge", lexical=["BLEU", "chrF++", "TER"], n_samples=200))
    assert notice == ""
    table = bleukit.score_table(
        bleukit.SegmentScores.from_mapping({n: {"judge": [bleukit.sentence_bleu(h, [r]).score
                                                          for h, r in zip(hyps[n], refs)]} for n in WMT17}),
        hypotheses=hyps, references=[[r] for r in refs],
        lexical=[bleukit.BleuOptions(), bleukit.ChrfOptions(word_order=2), bleukit.TerOptions()], n_samples=200)
    headers, body = table.text_rows()
    assert cells == [headers] + body and headers[-1] == "TER ↓"
    # the text metrics alone (no score file): score_table's table of them
    notice, alone, _, _ = _shown(app.on_scores(None, system_files, [str(ref)], lexical=["chrF"], n_samples=100))
    headers, body = bleukit.score_table(hypotheses=hyps, references=[[r] for r in refs],
                                        lexical=[bleukit.ChrfOptions()], n_samples=100).text_rows()
    assert notice == "" and alone == [headers] + body
    data = _embedded(page)
    assert data["rows"] == table.to_dict()["rows"] and data["metrics"] == ["judge", "BLEU", "chrF2++", "TER"]
    assert data["signatures"]["BLEU"] == table.signatures()["BLEU"]


@pytest.mark.parametrize(
    "files, keywords, message",
    [
        ({"sysA.txt": "0.5\n0.7\n", "sysB.txt": "0.4\nabc\n"}, {}, "sysB.txt, line 2: 'abc' is not a number"),
        ({"sysA.txt": "0.5\n0.7\n", "sysB.txt": b"0.4\n\x00\n"}, {}, "sysB.txt is not a text file"),
        ({"sysA.txt": "0.5\n", "sysB.txt": "0,5".encode("utf-16")}, {}, "is not a text file|is not UTF-8"),
        ({"sysA.txt": "0.5\n0.7\n", "sysB.txt": "0.4\n"}, {}, "sysB.txt: cannot merge tables of 2 and 1 segments"),
        ({"sysA.txt": "0.5\n0.7\n"}, {"score_format": "wmt25"}, "sysA.txt"),
        ({}, {}, "No score files"),
        ({"Shy.jsonl": '{"language_pair": "cs-de_DE", "document_id": "d1", "metric_scores": {"m": [1, 2]}}\n'
                       '{"language_pair": "en-ar_EG", "document_id": "d1", "metric_scores": {"m": [1]}}\n'}, {},
         "Shy.jsonl, line 2: the files hold several language pairs .* choose one in the language pair box"),
        ({"sysA.txt": "0.5\n0.7\n"}, {"lower_is_better": "COMET"}, "no metric 'COMET'"),
        ({"sysA.txt": "0.5\n0.7\n"}, {"lexical": ["BLEU"]}, "need the systems' text files"),
    ],
)
def test_a_bad_score_file_is_one_message_naming_it(app, tmp_path, caplog, files, keywords, message):
    paths = []
    for name, content in files.items():
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        paths.append(str(path))
    notice, frame, summary, download = app.on_scores(paths, None, None, n_samples=20, **keywords)
    assert 'id="scores-error"' in notice and re.search(message, html.unescape(notice)), notice
    assert str(tmp_path) not in notice  # the server's upload folder is not the user's business
    assert frame.empty and summary == "" and download["visible"] is False
    assert "input error in scores" in caplog.text and "Traceback" not in caplog.text


def test_the_table_escapes_names_and_the_upload_limits_hold(app, tmp_path, monkeypatch):
    a, b = tmp_path / "<b>bold&x.txt", tmp_path / "sysB.txt"
    a.write_text("90\n80\n85\n", encoding="utf-8")
    b.write_text("60\n70\n65\n", encoding="utf-8")
    notice, cells, summary, page = _shown(app.on_scores([str(a), str(b)], None, None, metric="<i>judge</i>",
                                                        n_samples=50))
    assert notice == "" and cells[0] == ["System", "<i>judge</i>"] and cells[1][0] == "<b>bold&x"
    assert "<i>" not in summary and "&lt;i&gt;judge&lt;/i&gt;" in summary
    body = page.split('<script type="application/json"')[0]
    assert "<b>bold" not in body and "&lt;b&gt;bold&amp;x" in body
    monkeypatch.setattr(app.modules["forms"], "MAX_UPLOAD_BYTES", 5)
    notice, *_ = app.on_scores([str(a), str(b)], None, None, metric="j", n_samples=50)
    assert "uploads are limited to 5 bytes per file" in notice
    many = [str(b)] * (app.MAX_SCORE_FILES + 1)
    notice, *_ = app.on_scores(many, None, None, n_samples=50)
    assert f"At most {app.MAX_SCORE_FILES} score files" in notice
