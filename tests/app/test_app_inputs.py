"""The app's form: uploads of any text file (checked as UTF-8 text, size-limited), option ranges
with one clear message, the explanation's n-gram cells with comma tokens, and the compare tab
computing each system once. The page itself: tests/app/test_app.py's browser tests."""

from __future__ import annotations

import dataclasses
import html
import re

import numpy as np
import pytest
from shared_data import read_lines

import bleukit
from bleukit.analysis.explain import explain_bleu
from bleukit.metrics import get_metric

pytest.importorskip("gradio")

WMT17 = ["KIT.4950", "LIUM-NMT.4900", "online-A.0"]


@pytest.fixture(scope="module")
def wmt17(shared_data):
    folder = shared_data / "wmt17-en-de"
    return folder, [(name, read_lines(folder / f"hyp.{name}.de")[:120]) for name in WMT17], read_lines(
        folder / "ref.de"
    )[:120]


def _log_lines(caplog):
    return [r.getMessage() for r in caplog.records if r.name == "bleukit.app"]


def test_a_test_set_fills_the_reference_boxes_or_names_its_problem(app, tmp_path, monkeypatch, caplog):
    """A registered test set's references (sacreBLEU's cache, made at test time from the shared
    WMT lines) go into the reference boxes as -t scores with them; a missing or unknown name, an
    unknown pair and a cache that cannot be filled offline each get one message and leave the boxes."""
    import testset_caches

    from bleukit import testsets

    env = testset_caches.environment(tmp_path, testset_caches.build(tmp_path))
    for key in ("SACREBLEU", "BLEUKIT_TESTSETS_EXTRA", "BLEUKIT_TESTSETS_OFFLINE"):
        monkeypatch.setenv(key, env[key])
    for name, pair in ("wmt22", "de-en"), ("wmt17", "en-de"):
        *boxes, notice = app.on_load_testset(f" {name} ", pair, name="compare")
        streams = testsets.load(name, pair).reference_streams
        assert boxes == ["".join(f"{s}\n" for s in stream) for stream in streams] + [""] * (4 - len(streams))
        assert 'role="alert"' not in notice and f"{len(streams[0]):,} segments" in notice
    for name, pair, message in [
        ("", "de-en", "Give a test set and its language pair"),
        ("nosuch", "de-en", "Unknown test set 'nosuch'"),
        ("wmt22", "xx-yy", "wmt22 has no language pair 'xx-yy'; it has cs-en, "),
        ("wmt20", "de-en", "Cannot read wmt20 de-en: "),  # not in the cache, and offline
    ]:
        caplog.clear()
        *kept, notice = app.on_load_testset(name, pair)
        assert kept == [app.gr.update()] * 4, (name, pair)
        assert 'role="alert"' in notice and message in html.unescape(notice), notice
        assert len(_log_lines(caplog)) == 1 and _log_lines(caplog)[0].startswith("input error in test set: ")


def test_an_upload_of_any_text_file_is_read(app, wmt17):
    folder, _, _ = wmt17
    text, notice = app.on_upload_hyps(str(folder / "ref.de"))  # a real MT file: .de, not .txt
    assert text == (folder / "ref.de").read_text(encoding="utf-8") and notice == ""
    assert "file_types" not in app.modules["page"].__dict__["_score_tab"].__code__.co_names


