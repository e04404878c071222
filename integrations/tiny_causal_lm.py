"""A tiny, fully local causal language model for the GRPO recipe's ``--smoke`` and the reward tests:
a one-layer Llama over a word-level vocabulary (``w0`` ... ``w19``), built on the spot (no downloads).

>>> model, tokenizer, vocab = build()
>>> tokenizer.decode([vocab["w1"], vocab["w2"]])
'w1 w2'
"""

from __future__ import annotations

from typing import Any, Dict, Tuple


def build() -> Tuple[Any, Any, Dict[str, int]]:
    """A 1-layer Llama and a word-level tokenizer built here (no downloads)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    words = [f"w{i}" for i in range(20)]
    vocab = {"[PAD]": 0, "[EOS]": 1, "[UNK]": 2, **{w: i + 3 for i, w in enumerate(words)}}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    backend.decoder = decoders.WordPiece(prefix="##")  # joins words with spaces
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, pad_token="[PAD]", eos_token="[EOS]", unk_token="[UNK]"
    )
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=64,
        pad_token_id=0,
        eos_token_id=1,
        bos_token_id=1,
    )
    return LlamaForCausalLM(config), tokenizer, vocab
