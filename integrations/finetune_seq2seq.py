"""Fine-tune a seq2seq model with ``Seq2SeqTrainer``, BLEU and chrF logged at every evaluation.

    python integrations/finetune_seq2seq.py --smoke     # tiny local model and data: offline, about a minute on CPU
    python integrations/finetune_seq2seq.py --model google-t5/t5-small --dataset wmt16 --config de-en \\
        --source de --target en --prefix "translate German to English: " --max-steps 2000

bleukit's ``BleuComputeMetrics`` is the ``compute_metrics``: it decodes the generated ids and the
labels and scores corpus BLEU exactly as sacreBLEU; chrF is added from the same decoded pairs. At
the end the decoded pairs of the last evaluation are rescored with sacreBLEU (when installed) and
the scores must be equal, not approximately. Needs the ``hf`` and ``torch`` extras; the Hub run
needs the network, ``--smoke`` does not.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from typing import Any, Dict, List

from recipe_extras import require

import bleukit
from bleukit.integrations.transformers import BleuComputeMetrics


def smoke_setup() -> Dict[str, Any]:
    """The tiny Bart of ``tiny_seq2seq`` and its word-for-word data (built here, nothing downloaded)."""
    import tiny_seq2seq as tiny

    tokenizer = tiny.build_tokenizer()
    return dict(
        tokenizer=tokenizer,
        model=tiny.build_model(tokenizer),
        train=tiny.encode(tokenizer, tiny.synthetic_pairs(400, seed=1)),
        eval=tiny.encode(tokenizer, tiny.synthetic_pairs(48, seed=2)),
    )


def hub_setup(args: argparse.Namespace) -> Dict[str, Any]:
    """A Hub checkpoint and a translation dataset with a ``translation`` column (wmt16, opus_books, ...)."""
    from datasets import load_dataset
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForSeq2SeqLM.from_pretrained(args.model)
    data = load_dataset(args.dataset, args.config)

    def encode(batch: Dict[str, List[Any]]) -> Dict[str, Any]:
        sources = [args.prefix + pair[args.source] for pair in batch["translation"]]
        targets = [pair[args.target] for pair in batch["translation"]]
        return tokenizer(sources, text_target=targets, max_length=128, truncation=True)

    train = data["train"].select(range(min(args.train_size, len(data["train"]))))
    evaluation = data["validation"].select(range(min(args.eval_size, len(data["validation"]))))
    columns = data["train"].column_names
    return dict(
        tokenizer=tokenizer,
        model=model,
        train=train.map(encode, batched=True, remove_columns=columns),
        eval=evaluation.map(encode, batched=True, remove_columns=columns),
    )


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny local model and data, offline")
    parser.add_argument("--model", default="google-t5/t5-small")
    parser.add_argument("--dataset", default="wmt16")
    parser.add_argument("--config", default="de-en")
    parser.add_argument("--source", default="de")
    parser.add_argument("--target", default="en")
    parser.add_argument("--prefix", default="translate German to English: ")
    parser.add_argument("--train-size", type=int, default=20000)
    parser.add_argument("--eval-size", type=int, default=500)
    parser.add_argument("--max-steps", type=int, default=None, help="default: 30 with --smoke, else 2000")
    parser.add_argument("--output-dir", default=None)
    args = parser.parse_args(argv)
    require("'.[hf,torch]'", "torch", "transformers", "datasets")

    import torch
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments, set_seed

    set_seed(0)
    setup = smoke_setup() if args.smoke else hub_setup(args)
    tokenizer, model = setup["tokenizer"], setup["model"]
    max_steps = args.max_steps or (30 if args.smoke else 2000)
    # every decoded pair is kept, so chrF and the final sacreBLEU check see the whole evaluation
    bleu = BleuComputeMetrics(tokenizer, num_samples=len(setup["eval"]))

    def compute_metrics(eval_pred: Any) -> Dict[str, Any]:
        scores = bleu(eval_pred)
        predictions = [s["prediction"] for s in bleu.last_samples]
        references = [s["reference"] for s in bleu.last_samples]
        scores["chrf"] = bleukit.corpus_chrf(predictions, references).score
        return scores

    output_dir = args.output_dir or tempfile.mkdtemp(prefix="bleukit-finetune-")
    training = Seq2SeqTrainingArguments(
        output_dir=output_dir,
        max_steps=max_steps,
        per_device_train_batch_size=16,
        per_device_eval_batch_size=16,
        learning_rate=3e-3 if args.smoke else 3e-4,
        eval_strategy="steps",
        eval_steps=max(1, max_steps // 4),
        logging_steps=max(1, max_steps // 4),
        save_strategy="no",
        predict_with_generate=True,
        use_cpu=args.smoke or not torch.cuda.is_available(),
        report_to=[],
        seed=0,
        disable_tqdm=True,
    )
    trainer = Seq2SeqTrainer(
        model=model,
        args=training,
        processing_class=tokenizer,
        data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
        train_dataset=setup["train"],
        eval_dataset=setup["eval"],
        compute_metrics=compute_metrics,
    )
    trainer.train()
    final = trainer.evaluate()
    print(f"BLEU {final['eval_bleu']:.2f}  chrF {final['eval_chrf']:.2f}  after {max_steps} steps")
    print(bleu.last_signature)

    try:
        import sacrebleu
    except ImportError:
        print("sacrebleu is not installed: the check against it is skipped")
        return 0
    predictions = [s["prediction"] for s in bleu.last_samples]
    references = [s["reference"] for s in bleu.last_samples]
    theirs_bleu = sacrebleu.corpus_bleu(predictions, [references]).score
    theirs_chrf = sacrebleu.corpus_chrf(predictions, [references]).score
    if (final["eval_bleu"], final["eval_chrf"]) != (theirs_bleu, theirs_chrf):
        print(f"differs from sacreBLEU: ours {final['eval_bleu']!r} {final['eval_chrf']!r}, "
              f"sacreBLEU {theirs_bleu!r} {theirs_chrf!r}", file=sys.stderr)
        return 1
    print(f"equal to sacreBLEU's: BLEU {theirs_bleu!r}, chrF {theirs_chrf!r} ({len(predictions)} sentences)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
