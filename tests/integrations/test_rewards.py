"""bleu_reward: called exactly as TRL's GRPOTrainer calls reward functions, and in one real GRPO step."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu

from bleukit.integrations.rewards import bleu_reward, completion_text

TOL = 1e-9


def trl_kwargs(**columns):
    """The extra keyword arguments TRL adds next to the dataset columns (see GRPOTrainer._calculate_rewards)."""
    logged = []
    return dict(columns, trainer_state=object(), log_extra=lambda *a, **k: None, log_metric=lambda *a: logged.append(a))


PROMPTS = ["Übersetze: Die Katze", "Übersetze: Es regnet", "Übersetze: Guten Morgen"]
COMPLETIONS = ["The cat sat on the mat.", "It is raining today.", "Good morning, everyone!"]
REFERENCES = ["The cat sat on the mat.", ["It rains today.", "It is raining now."], "Good morning!"]


def sacre(hyp, refs, **kw):
    return sacrebleu.sentence_bleu(hyp, [refs] if isinstance(refs, str) else refs, **kw).score


def test_text_completions_as_trl_passes_them():
    reward = bleu_reward("reference", scale=1.0)
    out = reward(
        prompts=PROMPTS,
        completions=COMPLETIONS,
        completion_ids=[[1], [2], [3]],
        **trl_kwargs(reference=REFERENCES, source_lang=["de"] * 3),
    )
    assert isinstance(out, list) and all(type(x) is float for x in out) and len(out) == len(PROMPTS)
    np.testing.assert_allclose(out, [sacre(h, r) for h, r in zip(COMPLETIONS, REFERENCES)], rtol=0, atol=TOL)
    assert reward.__name__ == "bleu"


def test_default_scale_is_zero_to_one_and_options_pass_through():
    reward = bleu_reward("ref", tokenize="intl", lowercase=True, smooth_method="floor", smooth_value=0.2)
    hyps = ["THE cat sat.", "a b c"]
    refs = ["the cat sat on the mat.", "a b d"]
    out = reward(prompts=["p", "q"], completions=hyps, **trl_kwargs(ref=refs))
    want = [
        sacre(h, r, tokenize="intl", lowercase=True, smooth_method="floor", smooth_value=0.2) / 100
        for h, r in zip(hyps, refs)
    ]
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-12)


def test_conversational_completions():
    conversations = [[{"role": "assistant", "content": c}] for c in COMPLETIONS]
    conversations[1] = [{"role": "assistant", "content": [{"type": "text", "text": COMPLETIONS[1]}]}]
    prompts = [[{"role": "user", "content": p}] for p in PROMPTS]
    out = bleu_reward("reference", scale=1.0)(
        prompts=prompts, completions=conversations, **trl_kwargs(reference=REFERENCES)
    )
    np.testing.assert_allclose(out, [sacre(h, r) for h, r in zip(COMPLETIONS, REFERENCES)], rtol=0, atol=TOL)


def test_ids_variant_scores_generated_ids_without_decoding():
    eos, pad = 2, 0
    completion_ids = [[5, 6, 7, 8, 9, eos], [5, 6, eos], [11, 12, 13, 5]]  # TRL keeps EOS, no padding
    refs = [[5, 6, 7, 8, 10], [[5, 6, 7], [6, 5]], [11, 12, 13, 14]]
    reward = bleu_reward("reference_ids", ids=True, pad_id=[pad, eos], scale=1.0)
    out = reward(
        prompts=["a", "b", "c"],
        completions=["x", "y", "z"],
        completion_ids=completion_ids,
        **trl_kwargs(reference_ids=refs),
    )

    def text(ids):
        return " ".join(str(i) for i in ids if i not in (pad, eos))

    want = [
        sacre(text(h), [text(r)] if isinstance(r[0], int) else [text(x) for x in r], tokenize="none")
        for h, r in zip(completion_ids, refs)
    ]
    np.testing.assert_allclose(out, want, rtol=0, atol=TOL)
    assert reward.__name__ == "bleu_ids"


def test_ids_variant_encodes_text_references_with_a_tokenizer():
    class WordTokenizer:  # the call shape of a Hugging Face tokenizer
        vocab = {"the": 3, "cat": 4, "sat": 5, "down": 6}

        def __call__(self, text, add_special_tokens=True):
            assert add_special_tokens is False
            return {"input_ids": [self.vocab[w] for w in text.split()]}

    reward = bleu_reward("reference", ids=True, tokenizer=WordTokenizer(), scale=1.0)
    out = reward(
        prompts=["p", "q"],
        completions=["", ""],
        completion_ids=[[3, 4, 5], [3, 4]],
        **trl_kwargs(reference=["the cat sat down", ["the cat", "cat"]]),
    )
    np.testing.assert_allclose(
        out,
        [sacre("3 4 5", ["3 4 5 6"], tokenize="none"), sacre("3 4", ["3 4", "4"], tokenize="none")],
        rtol=0,
        atol=TOL,
    )
    with pytest.raises(TypeError, match="tokenizer"):
        bleu_reward("reference", ids=True)(
            prompts=["p"], completions=[""], completion_ids=[[1]], **trl_kwargs(reference=["the cat"])
        )


def test_clear_errors():
    reward = bleu_reward("reference")
    with pytest.raises(ValueError, match=r"'reference'.*\['answer'\]"):
        reward(prompts=["p"], completions=["c"], **trl_kwargs(answer=["c"]))
    with pytest.raises(ValueError, match="2 entries"):
        reward(prompts=["p"], completions=["c"], **trl_kwargs(reference=["a", "b"]))
    with pytest.raises(TypeError, match="completion"):
        reward(prompts=["p"], completions=[3], **trl_kwargs(reference=["a"]))
    with pytest.raises(ValueError, match="completion_ids"):
        bleu_reward("reference", ids=True)(prompts=["p"], completions=["c"], **trl_kwargs(reference=[[1]]))
    with pytest.raises(ValueError, match="smooth_method"):
        bleu_reward(smooth_method="bogus")
    with pytest.raises(ValueError, match="tokenize"):
        bleu_reward(tokenize="nope")
    with pytest.raises(TypeError, match="scale"):
        bleu_reward(scale="1")
    assert completion_text("plain") == "plain"


def _tiny_causal_lm():
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


@pytest.mark.slow
def test_one_real_grpo_step(tmp_path):
    pytest.importorskip("trl")
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    model, tokenizer, vocab = _tiny_causal_lm()
    references = ["w1 w2 w3 w4", "w5 w6"]
    dataset = Dataset.from_dict(
        {
            "prompt": ["w1 w2 w3", "w4 w5"],
            "reference": references,
            "reference_ids": [[vocab[w] for w in r.split()] for r in references],
        }
    )
    text_reward = bleu_reward("reference")
    calls = []

    def recorded(**kwargs):
        out = text_reward(**kwargs)
        calls.append((kwargs, out))
        return out

    recorded.__name__ = "bleu"
    ids_reward = bleu_reward("reference_ids", ids=True, pad_id=[tokenizer.pad_token_id, tokenizer.eos_token_id])
    args = GRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=4,
        num_generations=2,
        max_completion_length=6,
        max_steps=1,
        report_to="none",
        logging_steps=1,
        save_strategy="no",
        use_cpu=True,
    )
    trainer = GRPOTrainer(
        model=model, reward_funcs=[recorded, ids_reward], args=args, train_dataset=dataset, processing_class=tokenizer
    )
    trainer.train()

    assert calls, "GRPOTrainer never called the reward"
    kwargs, out = calls[0]
    assert {"prompts", "completions", "completion_ids", "reference", "trainer_state"} <= set(kwargs)
    want = [sacre(c, r) / 100 for c, r in zip(kwargs["completions"], kwargs["reference"])]
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-12)
    logs = trainer.state.log_history[0]
    # Word-level ids decode to the same tokens, so scoring ids and decoded text agree.
    assert logs["rewards/bleu/mean"] == pytest.approx(np.mean(out), abs=1e-6)
    assert logs["rewards/bleu_ids/mean"] == pytest.approx(logs["rewards/bleu/mean"], abs=1e-6)
