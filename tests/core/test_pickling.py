"""Every public object survives ``pickle`` and ``copy.deepcopy`` and behaves the same afterwards.

Spawned workers, Ray, DDP and ``datasets.map`` copy what they are given: results, options, tables,
accumulators, significance and MBR results, reports, explanations, tokenizers, the metric objects,
the evaluate modules, the compatibility classes, the framework adapters, the rewards and the
sacreBLEU-shaped API. One case per object: how to make it, and what it does (its behaviour must be
the same on the copies, and the original must be left as it was). torchmetrics' test harness
pickles every metric, which is how a closure in ``SacreBLEUScore`` was found (issue 20).
"""

from __future__ import annotations

import copy
import pickle
from typing import Any, Callable, List, Tuple

import numpy as np
import pytest

import bleukit
from bleukit import BleuOptions
from bleukit.metrics.chrf.options import ChrfOptions

HYPS = ["The cat sat on the mat.", "A dog barked at the postman!", "It rains in the city today, 3.5 mm."]
REFS = ["The cat is on the mat.", "The dog barked at a postman.", "It is raining in the city today, 3.5 mm."]
LINE = "Das ist 1,000.5 Euro teuer! 東京は日本の首都です。"


def _fields(obj: Any) -> Any:
    """What a result-like object holds, comparably (numpy arrays as lists)."""
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if isinstance(obj, tuple):
        return tuple(_fields(x) for x in obj)
    return obj


def _accumulator(options: Any, extras: Tuple[str, ...] = ()) -> Any:
    acc = bleukit.StatisticsAccumulator(options, extras=extras)
    acc.add_text(HYPS[:2], REFS[:2], **{name: 7 for name in extras})
    return acc


def _accumulator_behaviour(acc: Any) -> Any:
    acc.add_text(HYPS[2:], REFS[2:])  # the copy keeps adding where the original was
    return acc.result().to_dict(), acc.counters, acc.n_rows


def _tokenizer(name: str) -> Callable[[], Any]:
    def make() -> Any:
        try:
            return bleukit.get_tokenizer(name)
        except (ImportError, RuntimeError, FileNotFoundError) as err:
            pytest.skip(f"tokenizer {name} unavailable here: {err}")

    return make


def _spm_tokenizer() -> Any:
    spm = pytest.importorskip("sentencepiece")
    import tempfile
    from pathlib import Path

    from bleukit.tokenizers.spm import TokenizerSPM

    root = Path(tempfile.mkdtemp(prefix="bleukit-pickle-spm-"))
    (root / "train.txt").write_text("\n".join(HYPS + REFS + [LINE]) * 30 + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(root / "train.txt"),
        model_prefix=str(root / "tiny"),
        vocab_size=50,
        character_coverage=1.0,
        minloglevel=2,
    )
    return TokenizerSPM("flores200", model_file=str(root / "tiny.model"))


def _evaluate_module(name: str) -> Callable[[], Any]:
    def make() -> Any:
        evaluate = pytest.importorskip("evaluate")
        return evaluate.load(bleukit.metric_path(name))

    return make


def _torchmetrics(cls_name: str, **kwargs: Any) -> Callable[[], Any]:
    def make() -> Any:
        pytest.importorskip("torch")
        from bleukit.compat import torchmetrics

        metric = getattr(torchmetrics, cls_name)(**kwargs)
        metric.update(HYPS[:2], [[r] for r in REFS[:2]])
        return metric

    return make


def _integration_metric(cls_name: str, **kwargs: Any) -> Callable[[], Any]:
    def make() -> Any:
        pytest.importorskip("torchmetrics")
        from bleukit.integrations import torchmetrics

        metric = getattr(torchmetrics, cls_name)(**kwargs)
        metric.update(HYPS[:2], [[r] for r in REFS[:2]])
        return metric

    return make


def _reward(cls_name: str, wrap: bool = False, **kwargs: Any) -> Callable[[], Any]:
    def make() -> Any:
        from bleukit.integrations import rewards

        reward = getattr(rewards, cls_name)(**kwargs)
        return rewards.AsyncReward(reward) if wrap else reward

    return make


def _reward_behaviour(reward: Any) -> Any:
    import asyncio

    out = reward(completions=HYPS, reference=REFS)
    return asyncio.run(out) if asyncio.iscoroutine(out) else out


def _shim(cls_name: str, **kwargs: Any) -> Callable[[], Any]:
    def make() -> Any:
        from bleukit.sacrebleu import metrics

        return getattr(metrics, cls_name)(references=[REFS], **kwargs)  # with its cached references

    return make