@pytest.mark.parametrize(
    "content, message",
    [
        (
            "Grüße aus Köln\n".encode("latin-1"),
            r"The hypothesis file bad\.de is not UTF-8 text \(invalid start byte at byte 2\): save it as UTF-8",
        ),
        ("Grüße\n".encode("utf-16"), r"The hypothesis file bad\.de is not (UTF-8 text|a text file)"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", r"bad\.de is not a text file \(a NUL byte at byte 8\)"),
    ],
)
def test_a_binary_or_non_utf8_upload_gets_one_clear_message(app, tmp_path, caplog, content, message):
    path = tmp_path / "bad.de"
    path.write_bytes(content)
    kept, notice = app.on_upload_hyps(str(path))
    assert kept == app.gr.update()  # the box keeps its text
    assert 'role="alert"' in notice and re.search(message, html.unescape(notice)), notice
    assert len(_log_lines(caplog)) == 1 and _log_lines(caplog)[0].startswith("input error in upload: ")


def test_a_tab_separated_reference_file_is_split_into_reference_sets(app, tmp_path, caplog):
    # sacreBLEU's --num-refs layout: two references per line, one file. Read as one set, the bundled
    # example scored 23.82 instead of sacreBLEU's 64.00, without a word.
    from shared_data import REPO

    sacrebleu = pytest.importorskip("sacrebleu")
    hyps = (REPO / "examples" / "hyps.txt").read_text(encoding="utf-8")
    a, b = (read_lines(REPO / "examples" / f"refs.{k}.txt") for k in "ab")
    tsv = tmp_path / "refs.tsv"
    tsv.write_text("".join(f"{x}\t{y}\n" for x, y in zip(a, b)), encoding="utf-8")
    *boxes, notice = app.on_upload_refs([str(tsv)])
    assert boxes == ["\n".join(a) + "\n", "\n".join(b) + "\n", "", ""]
    assert "Reference file 1 holds 2 tab-separated references per line" in html.unescape(notice)
    assert "split into reference sets 1-2" in notice and 'role="alert"' not in notice
    report = app.score_report(hyps, boxes, options=app.make_options())
    assert report["corpus"]["score"] == sacrebleu.corpus_bleu(hyps.splitlines(), [a, b]).score
    # with another file after it: its set comes after the split ones
    *boxes, notice = app.on_upload_refs([str(tsv), str(REPO / "examples" / "refs.a.txt")])
    assert boxes[2] == (REPO / "examples" / "refs.a.txt").read_text(encoding="utf-8") and boxes[3] == ""
    # more sets than boxes: one message, the boxes keep their text
    *boxes, notice = app.on_upload_refs([str(tsv)] * 3)
    assert "hold 6 reference sets" in html.unescape(notice) and all(b == app.gr.update() for b in boxes)
    # pasted (or sent to the API) as one set, it is refused, never scored
    pasted = "".join(f"{x}\t{y}\n" for x, y in zip(a, b))
    with pytest.raises(ValueError, match=r"Reference set 1 holds 2 tab-separated references per line"):
        app.score_report(hyps, [pasted, "", "", ""], options=app.make_options())
    # a tab on some lines only is text (sacreBLEU's whitespace), not the layout
    some = "\n".join([f"{a[0]}\tx"] + a[1:])
    assert app.tab_separated_references(some) is None
    assert app.score_report(hyps, [some], options=app.make_options())["corpus"]["score"] == sacrebleu.corpus_bleu(
        hyps.splitlines(), [some.split("\n")]
    ).score


def test_an_oversized_upload_names_the_limit(app, tmp_path, caplog):
    path = tmp_path / "big.zh"
    with open(path, "wb") as f:
        f.truncate(app.MAX_UPLOAD_BYTES + 1)  # sparse: no 5 MB written
    with pytest.raises(ValueError, match=f"big.zh is {app.MAX_UPLOAD_BYTES + 1:,} bytes: uploads are limited to "
                                         f"{app.MAX_UPLOAD_BYTES:,} bytes per file"):
        app.read_upload(str(path), "The hypothesis file")
    *boxes, notice = app.on_upload_refs([str(path)])
    assert "uploads are limited to" in notice and all(b == app.gr.update() for b in boxes)
    # exactly at the limit the size passes (and the text limits apply, with their own message)
    with open(path, "wb") as f:
        f.truncate(app.MAX_UPLOAD_BYTES)
    with pytest.raises(ValueError, match="NUL byte"):
        app.read_upload(str(path), "The hypothesis file")


@pytest.mark.parametrize(
    "order, message",
    [
        (12, "max n-gram order must be between 1 and 10, got 12"),
        (0, "max n-gram order must be between 1 and 10, got 0"),
        (2.5, "max n-gram order must be a whole number, got 2.5"),
        (None, "max n-gram order is empty: give a whole number from 1 to 10"),
    ],
)
def test_an_out_of_range_order_gives_one_message_and_clears_the_results(app, caplog, order, message):
    options = list(app.reset_options())
    options[app.FORM_OPTIONS.index("max_ngram_order")] = order
    out = app.on_score("a b c", "a b c", "", "", "", *options, app.SORT_CHOICES[0])
    notice, score, chart, table, state, *_, explanation = out
    assert notice == app.notice_html([message], error=True)  # the one message ...
    assert score == "" and chart is None and table.empty and state is None and explanation == ""  # nothing stale
    assert _log_lines(caplog) == [f"input error in score: {message}"]


@pytest.mark.parametrize(
    "n, seed, message",
    [
        (50_000, 12345, "the number of samples must be between 1 and 20,000, got 50,000"),
        (0, 12345, "the number of samples must be between 1 and 20,000, got 0"),
        (250.5, 12345, "the number of samples must be a whole number, got 250.5"),
        (100, -1, "the seed must be a whole number >= 0 and below 2**64"),
    ],
)
def test_out_of_range_compare_settings_give_one_message(app, caplog, n, seed, message):
    texts = ["a b c\nd e", "a b x\nd e"] + [""] * (app.MAX_SYSTEMS - 2)
    names = [""] * app.MAX_SYSTEMS
    sets = ["a b c\nd e"] + [""] * (app.MAX_REFERENCE_SETS - 1)
    notice, table, summary, plot = app.on_compare(*texts, *names, *sets, *app.reset_options(),
                                                  "paired bootstrap", n, seed)
    assert message in html.unescape(notice) and html.unescape(notice).count(message) == 1
    assert table.empty and summary == "" and plot is None
    assert len(_log_lines(caplog)) == 1 and message in _log_lines(caplog)[0]


def test_the_page_leaves_every_range_to_the_form(app):
    """Gradio checks a Number box's minimum/maximum itself, before the callback, and fails every
    output with its generic error: the page's boxes have none, so the form's message is the one."""
    import gradio as gr

    demo = app.modules["page"].build_demo()
    numbers = [b for b in demo.blocks.values() if isinstance(b, gr.Number)]
    assert {b.elem_id for b in numbers} >= {"max-order", "cmp-max-order", "cmp-n", "cmp-seed", "line", "scores-n",
                                            "scores-seed"}
    assert all(b.minimum is None and b.maximum is None for b in numbers), [
        (b.elem_id, b.minimum, b.maximum) for b in numbers
    ]
    # nor rounding: 2.5 samples or orders is named by the form, not read as 2
    unrounded = {"max-order", "cmp-n", "cmp-chrf-char-order", "scores-n"}
    assert all(b.precision is None for b in numbers if b.elem_id in unrounded)
    files = [b for b in demo.blocks.values() if isinstance(b, gr.File)]
    assert len(files) == 7 and all(not b.file_types for b in files)  # score, compare and table tabs


def test_comma_tokens_read_clearly_in_the_explanation_table(app):
    ex = explain_bleu("a , , b , c", ["a , b , d"], options=bleukit.BleuOptions(max_ngram_order=2))
    page = app.explanation_html(1, ex, 0.0, None)
    cells = re.findall(r'<ul class="ngrams">(.*?)</ul>', page)
    assert cells, page
    items = [re.findall(r"<li>(.*?)</li>", c) for c in cells]
    tokens = [[re.findall(r'<span class="ngtok">(.*?)</span>', item) for item in cell] for cell in items]
    # order 1, matched: "a", "," (3 in the hypothesis, 2 in the reference: clipped 3→2) and "b"
    assert tokens[0] == [["a"], [","], ["b"]] and "(clipped 3→2)" in items[0][1]
    assert [","] in tokens[0] and [",", "b"] in tokens[2] and [",", ","] in tokens[3]
    table = page[page.index("<table class='orders'>"):]
    assert ", ," not in re.sub(r"<[^>]+>", "", table) and ", " not in table  # no separator that reads as a token


def _counting(monkeypatch, counts):
    """Count the systems tokenized and counted (every metric's statistics entry points) and the
    bootstrap draws, however the library routes them."""
    import bleukit.analysis.significance.draws as significance_draws
    import bleukit.resampling as resampling

    for name in ("bleu", "chrf", "ter"):
        cls = type(get_metric(name))
        depth = {"n": 0}

        def wrap(function, per_call, depth=depth):
            def counted(*args, **kwargs):
                if depth["n"] == 0:
                    counts["systems"] += per_call(args)
                depth["n"] += 1
                try:
                    return function(*args, **kwargs)
                finally:
                    depth["n"] -= 1

            return counted

        # the protocol's extractor (args[0] is the metric), and the fast paths that count systems
        monkeypatch.setattr(cls, "statistics", wrap(cls.statistics, lambda a: 1))
        paths = cls.fast
        if paths is not None:
            wrapped = {attr: wrap(getattr(paths, attr), per_call)
                       for attr, per_call in (("systems_statistics", lambda a: len(a[0])), ("summed_row", lambda a: 1))
                       if getattr(paths, attr) is not None}
            monkeypatch.setattr(cls, "fast", dataclasses.replace(paths, **wrapped))
    draw = significance_draws._draw_indices

    def draws(*args, **kwargs):
        counts["draws"] += 1
        return draw(*args, **kwargs)

    monkeypatch.setattr(significance_draws, "_draw_indices", draws)
    start = resampling.generator

    def generator(*args, **kwargs):  # the compiled route's draws (bleukit.resampling)
        counts["draws"] += 1
        return start(*args, **kwargs)

    monkeypatch.setattr(resampling, "generator", generator)


@pytest.mark.parametrize("metric", ["BLEU", "chrF++", "TER"])
def test_compare_computes_each_system_once(app, wmt17, monkeypatch, metric):
    _, systems, refs = wmt17
    counts = {"systems": 0, "draws": 0}
    _counting(monkeypatch, counts)
    texts = ["\n".join(h) for _, h in systems] + [""] * (app.MAX_SYSTEMS - len(systems))
    names = [n for n, _ in systems] + [""] * (app.MAX_SYSTEMS - len(systems))
    sets = ["\n".join(refs)] + [""] * (app.MAX_REFERENCE_SETS - 1)
    notice, table, summary, plot = app.on_compare(
        *texts, *names, *sets, *app.reset_options(), "paired bootstrap", 100, 7, metric,
        "all pairs: ranking with clusters", "Holm-Bonferroni",
    )
    assert not table.empty and 'id="compare-ranking"' in summary and len(set(plot["system"])) == 3
    # test, ranking and plot: every system tokenized and counted once, its resamples drawn once
    assert counts == {"systems": len(systems), "draws": 1}
    monkeypatch.undo()
    # the same numbers as the library's own entry points, each computing on its own
    options = app.metric_options(metric, app.make_options())
    paired = bleukit.paired_test(systems, refs, method="bs", n_samples=100, seed=7, correction="holm",
                                 options=options)
    ranked = bleukit.compare_systems(systems, refs, method="bs", n_samples=100, seed=7, correction="holm",
                                     options=options)
    report = app.compare_report(systems, [[r] for r in refs], options, "bs", 100, 7, "rank", "holm")
    assert [s["p_value"] for s in report["systems"]] == [r.p_value for r in paired]
    assert [(s["mean"], s["ci"]) for s in report["systems"]] == [(r.mean, r.ci) for r in paired]
    assert report["ranking"] == ranked.to_dict()
    # the plot's distributions are bootstrap_scores of each system's statistics
    counted = app.count_systems(systems, [[r] for r in refs], options)
    result = app.compare_counted(counted, "bs", 100, 7)
    for name, hyps in systems:
        want = bleukit.bootstrap_scores(bleukit.corpus_statistics(hyps, refs, options=options), options, 100, 7)
        assert np.array_equal(result.distributions[name], want)


def test_the_package_imports_gradio_only_when_the_app_is_built():
    import subprocess
    import sys

    code = (
        "import sys, bleukit.app, bleukit.app.forms, bleukit.app.reports, bleukit.app.views, bleukit.app.state\n"
        "print('gradio' in sys.modules)\n"
        "bleukit.app.build_demo()\n"
        "print('gradio' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-2:] == ["False", "True"]


def test_app_py_is_the_few_lines_a_space_runs():
    from shared_data import REPO

    source = (REPO / "app.py").read_text(encoding="utf-8")
    assert len(source.splitlines()) <= 25 and "bleukit.app.build_demo()" in source and "import gradio" not in source


@pytest.mark.parametrize(
    "metric, form, sacre",
    [
        ("chrF", {"char_order": 4, "beta": 3, "lowercase": True}, {"char_order": 4, "beta": 3, "lowercase": True}),
        ("chrF++", {"whitespace": True, "eps_smoothing": True},
         {"word_order": 2, "whitespace": True, "eps_smoothing": True}),
        ("TER", {"normalized": True, "case_sensitive": True, "no_punct": True},
         {"normalized": True, "case_sensitive": True, "no_punct": True}),
    ],
)
def test_chrf_and_ter_options_are_the_forms(app, wmt17, metric, form, sacre):
    from sacrebleu.metrics import CHRF, TER

    _, systems, refs = wmt17
    values = [form.get(name) for name in app.CHRF_FORM_OPTIONS + app.TER_FORM_OPTIONS]
    texts = ["\n".join(h) for _, h in systems[:2]] + [""] * (app.MAX_SYSTEMS - 2)
    names = [n for n, _ in systems[:2]] + [""] * (app.MAX_SYSTEMS - 2)
    sets = ["\n".join(refs)] + [""] * (app.MAX_REFERENCE_SETS - 1)
    notice, table, summary, plot = app.on_compare(
        *texts, *names, *sets, *app.reset_options(), "approximate randomization", 50, 3, metric,
        list(app.COMPARISONS)[0], list(app.CORRECTIONS)[0], *values,
    )
    assert 'role="alert"' not in notice, notice
    scorer = (TER if metric == "TER" else CHRF)(**sacre)
    for row, (_, hyps) in zip(table.values.tolist(), systems[:2]):
        assert row[1] == f"{scorer.corpus_score(hyps, [refs]).score:.2f}"
    options = app.metric_options(metric, None, form)
    assert all(getattr(options, k) == v for k, v in sacre.items())
    want = bleukit.paired_test(systems[:2], refs, method="ar", n_samples=50, seed=3, options=options)
    assert html.unescape(re.search(r'id="compare-signature">(.*?)</code>', summary).group(1)).replace(
        "<wbr>", "") == want[0].result.signature
    assert f"{want[1].p_value:.4f}" in table.values.tolist()[1][3]
    assert f"({len(form)} not default)" in summary  # the options in words, the changed ones counted


@pytest.mark.parametrize(
    "form, message",
    [
        ({"char_order": 12}, "character n-gram order must be between 1 and 10, got 12"),
        ({"char_order": 0}, "character n-gram order must be between 1 and 10, got 0"),
        ({"beta": -1}, "beta"),
    ],
)
def test_out_of_range_chrf_options_give_one_message(app, caplog, form, message):
    values = [form.get(name) for name in app.CHRF_FORM_OPTIONS + app.TER_FORM_OPTIONS]
    texts = ["a b c\nd e", "a b x\nd e"] + [""] * (app.MAX_SYSTEMS - 2)
    sets = ["a b c\nd e"] + [""] * (app.MAX_REFERENCE_SETS - 1)
    notice, table, summary, plot = app.on_compare(
        *texts, *[""] * app.MAX_SYSTEMS, *sets, *app.reset_options(), "paired bootstrap", 100, 1, "chrF",
        list(app.COMPARISONS)[0], list(app.CORRECTIONS)[0], *values,
    )
    assert 'role="alert"' in notice and message in html.unescape(notice)
    assert table.empty and summary == "" and plot is None
    assert len(_log_lines(caplog)) == 1 and _log_lines(caplog)[0].startswith("input error in compare: ")


def test_a_bootstrap_matrix_of_other_tables_is_refused(app):
    from bleukit.analysis.ranking import compare_statistics
    from bleukit.analysis.significance import bootstrap_matrix, paired_test_statistics

    counted = app.count_systems([("a", ["a b c", "d e"]), ("b", ["a b x", "d e"])], [["a b c"], ["d e"]],
                                app.make_options())
    wrong = bootstrap_matrix(counted.statistics, counted.options, 20, 1)
    for run in (paired_test_statistics, compare_statistics):
        with pytest.raises(ValueError, match=r"scores must be bootstrap_matrix of the 2 tables with 30 samples"):
            run(counted.names, counted.statistics, counted.options, n_samples=30, seed=1, scores=wrong)


def test_the_other_metrics_panel_takes_its_options(app, wmt17, caplog):
    from sacrebleu.metrics import CHRF, TER

    _, systems, refs = wmt17
    hyps = systems[0][1]
    form = {"char_order": 3, "beta": 1, "normalized": True, "asian_support": True}
    values = [form.get(name) for name in app.CHRF_FORM_OPTIONS + app.TER_FORM_OPTIONS]
    notice, table = app.on_metrics("\n".join(hyps), "\n".join(refs), "", "", "", *values)
    assert notice == ""
    rows = {r[0]: r for r in table.values.tolist()}
    assert rows["chrF"][1] == f"{CHRF(char_order=3, beta=1).corpus_score(hyps, [refs]).score:.2f}"
    assert rows["chrF++"][1] == f"{CHRF(char_order=3, beta=1, word_order=2).corpus_score(hyps, [refs]).score:.2f}"
    ter = TER(normalized=True, asian_support=True)
    assert rows["TER"][1] == f"{ter.corpus_score(hyps, [refs]).score:.2f}"
    ours = app.metric_options("TER", None, form).signature(1)
    assert rows["TER"][3] == ours and ours.split("|")[:-1] == str(ter.get_signature()).split("|")[:-1]
    notice, table = app.on_metrics("a b", "a b", "", "", "", 11)
    assert "character n-gram order must be between 1 and 10, got 11" in notice and table.empty
    assert _log_lines(caplog) == ["input error in metrics: character n-gram order must be between 1 and 10, got 11"]
