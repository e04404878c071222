"""bleukit.integrations.transformers against sacreBLEU: direct calls, real Trainer runs, two processes.

Every expected number comes from sacreBLEU on text decoded the way the transformers examples do it
(``-100`` replaced by the pad id, ``batch_decode(skip_special_tokens=True)``), never from bleukit.
"""

from __future__ import annotations

import copy
import json
import os
import socket
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
sacrebleu = pytest.importorskip("sacrebleu")

import tiny_seq2seq as tiny  # noqa: E402
from shared_data import REPO  # noqa: E402
from transformers import (  # noqa: E402
    DataCollatorForSeq2Seq,
    EarlyStoppingCallback,
    Seq2SeqTrainer,
    set_seed,
)
from transformers.trainer_utils import EvalPrediction  # noqa: E402

from bleukit.integrations.transformers import BleuCallback, BleuComputeMetrics, samples_table  # noqa: E402

# On one xdist worker: one fine-tuning run (the module's `trained` fixture) serves six tests (on two, each
# worker would make its own).
pytestmark = pytest.mark.xdist_group("transformers")

HELPER = Path(__file__).with_name("ddp_seq2seq_worker.py")  # run as a script: one rank of the two-process run

@pytest.fixture(scope="module")
def tokenizer():
    return tiny.build_tokenizer()


def reference_decode(tokenizer, ids):
    """The transformers-examples recipe, written independently of the adapter."""
    ids = np.where(np.asarray(ids) == -100, tokenizer.pad_token_id, np.asarray(ids))
    return tokenizer.batch_decode(ids.tolist(), skip_special_tokens=True)


def assert_matches_sacrebleu(out, hyps, refs, **options):
    expected = sacrebleu.corpus_bleu(hyps, [refs], **options)
    assert out["bleu"] == expected.score
    for n, p in enumerate(expected.precisions, start=1):
        assert out[f"precision_{n}"] == p
    assert out["bp"] == expected.bp
    assert out["sys_len"] == expected.sys_len
    assert out["ref_len"] == expected.ref_len


def sacrebleu_signature(hyps, refs, **options):
    bleu = sacrebleu.BLEU(**options)
    bleu.corpus_score(hyps, [refs])
    return bleu.get_signature().format()


def padded(tokenizer, texts, width, pad_value, target=True):
    """Encode texts and pad every row to ``width`` with ``pad_value`` (like the eval loop does)."""
    enc = tokenizer(text_target=texts)["input_ids"] if target else tokenizer(texts)["input_ids"]
    out = np.full((len(enc), width), pad_value, dtype=np.int64)
    for i, row in enumerate(enc):
        out[i, : len(row)] = row
    return out


PAIRS = tiny.synthetic_pairs(40, seed=5)
REFS = [t for _, t in PAIRS]
# Predictions that differ from the references: drop a word from every third, shuffle every fifth.
HYPS = [
    " ".join(t.split()[1:]) if i % 3 == 0 else " ".join(sorted(t.split())) if i % 5 == 0 else t
    for i, t in enumerate(REFS)
]


def eval_prediction(tokenizer, hyps=HYPS, refs=REFS, width=12):
    # Predictions start with the decoder start token (eos) and are padded with -100, as the
    # Trainer's EvalLoopContainer pads generations of different batches.
    preds = padded(tokenizer, hyps, width - 1, -100)
    start = np.full((len(hyps), 1), tokenizer.eos_token_id, dtype=np.int64)
    preds = np.concatenate([start, preds], axis=1)
    labels = padded(tokenizer, refs, width, -100)
    return EvalPrediction(predictions=preds, label_ids=labels)


# --------------------------------------------------------------------------- direct calls (fast)


