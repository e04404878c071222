"""The Gradio app: its functions against sacreBLEU, its API through gradio_client on a running
server, and its page in a real headless Chromium driven by Playwright."""

from __future__ import annotations

import html
import inspect
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import sacrebleu
from sacrebleu.metrics import BLEU
from shared_data import REPO, read_lines, skip_unless_required

import bleukit
from bleukit import BleuOptions, corpus_statistics
from bleukit.analysis.explain import explain_bleu

pytest.importorskip("gradio")
# one xdist worker runs the module: one app server and one browser, as when run alone (two of each
# on a loaded two-core machine made the browser tests' waits run out)
pytestmark = pytest.mark.xdist_group("app")

CHROMIUM = os.environ.get("BLEUKIT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARTIFACTS = REPO / "test-artifacts"


def _sacre_streams(refs):
    """Per-hypothesis references → sacreBLEU's reference streams (all sets are full here)."""
    return [list(s) for s in zip(*refs)]


# ----------------------------------------------------------------------------- functions


def test_lines_and_reference_sets(app):
    assert app.split_lines("a\nb\n", "x") == ["a", "b"]
    assert app.split_lines("a\n\nb", "x") == ["a", "", "b"]  # an empty line is a segment
    assert app.split_lines("  \n", "x") == []
    hyps, refs = app.parse_corpus("h1\nh2", ["r1\nr2", None, "", "s1\n\n"])
    assert hyps == ["h1", "h2"]
    assert refs == [["r1", "s1"], ["r2", ""]]  # an empty line in a used set: an empty reference


@pytest.mark.parametrize(
    "hyps, sets, message",
    [
        ("", ["a"], "hypotheses are empty"),
        ("a\nb", ["", None], "No references"),
        ("a\nb", ["a"], "Reference set 1 has 1 line\\(s\\) but there are 2 hypotheses"),
        ("a\nb", ["a\nb", "x\ny\nz"], "Reference set 2 has 3 line"),
        ("a", ["a"] * 5, "At most 4 reference sets"),
    ],
)
def test_clear_messages_for_bad_input(app, hyps, sets, message):
    with pytest.raises(ValueError, match=message):
        app.parse_corpus(hyps, sets)


def test_docstring_examples(app):
    import doctest

    assert sum(doctest.testmod(m, raise_on_error=True).attempted for m in app.modules.values()) >= 20


def test_wrong_types_are_named(app):
    with pytest.raises(TypeError, match="hypotheses must be one text"):
        app.parse_corpus(["a", "b"], ["a\nb"])
    with pytest.raises(TypeError, match="single string"):
        app.parse_corpus("a", "a")
    with pytest.raises(TypeError, match="reference set 1 must be one text"):
        app.parse_corpus("a", [["a"]])


def test_api_lists_are_never_strings_and_missing_inputs_are_named(app):
    # /bleu and /compare iterated a references string: a 2-character string became 2 reference sets.
    import gradio as gr

    for call in (
        lambda: app.bleu("a b\nc d", "ab"),
        lambda: app.variants("a b\nc d", "ab"),
        lambda: app.compare(["a b\nc d", "a c\nc d"], "ab"),
        lambda: app.compare("ab", ["a b"]),
        lambda: app.compare(["a b", "a c"], ["a b"], names="xy"),
        lambda: app.explain("a b", "ab"),
    ):
        with pytest.raises(gr.Error, match="single string; wrap it: \\[text\\]"):
            call()
    for call, message in (
        (lambda: app.bleu(None, None), "hypotheses are empty"),
        (lambda: app.bleu("a b", None), "No references"),
        (lambda: app.explain(None, ["a"]), "hypothesis is missing"),
        (lambda: app.explain("a b", None), "give 1 to 4 references"),
        (lambda: app.compare(None, None), "Fill at least 2 systems"),
        (lambda: app.variants(None, ["a"]), "hypotheses are empty"),
    ):
        with pytest.raises(gr.Error, match=message):
            call()
    for refs in ({"a b"}, {"set": "a b"}, (r for r in ["a b"])):
        if isinstance(refs, (set, dict)):
            with pytest.raises(gr.Error, match="references must be"):
                app.bleu("a b", refs)
        else:
            assert app.bleu("a b", refs)["corpus"]["score"] == app.bleu("a b", ["a b"])["corpus"]["score"]


def test_explain_is_bounded_in_time_and_size(app, shared_data):
    # /explain at the field limits (2M characters, 4 references) took 84 s and returned 86 MB.
    import gradio as gr

    words = " ".join(read_lines(shared_data / "wmt17-en-de" / "ref.de")).split()
    long = " ".join(words[: app.MAX_EXPLAIN_TOKENS + 1])
    with pytest.raises(gr.Error, match="hypothesis has [0-9,]+ tokens: explanations take segments of at most 5,000"):
        app.explain(long, [long[:100]])
    with pytest.raises(gr.Error, match="reference 4 has 2,000,000 characters"):
        app.explain("a b", ["a b"] * 3 + ["x" * app.MAX_CHARS])
    fits = " ".join(words[:4000])
    start = time.monotonic()
    got = app.explain(fits, [" ".join(words[k * 7 : k * 7 + 4000]) for k in range(4)])
    assert time.monotonic() - start < 60  # about a second; a loose bound for a loaded machine
    assert len(json.dumps(got)) < 5_000_000
    refs = [" ".join(words[k * 7 : k * 7 + 4000]) for k in range(4)]
    options = BleuOptions().sentence_level()
    assert got["row"] == corpus_statistics([fits], [refs], options=options).rows[0].tolist()
    for order, full in zip(got["orders"], explain_bleu(fits, refs, options=options).orders):
        hits = [m for m in full.ngrams if m.matched]
        misses = [m for m in full.ngrams if not m.matched]
        kept = hits[: app.MAX_SHOWN_NGRAMS] + misses[: app.MAX_SHOWN_NGRAMS]
        assert [n["ngram"] for n in order["ngrams"]] == [" ".join(m.ngram) for m in full.ngrams if m in kept]
        assert order["ngrams_omitted"] == len(full.ngrams) - len(kept) > 0
        assert (order["matched"], order["total"]) == (full.matched, full.total)
    # the page explains within the same limits, and says so beyond them
    report = app.score_report(long, [long], options=app.make_options())
    panel = app._explain_line(app.ScoredCorpus.from_report(report), 1, None)
    assert "Line 1 is not explained: the hypothesis has" in html.unescape(panel)


def test_size_limits(app):
    too_many = "x\n" * (app.MAX_SEGMENTS + 1)
    with pytest.raises(ValueError, match="over the limit of 10,000 segments"):
        app.parse_corpus(too_many, [too_many])
    too_long = "x" * (app.MAX_CHARS + 1)
    with pytest.raises(ValueError, match="characters is over the limit"):
        app.parse_corpus("x", [too_long])
    with pytest.raises(ValueError, match="between 1 and 10"):
        app.make_options(max_ngram_order=11)
    with pytest.raises(ValueError, match="unknown tokenize"):
        app.make_options(tokenize="moses")


def test_smoothing_value_only_where_the_method_takes_one(app):
    assert app.make_options(smooth_method="exp", smooth_value=0.0).resolved_smooth_value is None
    assert app.make_options(smooth_method="floor", smooth_value=0.2).resolved_smooth_value == 0.2
    assert app.make_options(smooth_method="add-k", smooth_value=None).resolved_smooth_value == 1


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"tokenize": "intl", "lowercase": True},
        {"smooth_method": "floor", "smooth_value": 0.2, "max_ngram_order": 3},
        {"smooth_method": "add-k", "tokenize": "char"},
        {"smooth_method": "none", "effective_order": True, "max_ngram_order": 2},
    ],
)
def test_report_equals_sacrebleu_on_the_bundled_examples(app, kwargs):
    hyps_text = (REPO / "examples" / "hyps.txt").read_text(encoding="utf-8")
    sets = [(REPO / "examples" / f"refs.{k}.txt").read_text(encoding="utf-8") for k in "ab"]
    report = app.score_report(hyps_text, sets, options=app.make_options(**kwargs))
    hyps, refs = app.parse_corpus(hyps_text, sets)
    expected = BLEU(**kwargs).corpus_score(hyps, _sacre_streams(refs))
    assert report["corpus"]["score"] == expected.score
    assert report["corpus"]["counts"] == expected.counts and report["corpus"]["totals"] == expected.totals
    assert report["corpus"]["bp"] == expected.bp
    sent_kwargs = {k: v for k, v in kwargs.items() if k != "effective_order"}
    for s, hyp, ref in zip(report["sentences"], hyps, refs):
        want = BLEU(**sent_kwargs, effective_order=True).sentence_score(hyp, ref)  # as sentence_bleu
        assert s["score"] == want.score
        assert (s["sys_len"], s["ref_len"]) == (want.sys_len, want.ref_len)
    assert json.loads(Path(app.write_json(report)).read_text(encoding="utf-8")) == report


