"""A tiny, fully local seq2seq set-up for the transformers integration tests.

Everything is built on the spot (no hub downloads): synthetic sentence pairs where each source word
translates to exactly one target word, a word-level tokenizer trained with ``tokenizers`` and
wrapped as ``PreTrainedTokenizerFast``, and a random-weight one-layer Bart. Run as a script it is
one process of a two-process gloo evaluation (see ``tests/integrations/test_transformers.py``).

>>> pairs = synthetic_pairs(3, seed=0)
>>> len(pairs), all(len(s.split()) == len(t.split()) for s, t in pairs)
(3, True)
"""

from __future__ import annotations

import json
import os
import random
import sys
from typing import List, Tuple

N_WORDS = 24
MIN_LEN, MAX_LEN = 3, 7  # 3-8 words stayed below BLEU 2 after 120 steps: keep 3-7
SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]


def synthetic_pairs(n: int, seed: int) -> List[Tuple[str, str]]:
    """``n`` (source, target) pairs of a word-for-word code: source word ``sK`` becomes ``tK``."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        ids = [rng.randrange(N_WORDS) for _ in range(rng.randint(MIN_LEN, MAX_LEN))]
        pairs.append((" ".join(f"s{k}" for k in ids), " ".join(f"t{k}" for k in ids)))
    return pairs


def build_tokenizer():
    """Word-level tokenizer over both vocabularies; encodings end with ``</s>``."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    words = [f"s{k}" for k in range(N_WORDS)] + [f"t{k}" for k in range(N_WORDS)]
    tok.train_from_iterator([" ".join(words)], trainers.WordLevelTrainer(special_tokens=SPECIALS))
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", special_tokens=[("</s>", tok.token_to_id("</s>"))]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )


def build_model(tokenizer, seed: int = 0):
    """Random-weight Bart, d_model 128, one encoder and one decoder layer."""
    import torch
    from transformers import BartConfig, BartForConditionalGeneration

    torch.manual_seed(seed)
    config = BartConfig(
        vocab_size=len(tokenizer),
        d_model=128,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=256,
        decoder_ffn_dim=256,
        max_position_embeddings=32,
        init_std=0.1,  # the default 0.02 left the loss flat for 120 steps: no alignment found
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.eos_token_id,
        forced_eos_token_id=None,
        dropout=0.0,
        attention_dropout=0.0,
        activation_dropout=0.0,
    )
    model = BartForConditionalGeneration(config)
    model.generation_config.max_length = MAX_LEN + 3
    model.generation_config.num_beams = 1
    return model


def encode(tokenizer, pairs: List[Tuple[str, str]]):
    """A ``datasets.Dataset`` of input_ids / attention_mask / labels (unpadded)."""
    from datasets import Dataset

    sources = [s for s, _ in pairs]
    targets = [t for _, t in pairs]
    enc = tokenizer(sources)
    enc["labels"] = tokenizer(text_target=targets)["input_ids"]
    return Dataset.from_dict(dict(enc))


def training_args(out_dir, **overrides):
    """``Seq2SeqTrainingArguments`` for the tiny model: CPU, generation in evaluation, seeded, no
    reports or progress bars; ``overrides`` add or replace arguments (the tests and the worker)."""
    from transformers import Seq2SeqTrainingArguments

    base = dict(
        output_dir=str(out_dir),
        use_cpu=True,
        per_device_eval_batch_size=16,
        predict_with_generate=True,
        report_to=[],
        seed=0,
        disable_tqdm=True,
    )
    base.update(overrides)
    return Seq2SeqTrainingArguments(**base)


def _worker(model_dir: str, out_dir: str, n_eval: int) -> None:
    """One rank of a two-process gloo run (RANK/WORLD_SIZE/MASTER_* come from the environment).

    Writes what this rank saw: the BLEU of a ``Seq2SeqTrainer`` evaluation (predictions are
    gathered by the Trainer) and of a hand-written loop where each rank scores only its own shard
    and ``all_reduce=True`` sums the integer statistics.
    """
    import numpy as np
    import torch
    import torch.distributed as dist
    from transformers import (
        BartForConditionalGeneration,
        DataCollatorForSeq2Seq,
        PreTrainedTokenizerFast,
        Seq2SeqTrainer,
        set_seed,
    )
    from transformers.trainer_utils import EvalPrediction

    from bleukit.integrations.transformers import BleuCallback, BleuComputeMetrics

    set_seed(0)
    torch.set_num_threads(1)
    tokenizer = PreTrainedTokenizerFast.from_pretrained(model_dir)
    model = BartForConditionalGeneration.from_pretrained(model_dir)
    eval_pairs = synthetic_pairs(n_eval, seed=2)
    eval_ds = encode(tokenizer, eval_pairs)
    rank = int(os.environ["RANK"])
    result = {"rank": rank}

    for streaming, with_callback in [(False, False), (True, False), (False, True), (True, True)]:
        args = training_args(
            os.path.join(out_dir, f"trainer-{rank}"),
            per_device_eval_batch_size=5,
            batch_eval_metrics=streaming,
            ddp_backend="gloo",
        )
        # num_samples=n_eval keeps every decoded pair, so the test can rescore them with sacreBLEU.
        metric = BleuComputeMetrics(tokenizer, num_samples=2 * n_eval)
        trainer = Seq2SeqTrainer(
            model=model,
            args=args,
            processing_class=tokenizer,
            data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
            compute_metrics=metric,
        )
        if with_callback:
            trainer.add_callback(BleuCallback(metric, trainer))
        metrics = trainer.evaluate(eval_ds)
        key = ("trainer_streaming" if streaming else "trainer") + ("_callback" if with_callback else "")
        result[key] = {
            "bleu": metrics["eval_bleu"],
            "sys_len": metrics["eval_sys_len"],
            "pairs": [[s["prediction"], s["reference"]] for s in metric.last_samples],
        }

    world = dist.get_world_size()
    # Own shard only (every second sentence), so the statistics must be summed across ranks.
    shard = eval_pairs[rank::world]
    metric = BleuComputeMetrics(tokenizer, all_reduce=True, num_samples=n_eval)
    for start in range(0, len(shard), 4):
        batch = shard[start : start + 4]
        enc = tokenizer([s for s, _ in batch], return_tensors="pt", padding=True)
        with torch.no_grad():
            generated = model.generate(**enc)
        labels = tokenizer(text_target=[t for _, t in batch], return_tensors="np", padding=True)["input_ids"]
        labels = np.where(labels == tokenizer.pad_token_id, -100, labels)
        last = start + 4 >= len(shard)
        out = metric(EvalPrediction(predictions=generated, label_ids=labels), compute_result=last)
    result["sharded"] = {
        "bleu": out["bleu"],
        "sys_len": out["sys_len"],
        "pairs": [[s["prediction"], s["reference"]] for s in metric.last_samples],  # this shard's
    }
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w", encoding="utf-8") as f:
        json.dump(result, f)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    _worker(sys.argv[1], sys.argv[2], int(sys.argv[3]))
