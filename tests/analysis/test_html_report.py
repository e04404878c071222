"""The HTML report: its numbers are the API's (scores, CIs, ranking, buckets, sentence scores,
explanations), its data follows report.schema.json, the page is self-contained, and a real
headless Chromium renders it (content checked, no network request, a screenshot kept)."""

import html
import io
import json
import os
import re
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest
from sacrebleu.metrics import CHRF
from shared_data import REPO, read_lines, skip_unless_required

import bleukit
from bleukit.analysis.explain import explain_bleu
from bleukit.analysis.groups import group_results
from bleukit.analysis.htmlreport import build_report, write_html_report
from bleukit.analysis.htmlreport.data import length_buckets
from bleukit.analysis.ranking import compare_systems
from bleukit.analysis.significance import with_bootstrap
from bleukit.metrics.bleu import BleuOptions
from bleukit.metrics.chrf import ChrfOptions
from bleukit.schemas import validate

CHROMIUM = os.environ.get("BLEUKIT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARTIFACTS = REPO / "test-artifacts"
WMT17 = ["LIUM-NMT.4900", "online-B.0", "uedin-nmt.4722", "KIT.4950", "online-A.0"]
LINES = 400


@pytest.fixture(scope="module")
def wmt17(shared_data):
    folder = shared_data / "wmt17-en-de"
    systems = [(name, read_lines(folder / f"hyp.{name}.de")[:LINES]) for name in WMT17]
    return systems, read_lines(folder / "ref.de")[:LINES]


@pytest.fixture(scope="module")
def report(wmt17):
    systems, refs = wmt17
    return build_report(systems, refs, options=[bleukit.BleuOptions(), ChrfOptions(word_order=2)], n_samples=300,
                        n_bootstrap=200, title="WMT17 en-de, first 400 segments")


def test_data_follows_the_schema_and_is_embedded_in_the_page(report):
    validate(report.data, "report")
    embedded = re.search(r'<script type="application/json" id="bleukit-report-data">(.*?)</script>', report.html, re.S)
    assert json.loads(embedded.group(1).replace("<\\/", "</")) == report.data


def test_numbers_are_the_apis(report, wmt17):
    systems, refs = wmt17
    for m, options in zip(report.data["metrics"], [bleukit.BleuOptions(), ChrfOptions(word_order=2)]):
        metric = bleukit.metrics.metric_for(options)
        buckets = length_buckets([[r] for r in refs])
        for (name, hyps), s in zip(systems, m["scores"]):
            stats = bleukit.corpus_statistics(hyps, refs, options=options)
            ours = with_bootstrap(metric.result(stats, options), stats, options, 200, 12345)
            assert (s["system"], s["score"], s["mean"], s["ci"]) == (name, ours.score, ours.mean, ours.ci)
            assert s["formatted"] == ours.format()
            by_bucket = group_results(stats, buckets, options)
            for b in m["buckets"]:
                (got,) = [x["score"] for x in b["scores"] if x["system"] == name]
                assert got == by_bucket[b["bucket"]].score and b["n_segments"] == buckets.count(b["bucket"])
            assert m["sentence_scores"][name] == [metric.row_result(row, n, options.sentence_level()).score
                                                  for row, n in zip(stats.rows.tolist(), stats.nrefs.tolist())]
        expected = compare_systems(systems, refs, n_samples=300, options=options).to_dict()
        assert m["comparison"] == expected
    for name, hyps in systems:  # sentence BLEU is sacreBLEU's sentence_bleu (bleukit's, bit for bit)
        assert report.data["metrics"][0]["sentence_scores"][name][:20] == [
            bleukit.sentence_bleu(h, r).score for h, r in zip(hyps[:20], refs[:20])]


def test_the_sentences_shown_differ_most_and_are_explained(report, wmt17):
    systems, refs = wmt17
    scores = report.data["metrics"][0]["sentence_scores"]
    spread = [max(scores[n][i] for n, _ in systems) - min(scores[n][i] for n, _ in systems) for i in range(LINES)]
    shown = report.data["differences"]["lines"]
    assert len(shown) == 10 and report.data["differences"]["kind"] == "spread"
    assert [line["spread"] for line in shown] == sorted(spread, reverse=True)[:10]
    for line in shown:
        i = line["line"] - 1
        assert line["spread"] == spread[i] and line["references"] == [refs[i]]
        assert [s["hypothesis"] for s in line["systems"]] == [hyps[i] for _, hyps in systems]
    explained = report.data["explanations"]
    assert len(explained) == 3 * len(systems)
    for e in explained:
        hyp = dict(systems)[e["system"]][e["line"] - 1]
        assert e["metric"] == "bleu"
        assert {k: v for k, v in e.items() if k not in ("line", "system", "metric")} == explain_bleu(
            hyp, refs[e["line"] - 1]).to_dict()


def test_page_is_self_contained(report):
    page = report.html
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") >= 6
    # nothing to fetch: no src attribute, no link element, no url(), no external href
    assert not re.search(r"\ssrc\s*=", page) and "<link" not in page and "url(" not in page
    assert not re.search(r'href="(?!#)', page) and "@import" not in page
    assert len(re.findall(r"<script\b", page)) == 1  # the JSON data only, no code
    tricky = build_report(["a <b> & c"], ["a <b> & c"], n_bootstrap=10, title="<i>x</i> & y").html
    body = tricky.split("<script")[0]
    assert html.escape("<i>x</i> & y") in body and "<i>x</i>" not in body and "a &lt;b&gt; &amp; c" in body


def test_other_shapes_one_system_baseline_no_bleu(wmt17, tmp_path):
    systems, refs = wmt17
    one = build_report(systems[0][1], refs, n_bootstrap=50)
    assert one.data["systems"] == ["system"] and one.data["metrics"][0]["comparison"] is None
    assert one.data["differences"]["kind"] == "lowest"
    scores = one.data["metrics"][0]["sentence_scores"]["system"]
    assert [scores[x["line"] - 1] for x in one.data["differences"]["lines"]] == sorted(scores)[:10]
    base = build_report(systems[:3], refs, comparison="baseline", method="ar", n_samples=200, n_bootstrap=50,
                        sources=[f"source {i}" for i in range(LINES)])
    c = base.data["metrics"][0]["comparison"]
    assert c["baseline"] == WMT17[0] and c["ranking"] is None and c["method"] == "ar"
    assert base.data["differences"]["lines"][0]["source"].startswith("source ")
    chrf_only = build_report(systems[:2], refs, options=ChrfOptions(), comparison="none", n_bootstrap=50)
    assert chrf_only.data["metrics"][0]["comparison"] is None
    for r in (one, base, chrf_only):
        validate(r.data, "report")
    path = tmp_path / "r.html"
    written = write_html_report(path, systems[:2], refs, n_bootstrap=20, n_samples=20)
    assert path.read_text(encoding="utf-8") == written.html


def test_a_chrf_report_explains_sentences_with_chrf(wmt17):
    systems, refs = wmt17
    options = ChrfOptions(word_order=2)
    report = build_report(systems[:2], refs, options=options, method="ar", n_samples=100, n_bootstrap=50)
    validate(report.data, "report")
    explained = report.data["explanations"]
    assert len(explained) == 3 * 2 and {e["metric"] for e in explained} == {"chrf"}
    chrf = CHRF(word_order=2)
    for e in explained:
        i, hyp = e["line"] - 1, dict(systems)[e["system"]][e["line"] - 1]
        assert {k: v for k, v in e.items() if k not in ("line", "system", "metric")} == bleukit.explain_chrf(
            hyp, [refs[i]], options=options).to_dict()
        assert e["score"] == chrf.sentence_score(hyp, [refs[i]]).score  # sacreBLEU's sentence chrF++
    page = report.html.split("<script")[0]
    cards = re.findall(r'<div class="line-card explanation".*?</table>', page, re.S)
    assert len(cards) == 6 and all("word 2-grams" in c and "char 6-grams" in c for c in cards)
    first = explained[0]
    assert f"sentence chrF {first['score']:.2f}" in cards[0]


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"comparison": "all"}, ValueError, "unknown comparison"),
        ({"options": []}, ValueError, "options is empty"),
        ({"options": ["bleu"]}, TypeError, "options must be a metric's options"),
        ({"options": "bleu"}, TypeError, "options must be a metric's options"),
        ({"options": BleuOptions(), "tokenize": "intl"}, TypeError, "not both"),
        ({"n_examples": -1}, ValueError, "n_examples must be an int >= 0"),
        ({"sources": ["only one"]}, ValueError, "sources has 1 lines"),
        ({"title": 3}, TypeError, "title must be a str"),
    ],
)
def test_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        build_report({"a": ["x y", "z"], "b": ["x", "z"]}, ["x y", "z"], **kwargs)