def test_ignore_index_crashes_plain_decoding_but_not_the_adapter(tokenizer):
    ep = eval_prediction(tokenizer)
    assert (ep.predictions == -100).any() and (ep.label_ids == -100).any()
    with pytest.raises(OverflowError):  # transformers#22634 / #27714
        tokenizer.batch_decode(ep.predictions.tolist(), skip_special_tokens=True)
    before = (ep.predictions.copy(), ep.label_ids.copy())
    metric = BleuComputeMetrics(tokenizer)
    out = metric(ep)
    hyps = reference_decode(tokenizer, ep.predictions)
    refs = reference_decode(tokenizer, ep.label_ids)
    assert hyps[1] == HYPS[1] and refs[0] == REFS[0]
    assert_matches_sacrebleu(out, hyps, refs)
    assert 0 < out["bleu"] < 100
    # The signature is kept for BleuCallback to log once, not returned as a metric of every evaluation
    assert "signature" not in out
    assert metric.last_signature.rsplit("|", 1)[0] == sacrebleu_signature(hyps, refs).rsplit("|", 1)[0]
    # gen_len counts generated ids other than padding (decoder start and eos included).
    expected_gen = np.mean([np.count_nonzero((r != -100) & (r != tokenizer.pad_token_id)) for r in ep.predictions])
    assert out["gen_len"] == pytest.approx(expected_gen)
    np.testing.assert_array_equal(ep.predictions, before[0])  # inputs are not modified
    np.testing.assert_array_equal(ep.label_ids, before[1])


def test_prediction_layouts_give_the_same_result(tokenizer):
    ep = eval_prediction(tokenizer)
    metric = BleuComputeMetrics(tokenizer)
    expected = metric(ep)
    vocab = len(tokenizer)
    rng = np.random.default_rng(0)
    ids = np.where(ep.predictions < 0, tokenizer.pad_token_id, ep.predictions)
    logits = rng.normal(size=ids.shape + (vocab,)).astype(np.float32)
    np.put_along_axis(logits, ids[..., None], 50.0, axis=-1)
    layouts = {
        "tuple": (ep.predictions, np.zeros(3)),
        "torch": torch.from_numpy(ep.predictions),
        "logits": logits,
        "torch logits": (torch.from_numpy(logits),),
        "float ids": ep.predictions.astype(np.float32),
        "ragged": [row[row != -100] for row in ep.predictions],
    }
    for name, preds in layouts.items():
        labels = torch.from_numpy(ep.label_ids) if "torch" in name else ep.label_ids
        assert metric(EvalPrediction(predictions=preds, label_ids=labels)) == expected, name
    assert metric((ep.predictions, ep.label_ids)) == expected  # a plain pair works too


def test_streaming_equals_one_call_exactly(tokenizer):
    ep = eval_prediction(tokenizer)
    whole = BleuComputeMetrics(tokenizer)(ep)
    metric = BleuComputeMetrics(tokenizer)
    for run in range(2):  # the object starts afresh after compute_result=True
        cuts = [0, 3, 4, 17, 29, 40] if run == 0 else [0, 1, 2, 40]
        outs = []
        for a, b in zip(cuts, cuts[1:]):
            batch = EvalPrediction(predictions=ep.predictions[a:b], label_ids=ep.label_ids[a:b])
            outs.append(metric(batch, compute_result=b == cuts[-1]))
        assert outs[:-1] == [{}] * (len(outs) - 1)
        assert outs[-1] == whole  # bit-for-bit: the statistics are integers


def test_num_examples_leaves_out_the_padding_repeats(tokenizer):
    ep = eval_prediction(tokenizer)
    first_35 = BleuComputeMetrics(tokenizer)(
        EvalPrediction(predictions=ep.predictions[:35], label_ids=ep.label_ids[:35])
    )
    metric = BleuComputeMetrics(tokenizer)
    metric.num_examples = 35  # what BleuCallback sets in a multi-process evaluation
    assert (
        metric(EvalPrediction(predictions=ep.predictions[:20], label_ids=ep.label_ids[:20]), compute_result=False) == {}
    )
    assert (
        metric(EvalPrediction(predictions=ep.predictions[20:], label_ids=ep.label_ids[20:]), compute_result=True)
        == first_35
    )
    assert metric.num_examples is None  # cleared: the next evaluation is not capped
    metric.num_examples = 35
    assert metric(ep) == first_35 and len(metric.last_samples) == 5


