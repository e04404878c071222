"""The lighteval metrics in lighteval 0.13 itself (its own environment: lighteval pins nltk 3.9.1;
`make test-lighteval` builds .venv-lighteval and runs this file). Corpus scores against sacreBLEU
with ==, every reference of every sample used; the standard error against lighteval's own bootstrap
(the same resamples) with ==; a local task's samples through lighteval's apply_metric and
MetricsLogger.aggregate, offline."""

from __future__ import annotations

import json
import math

import pytest

pytest.importorskip("lighteval", reason="needs lighteval in its own venv: make test-lighteval")

import sacrebleu  # noqa: E402
from lighteval.logging.info_loggers import MetricsLogger  # noqa: E402
from lighteval.metrics import apply_metric  # noqa: E402
from lighteval.metrics.metrics import Metrics  # noqa: E402
from lighteval.metrics.sample_preparator import GenerativeCorpusMetricInput as Sample  # noqa: E402
from lighteval.metrics.utils.stderr import bootstrap_stderr  # noqa: E402
from lighteval.models.model_output import ModelResponse  # noqa: E402
from lighteval.tasks.lighteval_task import LightevalTask, LightevalTaskConfig  # noqa: E402
from lighteval.tasks.requests import Doc  # noqa: E402
from shared_data import REPO, read_lines  # noqa: E402

from bleukit.integrations import lighteval as plugin  # noqa: E402

LINES = 80


@pytest.fixture(scope="module")
def wmt22_zh(shared_data):
    folder = shared_data / "wmt22-en-zh"
    streams = [read_lines(folder / f"ref.{k}.zh")[:LINES] for k in "AB"]
    return read_lines(folder / "hyp.LanguageX.zh")[:LINES], streams


@pytest.fixture(scope="module")
def wmt17(shared_data):
    folder = shared_data / "wmt17-en-de"
    return read_lines(folder / "hyp.uedin-nmt.4722.de")[:LINES], read_lines(folder / "ref.de")[:LINES]


def samples(hyps, streams):
    return [Sample(golds=list(refs), preds=[h]) for h, refs in zip(hyps, zip(*streams))]


@pytest.mark.parametrize(
    "metric, language, reference",
    [
        (plugin.bleu, None, lambda h, s: sacrebleu.corpus_bleu(h, s)),
        (plugin.corpus_metric("bleu", language="zh"), None, lambda h, s: sacrebleu.corpus_bleu(h, s, tokenize="zh")),
        (
            plugin.corpus_metric("bleu", language="en-zh"),
            None,
            lambda h, s: sacrebleu.BLEU(trg_lang="zh").corpus_score(h, s),
        ),
        (plugin.chrf, None, lambda h, s: sacrebleu.corpus_chrf(h, s)),
        (plugin.chrf_plus, None, lambda h, s: sacrebleu.corpus_chrf(h, s, word_order=2)),
        (plugin.ter, None, lambda h, s: sacrebleu.corpus_ter(h, s)),
        (
            plugin.corpus_metric("ter", asian_support=True, normalized=True),
            None,
            lambda h, s: sacrebleu.corpus_ter(h, s, asian_support=True, normalized=True),
        ),
    ],
)
def test_every_reference_of_every_sample(wmt22_zh, metric, language, reference):
    hyps, streams = wmt22_zh
    assert metric.corpus_level_fn.compute_corpus(samples(hyps, streams)) == reference(hyps, streams).score


def test_lighteval_scores_what_it_should_not(wmt17):
    """The bugs the drop-ins fix, on lighteval's own metrics: chrF of per-sample golds taken as
    streams, BLEU of the first reference only."""
    hyps, refs = wmt17
    items = samples(hyps, [refs])
    right = sacrebleu.corpus_chrf(hyps, [refs]).score
    assert plugin.chrf.corpus_level_fn.compute_corpus(items) == right
    assert Metrics.chrf.value.corpus_level_fn.compute_corpus(items) != right
    three = [Sample(golds=["The cat sat."], preds=["The cat sat."])] * 2 + [Sample(golds=["Rain."], preds=["Sun."])]
    assert Metrics.chrf.value.corpus_level_fn.compute_corpus(three) == 100.0
    assert (
        plugin.chrf.corpus_level_fn.compute_corpus(three)
        == sacrebleu.corpus_chrf(
            ["The cat sat.", "The cat sat.", "Sun."], [["The cat sat.", "The cat sat.", "Rain."]]
        ).score
        < 100
    )


def sacrebleu_bleu(resample):
    """sacreBLEU's BLEU of a resample (module level: lighteval's process pool pickles it)."""
    return sacrebleu.corpus_bleu([s.preds[0] for s in resample], [[s.golds[0] for s in resample]]).score


