"""A Lightning training loop with bleukit's torchmetrics metrics: corpus BLEU and chrF++ of the
validation set, exact under DDP (the metrics sum int64 statistics across processes).

    python integrations/lightning_seq2seq.py --smoke                  # tiny local model and data, CPU, offline
    python integrations/lightning_seq2seq.py --smoke --devices 2      # the same on two DDP processes (gloo)

``BLEUScore`` and ``CHRFScore`` are ``torchmetrics.Metric`` objects: ``update`` in each validation
step, ``compute`` at the end of the epoch, which Lightning logs; every process's sums are added
first, so the logged value is the corpus score of the whole validation set, not a mean of batch or
process scores. The recipe rescoring the decoded validation set with sacreBLEU must give the same
numbers. Needs the ``lightning`` and ``hf`` extras (the tiny model is a transformers Bart).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, List, Optional

from recipe_extras import require


def translator_class() -> Any:
    """The LightningModule: a seq2seq model trained on its loss, validated by generating and scoring
    with bleukit. Defined on call, after the arguments are parsed and the extras checked, so that
    ``--help`` works without lightning and torch."""
    import lightning as L
    import torch

    from bleukit.integrations.torchmetrics import BLEUScore, CHRFScore

    class Translator(L.LightningModule):
        def __init__(self, model: Any, tokenizer: Any, learning_rate: float) -> None:
            super().__init__()
            self.model, self.tokenizer, self.learning_rate = model, tokenizer, learning_rate
            self.bleu = BLEUScore()
            self.chrf = CHRFScore(word_order=2)
            self.decoded: List[List[str]] = []
            self.all_decoded: List[List[str]] = []

        def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
            loss = self.model(**batch).loss
            self.log("train_loss", loss, prog_bar=False)
            return loss

        def validation_step(self, batch: Any, batch_idx: int) -> None:
            generated = self.model.generate(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
            hyps = self.tokenizer.batch_decode(generated, skip_special_tokens=True)
            labels = batch["labels"].masked_fill(batch["labels"] == -100, self.tokenizer.pad_token_id)
            refs = self.tokenizer.batch_decode(labels, skip_special_tokens=True)
            self.bleu.update(hyps, refs)
            self.chrf.update(hyps, refs)
            self.decoded.extend([h, r] for h, r in zip(hyps, refs))
            # the metric objects are logged: Lightning calls compute() at the epoch's end, after the sync
            self.log("val_bleu", self.bleu, on_epoch=True, batch_size=len(hyps))
            self.log("val_chrf", self.chrf, on_epoch=True, batch_size=len(hyps))

        def on_validation_epoch_start(self) -> None:
            self.decoded = []

        def on_validation_epoch_end(self) -> None:
            # the check rescoring the whole validation set needs every process's decoded pairs
            if torch.distributed.is_available() and torch.distributed.is_initialized():
                shards: List[Any] = [None] * torch.distributed.get_world_size()
                torch.distributed.all_gather_object(shards, self.decoded)
                self.all_decoded = [pair for shard in shards for pair in shard]
            else:
                self.all_decoded = list(self.decoded)

        def configure_optimizers(self) -> torch.optim.Optimizer:
            return torch.optim.AdamW(self.model.parameters(), lr=self.learning_rate)

    return Translator


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny local model and data (the only mode so far)")
    parser.add_argument("--devices", type=int, default=1, help="processes (DDP with gloo on CPU when > 1)")
    parser.add_argument("--max-steps", type=int, default=30)
    args = parser.parse_args(argv)
    if not args.smoke:
        parser.error("only --smoke is implemented: plug your own model and DataLoaders into translator_class()")
    require("'.[lightning,hf]'", "lightning", "torch", "torchmetrics", "transformers", "datasets")

    import lightning as L
    import tiny_seq2seq as tiny
    from torch.utils.data import DataLoader
    from transformers import DataCollatorForSeq2Seq

    L.seed_everything(0, verbose=False)
    tokenizer = tiny.build_tokenizer()
    model = tiny.build_model(tokenizer)
    collate = DataCollatorForSeq2Seq(tokenizer, model=model, return_tensors="pt")
    train = DataLoader(list(tiny.encode(tokenizer, tiny.synthetic_pairs(400, seed=1))), batch_size=16,
                       shuffle=True, collate_fn=collate)
    # 45 sentences: with 2 processes the distributed sampler would repeat one to even the shards,
    # so the loader is not sharded by Lightning and each process takes its own rows instead
    val_rows = list(tiny.encode(tokenizer, tiny.synthetic_pairs(45, seed=2)))
    trainer = L.Trainer(
        accelerator="cpu",
        devices=args.devices,
        strategy="ddp" if args.devices > 1 else "auto",
        max_steps=args.max_steps,
        check_val_every_n_epoch=None,
        val_check_interval=args.max_steps,
        use_distributed_sampler=False,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    module = translator_class()(model, tokenizer, 3e-3)
    shard = val_rows[trainer.global_rank :: trainer.world_size]
    val = DataLoader(shard, batch_size=8, collate_fn=collate)
    trainer.fit(module, train, val)
    if trainer.global_rank != 0:
        return 0
    logged = {k: float(v) for k, v in trainer.callback_metrics.items() if k.startswith("val_")}
    print(f"logged after {args.max_steps} steps on {args.devices} process(es): {logged}")

    pairs = module.all_decoded
    try:
        import sacrebleu
    except ImportError:
        print("sacrebleu is not installed: the check against it is skipped")
        return 0
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    theirs = {
        "val_bleu": sacrebleu.corpus_bleu(hyps, [refs]).score,
        "val_chrf": sacrebleu.corpus_chrf(hyps, [refs], word_order=2).score,
    }
    if len(pairs) != len(val_rows) or logged != theirs:
        print(f"differs from sacreBLEU on {len(pairs)} sentences: {logged} vs {theirs}", file=sys.stderr)
        return 1
    print(f"equal to sacreBLEU's: {theirs} ({len(pairs)} sentences from {trainer.world_size} process(es))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