def test_streaming_memory_does_not_grow_with_the_evaluation_set(tokenizer):
    ep = eval_prediction(tokenizer)
    metric = BleuComputeMetrics(tokenizer)
    metric(ep, compute_result=False)  # warm caches
    tracemalloc.start()
    try:
        for _ in range(5):
            metric(ep, compute_result=False)
        after_few, _ = tracemalloc.get_traced_memory()
        for _ in range(100):
            metric(ep, compute_result=False)
        after_many, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Keeping 100 x 40 decoded sentence pairs would take hundreds of KiB.
    assert after_many - after_few < 16 * 1024
    out = metric(ep, compute_result=True)
    assert out["sys_len"] == 107 * BleuComputeMetrics(tokenizer)(ep)["sys_len"]


def test_empty_generations(tokenizer):
    refs = REFS[:4]
    # Row 0 generated nothing but eos, row 1 only padding, row 2 nothing at all (-100 only).
    preds = np.array(
        [[tokenizer.eos_token_id, tokenizer.eos_token_id, -100], [0, 0, 0], [-100, -100, -100], [2, 30, 2]]
    )
    labels = padded(tokenizer, refs, 9, -100)
    out = BleuComputeMetrics(tokenizer)(EvalPrediction(predictions=preds, label_ids=labels))
    hyps = reference_decode(tokenizer, preds)
    assert hyps[:3] == ["", "", ""]
    assert_matches_sacrebleu(out, hyps, refs)
    nothing = BleuComputeMetrics(tokenizer)(EvalPrediction(predictions=preds[:3], label_ids=labels[:3]))
    assert nothing["bleu"] == 0.0 and nothing["sys_len"] == 0 and nothing["bp"] == 0.0
    assert_matches_sacrebleu(nothing, hyps[:3], refs[:3])


def test_bleu_options_and_postprocess_reach_the_score(tokenizer):
    ep = eval_prediction(tokenizer)
    hyps = [h.upper() for h in reference_decode(tokenizer, ep.predictions)]
    refs = [r.upper() for r in reference_decode(tokenizer, ep.label_ids)]
    options = dict(tokenize="char", lowercase=True, smooth_method="floor", smooth_value=0.2)
    out = BleuComputeMetrics(tokenizer, postprocess=str.upper, signature=True, **options)(ep)
    assert_matches_sacrebleu(out, hyps, refs, **options)
    assert out["signature"].rsplit("|", 1)[0] == sacrebleu_signature(hyps, refs, **options).rsplit("|", 1)[0]
    with pytest.raises(TypeError, match="postprocess must return a str"):
        BleuComputeMetrics(tokenizer, postprocess=len)(ep)


def test_samples_keep_sources_and_sentence_bleu(tokenizer):
    sources = [s for s, _ in PAIRS]
    ep = eval_prediction(tokenizer)
    inputs = padded(tokenizer, sources, 10, -100, target=False)
    metric = BleuComputeMetrics(tokenizer, num_samples=4)
    # Streaming, with inputs as the Trainer passes them there: the batch dict.
    for a, b in [(0, 3), (3, 40)]:
        batch = EvalPrediction(
            predictions=ep.predictions[a:b], label_ids=ep.label_ids[a:b], inputs={"input_ids": inputs[a:b]}
        )
        metric(batch, compute_result=b == 40)
    assert [s["source"] for s in metric.last_samples] == sources[:4]
    assert [s["prediction"] for s in metric.last_samples] == HYPS[:4]
    for s in metric.last_samples:
        expected = sacrebleu.sentence_bleu(s["prediction"], [s["reference"]])
        assert s["sentence_bleu"] == expected.score
    table = samples_table(metric.last_samples).splitlines()
    assert len(table) == 6 and table[2].startswith(f"| {sources[0]} | {REFS[0]} | {HYPS[0]} |")
    # Without inputs (the default include_for_metrics) the source column is empty.
    metric(ep)
    assert [s["source"] for s in metric.last_samples] == [None] * 4
    # So it is when the inputs are not the predictions' rows (one process's batch of a gather).
    metric(EvalPrediction(predictions=ep.predictions, label_ids=ep.label_ids, inputs={"input_ids": inputs[:20]}))
    assert [s["source"] for s in metric.last_samples] == [None] * 4


