"""The app's "Compare systems" tab and "Other BLEUs" panel: their functions against sacreBLEU's
`PairedTest` and `bleukit.compare_variants`, and their API endpoints on a running server (the
browser states are in test_app.py, which owns the server and the browser)."""

from __future__ import annotations

import html
import json

import numpy as np
import pytest
from sacrebleu.metrics import BLEU
from sacrebleu.significance import PairedTest
from shared_data import read_lines

import bleukit
from bleukit.schemas import validate

pytest.importorskip("gradio")

WMT17 = ["KIT.4950", "LIUM-NMT.4900", "online-A.0"]
LINES = 250


@pytest.fixture(scope="module")
def wmt17(shared_data):
    folder = shared_data / "wmt17-en-de"
    systems = [(name, read_lines(folder / f"hyp.{name}.de")[:LINES]) for name in WMT17]
    return systems, read_lines(folder / "ref.de")[:LINES]


def _sacrebleu_paired(named, streams, method, n, seed, monkeypatch, **options):
    monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    sigs, scores = PairedTest(
        named, {"BLEU": BLEU(references=streams, **options)}, None, test_type=method, n_samples=n
    )()
    return sigs["BLEU"].format(), scores["BLEU"]


def _form(app, texts, names, sets, method, n, seed, **options):
    """The compare tab's inputs, in the order of its button's inputs."""
    pad = lambda xs, k: list(xs) + [""] * (k - len(xs))  # noqa: E731
    defaults = dict(zip(app.FORM_OPTIONS, app.reset_options()))
    return [
        *pad(texts, app.MAX_SYSTEMS),
        *pad(names, app.MAX_SYSTEMS),
        *pad(sets, app.MAX_REFERENCE_SETS),
        *[options.get(k, defaults[k]) for k in app.FORM_OPTIONS],
        method,
        n,
        seed,
    ]


@pytest.mark.parametrize(
    "method, n, seed, options",
    [
        ("paired bootstrap", 200, 12345, {}),
        ("approximate randomization", 300, 7, {"tokenize": "intl", "lowercase": True}),
        ("paired bootstrap", 100, 3, {"smooth_method": "floor", "smooth_value": "0.5", "max_ngram_order": 3}),
    ],
)
def test_compare_tab_equals_sacrebleu_paired_test(app, wmt17, monkeypatch, method, n, seed, options):
    systems, refs = wmt17
    notice, table, summary, plot = app.on_compare(
        *_form(
            app,
            ["\n".join(h) for _, h in systems],
            [name for name, _ in systems],
            ["\n".join(refs)],
            method,
            n,
            seed,
            **options,
        )
    )
    # online-A's file starts with a byte-order mark (kept, as sacreBLEU keeps it): noted, not an error.
    assert "Line 1 of system 3 begins with a byte-order mark" in notice and "error" not in notice
    sacre_options = {k: (float(v) if k == "smooth_value" else v) for k, v in options.items()}
    key = app.METHODS[method]
    signature, theirs = _sacrebleu_paired(systems, [refs], key, n, seed, monkeypatch, **sacre_options)
    assert table["system"].tolist() == [f"{WMT17[0]} (baseline)", *WMT17[1:]]
    for k, (row, t) in enumerate(zip(table.itertuples(index=False), theirs)):
        assert row[1] == f"{t.score:.2f}"
        if k == 0:
            assert row[3] == row[4] == "—"
        else:
            assert row[3] == f"{t.p_value:.4f}" + (" *" if t.p_value < 0.05 else "")  # identical p-values
            assert row[4] == ("yes" if t.p_value < 0.05 else "no")
        if key == "bs":
            assert row[2] == f"{t.mean:.2f} ± {t.ci:.2f}"
        else:
            assert t.mean is None and row[2] == "—"  # sacreBLEU's AR gives no mean or CI
    shown = summary.split('id="compare-signature">')[1].split("</code>")[0].replace("<wbr>", "")
    # sacreBLEU's signature has no max order field (bleukit adds "order:N" when it is not 4).
    common = lambda sig: "|".join(f for f in sig.split("|") if not f.startswith(("version:", "order:")))  # noqa: E731
    assert common(shown) == common(signature)
    assert f"{key}:{n}|seed:{seed}" in shown

    # The plot: one bootstrap distribution per system over shared bins, each summing to 100 %.
    assert sorted(set(plot["system"])) == sorted(WMT17)
    shares = plot.groupby("system")["share of resamples (%)"].sum()
    assert np.allclose(shares.to_numpy(), 100.0)
    opts = app.make_options(**options)
    plot_n = n if key == "bs" else app.DEFAULT_SAMPLES["bs"]
    scores = {
        name: bleukit.bootstrap_scores(bleukit.corpus_statistics(h, refs, options=opts), opts, plot_n, seed)
        for name, h in systems
    }
    edges = np.histogram_bin_edges(np.concatenate(list(scores.values())), bins=app.PLOT_BINS)
    centres = list((edges[:-1] + edges[1:]) / 2)
    for name, values in scores.items():
        counts = np.histogram(values, bins=edges)[0]
        one = plot[plot["system"] == name]
        shown = {centres.index(c): share for c, share in zip(one["score"], one["share of resamples (%)"])}
        assert all(shown.get(b, 0.0) == 100 * counts[b] / plot_n for b in range(app.PLOT_BINS))  # every resample shown
        assert 0 < len(shown) < app.PLOT_BINS or counts.all()
    if key == "bs":  # the plotted resamples are the test's: their mean is the table's mean
        # (sacreBLEU takes the mean of the sorted scores: the same numbers, added in its order)
        assert float(np.sort(scores[WMT17[1]]).mean()) == theirs[1].mean