def test_report_on_real_data(app, shared_data):
    folder = shared_data / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.JDExploreAcademy.en")
    sets = [read_lines(folder / f"ref.{k}.en") for k in "AB"]
    report = app.score_report("\n".join(hyps), ["\n".join(s) for s in sets], options=app.make_options())
    expected = sacrebleu.corpus_bleu(hyps, sets)
    assert report["corpus"]["score"] == expected.score
    assert report["corpus"]["signature"].startswith("nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|")
    assert len(report["sentences"]) == len(hyps) == 1984


def test_page_pieces_escape_user_text(app):
    options = app.make_options(tokenize="none")
    report = app.score_report("<b>bold</b> & ${1+1}", ["<b>bold</b>"], options=options)
    s = report["sentences"][0]
    page = app.explanation_html(1, explain_bleu(s["hypothesis"], s["references"], options=options), s["score"], None)
    assert "<b>bold" not in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "&amp;" in page
    frame = app.sentence_frame(report, app.SORT_CHOICES[0])
    assert frame["hypothesis"][0] == "<b>bold</b> & ${1+1}"
    chart = app.parts_frame(report)
    assert chart["value"].tolist()[:4] == report["corpus"]["precisions"]
    assert chart["value"].tolist()[4] == pytest.approx(100 * report["corpus"]["bp"])


def test_uploads_are_read_as_utf8_text_within_the_limits(app, tmp_path):
    good = tmp_path / "refs.txt"
    good.write_text("Straße\nzwei\n", encoding="utf-8")
    assert app.on_upload_hyps(str(good)) == ("Straße\nzwei\n", "")
    assert app.on_upload_refs([str(good), str(good)]) == ("Straße\nzwei\n",) * 2 + ("", "", "")
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("Straße".encode("latin-1"))
    with pytest.raises(ValueError, match="not UTF-8"):
        app.read_upload(str(latin1), "The hypothesis file")
    # On the page an upload error is a notice (the text boxes are left as they were), not a raise.
    kept, notice = app.on_upload_hyps(str(latin1))
    assert kept == app.gr.update() and 'role="alert"' in notice and "not UTF-8" in notice
    *boxes, notice = app.on_upload_refs([str(good)] * 5)
    assert all(b == app.gr.update() for b in boxes) and "At most 4 reference files" in notice


def test_a_byte_order_mark_is_kept_as_sacrebleu_and_the_command_line_keep_it(app, tmp_path):
    """sacreBLEU and `bleukit` read files as UTF-8 (not utf-8-sig): a BOM is text of line 1. The
    app keeps it too, so all three give one number, and says so next to the result."""
    hyp_file, ref_file = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp_file.write_bytes("28 Tage später\nzwei Tage\n".encode("utf-8-sig"))
    ref_file.write_text("28 Tage später\nzwei Tage\n", encoding="utf-8")
    text, notice = app.on_upload_hyps(str(hyp_file))
    assert text.startswith(app.BOM) and "byte-order mark" in notice and 'id="bleu-note"' in notice
    outputs = app.on_score(
        text, ref_file.read_text(encoding="utf-8"), "", "", "", *app.reset_options(), app.SORT_CHOICES[0]
    )
    notice, report = outputs[0], outputs[4].report
    assert "Line 1 of the hypotheses begins with a byte-order mark" in notice
    hyps = sacrebleu.utils.smart_open(str(hyp_file)).read().splitlines()  # how sacreBLEU reads a file
    refs = sacrebleu.utils.smart_open(str(ref_file)).read().splitlines()
    assert hyps[0].startswith(app.BOM)
    assert report["corpus"]["score"] == sacrebleu.corpus_bleu(hyps, [refs]).score
    assert report["corpus"]["score"] < 100  # "\ufeff28" does not match "28"
    cli = subprocess.run(
        [sys.executable, "-m", "bleukit", str(ref_file), "-i", str(hyp_file)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO / "src")),
        timeout=120,
    )
    assert json.loads(cli.stdout)["score"] == report["corpus"]["score"]
    # The explanation draws the mark, so the unmatched "28" next to "28" has a visible reason.
    assert 'title="byte-order mark U+FEFF">⟨BOM⟩</span>28</span>' in outputs[-1]  # the token
    assert '<span class="ngtok"><span class="bom" title="byte-order mark U+FEFF">⟨BOM⟩</span>28</span>' in outputs[-1]


def test_an_input_error_clears_every_earlier_result(app, caplog):
    notice, score, chart, table, state, download, line, highlight, explanation = app.on_score(
        "one\ntwo", "one", "", "", "", *app.reset_options(), app.SORT_CHOICES[0]
    )
    assert notice.count("Reference set 1 has 1 line(s) but there are 2 hypotheses") == 1
    assert 'role="alert"' in notice
    assert score == "" and chart is None and state is None and explanation == ""
    assert table.empty and list(table.columns) == app.TABLE_COLUMNS
    assert download == app.gr.update(value=None, visible=False)
    # One log line, no traceback.
    assert [r.getMessage() for r in caplog.records if r.name == "bleukit.app"] == [
        "input error in score: Reference set 1 has 1 line(s) but there are 2 hypotheses: line i of every "
        "reference set must be a reference of hypothesis line i."
    ]


def test_examples_set_every_option_and_reset_restores_the_defaults(app):
    defaults = {**BleuOptions().to_dict(), "smooth_value": None}
    for example in app.EXAMPLES:
        assert len(example) == 1 + app.MAX_REFERENCE_SETS + len(app.FORM_OPTIONS)
    clipping = dict(zip(app.FORM_OPTIONS, app.EXAMPLES[5][5:]))
    assert clipping["tokenize"] == defaults["tokenize"] and clipping["smooth_method"] == defaults["smooth_method"]
    assert dict(zip(app.FORM_OPTIONS, app.reset_options())) == {k: defaults[k] for k in app.FORM_OPTIONS}


def test_score_shows_the_options_used_and_a_readable_signature(app):
    report = app.score_report("a b c", ["a b c"], options=app.make_options(smooth_method="floor", lowercase=True))
    page = app.score_html(report)
    assert '<b class="opt changed">smoothing floor 0.10</b>' in page and '<b class="opt changed">lowercase</b>' in page
    assert "(2 not default)" in page
    assert "(all defaults)" in app.score_html(app.score_report("a", ["a"], options=app.make_options()))
    # Breaks only between fields: every field is whole between two <wbr>.
    shown = page.split('id="bleu-signature">')[1].split("</code>")[0]
    assert shown.split("<wbr>") == [f + "|" for f in report["corpus"]["signature"].split("|")[:-1]] + [
        report["corpus"]["signature"].split("|")[-1]
    ]


def test_sentence_scores_show_two_decimals(app):
    report = app.score_report("a b c d\na b x d\nq", ["a b c d\na b c d\nq r"], options=app.make_options())
    shown = app.sentence_table(report, app.SORT_CHOICES[0]).to_html()
    for s in report["sentences"]:
        assert f">{s['score']:.2f}<" in shown


def test_every_example_scores_as_sacrebleu(app):
    fields = ["tokenize", "smooth_method", "smooth_value", "lowercase", "max_ngram_order", "effective_order"]
    scores = {}
    for example in app.EXAMPLES:
        hyps_text, sets, kwargs = example[0], example[1:5], dict(zip(fields, example[5:]))
        report = app.score_report(hyps_text, sets, options=app.make_options(**kwargs))
        hyps, refs = app.parse_corpus(hyps_text, sets)
        oracle = BLEU(**{k: v for k, v in kwargs.items() if v is not None})
        assert report["corpus"]["score"] == oracle.corpus_score(hyps, _sacre_streams(refs)).score
        scores[hyps_text] = report["corpus"]["score"]
    # the textbook seed examples, on the 0-100 scale
    assert scores["the cat sat on the mat"] == pytest.approx(100 * 5 / 6, abs=1e-12)
    assert scores["a b c d"] == pytest.approx(50.0, abs=1e-12)
    assert any(sum(1 for r in e[1:5] if r) >= 2 for e in app.EXAMPLES)  # a multi-reference one


def test_long_sentences_are_drawn_in_part_and_say_so(app):
    hyp = " ".join(f"w{i}" for i in range(app.MAX_SHOWN_TOKENS + 50))
    options = app.make_options()
    page = app.explanation_html(1, explain_bleu(hyp, hyp, options=options), 100.0, None)
    assert page.count('class="tok m4"') == 2 * app.MAX_SHOWN_TOKENS + 1  # hyp, ref, legend swatch
    assert "… 50 more tokens not drawn" in page
    assert f"and {app.MAX_SHOWN_TOKENS + 50 - app.MAX_SHOWN_NGRAMS:,} more" in page