def test_callback_without_a_trainer_keeps_history_and_table(tokenizer, tmp_path):
    from transformers import TrainerControl, TrainerState

    metric = BleuComputeMetrics(tokenizer, num_samples=2)
    callback = BleuCallback(metric)
    args = training_args(tmp_path)
    state = TrainerState(global_step=7, epoch=0.5)
    callback.on_evaluate(args, state, TrainerControl(), metrics={"eval_loss": 1.0})
    assert callback.history == [] and callback.last_table is None  # no BLEU in this evaluation
    out = metric(eval_prediction(tokenizer))
    callback.on_evaluate(args, state, TrainerControl(), metrics={"eval_bleu": out["bleu"]})
    assert callback.history == [{"step": 7, "epoch": 0.5, "bleu": out["bleu"]}]
    assert callback.last_table == samples_table(metric.last_samples)
    assert len(callback.last_table.splitlines()) == 4


def test_all_reduce_is_a_no_op_without_torch_distributed(tokenizer):
    ep = eval_prediction(tokenizer)
    assert BleuComputeMetrics(tokenizer, all_reduce=True)(ep) == BleuComputeMetrics(tokenizer)(ep)


def test_tokenizer_keyword_says_tokenize(tokenizer):
    """tokenizer= is the Hugging Face tokenizer; BLEU's option is tokenize= (issue 20)."""
    with pytest.raises(TypeError, match=r"BLEU's tokenizer option is tokenize= \(tokenize='intl'\)"):
        BleuComputeMetrics(tokenizer, tokenizer="intl")
    with pytest.raises(TypeError, match=r"got the string 'intl'.*tokenize="):
        BleuComputeMetrics("intl")
    with pytest.raises(TypeError, match=r"tokenise \(did you mean tokenize=\?\)"):
        BleuComputeMetrics(tokenizer, tokenise="intl")
    assert BleuComputeMetrics(tokenizer=tokenizer, tokenize="intl").options.tokenize == "intl"


def test_bad_input_is_named(tokenizer):
    ep = eval_prediction(tokenizer)
    metric = BleuComputeMetrics(tokenizer)
    with pytest.raises(ValueError, match="40 sequences but label_ids have 39"):
        metric(EvalPrediction(predictions=ep.predictions, label_ids=ep.label_ids[:-1]))
    with pytest.raises(ValueError, match="got shape"):
        metric(EvalPrediction(predictions=ep.predictions[0], label_ids=ep.label_ids))
    with pytest.raises(TypeError, match="integer token ids"):
        metric(EvalPrediction(predictions=ep.predictions + 0.5, label_ids=ep.label_ids))
    with pytest.raises(ValueError, match="label_ids is None"):
        metric(EvalPrediction(predictions=ep.predictions, label_ids=None))
    with pytest.raises(ValueError, match="at least one sentence"):
        metric(EvalPrediction(predictions=ep.predictions[:0], label_ids=ep.label_ids[:0]))
    with pytest.raises(TypeError, match="EvalPrediction"):
        metric("not a prediction")
    with pytest.raises(TypeError, match="batch_decode"):
        BleuComputeMetrics(object())
    with pytest.raises(ValueError, match="unknown tokenize"):
        BleuComputeMetrics(tokenizer, tokenize="nope")
    with pytest.raises(ValueError, match="num_samples"):
        BleuComputeMetrics(tokenizer, num_samples=-1)
    with pytest.raises(TypeError, match="BleuComputeMetrics"):
        BleuCallback(lambda p: {})


