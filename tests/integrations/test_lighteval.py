"""The lighteval metrics in lighteval 0.13 itself (its own environment: lighteval pins nltk 3.9.1;
`make test-lighteval` builds .venv-lighteval and runs this file). Corpus scores against sacreBLEU
with ==, every reference of every sample used; the standard error against lighteval's own bootstrap
(the same resamples) with ==; a local task's samples through lighteval's apply_metric and
MetricsLogger.aggregate, offline. bleu_1/bleu_4 against lighteval's own with ==, on NLTK's Punkt
data taken from a registry wheel that bundles it (fetched at set-up, never committed)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import zipfile

import pytest

pytest.importorskip("lighteval", reason="needs lighteval in its own venv: make test-lighteval")

import nltk  # noqa: E402
import numpy as np  # noqa: E402
import sacrebleu  # noqa: E402
from lighteval.logging.info_loggers import MetricsLogger  # noqa: E402
from lighteval.metrics import apply_metric  # noqa: E402
from lighteval.metrics.metrics import Metrics  # noqa: E402
from lighteval.metrics.metrics_sample import BLEU as LightevalBLEU  # noqa: E402
from lighteval.metrics.sample_preparator import GenerativeCorpusMetricInput as Sample  # noqa: E402
from lighteval.metrics.utils.stderr import bootstrap_stderr  # noqa: E402
from lighteval.models.model_output import ModelResponse  # noqa: E402
from lighteval.tasks.lighteval_task import LightevalTask, LightevalTaskConfig  # noqa: E402
from lighteval.tasks.requests import Doc  # noqa: E402
from shared_data import REPO, read_lines, skip_unless_required  # noqa: E402

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


# llama-index-core's wheel bundles NLTK's punkt_tab (its _static/nltk_cache): the one registry
# package found that ships it; only that folder is extracted, into a temporary NLTK data folder.
PUNKT_WHEEL = "llama-index-core==0.14.25"
PUNKT_IN_WHEEL = "llama_index/core/_static/nltk_cache/"


@pytest.fixture(scope="module")
def punkt_data(tmp_path_factory):
    download = tmp_path_factory.mktemp("wheel")
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:"]
        + [PUNKT_WHEEL, "-d", str(download), "-q"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    wheels = list(download.glob("llama_index_core-*.whl"))
    if pip.returncode != 0 or not wheels:
        skip_unless_required(
            f"cannot download {PUNKT_WHEEL} (it bundles NLTK's punkt_tab) from the registry: {pip.stderr[-500:]}",
            "BLEUKIT_REQUIRE_REGISTRY",
        )
    root = tmp_path_factory.mktemp("nltk_data")
    with zipfile.ZipFile(wheels[0]) as wheel:
        members = [n for n in wheel.namelist() if n.startswith(PUNKT_IN_WHEEL + "tokenizers/punkt_tab/")]
        for name in members:
            target = root / name[len(PUNKT_IN_WHEEL) :]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(wheel.read(name))
    assert (root / "tokenizers" / "punkt_tab" / "english" / "sent_starters.txt").is_file()
    return root


@pytest.fixture
def offline_nltk(monkeypatch, punkt_data):
    """NLTK finds punkt_tab in the extracted folder only, and any download fails the test."""

    def no_download(*args, **kwargs):
        raise AssertionError(f"nltk.download{args} called: the test is offline")

    monkeypatch.setattr(nltk.data, "path", [str(punkt_data)])
    monkeypatch.setattr(nltk, "download", no_download)


def bleu_docs(hyps, streams, predictions_per_doc=1):
    docs, responses = [], []
    for k, refs in enumerate(zip(*streams)):
        docs.append(Doc(query="", choices=list(refs), gold_index=list(range(len(refs))), task_name="t"))
        # several sampled predictions per doc too: lighteval averages BLEU over them
        responses.append(ModelResponse(text=[hyps[(k + j) % len(hyps)] for j in range(predictions_per_doc)]))
    return docs, responses


@pytest.mark.filterwarnings("ignore::UserWarning")  # NLTK (and its reproduction) warn on zero n-gram counts
@pytest.mark.parametrize("name, n_gram", [("bleu_1", 1), ("bleu_4", 4)])
@pytest.mark.parametrize("predictions_per_doc", [1, 2])
def test_bleu_n_is_lightevals_offline(offline_nltk, monkeypatch, shared_data, name, n_gram, predictions_per_doc):
    folder = shared_data / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.LT22.en")[:LINES]
    streams = [read_lines(folder / f"ref.{k}.en")[:LINES] for k in "AB"]
    docs, responses = bleu_docs(hyps, streams, predictions_per_doc)
    ours_metric, theirs_metric = getattr(plugin, name), getattr(Metrics, name).value
    assert ours_metric.metric_name == theirs_metric.metric_name == name
    ours = [ours_metric.sample_level_fn.compute(d, r) for d, r in zip(docs, responses)]
    # lighteval's own, with its nltk.download("punkt_tab") made a no-op (the data is on the path)
    monkeypatch.setattr(nltk, "download", lambda *args, **kwargs: True)
    assert isinstance(theirs_metric.sample_level_fn, LightevalBLEU)
    theirs = [theirs_metric.sample_level_fn.compute(d, r) for d, r in zip(docs, responses)]
    assert ours == theirs
    assert len(set(ours)) > 10 and 0 < ours_metric.corpus_level_fn(ours) < 1
    assert ours_metric.corpus_level_fn(ours) == np.mean(theirs)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_bleu_n_through_lightevals_apply_metric(offline_nltk, monkeypatch):
    task, docs = _local_task()
    hyps = ["Das Haus ist klein. Es ist alt.", "Ich mag Tee.", "Der Zug fährt mittags."]
    hyps += ["Sie liest.", "Es regnet heute.", "Wo ist die Station?"]
    responses = [ModelResponse(text=[h]) for h in hyps]
    ours = apply_metric(responses, docs, [plugin.bleu_1, plugin.bleu_4])
    monkeypatch.setattr(nltk, "download", lambda *args, **kwargs: True)
    theirs = apply_metric(responses, docs, [Metrics.bleu_1.value, Metrics.bleu_4.value])
    assert ours == theirs and {k for o in ours for k in o} == {"bleu_1", "bleu_4"}


def test_bleu_n_without_punkt_names_the_fix(monkeypatch, tmp_path):
    def no_download(*args, **kwargs):
        raise AssertionError("bleukit must never download")

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    monkeypatch.setattr(nltk, "download", no_download)
    doc = Doc(query="", choices=["The cat sat."], gold_index=0, task_name="t")
    with pytest.raises(LookupError, match=r"python -m nltk.downloader punkt_tab.*NLTK_DATA"):
        plugin.bleu_4.sample_level_fn.compute(doc, ModelResponse(text=["The cat sat."]))
    with pytest.raises(ValueError, match="n_gram must be an int from 1 to 4"):
        plugin.NltkBleu(0)