# ----------------------------------------------------------------------------- in a real browser


def _chromium_or_skip():
    if Path(CHROMIUM).exists():
        return CHROMIUM
    message = f"Debian's chromium not found at {CHROMIUM} (apt-get install chromium; .ci/run does)"
    skip_unless_required(message, "BLEUKIT_REQUIRE_BROWSER")


@contextmanager
def _offline_page(path: Path, selector: str):
    """The file ``path`` open in headless Chromium, once ``selector`` is drawn, with every other
    request refused; on the way out, asserts that nothing else was requested (the page is
    self-contained)."""
    executable = _chromium_or_skip()
    playwright = pytest.importorskip("playwright.sync_api")
    requested = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 1400})

            def refuse(route):
                requested.append(route.request.url)
                route.abort()

            page.route(lambda url: url != path.as_uri(), refuse)  # anything but the file itself
            page.goto(path.as_uri())
            page.wait_for_selector(selector)
            yield page
        finally:
            browser.close()
    assert requested == []  # nothing was fetched: the page is self-contained


@pytest.mark.slow
@pytest.mark.serial  # a real Chromium, run alone after the parallel part
def test_the_report_in_headless_chromium(report, tmp_path):
    path = tmp_path / "report.html"
    report.write(path)
    with _offline_page(path, "#explanations") as page:
        data = report.data
        assert page.title() == data["title"] and page.inner_text("#title") == data["title"]
        bleu, chrf = data["metrics"]
        # the scores table shows every system's score and CI as in the data
        rows = page.locator("#scores-bleu tbody tr")
        assert rows.count() == len(WMT17)
        for k, s in enumerate(bleu["scores"]):
            cells = rows.nth(k).locator("td").all_inner_texts()
            assert cells == [s["system"], f"{s['score']:.2f}", f"{s['mean']:.2f} ± {s['ci']:.2f}"]
        # the ranking with its clusters, both metrics
        for m in (bleu, chrf):
            ranking = page.locator(f"#ranking-{m['metric']} tbody tr")
            shown = [ranking.nth(k).locator("td").all_inner_texts() for k in range(ranking.count())]
            assert [(int(r[0]), int(r[1]), r[3]) for r in shown] == [
                (r["rank"], r["cluster"], r["name"]) for r in m["comparison"]["ranking"]]
            assert page.locator(f"#tests-{m['metric']} tbody tr").count() == 10
        assert page.locator("#buckets-bleu tbody tr").count() == len(bleu["buckets"])
        assert page.locator("svg.chart").count() == 3 * len(data["metrics"])  # scores, buckets, distribution
        for chart in page.locator("svg.chart").all():  # every chart is drawn with a size
            box = chart.bounding_box()
            assert box["width"] > 300 and box["height"] > 100
        cards = page.locator("#differences .line-card")
        assert cards.count() == 10
        assert cards.first.get_attribute("data-line") == str(data["differences"]["lines"][0]["line"])
        first = data["explanations"][0]
        tokens = page.locator(".explanation").first.locator(".tokens").first.locator("span")
        assert tokens.all_inner_texts() == first["hypothesis_tokens"]
        assert [t.get_attribute("class") for t in tokens.all()] == [
            f"m{min(k, 4)}" for k in first["hyp_match_order"]]
        embedded = page.evaluate("JSON.parse(document.getElementById('bleukit-report-data').textContent)")
        assert embedded == json.loads(json.dumps(data))
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / "report.png"
        page.screenshot(path=str(shot), full_page=False)
        assert shot.stat().st_size > 10_000
        page.screenshot(path=str(ARTIFACTS / "report-full.png"), full_page=True)
    if os.environ.get("BLEUKIT_UPDATE_README_SCREENSHOT") == "1":
        shutil.copy(shot, REPO / "docs" / "report.png")