def test_hostile_ids_and_dtypes(tokenizer):
    # bfloat16 logits raised "Got unsupported ScalarType BFloat16"; uint64 ids >= 2**63 wrapped to
    # negative ids and were dropped as -100; ids >= 2**32 reached the tokenizer's OverflowError.
    ep = eval_prediction(tokenizer)
    metric = BleuComputeMetrics(tokenizer, signature=False)
    expected = metric(ep)
    ids = np.where(ep.predictions < 0, tokenizer.pad_token_id, ep.predictions)
    logits = torch.nn.functional.one_hot(torch.from_numpy(ids), len(tokenizer)).to(torch.bfloat16)
    assert metric(EvalPrediction(predictions=(logits,), label_ids=ep.label_ids)) == expected
    # reversed views (negative strides) of the ids and of the logits score as they do
    flipped = ep.predictions[::-1].copy()[::-1]
    assert flipped.strides[0] < 0
    assert metric(EvalPrediction(predictions=flipped, label_ids=ep.label_ids)) == expected
    flipped_logits = logits.float().numpy()[::-1].copy()[::-1]
    assert metric(EvalPrediction(predictions=flipped_logits, label_ids=ep.label_ids)) == expected
    big = ep.predictions.astype(np.uint64)
    big[3, 1] = 2**63 + 7
    with pytest.raises(ValueError, match=r"predictions holds ids above 2\*\*63 - 1"):
        metric(EvalPrediction(predictions=big, label_ids=ep.label_ids))
    with pytest.raises(ValueError, match=r"predictions holds ids above 2\*\*63 - 1"):
        as_torch = torch.from_numpy(big.view(np.int64)).view(torch.uint64)
        metric(EvalPrediction(predictions=as_torch, label_ids=ep.label_ids))
    huge = ep.predictions.copy()
    huge[5, 2] = 2**32
    with pytest.raises(ValueError, match=r"predictions\[5\] holds the token id 4294967296, which the tokenizer cannot"):
        metric(EvalPrediction(predictions=huge, label_ids=ep.label_ids))
    with pytest.raises(ValueError, match=r"label_ids\[0\] holds the token id 4294967296"):
        metric(EvalPrediction(predictions=ep.predictions, label_ids=[[2**32, 5]] + list(ep.label_ids[1:])))
    assert metric(ep) == expected  # nothing kept from the failed calls


# --------------------------------------------------------------------------- real Trainer runs


def training_args(out_dir, **overrides):
    """tiny_seq2seq's evaluation arguments plus those of a training run."""
    train = dict(per_device_train_batch_size=16, learning_rate=3e-3, data_seed=0, dataloader_num_workers=0)
    return tiny.training_args(out_dir, **{**train, **overrides})


@pytest.fixture(scope="module")
def trained(tmp_path_factory, tokenizer):
    """One fine-tuning run: evaluation every 20 steps, best checkpoint by BLEU, callback table."""
    out_dir = tmp_path_factory.mktemp("bart")
    # Real loggers, offline: TensorBoard event files and a W&B offline run in out_dir.
    env = pytest.MonkeyPatch()
    env.setenv("WANDB_MODE", "offline")
    env.setenv("WANDB_DIR", str(out_dir))
    env.setenv("WANDB_SILENT", "true")
    env.setenv("TENSORBOARD_LOGGING_DIR", str(out_dir / "tensorboard"))
    set_seed(0)
    torch.set_num_threads(2)
    model = tiny.build_model(tokenizer)
    train_ds = tiny.encode(tokenizer, tiny.synthetic_pairs(400, seed=1))
    eval_pairs = tiny.synthetic_pairs(48, seed=2)
    eval_ds = tiny.encode(tokenizer, eval_pairs)
    metric = BleuComputeMetrics(tokenizer, num_samples=3)
    args = training_args(
        out_dir,
        max_steps=80,
        eval_strategy="steps",
        eval_steps=20,
        save_strategy="steps",
        save_steps=20,
        logging_steps=20,
        metric_for_best_model="bleu",
        load_best_model_at_end=True,
        include_for_metrics=["inputs"],
        per_device_eval_batch_size=20,  # 48 = 20 + 20 + 8: generations of unequal length
        report_to=["tensorboard", "wandb"],
    )
    trainer = Seq2SeqTrainer(
        model=model,
        args=args,
        processing_class=tokenizer,
        data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
        train_dataset=train_ds,
        eval_dataset=eval_ds,
        compute_metrics=metric,
    )
    callback = BleuCallback(metric, trainer)
    trainer.add_callback(callback)
    before = trainer.evaluate()
    trainer.train()
    import wandb

    yield dict(
        trainer=trainer,
        callback=callback,
        metric=metric,
        before=before,
        eval_ds=eval_ds,
        eval_pairs=eval_pairs,
        out_dir=out_dir,
    )
    wandb.finish()
    env.undo()