def test_sentence_table_sorts_by_score(app):
    report = app.score_report("a b c d\nx y z w\na b x d", ["a b c d\nx y q w\nq q q q"], options=app.make_options())
    scores = [s["score"] for s in report["sentences"]]
    low = app.sentence_frame(report, "lowest BLEU first")
    high = app.sentence_frame(report, "highest BLEU first")
    assert low["sentence BLEU"].tolist() == sorted(round(x, 2) for x in scores)
    assert high["line"].tolist() == sorted(range(1, 4), key=lambda i: -scores[i - 1])


def test_runs_from_source_where_only_requirements_are_installed(tmp_path):
    """A Space has requirements.txt installed but not bleukit: app.py must use src/ itself."""
    import site
    import venv

    env_dir = tmp_path / "space-env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    probe = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    purelib = Path(
        subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    )
    # Our site-packages as a plain path: its packages import, but its .pth files (the editable
    # install of bleukit) are not run, as where the package was never installed.
    (purelib / "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    code = (
        "import importlib.util, sys\n"
        "assert importlib.util.find_spec('bleukit') is None, 'bleukit should not be installed here'\n"
        f"spec = importlib.util.spec_from_file_location('app', {str(REPO / 'app.py')!r})\n"
        "app = importlib.util.module_from_spec(spec); spec.loader.exec_module(app)\n"
        "from bleukit.app.forms import make_options\n"
        "from bleukit.app.reports import score_report\n"
        "print(app.bleukit.__file__)\n"
        "print(score_report('a b c d', ['a b c d'], make_options())['corpus']['score'])\n"
    )
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False")
    env.pop("PYTHONPATH", None)
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    where, score = out.stdout.split()[-2:]
    assert Path(where).is_relative_to(REPO / "src")
    assert float(score) == pytest.approx(100.0)


# ----------------------------------------------------------------------------- running server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def testset_cache(tmp_path_factory):
    """sacreBLEU's cache holding raw test sets made from the shared WMT lines (WMT22 de-en as WMT
    XML with two translators and two systems: tests/testsets/testset_caches.py), offline: the
    environment variables that point the server and the test at it."""
    import testset_caches

    root = tmp_path_factory.mktemp("sacrebleu")
    env = testset_caches.environment(root, testset_caches.build(root))
    return {k: env[k] for k in ("SACREBLEU", "BLEUKIT_TESTSETS_EXTRA", "BLEUKIT_TESTSETS_OFFLINE")}


@pytest.fixture(scope="module")
def server(testset_cache):
    """`python app.py` on 127.0.0.1 and a free port, as `make app` and a Space run it."""
    port = _free_port()
    env = dict(os.environ, GRADIO_SERVER_PORT=str(port), GRADIO_ANALYTICS_ENABLED="False", **testset_cache)
    env.pop("GRADIO_SERVER_NAME", None)
    ARTIFACTS.mkdir(exist_ok=True)
    log = open(ARTIFACTS / "app-server.log", "w")  # the server's own output, kept for a failing run
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "app.py")], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 120
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"app.py exited with status {proc.returncode} before answering")
            try:
                with urllib.request.urlopen(url, timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("app.py did not answer on 127.0.0.1 within 120 s")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def client(server):
    from gradio_client import Client

    return Client(server, verbose=False)


def _raw_call(server: str, endpoint: str, data: list) -> str:
    """An endpoint called over plain HTTP with ``data`` as it is (no gradio_client between): the
    event stream's text."""
    request = urllib.request.Request(
        server + f"gradio_api/call/{endpoint}", data=json.dumps({"data": data}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as r:
        event = json.loads(r.read())["event_id"]
    with urllib.request.urlopen(server + f"gradio_api/call/{endpoint}/{event}", timeout=60) as r:
        return r.read().decode()


def test_api_lists_the_endpoints(client):
    endpoints = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    assert set(endpoints) == {"/bleu", "/explain", "/compare", "/variants", "/metrics", "/scores"}


def test_api_metrics_and_compare_with_ter(client):
    from sacrebleu.metrics import CHRF, TER

    hyps, refs = ["the cat sat on the mat", "it is raining today"], ["the mat the cat sat on", "it rains today"]
    rows = client.predict("\n".join(hyps), ["\n".join(refs)], api_name="/metrics")["rows"]
    wants = [CHRF(), CHRF(word_order=2), TER()]
    assert [(r["name"], r["score"]) for r in rows] == [(w.corpus_score(hyps, [refs]).name,
                                                        w.corpus_score(hyps, [refs]).score) for w in wants]
    report = client.predict(["\n".join(hyps), "the cat sat\nit is raining"], ["\n".join(refs)], n_samples=50,
                            metric="TER", api_name="/compare")
    assert report["metric"] == "TER" and report["higher_is_better"] is False
    assert report["systems"][1]["score"] == TER().corpus_score(["the cat sat", "it is raining"], [refs]).score


def test_api_scores_equals_score_table(client, shared_data):
    """/scores on three WMT25 files: the JSON of bleukit.score_table on the same scores (read from
    the folder at once, as test_app_scores does), AutoRank included."""
    from gradio_client import handle_file

    folder, names = shared_data / "wmt25-scores", ["Shy", "GPT-4.1", "Claude-4"]
    got = client.predict(score_files=[handle_file(folder / f"{name}.jsonl") for name in names],
                         language_pair="cs-de_DE", n_samples=200, seed=7,
                         autorank="WMT25 (scaled by median and P100 − P25)", api_name="/scores")
    full = bleukit.read_scores(folder, language_pair="cs-de_DE")
    keep = [full.systems.index(s) for s in names]
    scores = bleukit.SegmentScores(names, {m: full.array(m)[keep] for m in full.metrics},
                                   lower_is_better=full.lower_is_better, info={m: full.info(m) for m in full.metrics})
    want = bleukit.score_table(scores, n_samples=200, seed=7, autorank="wmt25")
    assert got == json.loads(want.format("json"))
    assert got["systems"] == names and "bs:200|seed:7" in got["comparisons"]["XCOMET-XL"]["signature"]


def test_api_scores_reports_bad_input_as_the_tab(app, client, server, tmp_path):
    from gradio_client import handle_file
    from gradio_client.exceptions import AppError

    (tmp_path / "sysA.txt").write_text("0.5\n0.7\n", encoding="utf-8")
    (tmp_path / "sysB.txt").write_text("0.4\nabc\n", encoding="utf-8")
    files = [tmp_path / "sysA.txt", tmp_path / "sysB.txt"]
    message = "sysB.txt, line 2: 'abc' is not a number"  # the uploaded name, not the server's folder
    assert html.escape(message) in app.on_scores([str(f) for f in files], None, None)[0]  # the tab says it
    with pytest.raises(AppError, match=re.escape(message)):
        client.predict(score_files=[handle_file(f) for f in files], api_name="/scores")
    # a path string would name a file on the server: only uploads (Gradio checks those) are read
    with pytest.raises(AppError, match="file 1 is a str, not a file"):
        client.predict(score_files=[str(REPO / "app.py")], api_name="/scores")
    # nor a file object naming one (raw HTTP; gradio_client would upload a file it finds here)
    forged = {"path": str(REPO / "app.py"), "meta": {"_type": "gradio.FileData"}}
    others = [None] * (len(inspect.signature(app.scores).parameters) - 1)
    answer = _raw_call(server, "scores", [[forged]] + others)
    assert "event: error" in answer and "not uploaded by a user" in answer and "demo app" not in answer


def test_api_compare_equals_the_core(client):
    refs = [
        "the cat sat on the mat",
        "a dog barked at the postman",
        "it is raining in the city today",
        "hello world , said the program",
        "she reads a book every night",
        "the train leaves at noon",
    ]
    base = [
        "the cat sat on a mat",
        "the dog barked at a postman",
        "it rains in the city today",
        "hello world said the program",
        "she is reading a book each night",
        "the train departs at noon",
    ]
    new = [
        "the cat sat on the mat",
        "a dog barked at the postman",
        "it is raining in town today",
        "hello world , the program said",
        "she reads one book every night",
        "the train leaves at noon",
    ]
    got = client.predict(
        systems=["\n".join(base), "\n".join(new)],
        references=["\n".join(refs)],
        names=["base", "new"],
        method="ar",
        n_samples=500,
        seed=7,
        lowercase=True,
        api_name="/compare",
    )
    want = bleukit.paired_test({"base": base, "new": new}, refs, method="ar", n_samples=500, seed=7, lowercase=True)
    assert [s["name"] for s in got["systems"]] == ["base", "new"]
    for row, w in zip(got["systems"], want):
        assert row["score"] == w.score and row["p_value"] == w.p_value and row["mean"] is None
    assert got["signature"] == want[0].result.signature and "ar:500|seed:7|case:lc" in got["signature"]
    assert got["systems"][1]["significant"] == (want[1].p_value < 0.05)
    ranked = client.predict(
        systems=["\n".join(base), "\n".join(new)], references=["\n".join(refs)], names=["base", "new"], method="ar",
        n_samples=500, seed=7, comparison="rank", correction="bonferroni", api_name="/compare",
    )
    expected = bleukit.compare_systems({"base": base, "new": new}, refs, method="ar", n_samples=500, seed=7,
                                       correction="bonferroni")
    assert ranked["ranking"] == json.loads(json.dumps(expected.to_dict()))
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="System 'new' has 1 line"):
        client.predict(systems=["a\nb", "a"], references=["a\nb"], names=["base", "new"], api_name="/compare")


def test_api_variants_equals_the_core(client):
    hyps, refs = ["It is raining today."], [["It rains today.", "It is raining today!"]]
    got = client.predict(hypotheses=hyps[0], references=[r for r in refs[0]], api_name="/variants")
    assert got == json.loads(json.dumps(bleukit.compare_variants(hyps, refs).to_dict()))


def test_api_bleu_equals_the_core(client):
    hyps = ["The cat sat on the mat.", "It is raining today.", "A dog barked."]
    refs = [
        ["The cat sat on the mat.", "A cat sat on a mat."],
        ["It rains today.", "Today it rains."],
        ["The dog barked loudly.", "A dog was barking."],
    ]
    sets = ["\n".join(s) for s in _sacre_streams(refs)]
    got = client.predict(
        hypotheses="\n".join(hyps),
        references=sets,
        tokenize="intl",
        lowercase=True,
        smooth_method="floor",
        smooth_value=0.3,
        api_name="/bleu",
    )
    options = BleuOptions(tokenize="intl", lowercase=True, smooth_method="floor", smooth_value=0.3)
    want = bleukit.score_statistics(corpus_statistics(hyps, refs, options=options), options)
    assert got["corpus"] == json.loads(want.to_json())
    assert got["corpus"]["score"] == sacrebleu.corpus_bleu(
        hyps, _sacre_streams(refs), tokenize="intl", lowercase=True, smooth_method="floor", smooth_value=0.3
    ).score
    assert [s["line"] for s in got["sentences"]] == [1, 2, 3]


@pytest.mark.parametrize(
    "hyps, sets, message",
    [("a\nb", ["a"], "Reference set 1 has 1 line"), ("", ["a"], "hypotheses are empty"), ("a", [""], "No references")],
)
def test_api_bleu_reports_bad_input(client, hyps, sets, message):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match=message):
        client.predict(hypotheses=hyps, references=sets, api_name="/bleu")


def test_api_bleu_names_a_wrong_layout(client):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="reference set 1 must be one text"):
        client.predict(hypotheses="a b", references=[["a b"]], api_name="/bleu")


