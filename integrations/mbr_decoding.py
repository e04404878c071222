"""MBR decoding: sample candidates from a seq2seq model, keep the one with the highest expected
BLEU (or chrF++) against the others.

    python integrations/mbr_decoding.py --smoke        # tiny local model trained for a few steps: offline
    python integrations/mbr_decoding.py --model Helsinki-NLP/opus-mt-de-en --source "Das Haus ist klein."

``bleukit.mbr_select`` scores every candidate against every other one with sentence BLEU (each pair
counted once, in a compiled loop) and averages; the model's sequence probabilities can weigh the
pseudo-references (``--weighted``). With sacreBLEU installed every pairwise score MBR averages is
recomputed with sacreBLEU's sentence BLEU / chrF++ and must be equal. Needs the ``hf``
and ``torch`` extras; the Hub model needs the network, ``--smoke`` does not.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from typing import Any, List, Optional, Tuple

from recipe_extras import require

import bleukit


def smoke_model() -> Tuple[Any, Any, List[str]]:
    """The tiny Bart of ``tiny_seq2seq``, trained briefly (so that samples differ), and source sentences."""
    import tiny_seq2seq as tiny
    import torch
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments, set_seed

    set_seed(0)
    tokenizer = tiny.build_tokenizer()
    model = tiny.build_model(tokenizer)
    args = Seq2SeqTrainingArguments(
        output_dir=tempfile.mkdtemp(prefix="bleukit-mbr-"),
        max_steps=25,
        per_device_train_batch_size=16,
        learning_rate=3e-3,
        save_strategy="no",
        use_cpu=True,
        report_to=[],
        seed=0,
        disable_tqdm=True,
        logging_strategy="no",
    )
    Seq2SeqTrainer(
        model=model,
        args=args,
        processing_class=tokenizer,
        data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
        train_dataset=tiny.encode(tokenizer, tiny.synthetic_pairs(400, seed=1)),
    ).train()
    torch.manual_seed(0)
    return model.eval(), tokenizer, [source for source, _ in tiny.synthetic_pairs(3, seed=2)]


def sample(model: Any, tokenizer: Any, sources: List[str], n: int) -> Tuple[List[List[str]], List[List[float]]]:
    """``n`` sampled translations of each source and their sequence log-probabilities."""
    import torch

    batch = tokenizer(sources, return_tensors="pt", padding=True)
    with torch.no_grad():
        out = model.generate(
            **batch, do_sample=True, num_return_sequences=n, output_scores=True, return_dict_in_generate=True
        )
    scores = model.compute_transition_scores(out.sequences, out.scores, normalize_logits=True)
    texts = tokenizer.batch_decode(out.sequences, skip_special_tokens=True)
    logps = [float(row[torch.isfinite(row)].sum()) for row in scores]
    per_source = range(len(sources))
    return [texts[i * n : (i + 1) * n] for i in per_source], [logps[i * n : (i + 1) * n] for i in per_source]


def check_against_sacrebleu(candidates: List[str], chrf: bool) -> Optional[str]:
    """None when bleukit's candidates-by-candidates matrix (what MBR averages) equals sacreBLEU's
    sentence score of every pair, or when sacreBLEU is not installed; else what differs."""
    try:
        import sacrebleu
    except ImportError:
        return None
    if chrf:
        ours = bleukit.pairwise_chrf(candidates, candidates, word_order=2)
        chrf_pp = sacrebleu.CHRF(word_order=2)
        theirs = [[chrf_pp.sentence_score(h, [r]).score for r in candidates] for h in candidates]
    else:
        ours = bleukit.pairwise_bleu(candidates, candidates)
        theirs = [[sacrebleu.sentence_bleu(h, [r]).score for r in candidates] for h in candidates]
    if ours.tolist() != theirs:
        return f"pairwise matrix {ours.tolist()!r}, sacreBLEU's {theirs!r}"
    return None


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny local model, offline")
    parser.add_argument("--model", default="Helsinki-NLP/opus-mt-de-en")
    parser.add_argument("--source", action="append", help="a source sentence (repeatable)")
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--chrf", action="store_true", help="chrF++ as the utility instead of sentence BLEU")
    parser.add_argument("--weighted", action="store_true", help="weigh pseudo-references by model probability")
    args = parser.parse_args(argv)
    require("'.[hf,torch]'", "torch", "transformers", "datasets")

    if args.smoke:
        model, tokenizer, sources = smoke_model()
    else:
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(args.model)
        model = AutoModelForSeq2SeqLM.from_pretrained(args.model).eval()
        sources = args.source or ["Das Haus ist klein.", "Ich habe heute keine Zeit."]
    candidates, logps = sample(model, tokenizer, sources, args.samples)
    options = bleukit.ChrfOptions(word_order=2) if args.chrf else None
    selections = bleukit.mbr_select(
        candidates, weights=logps if args.weighted else None, log_weights=args.weighted, options=options
    )
    for source, cands, selection in zip(sources, candidates, selections):
        best = f"{selection.selected[0]!r} (expected score {selection.utilities[selection.index]:.2f})"
        print(f"{source!r}: {len(set(cands))} distinct of {len(cands)} samples -> {best}")
        problem = check_against_sacrebleu(cands, args.chrf)
        if problem is not None:
            print(f"differs from sacreBLEU: {problem}", file=sys.stderr)
            return 1
    print("every pairwise score MBR averaged is equal to sacreBLEU's sentence score of that pair")
    return 0


if __name__ == "__main__":
    sys.exit(main())