def test_one_systems_worst_segments_follow_the_metrics_direction():
    from bleukit.analysis.htmlreport.data import _differing_lines

    scores = {"s": [30.0, 90.0, 10.0, 90.0]}
    assert _differing_lines(scores, ["s"], 2) == [2, 0]  # BLEU/chrF: the lowest first
    assert _differing_lines(scores, ["s"], 2, higher_is_better=False) == [1, 3]  # TER: the highest, ties in order


# ----------------------------------------------------------------------------- the score table's page
# (bleukit.score_table / bleukit-scores --format html: systems × metrics, segment scores and text)


def _embedded_scores(page):
    found = re.search(r'<script type="application/json" id="bleukit-scores-data">(.*?)</script>', page, re.S)
    return json.loads(found.group(1))


def _cells(page):
    """The table's cells as the page shows them: per system, per column key, (text, data attributes)."""
    table = page.split('<table id="scores"')[1].split("</table>")[0]
    rows = {}
    for system, body in re.findall(r'<tr data-system="([^"]*)">(.*?)</tr>', table, re.S):
        cells = {}
        for attrs, text in re.findall(r"<td([^>]*)>(.*?)</td>", body, re.S):
            found = dict(re.findall(r'(data-[a-z]+)="([^"]*)"', attrs))
            key = html.unescape(found.get("data-metric", "autorank" if "data-autorank" in found else "system"))
            cells[key] = (html.unescape(text), {k: html.unescape(v) for k, v in found.items()})
        rows[html.unescape(system)] = cells
    return rows