def test_api_explain_agrees_with_statistics(client):
    hyp, refs = "the the the cat sat", ["the cat sat on the mat", "a cat sat"]
    got = client.predict(hypothesis=hyp, references=refs, api_name="/explain")
    options = BleuOptions()
    assert got["row"] == corpus_statistics([hyp], [refs], options=options).rows[0].tolist()
    assert got["bleu"] == sacrebleu.sentence_bleu(hyp, refs).score
    the = got["orders"][0]["ngrams"][0]
    assert (the["ngram"], the["hyp_count"], the["ref_count"], the["matched"]) == ("the", 3, 2, 2)


def test_api_answers_hostile_calls_with_a_message(client, server):
    # A seed >= 2**64 ended in an ASGI traceback and a bare CancelledError; a short input list
    # (a raw HTTP call that leaves arguments out) in Gradio's null-message error.
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="below 2\\*\\*64"):
        client.predict(systems=["a b c", "a b d"], references=["a b c"], seed=2**64, api_name="/compare")
    got = client.predict(systems=["a b c", "a b d"], references=["a b c"], seed=2**64 - 1, n_samples=20,
                         api_name="/compare")
    assert got["seed"] == 2**64 - 1
    with pytest.raises(AppError, match="single string"):
        client.predict(hypotheses="a b\nc d", references="ab", api_name="/bleu")
    answer = _raw_call(server, "bleu", ["a b"])
    assert "event: error" in answer and '"error": null' not in answer and "needed: 8, got: 1" in answer


# ----------------------------------------------------------------------------- browser


def _chromium_or_skip():
    if Path(CHROMIUM).exists():
        return CHROMIUM
    message = f"Debian's chromium not found at {CHROMIUM} (apt-get install chromium; .ci/run does)"
    skip_unless_required(message, "BLEUKIT_REQUIRE_BROWSER")


@pytest.fixture(scope="module")
def browser(server):
    executable = _chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def browser_context(browser):
    """One browser context (one profile) for the module's pages: its HTTP cache keeps the app's
    scripts and styles after the first page, as a user's browser does, instead of each page
    fetching and compiling them again in a context of its own."""
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    try:
        yield context
    finally:
        context.close()


@pytest.fixture
def page(browser_context, server):
    """A freshly loaded page per test: each state is reached from the start, as a user would."""
    pg = browser_context.new_page()
    try:
        pg.set_default_timeout(30_000)
        pg.goto(server)
        pg.wait_for_selector("#hyps textarea")
        yield pg
    finally:
        pg.close()


def _shot(page, state: str) -> Path:
    """A full-page screenshot of one state of the page, kept under test-artifacts/."""
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"app-{state}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    return shot


def _score_and_wait(page) -> None:
    """Click Score and wait for this click's answer (a new score or an error), whatever was shown."""
    page.evaluate("() => { for (const id of ['bleu-score', 'bleu-error']) document.getElementById(id)?.remove(); }")
    page.click("#score-btn")
    page.wait_for_selector("#bleu-score[data-score], #bleu-error")


def _fill_form(page, hyps, *sets) -> None:
    page.fill("#hyps textarea", hyps)
    for k in range(1, 5):
        page.fill(f"#ref-{k} textarea", sets[k - 1] if k <= len(sets) else "")


def _single_line(page, selector: str) -> bool:
    """Whether every text node under the element is laid out on one line (not broken inside)."""
    return page.eval_on_selector(
        selector,
        """el => { const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT); const out = [];
                   for (let n = w.nextNode(); n; n = w.nextNode()) {
                     if (!n.textContent.trim()) continue;
                     const r = document.createRange(); r.selectNodeContents(n);
                     const tops = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
                     if (tops.size) out.push(tops.size); }  // hidden text has no box
                   return out.length > 0 && out.every(x => x === 1) ? true : out; }""",
    )


@pytest.mark.slow
def test_browser_initial_state(page):
    # The smoothing value: empty (not a misleading 0) and disabled while the method takes none.
    assert page.input_value("#smooth-value input") == ""
    assert page.is_disabled("#smooth-value input")
    assert "not used by exp" in page.get_attribute("#smooth-value input", "placeholder")
    # "Click to Upload" fits inside its drop zone.
    for zone in ("#hyps-file", "#refs-file"):
        inside = page.eval_on_selector(
            zone,
            """zone => { const box = zone.querySelector('button.upload-container').getBoundingClientRect();
                         const w = document.createTreeWalker(zone, NodeFilter.SHOW_TEXT);
                         for (let n = w.nextNode(); n; n = w.nextNode()) {
                           if (!n.textContent.includes('Click to Upload')) continue;
                           const r = document.createRange(); r.selectNodeContents(n);
                           const t = r.getBoundingClientRect();
                           return [t.top >= box.top, t.bottom <= box.bottom,
                                   t.left >= box.left, t.right <= box.right]; }
                         return null; }""",
        )
        assert inside == [True, True, True, True], (zone, inside)
    assert not page.locator("#download").is_visible()  # nothing to download yet
    _shot(page, "initial")
    # A method picked by hand shows its default and is editable; back to exp, empty again.
    page.click("#smooth-method input")
    page.click("[role=option]:has-text('floor')")
    # Gradio may render the new value and the new interactivity in separate updates: wait for both
    # (a wrong final state fails as a timeout of this wait).
    box = "document.querySelector('#smooth-value input')"
    page.wait_for_function(f"() => {box}.value === '0.1' && !{box}.disabled")
    page.click("#smooth-method input")
    page.click("[role=option]:has-text('exp')")
    page.wait_for_function(f"() => {box}.value === '' && {box}.disabled")