@pytest.mark.slow
def test_training_logs_rising_bleu_and_keeps_the_best_checkpoint(trained):
    trainer, callback = trained["trainer"], trained["callback"]
    logged = [(h["step"], h["eval_bleu"]) for h in trainer.state.log_history if "eval_bleu" in h]
    assert [step for step, _ in logged] == [20, 40, 60, 80]
    scores = [trained["before"]["eval_bleu"]] + [bleu for _, bleu in logged]
    assert scores[0] < 10, scores  # random weights
    assert scores[-1] > 90, scores  # the word-for-word code is learned
    assert max(scores[1:]) > scores[0] + 80
    # The callback saw the evaluation before training too (train() starts a new log history).
    assert [(h["step"], h["bleu"]) for h in callback.history[:5]] == [(0, scores[0])] + logged
    # metric_for_best_model="bleu": the checkpoint with the highest BLEU (first one on ties).
    best_step = max(logged, key=lambda sb: (sb[1], -sb[0]))[0]
    assert trainer.state.best_metric == pytest.approx(max(scores[1:]))
    assert trainer.state.best_model_checkpoint.endswith(f"checkpoint-{best_step}")


@pytest.mark.slow
def test_logged_bleu_equals_sacrebleu_on_the_decoded_generations(trained, tokenizer):
    trainer, eval_ds = trained["trainer"], trained["eval_ds"]
    out = trainer.predict(eval_ds, metric_key_prefix="test")
    # Label batches have different lengths, so the Trainer pads them with -100: the crash case.
    assert (out.label_ids == -100).any()
    hyps = reference_decode(tokenizer, out.predictions)
    refs = [t for _, t in trained["eval_pairs"]]
    assert reference_decode(tokenizer, out.label_ids) == refs
    expected = sacrebleu.corpus_bleu(hyps, [refs])
    assert out.metrics["test_bleu"] == expected.score
    assert out.metrics["test_sys_len"] == expected.sys_len
    # The evaluation logged after loading the best checkpoint scored the same generations, and
    # reproduces the best checkpoint's BLEU (the reload kept the tied embeddings intact).
    assert trainer.evaluate()["eval_bleu"] == expected.score
    assert expected.score == trainer.state.best_metric
    # The untrained model's logged BLEU is sacreBLEU's too (it is far from 100, so not trivial).
    assert trained["before"]["eval_bleu"] < 10


@pytest.mark.slow
def test_generations_padded_with_ignore_index(trained, tokenizer, tmp_path):
    # The Trainer pads each batch's generations to the model's max_length; asking for more
    # (generation_max_length) makes batches holding a longer sentence wider than the others, and
    # the narrower ones get padded with -100 when the batches are concatenated.
    model = copy.deepcopy(trained["trainer"].model)
    model.generation_config.max_length = tiny.MAX_LEN + 1  # the longest sentences need + 2
    trainer = Seq2SeqTrainer(
        model=model,
        args=training_args(tmp_path, per_device_eval_batch_size=4, generation_max_length=tiny.MAX_LEN + 6),
        processing_class=tokenizer,
        data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
        compute_metrics=BleuComputeMetrics(tokenizer),
    )
    out = trainer.predict(trained["eval_ds"], metric_key_prefix="test")
    assert (out.predictions == -100).any()
    refs = [t for _, t in trained["eval_pairs"]]
    expected = sacrebleu.corpus_bleu(reference_decode(tokenizer, out.predictions), [refs])
    assert out.metrics["test_bleu"] == expected.score
    assert out.metrics["test_sys_len"] == expected.sys_len


@pytest.mark.slow
def test_batch_eval_metrics_gives_the_same_score(trained, tokenizer, tmp_path):
    trainer = trained["trainer"]
    full = trainer.evaluate()
    streaming_metric = BleuComputeMetrics(tokenizer)
    streaming = Seq2SeqTrainer(
        model=trainer.model,
        args=training_args(tmp_path, batch_eval_metrics=True, per_device_eval_batch_size=7),
        processing_class=tokenizer,
        data_collator=DataCollatorForSeq2Seq(tokenizer, model=trainer.model),
        compute_metrics=streaming_metric,
    ).evaluate(trained["eval_ds"])
    for key in ["eval_bleu", "eval_bp", "eval_sys_len", "eval_ref_len", "eval_gen_len"]:
        assert streaming[key] == full[key], key
    assert streaming_metric.last_signature == trained["metric"].last_signature
    # Generation length above the model's own limit: more -100 padding, same score.
    longer = trainer.evaluate(max_length=trainer.model.generation_config.max_length + 6)
    assert longer["eval_bleu"] == full["eval_bleu"]