def test_compare_report_json_multi_reference(app, shared_data, monkeypatch):
    folder = shared_data / "wmt22-de-en"
    names = ["JDExploreAcademy", "Online-A"]
    systems = [(n, read_lines(folder / f"hyp.{n}.en")[:150]) for n in names]
    streams = [read_lines(folder / f"ref.{k}.en")[:150] for k in "AB"]
    named, refs = app.parse_systems(["\n".join(h) for _, h in systems], names, ["\n".join(s) for s in streams])
    report = app.compare_report(named, refs, app.make_options(), "bs", 150, 12345)
    _, theirs = _sacrebleu_paired(systems, streams, "bs", 150, 12345, monkeypatch)
    assert report["signature"].startswith("nrefs:2|bs:150|seed:12345|")
    for row, t in zip(report["systems"], theirs):
        assert row["score"] == t.score
        assert row["p_value"] == t.p_value
        assert row["mean"] == t.mean
    assert report["systems"][0]["significant"] is None
    assert report["systems"][1]["significant"] == (theirs[1].p_value < 0.05)


@pytest.mark.parametrize("method, correction", [("paired bootstrap", "Holm-Bonferroni"),
                                                 ("approximate randomization", "Bonferroni")])
def test_compare_tab_ranks_all_pairs_with_corrected_p_values(app, wmt17, monkeypatch, method, correction):
    systems, refs = wmt17
    key, fix = app.METHODS[method], app.CORRECTIONS[correction]
    form = _form(app, ["\n".join(h) for _, h in systems], [n for n, _ in systems], ["\n".join(refs)], method, 200, 5)
    notice, table, summary, _ = app.on_compare(*form, "BLEU", "all pairs: ranking with clusters", correction)
    assert "error" not in notice
    # The baseline table: sacreBLEU's raw p-values, then the corrected ones, which decide "significant".
    _, theirs = _sacrebleu_paired(systems, [refs], key, 200, 5, monkeypatch)
    ours = bleukit.paired_test(systems, refs, method=key, n_samples=200, seed=5, correction=fix)
    for row, t, r in zip(list(table.itertuples(index=False))[1:], theirs[1:], ours[1:]):
        assert r.p_value == t.p_value
        assert row[3] == f"{t.p_value:.4f} → {r.p_value_adjusted:.4f}" + (" *" if r.p_value_adjusted < 0.05 else "")
        assert row[4] == ("yes" if r.p_value_adjusted < 0.05 else "no")
    # The ranking: bleukit.compare_systems of all pairs, shown in score order with clusters.
    expected = bleukit.compare_systems(systems, refs, method=key, n_samples=200, seed=5, correction=fix)
    report = app.compare_report(systems, [[r] for r in refs], app.make_options(), key, 200, 5, "rank", fix)
    assert report["ranking"] == expected.to_dict() and report["correction"] == fix
    validate(json.loads(json.dumps(report)), "app-compare")
    shown = html.unescape(summary.split('id="compare-ranking-table">')[1].split("</table>")[0])
    for r in expected.ranking:
        assert f"<td>{r.rank}</td><td>{r.cluster}</td><td>{r.rank_range[0]}-{r.rank_range[1]}</td><td>{r.name}</td>" \
            f"<td>{r.score:.2f}</td>" in shown
    pairs = summary.split('id="compare-pairs-table">')[1]
    assert pairs.count("<tr>") == 1 + len(systems) * (len(systems) - 1) // 2
    assert f"then corrected for {len(systems) - 1} comparisons ({fix}" in summary