@pytest.mark.slow
def test_browser_score_and_why(page):
    hyps = ["The committee approved the budget.", "It is raining today.", "the the the cat sat <b>x</b>"]
    set_a = ["The committee approved the new budget.", "It rains today.", "the cat sat on the mat"]
    set_b = ["On Tuesday the committee approved the budget.", "Today it is raining.", "a cat sat"]
    _fill_form(page, "\n".join(hyps), "\n".join(set_a), "\n".join(set_b))
    _score_and_wait(page)

    refs = [list(r) for r in zip(set_a, set_b)]
    want = bleukit.corpus_bleu(hyps, refs)
    shown = float(page.get_attribute("#bleu-score", "data-score"))
    assert shown == want.score
    assert page.inner_text("#bleu-score") == f"{want.score:.2f}"
    assert page.inner_text("#bleu-signature") == want.signature
    assert shown == sacrebleu.corpus_bleu(hyps, [set_a, set_b]).score

    # The table lists every line; sorted by score, lowest first, it follows the sentence scores.
    cell = "#sentences [role=gridcell]"
    page.wait_for_selector(f"{cell}:has-text('the the the cat sat')")
    page.click("#sort label:has-text('lowest BLEU first')")
    sentence = bleukit.sentence_bleu_scores(hyps, refs)
    by_score = sorted(range(1, 4), key=lambda i: (round(sentence[i - 1], 2), i))
    page.wait_for_function(
        "want => [...document.querySelectorAll('#sentences [role=gridcell][data-col=\"0\"]')]"
        ".map(e => e.textContent.trim()).join(',') === want",
        arg=",".join(map(str, by_score)),
    )
    # Clicking line 3 explains it.
    page.click(f"{cell}:has-text('the the the cat sat')")
    page.wait_for_selector("#explain-head[data-line='3']")
    levels = [int(x) for x in page.eval_on_selector_all("#explain-hyp .tok", "els => els.map(e => e.dataset.level)")]
    texts = page.eval_on_selector_all("#explain-hyp .tok", "els => els.map(e => e.textContent)")
    expected = explain_bleu(hyps[2], refs[2])
    assert texts == list(expected.hypothesis_tokens)  # user text shown as text, never as markup
    assert tuple(levels) == expected.hyp_match_order
    assert levels[:3].count(0) == 1  # "the" x3 is clipped to 2 matches
    bleu_shown = float(page.get_attribute("#explain-head", "data-bleu"))
    assert bleu_shown == bleukit.sentence_bleu(hyps[2], refs[2]).score

    # The options used, beside the score; the signature breaks only between its fields.
    assert "tokenizer 13a" in page.inner_text("#bleu-options") and "(all defaults)" in page.inner_text("#bleu-options")
    assert _single_line(page, "#bleu-signature") is True
    _shot(page, "scored")


@pytest.mark.slow
def test_browser_upload_highlight_order_and_download(page, tmp_path):
    hyps = (REPO / "examples" / "hyps.txt").read_text(encoding="utf-8")
    page.set_input_files("#hyps-file input[type=file]", str(REPO / "examples" / "hyps.txt"))
    page.set_input_files("#refs-file input[type=file]", [str(REPO / "examples" / f"refs.{k}.txt") for k in "ab"])
    # Each upload fills its text boxes through its own server round trip: wait for both.
    page.wait_for_function(
        "h => document.querySelector('#hyps textarea').value === h"
        " && document.querySelector('#ref-2 textarea').value.length > 0",
        arg=hyps,
    )
    before = page.get_attribute("#bleu-score", "data-score") if page.query_selector("#bleu-score") else ""
    page.click("#score-btn")
    hyp_lines, refs = (REPO / "examples" / "hyps.txt"), ["refs.a.txt", "refs.b.txt"]
    lines = hyp_lines.read_text(encoding="utf-8").splitlines()
    streams = [(REPO / "examples" / r).read_text(encoding="utf-8").splitlines() for r in refs]
    want = bleukit.corpus_bleu(lines, bleukit.references_from_streams(streams))
    page.wait_for_function(
        "old => (document.querySelector('#bleu-score')?.dataset.score ?? old) !== old",
        arg=before,
    )
    assert float(page.get_attribute("#bleu-score", "data-score")) == want.score
    # One order at a time: exactly the bigrams that count are highlighted.
    page.click("#highlight input")
    page.click("[role=option]:has-text('2')")
    page.wait_for_selector("#explain-head:has-text('the 2-grams that count')")
    levels = page.eval_on_selector_all("#explain-hyp .tok", "els => els.map(e => +e.dataset.level)")
    expected = explain_bleu(lines[0], [s[0] for s in streams])
    assert tuple(levels) == expected.hyp_levels(2)

    with page.expect_download() as info:
        page.click("#download")
    saved = tmp_path / "result.json"
    info.value.save_as(saved)
    report = json.loads(saved.read_text(encoding="utf-8"))
    assert report["corpus"] == json.loads(want.to_json())
    assert len(report["sentences"]) == len(lines)


@pytest.mark.slow
def test_browser_tab_separated_references_upload_as_reference_sets(page, tmp_path):
    # sacreBLEU's --num-refs layout (two references per line) fills two reference sets, says so,
    # and scores as sacreBLEU does with the two streams
    streams = [(REPO / "examples" / f"refs.{k}.txt").read_text(encoding="utf-8").splitlines() for k in "ab"]
    tsv = tmp_path / "refs.tsv"
    tsv.write_text("".join(f"{a}\t{b}\n" for a, b in zip(*streams)), encoding="utf-8")
    page.set_input_files("#hyps-file input[type=file]", str(REPO / "examples" / "hyps.txt"))
    page.set_input_files("#refs-file input[type=file]", str(tsv))
    page.wait_for_function(
        "b => document.querySelector('#ref-2 textarea').value === b"
        " && document.querySelector('#hyps textarea').value.length > 0",
        arg="\n".join(streams[1]) + "\n",
    )
    page.wait_for_selector("#notice:has-text('2 tab-separated references per line')")
    before = page.get_attribute("#bleu-score", "data-score") if page.query_selector("#bleu-score") else ""
    page.click("#score-btn")
    page.wait_for_function(
        "old => (document.querySelector('#bleu-score')?.dataset.score ?? old) !== old",
        arg=before,
    )
    lines = (REPO / "examples" / "hyps.txt").read_text(encoding="utf-8").splitlines()
    want = bleukit.corpus_bleu(lines, bleukit.references_from_streams(streams))
    assert float(page.get_attribute("#bleu-score", "data-score")) == want.score


@pytest.mark.slow
def test_browser_example_loads_and_scores(page):
    page.click("text=a b x d")  # the textbook bigram seed example
    page.wait_for_function("() => document.querySelector('#hyps textarea').value === 'a b c d'")
    before = page.get_attribute("#bleu-score", "data-score") if page.query_selector("#bleu-score") else ""
    page.click("#score-btn")
    page.wait_for_function("old => (document.querySelector('#bleu-score')?.dataset.score ?? old) !== old", arg=before)
    assert page.inner_text("#bleu-score") == "50.00"
    assert "order:2" in page.inner_text("#bleu-signature")


@pytest.mark.slow
def test_browser_input_error_replaces_the_results(page, server):
    _fill_form(page, "one two three\nfour five", "one two three\nfour six")
    _score_and_wait(page)
    page.wait_for_selector("#sentences [role=gridcell]")
    log_file = ARTIFACTS / "app-server.log"
    log_before = log_file.read_text(encoding="utf-8")

    page.fill("#ref-1 textarea", "one two three")
    _score_and_wait(page)
    message = "Reference set 1 has 1 line(s) but there are 2 hypotheses"
    page.wait_for_selector(f"#bleu-error:has-text('{message}')")
    page.wait_for_timeout(300)  # let every output of the answer render
    body = page.inner_text("body")
    assert body.count(message) == 1  # once: no toast repeating it
    assert not page.query_selector("#bleu-score")  # the earlier score is gone ...
    assert page.locator("#sentences [role=gridcell]").count() == 0  # ... and its table,
    assert page.inner_text("#explanation").strip() == ""  # explanation,
    assert not page.locator("#download").is_visible()  # download,
    assert page.locator("#chart .vega-embed, #chart canvas, #chart svg.marks").count() == 0  # and chart
    # No red "Error" badge on any output.
    assert page.locator("[data-testid=status-tracker].error").count() == 0
    assert "Error" not in body.split()
    _shot(page, "error")
    # The server logs one line for it, and no traceback.
    deadline = time.monotonic() + 10
    while message not in log_file.read_text(encoding="utf-8")[len(log_before) :] and time.monotonic() < deadline:
        time.sleep(0.1)
    new = log_file.read_text(encoding="utf-8")[len(log_before) :]
    assert [line for line in new.splitlines() if line.strip()] == [
        f"input error in score: {message}: line i of every reference set must be a reference of hypothesis line i."
    ]
    # (Only what this answer logged: the hostile-call test before may leave Gradio's own traceback
    # for a raw HTTP call that leaves arguments out, checked before the app's function runs.)
    assert "Traceback" not in new


