"""One rank of the two-process gloo evaluation of ``tests/integrations/test_transformers.py``, run
as a script: ``ddp_seq2seq_worker.py MODEL_DIR OUT_DIR N_EVAL`` (RANK/WORLD_SIZE/MASTER_* from the
environment)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

# the tiny model's builders live with the recipes (integrations/ at the repository root)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "integrations"))

from tiny_seq2seq import encode, synthetic_pairs, training_args  # noqa: E402


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
