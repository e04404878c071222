"""The lm-evaluation-harness plug-in in lm-eval 0.4.13 itself: scores against sacreBLEU with ==,
standard errors against lm-eval's own bootstrap with ==, an end-to-end run of the example task YAML
on local data with a local model, and the paired test of two runs' logged samples against
sacreBLEU's PairedTest."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("lm_eval", reason="needs lm-eval (pip install 'bleukit[lm-eval]')")

import lm_eval  # noqa: E402
import lm_eval.api.metrics as lm_metrics  # noqa: E402
import lm_eval_oracle  # noqa: E402
import sacrebleu  # noqa: E402
import stored_oracles  # noqa: E402
from lm_eval.api.model import LM  # noqa: E402
from lm_eval.loggers import EvaluationTracker  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402
from sacrebleu.metrics import BLEU, CHRF  # noqa: E402
from sacrebleu.significance import PairedTest  # noqa: E402
from shared_data import REPO, read_lines  # noqa: E402

from bleukit.integrations import lm_eval as plugin  # noqa: E402
from bleukit.integrations._harness import harness_indices  # noqa: E402

TASK_DIR = REPO / "integrations" / "lm_eval_task"
LINES = 60
# lm-eval scores TER with sacreBLEU again on every resample: each pair's edits once per worker
pytestmark = pytest.mark.usefixtures("sacrebleu_edits_once")


@pytest.fixture(scope="module")
def wmt17(shared_data):
    folder = shared_data / "wmt17-en-de"
    refs = read_lines(folder / "ref.de")[:LINES]
    return refs, {name: read_lines(folder / f"hyp.{name}.de")[:LINES] for name in ("KIT.4950", "online-B.0")}


@pytest.fixture(scope="module")
def wmt22_zh(shared_data):
    folder = shared_data / "wmt22-en-zh"
    return read_lines(folder / "ref.A.zh")[:LINES], read_lines(folder / "hyp.Online-B.zh")[:LINES]


def items_of(name, hyps, refs, **keywords):
    f = plugin.METRIC_FUNCTIONS[name]
    return [f(references=[r], predictions=[h], **keywords) for h, r in zip(hyps, refs)]


@pytest.mark.parametrize(
    "name, keywords, reference",
    [
        ("bleukit_bleu", {}, lambda h, r: sacrebleu.corpus_bleu(h, [r])),
        (
            "bleukit_bleu",
            {"tokenize": "intl", "lowercase": True},
            lambda h, r: sacrebleu.corpus_bleu(h, [r], tokenize="intl", lowercase=True),
        ),
        ("bleukit_chrf", {}, lambda h, r: sacrebleu.corpus_chrf(h, [r])),
        ("bleukit_chrf++", {}, lambda h, r: sacrebleu.corpus_chrf(h, [r], word_order=2)),
        (
            "bleukit_chrf",
            {"char_order": 4, "beta": 1},
            lambda h, r: sacrebleu.corpus_chrf(h, [r], char_order=4, beta=1),
        ),
        ("bleukit_ter", {}, lambda h, r: sacrebleu.corpus_ter(h, [r])),
        (
            "bleukit_ter",
            {"normalized": True, "case_sensitive": True},
            lambda h, r: sacrebleu.corpus_ter(h, [r], normalized=True, case_sensitive=True),
        ),
    ],
)
def test_corpus_score_is_sacrebleu(wmt17, name, keywords, reference):
    refs, systems = wmt17
    hyps = systems["KIT.4950"]
    assert plugin.corpus_score(items_of(name, hyps, refs, **keywords)) == reference(hyps, refs).score


def test_target_language_picks_the_tokenizer_as_sacrebleu(wmt22_zh):
    refs, hyps = wmt22_zh
    items = items_of("bleukit_bleu", hyps, refs, target_lang="zh")
    assert items[0].options == {"metric": "bleu", "tokenize": "zh"}
    expected = sacrebleu.corpus_bleu(hyps, [refs], tokenize="zh").score
    assert expected != sacrebleu.corpus_bleu(hyps, [refs]).score  # the 13a score lm-eval reports
    assert plugin.corpus_score(items) == expected
    assert plugin.corpus_score(items_of("bleukit_bleu", hyps, refs, language_pair="en-zh")) == expected
    # an explicit tokenizer is kept, as sacreBLEU's -tok beats -l
    assert (
        items_of("bleukit_bleu", hyps[:1], refs[:1], target_lang="zh", tokenize="char")[0].options["tokenize"] == "char"
    )


def test_several_references_in_one_target(wmt22_zh, shared_data):
    refs_a, hyps = wmt22_zh
    refs_b = read_lines(shared_data / "wmt22-en-zh" / "ref.B.zh")[:LINES]
    f = plugin.METRIC_FUNCTIONS["bleukit_chrf"]
    items = [
        f(references=[f"{a}\t{b}"], predictions=[h], reference_separator="\t") for h, a, b in zip(hyps, refs_a, refs_b)
    ]
    assert plugin.corpus_score(items) == sacrebleu.corpus_chrf(hyps, [refs_a, refs_b]).score
    with pytest.raises(TypeError, match="reference_separator"):
        f(references=["a"], predictions=["a"], reference_separator="")


@pytest.mark.parametrize(
    "name, aggregation, iters",
    [
        ("bleukit_bleu", lm_metrics.bleu, 100),
        ("bleukit_chrf", lm_metrics.chrf, 100),
        ("bleukit_chrf++", lm_metrics.chrfpp, 100),
        ("bleukit_ter", lm_metrics.ter, 100),
    ],
)
def test_stderr_is_lm_evals_bootstrap(monkeypatch, name, aggregation, iters):
    hyps, refs = lm_eval_oracle.lines()
    monkeypatch.setenv("DISABLE_MULTIPROC", "1")
    expected = lm_metrics.bootstrap_stderr(aggregation, list(zip(refs, hyps)), iters=iters)
    assert plugin.bootstrap_stderr(items_of(name, hyps, refs), iters) == expected


@pytest.mark.parametrize("case", list(lm_eval_oracle.CASES))
def test_stderr_is_lm_evals_stored_bootstrap(case):
    # The long runs (lm-eval recomputes sacreBLEU per resample), against lm-eval's stored outputs
    # (lm_eval_oracle.py); the live runs above use the same lines.
    names = {"bleu": "bleukit_bleu", "chrf": "bleukit_chrf", "chrfpp": "bleukit_chrf++"}
    aggregation, iters = lm_eval_oracle.CASES[case]
    hyps, refs = lm_eval_oracle.lines()
    ours = plugin.bootstrap_stderr(items_of(names[aggregation], hyps, refs), iters)
    stored_oracles.check("lm_eval", case, {"stderr": [ours]})


def test_resamples_are_lm_evals():
    import random

    for chunk in (0, 1, 2, 99):
        draws = random.Random(chunk)
        expected = [draws.choices(range(17), k=17) for _ in range(40)]
        assert harness_indices(17, chunk, 40).tolist() == expected


def test_registered_in_lm_eval():
    from lm_eval.api import registry

    names = plugin.register()
    assert plugin.register() == names  # idempotent
    for name in names:
        assert registry.get_metric(name) is plugin.METRIC_FUNCTIONS[name]
        assert registry.get_metric_aggregation(name) is plugin.AGGREGATIONS[name]
        assert registry.get_aggregation(name) is plugin.AGGREGATIONS[name]
    assert registry.is_higher_better("bleukit_bleu") is True
    assert registry.is_higher_better("bleukit_ter") is False
    assert "bleukit_ter" in names  # TER needed no change here: the metric package is enough


LM_EVAL_OWN = [
    ("bleukit_bleu", "bleu", lm_metrics.bleu),
    ("bleukit_chrf", "chrf", lm_metrics.chrf),
    ("bleukit_chrf++", "chrf++", lm_metrics.chrfpp),
    ("bleukit_ter", "ter", lm_metrics.ter),
]


def lm_evals_own_items(metric, golds, hyps):
    """What lm-eval's own metric hands its aggregation: its passthrough function, called as
    lm-eval calls a metric (keywords first, fn([gold, result]) after the TypeError)."""
    from lm_eval.api import registry

    fn = registry.get_metric(metric)
    items = []
    for gold, result in zip(golds, hyps):
        try:
            items.append(fn(references=[gold], predictions=[result]))
        except TypeError:
            items.append(fn([gold, result]))
    return items


@pytest.mark.parametrize("name, metric, aggregation", LM_EVAL_OWN, ids=[n for n, _, _ in LM_EVAL_OWN])
def test_aggregation_reads_lm_evals_own_items(wmt17, monkeypatch, name, metric, aggregation):
    # a task that keeps lm-eval's metric and swaps only the aggregation (aggregation: bleukit_bleu)
    from lm_eval.api import registry

    refs, systems = wmt17
    hyps = systems["KIT.4950"]
    for golds in (refs, [[a, b] for a, b in zip(refs, systems["online-B.0"])]):  # one reference, two
        items = lm_evals_own_items(metric, golds, hyps)
        assert registry.get_aggregation(name)(items) == aggregation(items)
    monkeypatch.setenv("DISABLE_MULTIPROC", "1")
    items = lm_evals_own_items(metric, refs[:25], hyps[:25])
    stderr = lm_eval.evaluator_utils.stderr_for_metric(registry.get_aggregation(name), 100)
    assert stderr(items) == lm_metrics.bootstrap_stderr(aggregation, items, iters=100)


def test_lm_evals_own_items_are_checked():
    bleu = plugin.AGGREGATIONS["bleukit_bleu"]
    one = [(["a b c d"], ["a b c d"])]  # a list of one prediction, as lm-eval's _sacreformat takes it
    assert bleu(one) == lm_metrics.bleu(one)
    with pytest.raises(ValueError, match=r"different numbers of references \(1, 2\).*drop references"):
        bleu([("a b", "a b"), (["c d", "c e"], "c d")])
    with pytest.raises(TypeError, match=r"item 1 must be lm-eval's \(reference, prediction\).*got \(str, int\)"):
        bleu([("a b", "a b"), ("c d", 3)])
    with pytest.raises(ValueError, match="different options"):  # an Item of other options among pairs
        bleu([("a b", "a b")] + items_of("bleukit_bleu", ["a"], ["a"], tokenize="intl"))


def test_bad_items_are_named():
    with pytest.raises(ValueError, match="different options"):
        plugin.corpus_score(
            items_of("bleukit_bleu", ["a"], ["a"]) + items_of("bleukit_bleu", ["a"], ["a"], tokenize="intl")
        )
    with pytest.raises(TypeError, match=r"Item.*use the aggregation of a metric name, bleukit_bleu"):
        plugin.corpus_score([("a", "a")])
    with pytest.raises(TypeError, match="unknown BLEU option"):
        plugin.METRIC_FUNCTIONS["bleukit_bleu"](references=["a"], predictions=["a"], tokenizer="zh")
    with pytest.raises(ValueError, match="no items"):
        plugin.corpus_score([])
    items = items_of("bleukit_bleu", ["a b", "c"], ["a b", "d"])
    with pytest.raises(TypeError, match="bootstrap_iters"):
        plugin.bootstrap_stderr(items, 10.0)
    with pytest.raises(ValueError, match="bootstrap_iters"):
        plugin.bootstrap_stderr(items, 0)


class LocalTranslator(LM):
    """A local model: answers each prompt with the prepared translation of its source sentence."""

    def __init__(self, translations):
        super().__init__()
        self.translations = translations

    def generate_until(self, requests, disable_tqdm=False):
        out = []
        for request in requests:
            source = request.args[0].split("Translate to German: ", 1)[1].split("\n", 1)[0]
            out.append(self.translations[source])
        return out

    def loglikelihood(self, requests, disable_tqdm=False):
        raise NotImplementedError

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        raise NotImplementedError


def _docs():
    with open(TASK_DIR / "wmt_local.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


SYSTEMS = {
    "base": [
        "Das Haus ist klein.",
        "Ich mag Tee.",
        "Der Zug fährt mittags.",
        "Sie liest ein Buch jede Nacht.",
        "Es regnet heute in der Stadt.",
        "Wo ist die Station?",
    ],
    "new": [
        "Das Haus ist klein.",
        "Ich mag grünen Tee.",
        "Der Zug fährt um zwölf Uhr ab.",
        "Sie liest jeden Abend ein Buch.",
        "Heute regnet es in der Stadt.",
        "Wo ist der Bahnhof?",
    ],
}


def _run(system, monkeypatch, tmp_path, iters):
    monkeypatch.chdir(REPO)
    docs = _docs()
    model = LocalTranslator({d["source"]: h for d, h in zip(docs, SYSTEMS[system])})
    # the --log_samples file is written by lm-eval's own tracker, as its command line does
    tracker = EvaluationTracker(output_path=str(tmp_path / system))
    results = lm_eval.simple_evaluate(
        model=model,
        evaluation_tracker=tracker,
        tasks=["wmt_local_en_de"],
        task_manager=TaskManager(include_path=str(TASK_DIR), include_defaults=False),
        bootstrap_iters=iters,
        log_samples=True,
    )
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    tracker.save_results_samples("wmt_local_en_de", samples["wmt_local_en_de"])
    (path,) = (tmp_path / system).rglob("samples_wmt_local_en_de_*.jsonl")
    return results["results"]["wmt_local_en_de"], path


@pytest.mark.slow
def test_task_yaml_end_to_end(monkeypatch, tmp_path):
    monkeypatch.setenv("DISABLE_MULTIPROC", "1")
    refs = [d["target"] for d in _docs()]
    scores, base_samples = _run("base", monkeypatch, tmp_path, 1000)
    hyps = SYSTEMS["base"]
    assert scores["bleukit_bleu,none"] == sacrebleu.corpus_bleu(hyps, [refs]).score
    assert scores["bleukit_chrf,none"] == sacrebleu.corpus_chrf(hyps, [refs]).score
    # the full 1000 resamples (lm-eval caps its own bleu/chrf at 100), equal to lm-eval's bootstrap
    assert scores["bleukit_bleu_stderr,none"] == lm_metrics.bootstrap_stderr(
        lm_metrics.bleu, list(zip(refs, hyps)), iters=1000
    )
    assert scores["bleukit_chrf_stderr,none"] == lm_metrics.bootstrap_stderr(
        lm_metrics.chrf, list(zip(refs, hyps)), iters=1000
    )

    _, new_samples = _run("new", monkeypatch, tmp_path, 0)
    runs = {"base": base_samples, "new": new_samples}
    named = [("base", SYSTEMS["base"]), ("new", SYSTEMS["new"])]
    for method, n in (("bs", 500), ("ar", 400)):
        ours = plugin.paired_test_samples(runs, "bleukit_bleu", method=method, n_samples=n, seed=12345)
        monkeypatch.setenv("SACREBLEU_SEED", "12345")
        _, sb_scores = PairedTest(named, {"BLEU": BLEU(references=[refs])}, None, test_type=method, n_samples=n)()
        assert [r.score for r in ours] == [s.score for s in sb_scores["BLEU"]]
        assert [r.p_value for r in ours] == [s.p_value for s in sb_scores["BLEU"]]


def test_command_line_paired_test_of_logged_samples(wmt17, tmp_path, capsys, monkeypatch):
    refs, systems = wmt17
    paths = []
    for name, hyps in systems.items():
        path = tmp_path / f"samples_{name}.jsonl"
        lines = [
            {"doc_id": i, "bleukit_chrf": list(item)} for i, item in enumerate(items_of("bleukit_chrf", hyps, refs))
        ]
        path.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines), encoding="utf-8")
        paths.append(str(path))
    argv = [*paths, "--metric", "bleukit_chrf", "--method", "ar", "--n-samples", "300", "--seed", "7", "--json"]
    assert plugin.main(argv) == 0
    ours = json.loads(capsys.readouterr().out)
    monkeypatch.setenv("SACREBLEU_SEED", "7")
    _, theirs = PairedTest(
        list(systems.items()), {"chrF": CHRF(references=[refs])}, None, test_type="ar", n_samples=300
    )()
    assert [r["score"] for r in ours] == [s.score for s in theirs["chrF2"]]
    assert [r["p_value"] for r in ours] == [s.p_value for s in theirs["chrF2"]]
    assert plugin.main(paths[:2] + ["--metric", "bleukit_chrf", "--n-samples", "100"]) == 0
    text = capsys.readouterr().out
    assert "baseline" in text and "p = " in text and "μ = " in text


def test_paired_test_refuses_runs_of_other_documents(tmp_path):
    lines = {
        "a": [{"doc_id": 0, "bleukit_bleu": [["x"], "x", {"metric": "bleu"}]}],
        "b": [{"doc_id": 1, "bleukit_bleu": [["x"], "x", {"metric": "bleu"}]}],
    }
    for name, samples in lines.items():
        (tmp_path / name).write_text("\n".join(json.dumps(s) for s in samples))
    with pytest.raises(ValueError, match="different documents"):
        plugin.paired_test_samples({"a": tmp_path / "a", "b": tmp_path / "b"})
    with pytest.raises(ValueError, match="no 'bleukit_chrf' value"):
        plugin.read_samples(tmp_path / "a", "bleukit_chrf")
