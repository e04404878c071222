"""A TRL GRPO run whose rewards are sentence BLEU and chrF++ against each prompt's reference.

    python integrations/grpo_translation.py --smoke          # tiny local Llama and prompts, CPU, offline
    python integrations/grpo_translation.py --model Qwen/Qwen2.5-0.5B-Instruct --dataset DATASET --max-steps 500

``BleuReward`` and ``ChrfReward`` are reward functions as GRPOTrainer calls them: they read the
completions and the dataset's ``reference`` column (a string, a list of strings or None) and return
sacreBLEU's sentence score times 0.01 for each completion. They pickle, so TRL's asynchronous
trainer can run them in another process. The recipe records every call and checks each reward
against sacreBLEU's sentence score of that completion. The dataset (``--dataset``, a datasets name
or folder) needs the columns ``prompt`` and ``reference``. Needs the ``hf`` and ``torch`` extras.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from typing import Any, List, Optional

from recipe_extras import require

from bleukit.integrations.rewards import BleuReward, ChrfReward


class Recorded:
    """A reward function that keeps what the trainer passed it and what it returned."""

    def __init__(self, reward: Any) -> None:
        self.reward, self.calls = reward, []
        self.__name__ = reward.__name__  # TRL names the logged reward after it

    def __call__(self, **kwargs: Any) -> List[Optional[float]]:
        out = self.reward(**kwargs)
        self.calls.append((list(kwargs["completions"]), list(kwargs["reference"]), out))
        return out


def mismatches(recorded: Recorded, chrf: bool) -> List[str]:
    """Rewards that differ from sacreBLEU's sentence score times 0.01 (empty when sacreBLEU is absent)."""
    try:
        import sacrebleu
    except ImportError:
        return []
    wrong = []
    for completions, references, rewards in recorded.calls:
        for completion, reference, reward in zip(completions, references, rewards):
            if chrf:
                expected = sacrebleu.sentence_chrf(completion, [reference], word_order=2).score * 0.01
            else:
                expected = sacrebleu.sentence_bleu(completion, [reference]).score * 0.01
            if reward != expected:
                wrong.append(f"{completion!r} vs {reference!r}: {reward!r}, sacreBLEU {expected!r}")
    return wrong


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny local model and prompts, offline")
    parser.add_argument("--model", default="Qwen/Qwen2.5-0.5B-Instruct")
    parser.add_argument("--dataset", default=None, help="a datasets name or folder with prompt and reference")
    parser.add_argument("--max-steps", type=int, default=None, help="default: 2 with --smoke, else 500")
    args = parser.parse_args(argv)
    require("'.[hf,torch]'", "torch", "transformers", "datasets", "trl")

    from datasets import Dataset, load_dataset
    from trl import GRPOConfig, GRPOTrainer

    if args.smoke:
        import tiny_causal_lm

        model, tokenizer, _ = tiny_causal_lm.build()
        dataset = Dataset.from_dict({
            "prompt": ["w1 w2 w3", "w4 w5", "w6 w7 w8", "w9"],
            "reference": ["w1 w2 w3 w4", "w5 w6", "w7 w8 w9 w10", "w9 w10 w11"],
        })
    else:
        if args.dataset is None:
            parser.error("--dataset is needed without --smoke")
        from transformers import AutoModelForCausalLM, AutoTokenizer

        model = AutoModelForCausalLM.from_pretrained(args.model)
        tokenizer = AutoTokenizer.from_pretrained(args.model)
        dataset = load_dataset(args.dataset, split="train")

    bleu = Recorded(BleuReward("reference"))
    chrf = Recorded(ChrfReward("reference", word_order=2))
    config = GRPOConfig(
        output_dir=tempfile.mkdtemp(prefix="bleukit-grpo-"),
        per_device_train_batch_size=4,
        num_generations=2 if args.smoke else 8,
        max_completion_length=6 if args.smoke else 128,
        max_steps=args.max_steps or (2 if args.smoke else 500),
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=args.smoke,
    )
    trainer = GRPOTrainer(
        model=model, reward_funcs=[bleu, chrf], args=config, train_dataset=dataset, processing_class=tokenizer
    )
    trainer.train()
    for entry in trainer.state.log_history:
        rewards = {k: round(v, 4) for k, v in entry.items() if k.startswith("rewards/") and k.endswith("/mean")}
        if rewards:
            print(f"step {entry.get('step')}: {rewards}")

    calls = sum(len(c) for _, _, c in bleu.calls)
    wrong = mismatches(bleu, chrf=False) + mismatches(chrf, chrf=True)
    if not bleu.calls or wrong:
        print("rewards differ from sacreBLEU:\n  " + "\n  ".join(wrong or ["no reward was called"]), file=sys.stderr)
        return 1
    print(f"equal to sacreBLEU's: all {calls} BLEU and chrF++ rewards (sentence score x 0.01)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