def _tensorboard_texts(log_dir):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(log_dir), size_guidance={"tensors": 0})
    events.Reload()
    return {
        tag.removesuffix("/text_summary"): [(e.step, e.tensor_proto.string_val[0].decode())
                                            for e in events.Tensors(tag)]
        for tag in events.Tags()["tensors"]
        if tag.endswith("/text_summary")
    }


@pytest.mark.slow
def test_callback_logs_the_signature_once_and_samples_where_a_table_renders(trained, tokenizer):
    trainer, callback, metric = trained["trainer"], trained["callback"], trained["metric"]
    history = trainer.state.log_history
    evals = [h for h in history if "eval_bleu" in h]
    assert len(evals) >= 4
    # The Trainer's log history (and so the console, which prints the same dicts): the signature
    # once, at the first evaluation of this training run; no table and no per-evaluation signature.
    signatures = [h for h in history if "eval_bleu_signature" in h]
    assert [(h["step"], h["eval_bleu_signature"]) for h in signatures] == [(20, metric.last_signature)]
    assert not [h for h in history if "eval_signature" in h or "eval_bleu_samples" in h]
    hyps = [s["prediction"] for s in metric.last_samples]
    refs = [s["reference"] for s in metric.last_samples]
    assert metric.last_signature.rsplit("|", 1)[0] == sacrebleu_signature(hyps, refs).rsplit("|", 1)[0]

    # TensorBoard: the signature as text, and a markdown table at every evaluation's step.
    texts = _tensorboard_texts(trained["out_dir"] / "tensorboard")
    assert {text for _, text in texts["eval/bleu_signature"]} == {metric.last_signature}
    assert {h["step"] for h in evals} <= {step for step, _ in texts["eval/bleu_samples"]}
    assert texts["eval/bleu_samples"][-1][1] == callback.last_table
    last = callback.last_table.splitlines()
    assert last[0] == "| source | reference | prediction | sentence BLEU |"
    assert len(last) == 2 + 3
    for line, (source, reference) in zip(last[2:], trained["eval_pairs"]):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[0] == source and cells[1] == reference
        assert float(cells[3]) == pytest.approx(sacrebleu.sentence_bleu(cells[2], [reference]).score, abs=0.005)

    # W&B (an offline run): one table per evaluation, with the sentence BLEU as a number.
    [run_dir] = (trained["out_dir"] / "wandb").glob("offline-run-*")
    tables = sorted((run_dir / "files" / "media" / "table" / "eval").glob("bleu_samples_*.table.json"),
                    key=lambda p: int(p.name.split("_")[2]))
    assert len(tables) == len(texts["eval/bleu_samples"])
    table = json.loads(tables[-1].read_text())
    assert table["columns"] == ["source", "reference", "prediction", "sentence BLEU"]
    assert table["data"] == [
        [source, reference, s["prediction"], sacrebleu.sentence_bleu(s["prediction"], [reference]).score]
        for s, (source, reference) in zip(metric.last_samples, trained["eval_pairs"])
    ]


@pytest.mark.slow
def test_early_stopping_on_bleu(tokenizer, tmp_path):
    set_seed(0)
    model = tiny.build_model(tokenizer)
    metric = BleuComputeMetrics(tokenizer)
    trainer = Seq2SeqTrainer(
        model=model,
        args=training_args(
            tmp_path,
            max_steps=200,
            eval_strategy="steps",
            eval_steps=10,
            save_strategy="steps",
            save_steps=10,
            metric_for_best_model="bleu",
            load_best_model_at_end=True,
        ),
        processing_class=tokenizer,
        data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
        train_dataset=tiny.encode(tokenizer, tiny.synthetic_pairs(200, seed=1)),
        eval_dataset=tiny.encode(tokenizer, tiny.synthetic_pairs(16, seed=2)),
        compute_metrics=metric,
        # No gain can exceed 101 BLEU points, so every evaluation after the first counts as none.
        callbacks=[EarlyStoppingCallback(early_stopping_patience=2, early_stopping_threshold=101.0)],
    )
    trainer.train()
    assert trainer.state.global_step == 30
    assert len([h for h in trainer.state.log_history if "eval_bleu" in h]) == 3