@pytest.mark.slow
def test_browser_example_options_are_shown_and_reset(page, shared_data):
    page.click("text=the the the the the the the")  # the clipping example: lowercase, order 2
    page.wait_for_function("() => document.querySelector('#hyps textarea').value.startsWith('the the')")
    assert page.is_checked("#lowercase input") and page.input_value("#max-order input") == "2"
    _score_and_wait(page)
    options = page.inner_text("#bleu-options")
    assert "lowercase" in options and "max n-gram order 2" in options and "(2 not default)" in options
    assert page.locator("#bleu-options .changed").count() == 2
    _shot(page, "example-options")

    # Reset, then real WMT sentences: sacreBLEU's default score, and a table that stays readable.
    page.click("#reset-btn")
    page.wait_for_function("() => !document.querySelector('#lowercase input').checked")
    assert page.input_value("#max-order input") == "4" and page.input_value("#smooth-value input") == ""
    folder = shared_data / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.JDExploreAcademy.en")[:40]
    refs = read_lines(folder / "ref.A.en")[:40]
    _fill_form(page, "\n".join(hyps), "\n".join(refs))
    _score_and_wait(page)
    assert float(page.get_attribute("#bleu-score", "data-score")) == sacrebleu.corpus_bleu(hyps, [refs]).score
    assert "(all defaults)" in page.inner_text("#bleu-options")
    page.wait_for_selector("#sentences [role=gridcell][data-col='1']")
    shown = page.eval_on_selector_all(
        "#sentences [role=gridcell][data-col='1']", "els => els.map(e => e.textContent.trim())"
    )
    assert shown and all(re.fullmatch(r"\d{1,3}\.\d\d", x) for x in shown), shown  # 100.00, 44.30, 9.29
    _shot(page, "real-data")
    assert _single_line(page, "#sentences [role=columnheader][data-heading='1']") is True  # "sentence BLEU" whole
    widths = page.eval_on_selector_all(
        "#sentences [role=columnheader]", "els => els.map(e => e.getBoundingClientRect().width)"
    )
    assert widths[4] > sum(widths[:4])  # the text column takes the room, the numbers keep theirs
    _shot(page, "real-data")


@pytest.mark.slow
def test_browser_byte_order_mark_is_flagged(page, tmp_path):
    hyp_file, ref_file = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp_file.write_bytes("28 Tage später kam er zurück.\nZwei Tage.\n".encode("utf-8-sig"))
    ref_file.write_text("28 Tage später kam er zurück.\nZwei Tage.\n", encoding="utf-8")
    page.set_input_files("#hyps-file input[type=file]", str(hyp_file))
    page.wait_for_selector("#bleu-note:has-text('byte-order mark')")
    page.set_input_files("#refs-file input[type=file]", [str(ref_file)])
    page.wait_for_function("() => document.querySelector('#ref-1 textarea').value.startsWith('28 Tage')")
    _score_and_wait(page)
    hyps = sacrebleu.utils.smart_open(str(hyp_file)).read().splitlines()  # as sacreBLEU reads the files
    refs = sacrebleu.utils.smart_open(str(ref_file)).read().splitlines()
    assert float(page.get_attribute("#bleu-score", "data-score")) == sacrebleu.corpus_bleu(hyps, [refs]).score
    assert "Line 1 of the hypotheses begins with a byte-order mark" in page.inner_text("#bleu-note")
    first = page.locator("#explain-hyp .tok").first
    assert first.get_attribute("data-level") == "0" and "⟨BOM⟩28" in first.inner_text()
    _shot(page, "bom")


# ----------------------------------------------------------------------------- browser: compare tab, other BLEUs

COMPARED = ["KIT.4950", "LIUM-NMT.4900", "online-A.0"]


def _open_compare_tab(page) -> None:
    page.click("button[role=tab]:has-text('Compare systems')")
    page.wait_for_selector("#cmp-sys-1 textarea")


def _fill_compare(page, texts, names, *sets) -> None:
    for k in range(1, 6):
        page.fill(f"#cmp-sys-{k} textarea", texts[k - 1] if k <= len(texts) else "")
        page.fill(f"#cmp-name-{k} input", names[k - 1] if k <= len(names) else "")
    for k in range(1, 5):
        page.fill(f"#cmp-ref-{k} textarea", sets[k - 1] if k <= len(sets) else "")


def _compare_and_wait(page) -> None:
    """Click Compare and wait for this click's answer (a table's signature or an error)."""
    page.evaluate(
        "() => { for (const id of ['compare-signature', 'compare-error']) document.getElementById(id)?.remove(); }"
    )
    page.click("#compare-btn")
    page.wait_for_selector("#compare-signature, #compare-error", timeout=60_000)


def _wmt17_systems(shared_data, lines):
    folder = shared_data / "wmt17-en-de"
    systems = [(name, read_lines(folder / f"hyp.{name}.de")[:lines]) for name in COMPARED]
    return systems, read_lines(folder / "ref.de")[:lines]


def _plot_drawn(page, selector: str) -> int:
    return page.locator(f"{selector} .vega-embed, {selector} canvas, {selector} svg.marks").count()


@pytest.mark.slow
def test_browser_compare_systems(page, shared_data):
    systems, refs = _wmt17_systems(shared_data, 300)
    _open_compare_tab(page)
    _fill_compare(page, ["\n".join(h) for _, h in systems], [n for n, _ in systems], "\n".join(refs))
    page.fill("#cmp-n input", "200")
    _compare_and_wait(page)
    want = bleukit.paired_test(systems, refs, method="bs", n_samples=200, seed=12345)
    assert page.inner_text("#compare-signature") == want[0].result.signature
    page.wait_for_selector("#compare-table [role=gridcell]:has-text('online-A.0')")
    cells = page.eval_on_selector_all("#compare-table [role=gridcell]", "els => els.map(e => e.textContent.trim())")
    rows = [cells[i : i + 5] for i in range(0, len(cells), 5)]
    assert [r[0] for r in rows] == [f"{COMPARED[0]} (baseline)", *COMPARED[1:]]
    for row, w in zip(rows[1:], want[1:]):
        assert row[1] == f"{w.score:.2f}" and row[2] == f"{w.mean:.2f} ± {w.ci:.2f}"
        assert row[3] == f"{w.p_value:.4f}" + (" *" if w.p_value < 0.05 else "")
    assert want[2].p_value < 0.05 and rows[2][3].endswith(" *") and rows[2][4] == "yes"  # online-A: significant
    assert want[1].p_value >= 0.05 and rows[1][4] == "no"
    page.wait_for_function(
        "() => document.querySelector('#compare-plot .vega-embed, #compare-plot canvas, #compare-plot svg.marks')"
    )
    assert _plot_drawn(page, "#compare-plot") > 0
    assert all(name in page.inner_text("#compare-plot") for name in COMPARED)  # the legend names every system
    assert "(all defaults)" in page.inner_text("#compare-options")
    # The legend (below the lines) is inside the plot's box, not cut off.
    legend = page.eval_on_selector(
        "#compare-plot",
        """(plot, names) => { const box = plot.getBoundingClientRect(); const out = {};
                              const w = document.createTreeWalker(plot, NodeFilter.SHOW_TEXT);
                              for (let n = w.nextNode(); n; n = w.nextNode()) {
                                if (!names.includes(n.textContent.trim())) continue;
                                const r = n.parentElement.getBoundingClientRect();
                                out[n.textContent.trim()] =
                                  r.height > 0 && r.top >= box.top && r.bottom <= box.bottom; }
                              return out; }""",
        COMPARED,
    )
    assert legend == {name: True for name in COMPARED}, legend
    _shot(page, "compare")
    # Picking approximate randomization sets sacreBLEU's default number of trials.
    page.click("#cmp-method label:has-text('approximate randomization')")
    page.wait_for_function("() => document.querySelector('#cmp-n input').value === '10000'")
    page.click("#cmp-method label:has-text('paired bootstrap')")
    page.wait_for_function("() => document.querySelector('#cmp-n input').value === '1000'")


@pytest.mark.slow
def test_browser_compare_ranks_all_pairs(page, shared_data):
    systems, refs = _wmt17_systems(shared_data, 200)
    _open_compare_tab(page)
    _fill_compare(page, ["\n".join(h) for _, h in systems], [n for n, _ in systems], "\n".join(refs))
    page.fill("#cmp-n input", "200")
    page.click("#cmp-comparison label:has-text('all pairs')")
    page.click("#cmp-correction label:has-text('Holm-Bonferroni')")
    _compare_and_wait(page)
    page.wait_for_selector("#compare-ranking-table")
    want = bleukit.compare_systems(systems, refs, n_samples=200, correction="holm")
    cells = page.eval_on_selector_all("#compare-ranking-table td", "els => els.map(e => e.textContent.trim())")
    assert [cells[i : i + 5] for i in range(0, len(cells), 5)] == [
        [str(r.rank), str(r.cluster), f"{r.rank_range[0]}-{r.rank_range[1]}", r.name, f"{r.score:.2f}"]
        for r in want.ranking
    ]
    assert page.locator("#compare-pairs-table tbody tr").count() == 3
    assert "Holm-Bonferroni-corrected" in page.inner_text("#compare-ranking")
    _shot(page, "compare-ranking")