def _shim_behaviour(metric: Any) -> Any:
    return str(metric.corpus_score(HYPS, None)), metric.sentence_score(HYPS[0], [REFS[0]]).score


def _torchmetrics_behaviour(metric: Any) -> Any:
    metric.update(HYPS[2:], [[REFS[2]]])  # the copy keeps counting where the original was
    return float(metric.compute())


def _compute_metrics() -> Any:
    pytest.importorskip("transformers")
    import tiny_seq2seq as tiny

    from bleukit.integrations.transformers import BleuComputeMetrics

    return BleuComputeMetrics(tiny.build_tokenizer(), tokenize="intl")


def _compute_metrics_behaviour(metric: Any) -> Any:
    ids = metric.tokenizer(text_target=HYPS)["input_ids"]
    width = max(map(len, ids))
    batch = np.array([row + [-100] * (width - len(row)) for row in ids])
    return metric((batch, batch))


def _callback() -> Any:
    pytest.importorskip("transformers")
    from bleukit.integrations.transformers import BleuCallback

    return BleuCallback(_compute_metrics())


def _datasets_function(which: str) -> Callable[[], Any]:
    def make() -> Any:
        pytest.importorskip("datasets")
        from bleukit.integrations import datasets as adapters

        return getattr(adapters, which)("hyp", "ref", tokenize="13a")

    return make