def _check_cells(page, data):
    """Every cell's text and full-precision attributes are the JSON's numbers."""
    cells = _cells(page)
    assert list(cells) == [r["system"] for r in data["rows"]]
    for r in data["rows"]:
        shown = cells[r["system"]]
        assert shown["system"][0] == r["system"]
        if data["autorank"] is not None:
            assert float(shown["autorank"][1]["data-autorank"]) == r["autorank"]
            assert shown["autorank"][0] == f"{r['autorank']:.1f}"
        for m in data["metrics"]:
            text, attrs = shown[m]
            c = r[m]
            assert float(attrs["data-score"]) == c["score"]
            assert (float(attrs["data-ci"]) if attrs["data-ci"] else None) == c["ci"]
            assert (int(attrs["data-cluster"]) if attrs["data-cluster"] else None) == c["cluster"]
            w = 3 if max(abs(x[m]["score"]) for x in data["rows"]) <= 1.0 else 1
            assert text == f"{c['score']:.{w}f} ± {c['ci']:.{w}f} [{c['cluster']}]"


@pytest.fixture(scope="module")
def wmt25_pages(shared_data):
    """bleukit-scores on WMT25's own files (cs-de, 40 systems, 3 metrics), as JSON and as HTML."""
    from bleukit.cli.scores import main

    args = [str(shared_data / "wmt25-scores"), "--language-pair", "cs-de_DE", "--autorank", "wmt25",
            "--n-samples", "200", "--metrics", "XCOMET-XL", "GEMBA-ESA-GPT4.1", "MetricX-24-Hybrid-XL"]
    pages = {}
    for fmt in ("json", "html"):
        out, err = io.StringIO(), io.StringIO()
        assert main(args + ["-f", fmt], stdout=out, stderr=err) == 0, err.getvalue()
        pages[fmt] = out.getvalue()
    return pages


def test_score_table_page_holds_the_json_outputs_numbers_on_wmt25(wmt25_pages, shared_data):
    data = json.loads(wmt25_pages["json"])
    page = wmt25_pages["html"]
    validate(data, "cli-scores")
    assert _embedded_scores(page) == data  # the same data, every digit
    table = bleukit.score_table(bleukit.read_scores(shared_data / "wmt25-scores", language_pair="cs-de_DE"),
                                metrics=["XCOMET-XL", "GEMBA-ESA-GPT4.1", "MetricX-24-Hybrid-XL"], n_samples=200,
                                autorank="wmt25")
    assert json.loads(table.format("json")) == data and table.to_html() + "\n" == page
    assert len(data["systems"]) == 40
    _check_cells(page, data)
    for m, signature in data["signatures"].items():  # each metric's signature, its format and score hash
        assert f'<li>{html.escape(m)}: <span class="sig">{html.escape(signature)}</span></li>' in page
        assert "format:wmt25" in signature and "hash:" in signature
    # 780 pairs and 200 resamples: no Holm-corrected p-value can reach 0.05, and the page says so
    assert "Note: with 780 comparisons and 200 resamples" in page
    assert page.count("<section id=\"metric-") == 3 and 'id="ranking-XCOMET-XL"' in page
    assert "MetricX-24-Hybrid-XL ↓" not in page  # WMT25 stores MetricX negated: higher is better