@pytest.mark.slow
@pytest.mark.slow
def test_browser_compare_against_a_test_sets_references(page, testset_cache, monkeypatch):
    """The compare tab loads a registered test set's references from sacreBLEU's cache (WMT22 de-en
    as WMT XML, its default translator) into its boxes, and ranks two of the set's own systems as
    bleukit does with the test set itself as the references."""
    import bleukit.testsets

    for key, value in testset_cache.items():
        monkeypatch.setenv(key, value)
    testset = bleukit.testsets.load("wmt22", "de-en")
    systems = list(testset.systems.items())
    _open_compare_tab(page)
    page.fill("#cmp-testset input", "wmt22")
    page.fill("#cmp-langpair input", "de-en")
    page.click("#cmp-testset-btn")
    streams = testset.reference_streams
    page.wait_for_selector(f"#compare-notice:has-text('its references ({', '.join(testset.reference_names)}) are in')")
    boxes = [page.input_value(f"#cmp-ref-{k} textarea").rstrip("\n") for k in range(1, 5)]
    assert boxes == ["\n".join(s) for s in streams] + [""] * (4 - len(streams))
    for k, (name, hyps) in enumerate(systems[:2], start=1):
        page.fill(f"#cmp-sys-{k} textarea", "\n".join(hyps))
        page.fill(f"#cmp-name-{k} input", name)
    page.fill("#cmp-n input", "100")
    _compare_and_wait(page)
    want = bleukit.paired_test(systems[:2], testset, method="bs", n_samples=100, seed=12345)
    assert page.inner_text("#compare-signature") == want[0].result.signature
    page.wait_for_selector(f"#compare-table [role=gridcell]:has-text('{systems[1][0]}')")
    cells = page.eval_on_selector_all("#compare-table [role=gridcell]", "els => els.map(e => e.textContent.trim())")
    assert cells[5:8] == [systems[1][0], f"{want[1].score:.2f}", f"{want[1].mean:.2f} ± {want[1].ci:.2f}"]


def test_browser_compare_input_error_replaces_the_results(page, shared_data):
    systems, refs = _wmt17_systems(shared_data, 40)
    _open_compare_tab(page)
    _fill_compare(page, ["\n".join(h) for _, h in systems[:2]], ["base", "new"], "\n".join(refs))
    page.fill("#cmp-n input", "100")
    _compare_and_wait(page)
    page.wait_for_selector("#compare-table [role=gridcell]:has-text('base (baseline)')")
    log_file = ARTIFACTS / "app-server.log"
    log_before = log_file.read_text(encoding="utf-8")

    page.fill("#cmp-sys-2 textarea", "\n".join(systems[1][1][:39]))
    _compare_and_wait(page)
    message = "System 'new' has 39 line(s) but the baseline 'base' has 40"
    page.wait_for_selector(f'#compare-error:has-text("{message}")')
    page.wait_for_timeout(300)  # let every output of the answer render
    body = page.inner_text("body")
    assert body.count(message) == 1
    assert page.locator("#compare-table [role=gridcell]").count() == 0  # the earlier table is gone,
    assert not page.query_selector("#compare-signature")  # its signature
    assert _plot_drawn(page, "#compare-plot") == 0  # and its plot
    assert page.locator("[data-testid=status-tracker].error").count() == 0
    _shot(page, "compare-error")
    deadline = time.monotonic() + 10
    while message not in log_file.read_text(encoding="utf-8")[len(log_before) :] and time.monotonic() < deadline:
        time.sleep(0.1)
    new = log_file.read_text(encoding="utf-8")[len(log_before) :]
    assert [line for line in new.splitlines() if line.strip()] == [
        f"input error in compare: {message}: every system must translate the same segments, line by line."
    ]


@pytest.mark.slow
def test_browser_other_bleus_panel(page, shared_data):
    folder = shared_data / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.JDExploreAcademy.en")[:30]
    sets = [read_lines(folder / f"ref.{k}.en")[:30] for k in "AB"]
    _fill_form(page, "\n".join(hyps), *("\n".join(s) for s in sets))
    assert not page.locator("#variants-btn").is_visible()  # closed: nothing computed
    page.click("#variants button:has-text('Other BLEUs')")
    page.click("#variants-btn")
    page.wait_for_selector("#variants-table [role=gridcell]:has-text('multi-bleu.perl')")
    table = bleukit.compare_variants(hyps, bleukit.references_from_streams(sets))
    cells = page.eval_on_selector_all("#variants-table [role=gridcell]", "els => els.map(e => e.textContent.trim())")
    assert [cells[i : i + 3] for i in range(0, len(cells), 3)] == [
        [r.name, f"{r.score:.2f}", r.note] for r in table.rows
    ]
    for name in table.skipped:
        assert f"{name} not scored" in page.inner_text("#variants-note")
    page.locator("#variants").scroll_into_view_if_needed()
    _shot(page, "variants")
    # A new score clears the table of the earlier text (it is computed only on request).
    _score_and_wait(page)
    page.wait_for_function("() => !document.querySelector('#variants-table [role=gridcell]')")


# ----------------------------------------------------------------------------- the form's checks, in the page


def _log_since(before: str) -> list:
    """The server log's lines written since ``before`` was read (after a short wait for them)."""
    log_file = ARTIFACTS / "app-server.log"
    time.sleep(0.5)
    return [line for line in log_file.read_text(encoding="utf-8")[len(before) :].splitlines() if line.strip()]


def _no_error_badges(page) -> None:
    assert page.locator("[data-testid=status-tracker].error").count() == 0
    assert "Error" not in page.inner_text("body").split()


@pytest.mark.slow
def test_browser_upload_of_a_de_file(page, shared_data):
    path = shared_data / "wmt17-en-de" / "ref.de"  # real MT files are named by their language
    text = path.read_text(encoding="utf-8")
    page.set_input_files("#hyps-file input[type=file]", str(path))
    page.wait_for_function("n => document.querySelector('#hyps textarea').value.length === n", arg=len(text))
    assert page.input_value("#hyps textarea") == text
    assert page.inner_text("#notice").strip() == ""
    _shot(page, "upload-de")