Case = Tuple[str, Callable[[], Any], Callable[[Any], Any]]
CASES: List[Case] = [
    ("BleuOptions", lambda: BleuOptions(tokenize="intl", smooth_method="floor", smooth_value=0.2), lambda o: o),
    ("ChrfOptions", lambda: ChrfOptions(word_order=2, lowercase=True), lambda o: o),
    ("BleuStatistics", lambda: bleukit.corpus_statistics(HYPS, REFS, options=BleuOptions()), lambda s: s),
    ("ChrfStatistics", lambda: bleukit.corpus_statistics(HYPS, REFS, options=ChrfOptions()), lambda s: s),
    ("BleuResult", lambda: bleukit.corpus_bleu(HYPS, REFS), _fields),
    ("BleuResult with bootstrap", lambda: bleukit.corpus_bleu(HYPS, REFS, n_bootstrap=30), _fields),
    ("sentence BleuResult", lambda: bleukit.sentence_bleu(HYPS[0], [REFS[0]]), _fields),
    (
        "ChrfResult",
        lambda: bleukit.score_statistics(bleukit.corpus_statistics(HYPS, REFS, options=ChrfOptions()), ChrfOptions()),
        _fields,
    ),
    ("StatisticsAccumulator", lambda: _accumulator(BleuOptions()), _accumulator_behaviour),
    ("StatisticsAccumulator chrF", lambda: _accumulator(ChrfOptions()), _accumulator_behaviour),
    ("StatisticsAccumulator extras", lambda: _accumulator(BleuOptions(), ("gen_tokens",)), _accumulator_behaviour),
    ("BootstrapCI", lambda: bleukit.bootstrap_ci(HYPS, REFS, n_bootstrap=20), tuple),
    ("PairedResult bs", lambda: bleukit.paired_test({"a": HYPS, "b": REFS}, REFS, n_samples=20)[1], _fields),
    (
        "PairedResult ar",
        lambda: bleukit.paired_test({"a": HYPS, "b": REFS}, REFS, method="ar", n_samples=20)[1],
        _fields,
    ),
    ("MBRSelection", lambda: bleukit.mbr_select(HYPS + REFS), lambda m: (m.indices, m.selected, m.utilities.tolist())),
    ("CorpusReport", lambda: bleukit.score_report(HYPS, REFS, options=BleuOptions()), _fields),
    ("SentenceReport", lambda: bleukit.score_report(HYPS, REFS, options=BleuOptions()).sentences[1], _fields),
    ("MatchExplanation", lambda: bleukit.explain_bleu(HYPS[0], [REFS[0]]), _fields),
    ("VariantTable", lambda: bleukit.compare_variants(HYPS, REFS), lambda t: [(r.name, r.score) for r in t.rows]),
    *[(f"tokenizer {n}", _tokenizer(n), lambda t: t(LINE)) for n in bleukit.TOKENIZERS
      if not bleukit.TOKENIZERS[n].startswith("spm:")],  # the SentencePiece ones need a model: below
    ("tokenizer spm", _spm_tokenizer, lambda t: t(LINE)),
    (
        "BLEU metric object",
        lambda: bleukit.metrics.get_metric("bleu"),
        lambda m: m.scores(np.array([[4, 4, 3, 1, 4, 3]]), BleuOptions(max_ngram_order=2)).tolist(),
    ),
    ("chrF metric object", lambda: bleukit.metrics.get_metric("chrf"), lambda m: m.name),
    ("torchmetrics BLEUScore", _torchmetrics("BLEUScore", smooth=True), _torchmetrics_behaviour),
    ("torchmetrics SacreBLEUScore", _torchmetrics("SacreBLEUScore", lowercase=True), _torchmetrics_behaviour),
    (
        "NLTK SmoothingFunction",
        lambda: __import__("bleukit.compat.nltk", fromlist=["x"]).SmoothingFunction(epsilon=0.2),
        lambda s: (s.epsilon, s.alpha, s.k),
    ),
    *[
        (
            f"evaluate module {n}",
            _evaluate_module(n),
            lambda m: m.compute(predictions=HYPS, references=[[r] for r in REFS]),
        )
        for n in ("bleukit", "bleu", "google_bleu")
    ],
    (
        "datasets statistics_function",
        _datasets_function("statistics_function"),
        lambda f: {k: np.asarray(v).tolist() for k, v in f({"hyp": HYPS, "ref": REFS}).items()},
    ),
    (
        "datasets sentence_bleu_function",
        _datasets_function("sentence_bleu_function"),
        lambda f: {k: np.asarray(v).tolist() for k, v in f({"hyp": HYPS, "ref": REFS}).items()},
    ),
    ("transformers BleuComputeMetrics", _compute_metrics, _compute_metrics_behaviour),
    ("transformers BleuCallback", _callback, lambda c: _compute_metrics_behaviour(c.metric)),
    ("ChrfResult with bootstrap", lambda: bleukit.corpus_chrf(HYPS, REFS, n_bootstrap=30), _fields),
    ("sentence ChrfResult", lambda: bleukit.sentence_chrf(HYPS[0], [REFS[0]], word_order=2), _fields),
    ("ChrfExplanation", lambda: bleukit.explain_chrf(HYPS[0], [REFS[0]]), str),
    (
        "evaluate module chrf",
        _evaluate_module("chrf"),
        lambda m: m.compute(predictions=HYPS, references=[[r] for r in REFS]),
    ),
    ("integrations BLEUScore", _integration_metric("BLEUScore", tokenize="intl"), _torchmetrics_behaviour),
    ("integrations CHRFScore", _integration_metric("CHRFScore", word_order=2), _torchmetrics_behaviour),
    ("BleuReward", _reward("BleuReward", scale=1.0), _reward_behaviour),
    ("BleuReward ids", _reward("BleuReward", ids=True, tokenizer=None, pad_id=0), lambda r: (r.__name__, r.ids)),
    ("ChrfReward", _reward("ChrfReward", word_order=2), _reward_behaviour),
    ("AsyncReward", _reward("ChrfReward", wrap=True), _reward_behaviour),
    ("sacreBLEU-shaped BLEU", _shim("BLEU", tokenize="intl"), _shim_behaviour),
    ("sacreBLEU-shaped CHRF", _shim("CHRF", word_order=2), _shim_behaviour),
    ("sacreBLEU-shaped BLEUScore", lambda: _shim("BLEU")().corpus_score(HYPS, None, n_bootstrap=20), str),
    ("sacreBLEU-shaped Signature", lambda: _shim("CHRF")().get_signature(), str),
    ("TerOptions", lambda: bleukit.TerOptions(normalized=True), lambda o: o),
    ("TerResult with bootstrap", lambda: bleukit.corpus_ter(HYPS, REFS, n_bootstrap=30), _fields),
    ("TerStatistics", lambda: bleukit.corpus_statistics(HYPS, REFS, options=bleukit.TerOptions()), lambda s: s),
]


def _pickled(obj: Any) -> Any:
    return pickle.loads(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


@pytest.mark.parametrize("make, behaviour", [pytest.param(m, b, id=name) for name, m, b in CASES])
def test_public_object_pickles_and_deepcopies(make, behaviour):
    original = make()
    expected = behaviour(make())  # a fresh twin, so the original is only ever copied
    for copier in (_pickled, copy.deepcopy):
        clone = copier(original)
        assert type(clone) is type(original)
        assert behaviour(clone) == expected, copier
    assert behaviour(original) == expected
