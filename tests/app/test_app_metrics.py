"""The app's metric choice: chrF, chrF++ and TER beside BLEU (the "Other metrics" panel of the scoring
tab, the compare tab's metric, the ``/metrics`` and ``/compare`` endpoints' functions), through the
metric protocol, against sacreBLEU's ``CHRF``/``TER`` and ``PairedTest`` with ==."""

from __future__ import annotations

import re

import pytest
from sacrebleu.metrics import CHRF, TER
from sacrebleu.significance import PairedTest
from shared_data import read_lines

pytest.importorskip("gradio")

WMT17 = ["KIT.4950", "LIUM-NMT.4900", "online-A.0"]
LINES = 120
SACREBLEU = {"chrF": lambda: CHRF(), "chrF++": lambda: CHRF(word_order=2), "TER": lambda: TER()}


def _version_free(signature: str) -> str:
    return re.sub(r"\|version:[^|]*$", "", signature)


@pytest.fixture(scope="module")
def wmt17(shared_data):
    folder = shared_data / "wmt17-en-de"
    systems = [(name, read_lines(folder / f"hyp.{name}.de")[:LINES]) for name in WMT17]
    return systems, read_lines(folder / "ref.de")[:LINES], read_lines(folder / "ref.de")[LINES:2 * LINES]


def test_other_metrics_panel_equals_sacrebleu(app, wmt17):
    systems, refs, other = wmt17
    hyps = systems[0][1]
    # two reference sets (the second: other lines of the file, any text will do)
    report = app.metrics_report("\n".join(hyps), ["\n".join(refs), "\n".join(other), "", ""])
    assert [r["metric"] for r in report["rows"]] == ["chrF", "chrF++", "TER"]
    for row in report["rows"]:
        metric = SACREBLEU[row["metric"]]()
        want = metric.corpus_score(hyps, [refs, other])
        assert (row["name"], row["score"]) == (want.name, want.score)
        assert row["higher_is_better"] is (row["metric"] != "TER")
        assert _version_free(row["signature"]) == _version_free(str(metric.get_signature()))
    notice, table = app.on_metrics("\n".join(hyps), "\n".join(refs), "\n".join(other), "", "")
    assert notice == "" and table["metric"].tolist() == ["chrF", "chrF++", "TER"]
    assert table["score"].tolist() == [f"{r['score']:.2f}" for r in report["rows"]]
    assert table["better"].tolist() == ["higher", "higher", "lower"]
    assert app.metrics("\n".join(hyps), ["\n".join(refs), "\n".join(other)]) == report
    # an input error: the message, and the table cleared
    notice, table = app.on_metrics("a\nb", "a", "", "", "")
    assert 'id="metrics-error"' in notice and "Reference set 1 has 1 line(s)" in notice and table.empty
    # a new score clears the panel computed for the earlier text
    cleared = app.clear_variants()
    assert cleared[2] == "" and cleared[3].empty and list(cleared[3].columns) == app.METRIC_COLUMNS


def _form(app, systems, refs, method, n, seed, metric):
    pad = lambda xs, k: list(xs) + [""] * (k - len(xs))  # noqa: E731
    return [
        *pad(["\n".join(h) for _, h in systems], app.MAX_SYSTEMS),
        *pad([name for name, _ in systems], app.MAX_SYSTEMS),
        *pad(["\n".join(refs)], app.MAX_REFERENCE_SETS),
        *app.reset_options(),
        method,
        n,
        seed,
        metric,
    ]


@pytest.mark.parametrize(
    "metric, method, n",
    [("TER", "paired bootstrap", 200), ("TER", "approximate randomization", 300), ("chrF++", "paired bootstrap", 200)],
)
def test_compare_tab_with_another_metric_equals_sacrebleu(app, wmt17, monkeypatch, metric, method, n):
    systems, refs, _ = wmt17
    seed = 7
    notice, table, summary, plot = app.on_compare(*_form(app, systems, refs, method, n, seed, metric))
    assert "error" not in notice
    monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    key = app.METHODS[method]
    sigs, scores = PairedTest(systems, {metric: SACREBLEU[metric]()}, [refs], test_type=key, n_samples=n)()
    name, theirs = next((k, v) for k, v in scores.items() if k != "System")
    assert list(table.columns)[1] == name  # the score column is named after the metric
    for k, (row, t) in enumerate(zip(table.itertuples(index=False), theirs)):
        assert row[1] == f"{t.score:.2f}"
        if k:
            assert row[3] == f"{t.p_value:.4f}" + (" *" if t.p_value < 0.05 else "")  # identical p-values
    shown = summary.split('id="compare-signature">')[1].split("</code>")[0].replace("<wbr>", "")
    assert _version_free(shown) == _version_free(str(sigs[name]))
    assert ("lower is better" in summary) is (metric == "TER")
    assert "the BLEU options above do not apply" in summary
    assert set(plot["system"]) == set(WMT17) and "score" in plot.columns
    report = app.compare([*("\n".join(h) for _, h in systems)], ["\n".join(refs)], names=list(WMT17), method=key,
                         n_samples=n, seed=seed, metric=metric)
    assert [s["score"] for s in report["systems"]] == [t.score for t in theirs]
    assert [s["p_value"] for s in report["systems"]] == [t.p_value for t in theirs]
    assert report["higher_is_better"] is (metric != "TER")


def test_unknown_metric_is_an_input_error(app, wmt17):
    systems, refs, _ = wmt17
    notice, table, _, plot = app.on_compare(*_form(app, systems, refs, "paired bootstrap", 10, 1, "ROUGE"))
    assert "unknown metric &#x27;ROUGE&#x27;" in notice and table.empty and plot is None
    with pytest.raises(ValueError, match="unknown metric"):
        app.metric_options("rouge")
    # BLEU is the default, and the options of the form apply to it only
    assert app.metric_options("BLEU", app.make_options("intl")).tokenize == "intl"
    assert app.metric_options("TER", app.make_options("intl")) == app.metric_options("TER")