def sacrebleu_chrf(resample):
    return sacrebleu.corpus_chrf([s.preds[0] for s in resample], [[s.golds[0] for s in resample]]).score


SACREBLEU = {"bleu": sacrebleu_bleu, "chrf": sacrebleu_chrf}


@pytest.mark.slow  # lighteval rescores 1000 resamples with sacreBLEU in a process pool
@pytest.mark.parametrize("name", ["bleu", "chrf"])
def test_stderr_uses_lightevals_resamples(wmt17, name):
    hyps, refs = wmt17
    hyps, refs = hyps[:30], refs[:30]
    items = samples(hyps, [refs])
    theirs = bootstrap_stderr(SACREBLEU[name], items, number_experiments=1000)
    ours = getattr(plugin, name).corpus_level_fn.stderr(items, 1000)
    # lighteval reports the standard error of the mean of its 1000 resampled scores
    assert theirs == ours / math.sqrt(1000)


def _local_task():
    rows = [
        json.loads(line) for line in open(REPO / "integrations" / "lm_eval_task" / "wmt_local.jsonl", encoding="utf-8")
    ]

    def prompt(line, task_name):
        return Doc(
            query=f"Translate to German: {line['source']}\nGerman:",
            choices=[line["target"]],
            gold_index=0,
            task_name=task_name,
        )

    config = LightevalTaskConfig(
        name="wmt_local",
        prompt_function=prompt,
        hf_repo="local",
        hf_subset="default",
        metrics=[plugin.bleu, plugin.chrf, plugin.chrf_plus],
        evaluation_splits=["test"],
        generation_size=64,
    )
    return LightevalTask(config), [prompt(row, "wmt_local") for row in rows]


def test_local_task_through_lightevals_logger():
    task, docs = _local_task()
    hyps = [
        "Das Haus ist klein.",
        "Ich mag Tee.",
        "Der Zug fährt mittags.",
        "Sie liest ein Buch jede Nacht.",
        "Es regnet heute in der Stadt.",
        "Wo ist die Station?",
    ]
    outputs = apply_metric([ModelResponse(text=[h]) for h in hyps], docs, list(task.metrics))
    logger = MetricsLogger()
    for output in outputs:
        logger.log(task.full_name, output)
    logger.aggregate({task.full_name: task}, bootstrap_iters=1000)
    got = logger.metric_aggregated[task.full_name]
    refs = [[d.get_golds()[0] for d in docs]]
    assert got["bleu"] == sacrebleu.corpus_bleu(hyps, refs).score
    assert got["chrf"] == sacrebleu.corpus_chrf(hyps, refs).score
    assert got["chrf++"] == sacrebleu.corpus_chrf(hyps, refs, word_order=2).score
    items = [o["bleu"] for o in outputs]
    assert got["bleu_stderr"] == plugin.bleu.corpus_level_fn.stderr(items, 1000) > 0


def test_lightevals_own_translation_task_with_bleukit_metrics(wmt22_zh):
    from lighteval.tasks.tasks.sacrebleu import wmt19_en_zh

    task = plugin.with_bleukit_metrics(wmt19_en_zh)
    assert [m.metric_name for m in task.metrics] == [m.metric_name for m in wmt19_en_zh.metrics]
    bleu_metric = next(m for m in task.metrics if m.metric_name == "bleu")
    hyps, streams = wmt22_zh
    items = samples(hyps, streams)
    expected = sacrebleu.corpus_bleu(hyps, streams, tokenize="zh").score
    assert bleu_metric.corpus_level_fn.compute_corpus(items) == expected
    # lighteval's own task scores Chinese with 13a and the first reference only
    first = sacrebleu.corpus_bleu(hyps, streams[:1]).score
    theirs = next(m for m in wmt19_en_zh.metrics if m.metric_name == "bleu").corpus_level_fn
    assert theirs.lang == "" and first != expected
    ter_metric = next(m for m in task.metrics if m.metric_name == "ter")
    assert ter_metric.corpus_level_fn.compute_corpus(items) == sacrebleu.corpus_ter(hyps, streams).score


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="GenerativeCorpusMetricInput"):
        plugin.bleu.corpus_level_fn.compute_corpus([("a", "a")])
    with pytest.raises(ValueError, match="no samples"):
        plugin.bleu.corpus_level_fn.compute_corpus([])
    with pytest.raises(TypeError, match="not both"):
        plugin.corpus_metric("bleu", plugin.bleu.corpus_level_fn.options, tokenize="intl")
    with pytest.raises(TypeError, match="unknown CHRF option"):
        plugin.corpus_metric("chrf", tokenize="intl")
