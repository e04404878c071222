"""A tiny, fully local seq2seq set-up: what the recipes' ``--smoke`` runs and the transformers tests use.

Everything is built on the spot (no hub downloads): synthetic sentence pairs where each source word
translates to exactly one target word, a word-level tokenizer trained with ``tokenizers`` and
wrapped as ``PreTrainedTokenizerFast``, and a random-weight one-layer Bart that learns the code in a
few hundred CPU steps.

>>> pairs = synthetic_pairs(3, seed=0)
>>> len(pairs), all(len(s.split()) == len(t.split()) for s, t in pairs)
(3, True)
"""

from __future__ import annotations

import random
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