# --------------------------------------------------------------------------- two processes (gloo)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_two_process_gloo_every_rank_logs_the_same_bleu(trained, tokenizer, tmp_path):
    # An early checkpoint, so BLEU is well below 100 and a wrong sum would show.
    model_dir = trained["out_dir"] / "checkpoint-20"
    n_eval = 27  # not a multiple of 2 x 5: the last gathered batch drops the sampler's padding
    port = _free_port()
    procs = []
    for rank in range(2):
        env = dict(
            os.environ,
            RANK=str(rank),
            LOCAL_RANK=str(rank),
            WORLD_SIZE="2",
            LOCAL_WORLD_SIZE="2",
            MASTER_ADDR="127.0.0.1",
            MASTER_PORT=str(port),
            OMP_NUM_THREADS="1",
        )
        procs.append(
            subprocess.Popen(
                [sys.executable, str(HELPER), str(model_dir), str(tmp_path), str(n_eval)],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
        )
    logs = []
    for p in procs:
        try:
            logs.append(p.communicate(timeout=240)[0])
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
    for p, log in zip(procs, logs):
        assert p.returncode == 0, log[-3000:]
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]

    refs = [t for _, t in tiny.synthetic_pairs(n_eval, seed=2)]
    for key in ["trainer", "trainer_streaming", "trainer_callback", "trainer_streaming_callback"]:
        # The Trainer gathers every rank's generations onto both ranks before compute_metrics.
        assert ranks[0][key] == ranks[1][key], key
        pairs = ranks[0][key]["pairs"]
        if key.endswith("_callback"):
            # BleuCallback caps the evaluation at the data set's 27 examples.
            assert [r for _, r in pairs] == refs, key
        else:
            # Seq2SeqTrainer gathers with accelerator.gather, so 27 examples arrive as 30: the
            # sampler's padding repeats the first ones. Without the callback they are scored.
            assert [r for _, r in pairs[:n_eval]] == refs and pairs[n_eval:] == pairs[: len(pairs) - n_eval]
            assert len(pairs) == 30, key
        expected = sacrebleu.corpus_bleu([h for h, _ in pairs], [[r for _, r in pairs]])
        assert 5 < expected.score < 95, expected.score  # an early checkpoint: a wrong sum would show
        assert ranks[0][key]["bleu"] == expected.score, key
        assert ranks[0][key]["sys_len"] == expected.sys_len, key
    # With the callback, streaming or not, the score is the one of the data set's 27 examples.
    assert ranks[0]["trainer_callback"]["bleu"] == ranks[0]["trainer_streaming_callback"]["bleu"]
    # Hand-written loop: each rank scored its own shard; the all-reduced statistics are the corpus's.
    shards = [ranks[r]["sharded"] for r in range(2)]
    assert shards[0]["bleu"] == shards[1]["bleu"] and shards[0]["sys_len"] == shards[1]["sys_len"]
    pairs = shards[0]["pairs"] + shards[1]["pairs"]
    assert sorted(r for _, r in pairs) == sorted(refs) and len(shards[0]["pairs"]) == 14
    expected = sacrebleu.corpus_bleu([h for h, _ in pairs], [[r for _, r in pairs]])
    assert shards[0]["bleu"] == expected.score
    assert shards[0]["sys_len"] == expected.sys_len


def test_readme_evaluate_module_route_gives_the_same_bleu(tokenizer):
    evaluate = pytest.importorskip("evaluate")
    bleu_metric = evaluate.load(str(REPO / "bleu_metric.py"))

    def compute_metrics(eval_pred):  # the README's recipe, verbatim
        preds, labels = eval_pred.predictions, eval_pred.label_ids
        preds = np.where(preds < 0, tokenizer.pad_token_id, preds)
        labels = np.where(labels < 0, tokenizer.pad_token_id, labels)
        hyps = tokenizer.batch_decode(preds, skip_special_tokens=True)
        refs = tokenizer.batch_decode(labels, skip_special_tokens=True)
        result = bleu_metric.compute(predictions=hyps, references=[[r] for r in refs])
        return {"bleu": result["score"], "bp": result["bp"]}

    ep = eval_prediction(tokenizer)
    direct = BleuComputeMetrics(tokenizer)(ep)
    assert compute_metrics(ep) == {"bleu": direct["bleu"], "bp": direct["bp"]}