def test_score_table_page_with_text_metrics_escapes_every_name(tmp_path):
    """A small case with BLEU/chrF/TER from text next to a judge's segment scores; system, metric,
    model names and the title are hostile markup, escaped everywhere but the JSON (where no "<" is left)."""
    from bleukit.cli.scores import main

    evil = '<img src=x onerror=alert(1)>'
    names = [f"A{evil}", "B&amp;\"quoted\"", "C<!--<script>"]
    refs = ["the cat sat on the mat", "a dog barked loudly", "it is raining today", "we went home"]
    hyps = {names[0]: ["the cat sat on the mat", "a dog barked", "it is raining today", "we went home"],
            names[1]: ["the cat sat on a mat", "a dog barks loudly", "it rains today", "we go home"],
            names[2]: ["cat mat", "dog", "rain", "home"]}
    judge = {names[0]: [95, 80, 90, 85], names[1]: [80, 70, 75, 70], names[2]: [20, 30, 10, 25]}
    scores = bleukit.SegmentScores(names, {f"judge{evil}": [judge[n] for n in names]},
                                   info={f"judge{evil}": {"model": f"gpt</script>{evil}"}})
    table = bleukit.score_table(scores, hypotheses=hyps, references=refs,
                                lexical=[BleuOptions(), ChrfOptions(), bleukit.TerOptions()], n_samples=100,
                                autorank="wmt25")
    page = table.to_html(title=f"Run {evil}")
    data = table.to_dict()
    assert _embedded_scores(page) == json.loads(table.format("json"))
    assert "<" not in re.search(r'id="bleukit-scores-data">(.*?)</script>', page, re.S).group(1)
    _check_cells(page, data)
    assert data["metrics"] == [f"judge{evil}", "BLEU", "chrF2", "TER"]
    body = page.split('<script type="application/json"')[0]
    assert evil not in body and "<!--" not in body and "</script>" not in body and "<img" not in body
    assert html.escape(f"Run {evil}") in body and html.escape(names[1]) in body
    assert len(re.findall(r"<script\b", page)) == 1 and not re.search(r'href="(?!#)', page)
    assert "TER ↓" in body
    assert html.escape(f"model:gpt</script>{evil}") in body  # the model named in the judge's signature
    with pytest.raises(TypeError, match="title must be a str"):
        table.to_html(title=3)
    # the command line writes the same page from files
    folder = tmp_path / "run"
    folder.mkdir()
    two = {"sysA": judge[names[0]], "sysB": judge[names[1]]}
    for name, values in two.items():
        (folder / f"{name}.txt").write_text("".join(f"{v}\n" for v in values), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = main([str(folder / "sysA.txt"), str(folder / "sysB.txt"), "--metric", "judge", "--n-samples", "50",
                        "--format", "html", "--title", "x<y"], stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    assert "<title>x&lt;y</title>" in out.getvalue() and _embedded_scores(out.getvalue())["systems"] == ["sysA", "sysB"]


@pytest.mark.slow
@pytest.mark.serial  # a real Chromium, run alone after the parallel part
def test_the_score_table_in_headless_chromium(wmt25_pages, tmp_path):
    path = tmp_path / "scores.html"
    path.write_text(wmt25_pages["html"], encoding="utf-8")
    data = json.loads(wmt25_pages["json"])
    with _offline_page(path, "#scores") as page:
        headers = page.locator("#scores thead th").all_inner_texts()
        assert headers == ["System", "AutoRank", *data["metrics"]]
        rows = page.locator("#scores tbody tr")
        assert rows.count() == len(data["rows"]) == 40
        for k in (0, 1, 20, 39):
            r = data["rows"][k]
            cells = rows.nth(k).locator("td").all_inner_texts()
            expected = [r["system"], f"{r['autorank']:.1f}"]
            for m in data["metrics"]:
                c = r[m]
                w = 3 if max(abs(x[m]["score"]) for x in data["rows"]) <= 1.0 else 1
                expected.append(f"{c['score']:.{w}f} ± {c['ci']:.{w}f} [{c['cluster']}]")
            assert cells == expected
        box = page.locator("#scores").bounding_box()
        assert box["width"] > 500 and box["height"] > 40 * 15  # drawn, one line per system
        for m in data["metrics"]:
            assert page.locator(f"[id='ranking-{m}'] tbody tr").count() == 40
        embedded = page.evaluate("JSON.parse(document.getElementById('bleukit-scores-data').textContent)")
        assert embedded == data
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "scores.png"), full_page=False)