def test_compare_tab_defaults_to_sacrebleus_comparison_and_the_api_ranks(app, wmt17):
    systems, refs = wmt17
    form = _form(app, ["\n".join(h) for _, h in systems], [n for n, _ in systems], ["\n".join(refs)],
                 "approximate randomization", 100, 1)
    plain = app.on_compare(*form)
    explicit = app.on_compare(*form, "BLEU", *list(app.COMPARISONS)[:1], *list(app.CORRECTIONS)[:1])
    assert plain[1].equals(explicit[1]) and plain[2] == explicit[2] and "compare-ranking" not in plain[2]
    assert "→" not in "".join(plain[1]["p-value"])
    texts = ["\n".join(h) for _, h in systems]
    r = app.compare(texts, ["\n".join(refs)], names=WMT17, method="ar", n_samples=100, seed=1, comparison="rank",
                    correction="holm")
    assert r["ranking"] == bleukit.compare_systems(systems, refs, method="ar", n_samples=100, seed=1).to_dict()
    assert [s["p_value_adjusted"] is None for s in r["systems"]] == [True, False, False]
    validate(json.loads(json.dumps(r)), "app-compare")
    plain_report = app.compare(texts, ["\n".join(refs)], method="ar", n_samples=50)
    validate(json.loads(json.dumps(plain_report)), "app-compare")
    with pytest.raises(Exception, match="is not valid under any of the given schemas"):
        validate({**plain_report, "ranking": {"metric": "bleu"}}, "app-compare")
    import gradio as gr

    with pytest.raises(gr.Error, match="comparison must be one of 'baseline', 'rank'"):
        app.compare(texts, ["\n".join(refs)], comparison="pairs")
    with pytest.raises(gr.Error, match="correction"):
        app.compare(texts, ["\n".join(refs)], correction="sidak")


def test_defaults_are_sacrebleus(app):
    assert app.paired_settings("paired bootstrap", None, 12345) == ("bs", 1000, 12345)
    assert app.paired_settings("approximate randomization", "", 12345) == ("ar", 10000, 12345)
    assert app.on_method("approximate randomization") == 10000 and app.on_method("paired bootstrap") == 1000


@pytest.mark.parametrize(
    "texts, names, sets, method, n, seed, message",
    [
        (["a b", ""], [], ["a b"], "bs", 10, 1, "Fill at least 2 systems"),
        (
            ["a b\nc", "a b"],
            [],
            ["a b\nc"],
            "bs",
            10,
            1,
            "System 'system 2' has 1 line\\(s\\) but the baseline 'system 1' has 2",
        ),
        (["a", "b"], ["x", "x"], ["a"], "bs", 10, 1, "Two systems are named 'x'"),
        (["a", "b"], [], ["a\nb"], "bs", 10, 1, "Reference set 1 has 2 line\\(s\\) but there are 1 hypotheses"),
        (["a", "b"], [], [""], "bs", 10, 1, "No references"),
        (["a", "b"], [], ["a"], "bs", 20_001, 1, "between 1 and 20,000"),
        (["a", "b"], [], ["a"], "bs", 1.5, 1, "whole number"),
        (["a", "b"], [], ["a"], "bs", 10, -1, "seed must be a whole number >= 0"),
        (["a", "b"], [], ["a"], "bs", 10, None, "seed must be a whole number"),
        (["a", "b"], [], ["a"], "t-test", 10, 1, "unknown test"),
        (["a", "b"], ["n" * 81], ["a"], "bs", 10, 1, "at most 80"),
    ],
)
def test_compare_input_errors_are_named(app, texts, names, sets, method, n, seed, message):
    with pytest.raises(ValueError, match=message):
        systems, refs = app.parse_systems(texts, names, sets)
        app.paired_settings(method, n, seed)


def test_a_compare_input_error_clears_the_results(app, caplog):
    notice, table, summary, plot = app.on_compare(
        *_form(app, ["a b\nc", "a b"], [], ["a b\nc"], "paired bootstrap", 10, 1)
    )
    message = "System 'system 2' has 1 line(s) but the baseline 'system 1' has 2"
    assert html.unescape(notice).count(message) == 1 and 'id="compare-error"' in notice and 'role="alert"' in notice
    assert table.empty and list(table.columns) == app.COMPARE_COLUMNS
    assert summary == "" and plot is None
    assert [r.getMessage() for r in caplog.records if r.name == "bleukit.app"] == [
        f"input error in compare: {message}: every system must translate the same segments, line by line."
    ]