@pytest.mark.slow
@pytest.mark.parametrize(
    "state, content, message",
    [
        ("upload-not-utf8", "Grüße aus Köln\n".encode("latin-1"), "bad.de is not UTF-8 text"),
        ("upload-oversized", None, "uploads are limited to 5,000,000 bytes per file"),
    ],
)
def test_browser_a_bad_upload_gets_one_message(page, tmp_path, state, content, message):
    from bleukit.app.forms import MAX_UPLOAD_BYTES

    path = tmp_path / ("bad.de" if content is not None else "big.de")
    path.write_bytes(content if content is not None else b"a b c\n" * (MAX_UPLOAD_BYTES // 6 + 1))
    log_before = (ARTIFACTS / "app-server.log").read_text(encoding="utf-8")
    page.fill("#hyps textarea", "kept as it was")
    page.set_input_files("#hyps-file input[type=file]", str(path))
    page.wait_for_selector(f"#bleu-error:has-text('{message}')", timeout=60_000)
    page.wait_for_timeout(300)
    assert page.inner_text("body").count(message) == 1
    assert page.input_value("#hyps textarea") == "kept as it was"
    _no_error_badges(page)
    _shot(page, state)
    new = _log_since(log_before)
    assert len(new) == 1 and new[0].startswith("input error in upload: ") and message in new[0], new


@pytest.mark.slow
def test_browser_an_out_of_range_option_gives_one_message(page):
    log_before = (ARTIFACTS / "app-server.log").read_text(encoding="utf-8")
    _fill_form(page, "one two three\nfour five", "one two three\nfour six")
    _score_and_wait(page)
    page.wait_for_selector("#sentences [role=gridcell]")
    page.fill("#max-order input", "12")
    _score_and_wait(page)
    message = "max n-gram order must be between 1 and 10, got 12"
    page.wait_for_selector(f"#bleu-error:has-text('{message}')")
    page.wait_for_timeout(300)
    assert page.inner_text("body").count(message) == 1
    assert not page.query_selector("#bleu-score") and page.locator("#sentences [role=gridcell]").count() == 0
    _no_error_badges(page)
    _shot(page, "option-error")
    new = _log_since(log_before)
    assert new == [f"input error in score: {message}"], new  # one line, no traceback
    # fixed: a score again, and no stale message from the run before
    page.fill("#max-order input", "4")
    _score_and_wait(page)
    page.wait_for_selector("#bleu-score[data-score]")
    assert not page.query_selector("#bleu-error") and message not in page.inner_text("body")


@pytest.mark.slow
def test_browser_out_of_range_samples_give_one_message(page, shared_data):
    systems, refs = _wmt17_systems(shared_data, 30)
    _open_compare_tab(page)
    _fill_compare(page, ["\n".join(h) for _, h in systems[:2]], ["base", "new"], "\n".join(refs))
    log_before = (ARTIFACTS / "app-server.log").read_text(encoding="utf-8")
    page.fill("#cmp-n input", "50000")
    _compare_and_wait(page)
    message = "the number of samples must be between 1 and 20,000, got 50,000"
    page.wait_for_selector(f"#compare-error:has-text('{message}')")
    page.wait_for_timeout(300)
    assert page.inner_text("body").count(message) == 1
    _no_error_badges(page)
    _shot(page, "compare-option-error")
    assert _log_since(log_before) == [f"input error in compare: {message}"]


@pytest.mark.slow
def test_browser_comma_tokens_in_the_explanation_table(page):
    _fill_form(page, "a , , b , c", "a , b , d")
    _score_and_wait(page)
    page.wait_for_selector("#explanation table.orders")
    cells = page.eval_on_selector_all(
        "#explanation table.orders tr",
        "rows => rows.slice(1).map(r => [...r.querySelectorAll('ul.ngrams')].map(u => [...u.children].map("
        "li => [...li.querySelectorAll('.ngtok')].map(t => t.textContent))))",
    )
    assert cells[0][0] == [["a"], [","], ["b"]]  # order 1, matched: "," a token of its own
    assert [",", ","] in cells[1][1]  # order 2, unmatched: the bigram ", ,"
    # each token drawn in its own box, apart from its neighbours
    boxes = page.eval_on_selector_all(
        "#explanation table.orders .ngtok", "els => els.map(e => getComputedStyle(e).borderTopStyle)"
    )
    assert boxes and set(boxes) == {"solid"}
    _shot(page, "explain-commas")


@pytest.mark.slow
def test_browser_gallery_sits_by_the_inputs_and_shows_every_example_whole(page):
    from bleukit.app.examples import EXAMPLE_LABELS

    for selector in ("#examples button", "#refs-file", "#score-btn", "#sentences"):
        page.wait_for_selector(selector, state="attached")
    box = page.evaluate(
        """() => { const r = s => document.querySelector(s).getBoundingClientRect().toJSON();
                   return {gallery: r('#examples'), refs: r('#refs-file'), score: r('#score-btn'),
                           sentences: r('#sentences')}; }"""
    )
    # below the inputs it fills, above the Score button (not at the page bottom)
    assert box["refs"]["bottom"] <= box["gallery"]["top"] < box["gallery"]["bottom"] <= box["score"]["top"], box
    assert box["gallery"]["bottom"] < box["sentences"]["top"]
    shown = page.eval_on_selector_all(
        "#examples button",
        """els => els.filter(e => e.textContent.trim()).map(e => { const r = e.getBoundingClientRect();
               return [e.textContent.trim(),
                       e.scrollWidth <= e.clientWidth + 1 && r.right <= innerWidth && r.left >= 0]; })""",
    )
    assert sorted(label for label, _ in shown) == sorted(EXAMPLE_LABELS), shown
    assert all(whole for _, whole in shown), shown  # not cut off
    _shot(page, "gallery")


@pytest.mark.slow
def test_browser_compare_with_chrf_options(page, shared_data):
    from bleukit.metrics.chrf.options import ChrfOptions

    systems, refs = _wmt17_systems(shared_data, 60)
    _open_compare_tab(page)
    _fill_compare(page, ["\n".join(h) for _, h in systems[:2]], ["base", "new"], "\n".join(refs))
    page.fill("#cmp-n input", "100")
    page.click("#cmp-metric input")
    page.click("[role=option]:text-is('chrF++')")
    page.click("#cmp-metric-options button, #cmp-metric-options .label-wrap")  # open the panel
    # its boxes are mounted on opening, with their initial values: type only once they are there
    page.wait_for_function("() => document.querySelector('#cmp-chrf-char-order input')?.value === '6'")
    page.wait_for_timeout(500)
    page.fill("#cmp-chrf-char-order input", "4")
    page.fill("#cmp-chrf-beta input", "3")
    page.check("#cmp-chrf-whitespace input")
    page.keyboard.press("Tab")  # leave the last box, so that every value is the page's before the click
    page.wait_for_timeout(300)
    assert (page.input_value("#cmp-chrf-char-order input"), page.input_value("#cmp-chrf-beta input")) == ("4", "3")
    _compare_and_wait(page)
    options = ChrfOptions(char_order=4, word_order=2, beta=3, whitespace=True)
    want = bleukit.paired_test([("base", systems[0][1]), ("new", systems[1][1])], refs, n_samples=100, options=options)
    page.wait_for_selector("#compare-signature")
    shown = page.inner_text("#compare-signature")
    assert shown == want[0].result.signature, (shown, page.inner_text("#compare-notice"))
    # the table renders apart from the summary: wait for this answer's rows
    page.wait_for_selector(f"#compare-table [role=gridcell]:has-text('{want[1].score:.2f}')")
    cells = page.eval_on_selector_all("#compare-table [role=gridcell]", "els => els.map(e => e.textContent.trim())")
    assert cells[1] == f"{want[0].score:.2f}" and cells[6] == f"{want[1].score:.2f}", cells
    assert "(3 not default)" in page.inner_text("#compare-options"), page.inner_text("#compare-options")
    _no_error_badges(page)
    _shot(page, "compare-chrf-options")


# ----------------------------------------------------------------------------- browser: systems × metrics


@pytest.mark.slow
@pytest.mark.serial  # a real Chromium (the browser fixture marks it so too)
def test_browser_score_files_upload_to_one_table(page, shared_data, tmp_path):
    """WMT25's own segment-score files uploaded on the "Systems × metrics" tab: the table shown is
    bleukit.score_table's, cell for cell, with AutoRank, the signatures and the page to download."""
    folder = shared_data / "wmt25-scores"
    names = ["Shy", "GPT-4.1", "Gemini-2.5-Pro", "Claude-4", "CommandA"]
    page.click("button[role=tab]:has-text('Systems × metrics')")
    page.wait_for_selector("#scores-btn")
    page.set_input_files("#scores-file input[type=file]", [str(folder / f"{n}.jsonl") for n in names])
    page.wait_for_function(  # the upload's round trip done: every file listed
        "names => { const t = document.querySelector('#scores-file').textContent;"
        " return names.every(n => t.includes(n)); }",
        arg=names,
    )
    page.fill("#scores-lp input", "cs-de_DE")
    page.fill("#scores-n input", "300")
    page.click("#scores-autorank input")
    page.click("[role=option]:has-text('WMT25')")
    page.click("#scores-btn")
    page.wait_for_selector("#scores-signatures, #scores-error", timeout=60_000)
    assert page.query_selector("#scores-error") is None, page.inner_text("#scores-notice")
    full = bleukit.read_scores(folder, language_pair="cs-de_DE")
    keep = [full.systems.index(s) for s in names]
    table = bleukit.score_table(
        bleukit.SegmentScores(names, {m: full.array(m)[keep] for m in full.metrics},
                              lower_is_better=full.lower_is_better, info={m: full.info(m) for m in full.metrics}),
        n_samples=300, autorank="wmt25")
    headers, body = table.text_rows()
    page.wait_for_selector(f"#scores-table [role=gridcell]:has-text('{body[-1][0]}')")
    cells = page.eval_on_selector_all("#scores-table [role=gridcell]", "els => els.map(e => e.textContent.trim())")
    width = len(headers)
    assert [cells[i : i + width] for i in range(0, len(cells), width)] == body
    shown = page.eval_on_selector_all("#scores-table [role=columnheader]", "els => els.map(e => e.textContent.trim())")
    assert [h.replace("⋮", "").strip() for h in shown if h] == headers  # (the column menu's ⋮ aside)
    for m, signature in table.signatures().items():
        assert page.inner_text(f"#scores-signatures li[data-metric='{m}'] code").replace("\u200b", "") == signature
    _shot(page, "scores")
    with page.expect_download() as info:
        page.click("#scores-download")
    saved = tmp_path / "scores.html"
    info.value.save_as(saved)
    embedded = re.search(r'id="bleukit-scores-data">(.*?)</script>', saved.read_text(encoding="utf-8"), re.S)
    assert json.loads(embedded.group(1)) == json.loads(table.format("json"))