def test_system_files_fill_the_boxes_and_name_the_systems(app, tmp_path):
    files = []
    for name, text in [("base.txt", "a b\n"), ("new.txt", "\ufeffa c\n")]:
        (tmp_path / name).write_text(text, encoding="utf-8")
        files.append(str(tmp_path / name))
    *boxes, notice = app.on_upload_systems(files)
    assert boxes[: app.MAX_SYSTEMS] == ["a b\n", "\ufeffa c\n", "", "", ""]
    assert boxes[app.MAX_SYSTEMS :] == ["base.txt", "new.txt", "", "", ""]
    assert "Line 1 of system 2 begins with a byte-order mark" in notice and "below" not in notice
    *boxes, notice = app.on_upload_systems(files * 3)
    assert all(b == app.gr.update() for b in boxes) and "At most 5 system files" in notice


def test_variants_panel_equals_compare_variants(app, shared_data):
    folder = shared_data / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.JDExploreAcademy.en")[:60]
    sets = [read_lines(folder / f"ref.{k}.en")[:60] for k in "AB"]
    notice, frame = app.on_variants("\n".join(hyps), "\n".join(sets[0]), "\n".join(sets[1]), "", "")
    table = bleukit.compare_variants(hyps, bleukit.references_from_streams(sets))
    assert frame.values.tolist() == [[r.name, f"{r.score:.2f}", r.note] for r in table.rows]
    assert frame["variant"].iloc[0] == "sacreBLEU"
    assert float(frame["BLEU"].iloc[0]) == round(BLEU().corpus_score(hyps, sets).score, 2)
    assert {"NLTK corpus_bleu", 'evaluate "bleu"', "multi-bleu.perl"} <= set(frame["variant"])
    for name, why in table.skipped.items():  # spBLEU without a configured model: said, not hidden
        assert f"{name} not scored: {why}." in html.unescape(notice)
    bad_notice, bad = app.on_variants("a\nb", "a", "", "", "")
    assert 'id="variants-error"' in bad_notice and bad.empty and list(bad.columns) == app.VARIANT_COLUMNS
    assert app.clear_variants()[1].empty


def test_api_functions_raise_the_messages(app):
    import gradio as gr

    with pytest.raises(gr.Error, match="Fill at least 2 systems"):
        app.compare(["a b"], ["a b"])
    with pytest.raises(gr.Error, match="one name per system"):
        app.compare(["a b", "a c"], ["a b"], names=["x"])
    with pytest.raises(gr.Error, match="hypotheses are empty"):
        app.variants("", ["a"])


@pytest.mark.parametrize("seed", [2**53 + 1, 2**63 + 12345, 2**64 - 1])
def test_api_seeds_are_never_rounded_through_a_float(app, wmt17, monkeypatch, seed):
    # /compare read seeds above 2**53 through float (p-values of a neighbouring seed), and a seed
    # of 2**64 or more ended in an ASGI traceback when Gradio encoded the answer (orjson: 64 bits).
    import orjson

    systems, refs = wmt17
    (a, hyps_a), (b, hyps_b) = systems[:2]
    got = app.compare(["\n".join(hyps_a[:60]), "\n".join(hyps_b[:60])], ["\n".join(refs[:60])], names=[a, b],
                      method="ar", n_samples=200, seed=seed)
    _, theirs = _sacrebleu_paired([(a, hyps_a[:60]), (b, hyps_b[:60])], [refs[:60]], "ar", 200, seed, monkeypatch)
    assert got["seed"] == seed and f"ar:200|seed:{seed}|" in got["signature"]
    assert [s["p_value"] for s in got["systems"]] == [t.p_value for t in theirs]
    assert orjson.loads(orjson.dumps(got))["seed"] == seed
    assert app.paired_settings("paired bootstrap", "10", str(seed)) == ("bs", 10, seed)


def test_api_seed_and_sample_errors_are_clean(app):
    import gradio as gr

    args = (["a b c", "a b d"], ["a b c"])
    for seed, message in (
        (2**64, "below 2\\*\\*64"),
        (2**70, "below 2\\*\\*64"),
        (float(2**60), "float above 2\\*\\*53"),
        (True, "whole number"),
        (float("nan"), "whole number"),
        (float("inf"), "whole number"),
        ("12a", "whole number"),
    ):
        with pytest.raises(gr.Error, match=message):
            app.compare(*args, seed=seed)
    with pytest.raises(gr.Error, match="number of samples must be a whole number"):
        app.compare(*args, n_samples=float("nan"))
    assert app.compare(*args, n_samples=10.0, seed=5.0)["seed"] == 5  # the page's number boxes give floats
