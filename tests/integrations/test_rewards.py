"""Rewards called exactly as TRL 1.16's GRPOTrainer calls them, pickled into a spawned process as its
async trainer does, and in one real GRPO step; every score against sacreBLEU with ==."""

from __future__ import annotations

import asyncio
import multiprocessing
import pickle

import numpy as np
import pytest
import sacrebleu
import tiny_causal_lm
from shared_data import read_lines

import bleukit
from bleukit.integrations.rewards import (
    AsyncReward,
    BleuReward,
    ChrfReward,
    MetricReward,
    bleu_reward,
    completion_text,
    options_for_language,
    target_language,
)
from bleukit.metrics.bleu import BleuOptions
from bleukit.metrics.chrf import ChrfOptions


class Logs:
    """TRL's log_metric(name, value) and log_extra(column, values), recorded."""

    def __init__(self):
        self.metrics, self.extra = {}, {}

    def log_metric(self, name, value):
        self.metrics.setdefault(name, []).append(value)

    def log_extra(self, column, values):
        self.extra.setdefault(column, []).extend(values)


def trl_kwargs(logs=None, **columns):
    """The keyword arguments TRL adds next to the dataset columns (GRPOTrainer._calculate_rewards)."""
    logs = logs or Logs()
    return dict(columns, trainer_state=object(), log_extra=logs.log_extra, log_metric=logs.log_metric)


PROMPTS = ["Übersetze: Die Katze", "Übersetze: Es regnet", "Übersetze: Guten Morgen"]
COMPLETIONS = ["The cat sat on the mat.", "It is raining today.", "Good morning, everyone!"]
REFERENCES = ["The cat sat on the mat.", ["It rains today.", "It is raining now."], "Good morning!"]


def _refs(refs):
    return [refs] if isinstance(refs, str) else refs


def sacre(hyp, refs, **kw):
    return sacrebleu.sentence_bleu(hyp, _refs(refs), **kw).score


def sacre_chrf(hyp, refs, **kw):
    return sacrebleu.metrics.CHRF(**kw).sentence_score(hyp, _refs(refs)).score


def equal_sacrebleu(out, hyps, refs, **kw):
    """``out`` is sacreBLEU's sentence BLEU (==), as the core's one-sentence path and its table's
    vectorised formula (libm's exp and log, as math's) are."""
    want = [sacre(h, r, **kw) for h, r in zip(hyps, refs)]
    assert [bleukit.sentence_bleu(h, _refs(r), **kw).score for h, r in zip(hyps, refs)] == want
    assert out == want


def test_text_completions_as_trl_passes_them():
    reward = bleu_reward("reference", scale=1.0)
    assert isinstance(reward, BleuReward)
    out = reward(
        prompts=PROMPTS,
        completions=COMPLETIONS,
        completion_ids=[[1], [2], [3]],
        **trl_kwargs(reference=REFERENCES, source_lang=["de"] * 3),
    )
    assert all(type(x) is float for x in out) and len(out) == len(PROMPTS)
    assert out == [sacre(h, r) for h, r in zip(COMPLETIONS, REFERENCES)]
    assert reward.__name__ == "bleu"


def test_chrf_and_chrf_plus_plus_equal_sacrebleu():
    for keywords in ({}, {"word_order": 2}, {"word_order": 2, "lowercase": True, "beta": 3}):
        reward = ChrfReward("reference", scale=1.0, **keywords)
        out = reward(prompts=PROMPTS, completions=COMPLETIONS, **trl_kwargs(reference=REFERENCES))
        assert out == [sacre_chrf(h, r, **keywords) for h, r in zip(COMPLETIONS, REFERENCES)]
    assert ChrfReward().__name__ == "chrf" and ChrfReward(word_order=2).__name__ == "chrf++"
    generic = MetricReward("reference", options=ChrfOptions(word_order=2), scale=1.0)
    assert generic(completions=COMPLETIONS, reference=REFERENCES) == ChrfReward(word_order=2, scale=1.0)(
        completions=COMPLETIONS, reference=REFERENCES
    )


def test_real_data_sentence_chrf(shared_data):
    folder = shared_data / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.JDExploreAcademy.en")[:150]
    refs = [list(r) for r in zip(read_lines(folder / "ref.A.en")[:150], read_lines(folder / "ref.B.en")[:150])]
    assert ChrfReward(scale=1.0, word_order=2)(completions=hyps, reference=refs) == [
        sacre_chrf(h, r, word_order=2) for h, r in zip(hyps, refs)
    ]
    # the default scale is 0.01, applied as one multiplication
    assert ChrfReward()(completions=hyps[:20], reference=refs[:20]) == [
        sacre_chrf(h, r) * 0.01 for h, r in zip(hyps[:20], refs[:20])
    ]


def test_real_data_sentence_bleu(shared_data):
    folder = shared_data / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.JDExploreAcademy.en")[:150]
    refs = [list(r) for r in zip(read_lines(folder / "ref.A.en")[:150], read_lines(folder / "ref.B.en")[:150])]
    equal_sacrebleu(BleuReward(scale=1.0)(completions=hyps, reference=refs), hyps, refs)


def test_default_scale_is_zero_to_one_and_options_pass_through():
    reward = bleu_reward("ref", tokenize="intl", lowercase=True, smooth_method="floor", smooth_value=0.2)
    hyps = ["THE cat sat.", "a b c"]
    refs = ["the cat sat on the mat.", "a b d"]
    out = reward(prompts=["p", "q"], completions=hyps, **trl_kwargs(ref=refs))
    opts = dict(tokenize="intl", lowercase=True, smooth_method="floor", smooth_value=0.2)
    assert out == [sacre(h, r, **opts) * 0.01 for h, r in zip(hyps, refs)]


def test_rows_without_a_reference_get_none():
    reward = ChrfReward(scale=1.0)
    refs = ["The cat sat on the mat.", None, [None, None], ["Good morning!", None]]
    hyps = COMPLETIONS + ["Good morning"]
    out = reward(prompts=[""] * 4, completions=hyps, **trl_kwargs(reference=refs))
    assert out == [sacre_chrf(hyps[0], refs[0]), None, None, sacre_chrf(hyps[3], ["Good morning!"])]
    assert BleuReward()(completions=["x"], reference=[None]) == [None]


def test_several_reference_columns_add_up():
    reward = BleuReward(["ref_a", "ref_b"], scale=1.0)
    out = reward(completions=COMPLETIONS, ref_a=["The cat sat.", None, "Good morning!"], ref_b=[None, None, "Hi"])
    assert out == [sacre(COMPLETIONS[0], "The cat sat."), None, sacre(COMPLETIONS[2], ["Good morning!", "Hi"])]


def test_one_completion_per_call_is_sacrebleu_exactly(shared_data):
    """One completion per call takes the metric's one-sentence path (what verl and notebooks do):
    sacreBLEU's score (==) for every row, languages and missing references included, and the
    same with TRL's logging hooks (which need the table, so the batch path)."""
    zh, de = shared_data / "wmt22-en-zh", shared_data / "wmt22-de-en"
    rows = []
    for hyp, ref, n, lang, tok in ((zh / "hyp.LanguageX.zh", zh / "ref.A.zh", 15, "en-zh", "zh"),
                                   (de / "hyp.LT22.en", de / "ref.A.en", 30, "de-en", "13a")):
        rows += [(h, r, lang, tok) for h, r in zip(read_lines(hyp)[:n], read_lines(ref)[:n])]
    bleu = BleuReward(scale=1.0, language_column="lang")
    chrf = ChrfReward(scale=1.0, word_order=2)
    for h, r, lang, tok in rows:
        want = sacre(h, r, tokenize=tok)
        assert bleu(completions=[h], reference=[r], lang=[lang]) == [want]
        assert bleu.scores([h], [[r, None]], [lang]) == [want]
        assert chrf(completions=[h], reference=[[None, r]]) == [sacre_chrf(h, r, word_order=2)]
    h, r, lang, tok = rows[-1]
    logs = Logs()
    assert bleu(completions=[h], **trl_kwargs(logs, reference=[r], lang=[lang])) == [sacre(h, r, tokenize=tok)]
    assert logs.extra["bleu/p1"] == [sacrebleu.sentence_bleu(h, [r], tokenize=tok).precisions[0]]
    assert bleu(completions=[h], reference=[None], lang=[lang]) == [None]
    assert bleu(completions=[h], reference=[[None, None]], lang=[lang]) == [None]
    with pytest.raises(TypeError, match=r"^references.* must be a (str|list of strings)"):
        bleu(completions=[h], reference=[3], lang=[lang])


def test_language_column_picks_the_tokenizer_as_trg_lang(shared_data):
    zh = shared_data / "wmt22-en-zh"
    ja = shared_data / "kftt-en-ja"
    de = shared_data / "wmt22-de-en"
    rows = []
    for hyp, ref, lang, tok in (
        (zh / "hyp.LanguageX.zh", zh / "ref.A.zh", "en-zh", "zh"),
        (next(ja.glob("hyp*")), ja / "ref.ja", "ja", "ja-mecab"),
        (de / "hyp.LT22.en", de / "ref.A.en", "de-en", "13a"),
    ):
        rows += [(h, r, lang, tok) for h, r in zip(read_lines(hyp)[:20], read_lines(ref)[:20])]
    rows = rows[::2] + rows[1::2]  # languages interleaved
    hyps, refs, langs, tokenizers = map(list, zip(*rows))
    reward = BleuReward(scale=1.0, language_column="lang_pair")
    logs = Logs()
    out = reward(prompts=[""] * len(hyps), completions=hyps, **trl_kwargs(logs, reference=refs, lang_pair=langs))
    assert logs.extra["bleu/p1"] == [
        sacrebleu.sentence_bleu(h, [r], tokenize=t).precisions[0] for h, r, t in zip(hyps, refs, tokenizers)
    ]
    # an explicit tokenizer wins, as in sacreBLEU; chrF has no tokenizer to pick
    assert BleuReward(scale=1.0, tokenize="char", language_column="lang")(
        completions=hyps[:3], reference=refs[:3], lang=langs[:3]
    ) == [sacre(h, r, tokenize="char") for h, r in zip(hyps[:3], refs[:3])]
    assert ChrfReward(scale=1.0, language_column="lang")(completions=hyps[:3], reference=refs[:3], lang=langs[:3]) == [
        sacre_chrf(h, r) for h, r in zip(hyps[:3], refs[:3])
    ]
    assert target_language("en-ko") == "ko" and target_language("") is None
    assert options_for_language(BleuOptions(), "ko").tokenize == "ko-mecab"
    assert options_for_language(ChrfOptions(), "zh") == ChrfOptions()
    # read as sacreBLEU's -l reads a pair: the second field is the target (one rule, tokenizers.languages)
    assert target_language("en-zh-Hans") == "zh"
    with pytest.raises(ValueError, match="SRC-TRG"):
        target_language("en-")
    with pytest.raises(TypeError, match="language"):
        target_language(3)
    for tokenizer in ("zh", "ja-mecab", "13a"):
        rows = [i for i, t in enumerate(tokenizers) if t == tokenizer]
        equal_sacrebleu([out[i] for i in rows], [hyps[i] for i in rows], [refs[i] for i in rows], tokenize=tokenizer)


def test_logged_corpus_score_bp_ratio_and_precisions():
    logs = Logs()
    reward = BleuReward()
    refs = REFERENCES[:2] + [None]
    reward(prompts=PROMPTS, completions=COMPLETIONS, **trl_kwargs(logs, reference=refs))
    corpus = sacrebleu.corpus_bleu(COMPLETIONS[:2], [[refs[0], refs[1][0]], [None, refs[1][1]]])
    assert logs.metrics["bleu/corpus"] == [corpus.score]
    assert logs.metrics["bleu/bp"] == [corpus.bp]
    assert logs.metrics["bleu/length_ratio"] == [corpus.sys_len / corpus.ref_len]
    for order in range(4):
        want = [sacrebleu.sentence_bleu(h, _refs(r)).precisions[order] for h, r in zip(COMPLETIONS[:2], refs[:2])]
        assert logs.extra[f"bleu/p{order + 1}"] == want + [None]
    chrf_logs = Logs()
    ChrfReward(word_order=2, name="chrf_pp")(completions=COMPLETIONS, **trl_kwargs(chrf_logs, reference=REFERENCES))
    assert chrf_logs.metrics == {"chrf_pp/corpus": [sacrebleu.corpus_chrf(COMPLETIONS, [[
        REFERENCES[0], REFERENCES[1][0], REFERENCES[2]], [None, REFERENCES[1][1], None]], word_order=2).score]}
    assert chrf_logs.extra == {}  # chrF has no precisions per order to show


def test_power_and_threshold_shaping():
    plain = BleuReward(scale=1.0)(completions=COMPLETIONS, reference=REFERENCES)
    shaped = BleuReward(scale=0.01, power=2.0, threshold=30.0)(completions=COMPLETIONS, reference=REFERENCES)
    assert shaped == [0.0 if s < 30.0 else (s * 0.01) ** 2.0 for s in plain]
    assert 0.0 in shaped and any(0 < s < 1 for s in shaped)


def test_conversational_completions():
    conversations = [[{"role": "assistant", "content": c}] for c in COMPLETIONS]
    conversations[1] = [{"role": "assistant", "content": [{"type": "text", "text": COMPLETIONS[1]}]}]
    prompts = [[{"role": "user", "content": p}] for p in PROMPTS]
    out = BleuReward(scale=1.0)(prompts=prompts, completions=conversations, **trl_kwargs(reference=REFERENCES))
    assert out == [sacre(h, r) for h, r in zip(COMPLETIONS, REFERENCES)]


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
    assert out == want
    assert reward.__name__ == "bleu_ids"


def test_ids_variant_rejects_negative_ids_unless_dropped():
    """-100 (labels' ignore_index) is never a token: an error that names the fix, or dropped when
    pad_id names it (issue 20's finding, inherited by the reward)."""
    completion_ids, refs = [[5, 6, 7, -100], [5, 6]], [[5, 6, 7], [5, 6, -100]]
    kwargs = dict(prompts=["a", "b"], completions=["x", "y"], completion_ids=completion_ids)
    with pytest.raises(ValueError, match=r"hyp_ids row 0 holds the id -100.*ignore_index.*pad_id=-100"):
        bleu_reward("reference_ids", ids=True, scale=1.0)(**kwargs, **trl_kwargs(reference_ids=refs))
    out = bleu_reward("reference_ids", ids=True, pad_id=-100, scale=1.0)(**kwargs, **trl_kwargs(reference_ids=refs))
    assert out == [sacre("5 6 7", ["5 6 7"], tokenize="none"), sacre("5 6", ["5 6"], tokenize="none")]


def test_ids_variant_encodes_text_references_with_a_tokenizer():
    reward = bleu_reward("reference", ids=True, tokenizer=WordTokenizer(), scale=1.0)
    out = reward(
        prompts=["p", "q"],
        completions=["", ""],
        completion_ids=[[3, 4, 5], [3, 4]],
        **trl_kwargs(reference=["the cat sat down", ["the cat", "cat"]]),
    )
    assert out == [sacre("3 4 5", ["3 4 5 6"], tokenize="none"), sacre("3 4", ["3 4", "4"], tokenize="none")]
    with pytest.raises(TypeError, match="tokenizer"):
        bleu_reward("reference", ids=True)(
            prompts=["p"], completions=[""], completion_ids=[[1]], **trl_kwargs(reference=["the cat"])
        )


class WordTokenizer:  # the call shape of a Hugging Face tokenizer (module level: it pickles)
    vocab = {"the": 3, "cat": 4, "sat": 5, "down": 6}

    def __call__(self, text, add_special_tokens=True):
        assert add_special_tokens is False
        return {"input_ids": [self.vocab[w] for w in text.split()]}


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
    with pytest.raises(ValueError, match="lang"):
        BleuReward(language_column="lang")(completions=["c"], reference=["c"])
    with pytest.raises(ValueError, match="smooth_method"):
        bleu_reward(smooth_method="bogus")
    with pytest.raises(ValueError, match="tokenize"):
        bleu_reward(tokenize="nope")
    with pytest.raises(TypeError, match="scale"):
        bleu_reward(scale="1")
    for bad in (float("nan"), float("inf"), 0.0, -1.0):
        with pytest.raises(ValueError, match="scale"):
            BleuReward(scale=bad)
    for bad in (float("nan"), 0, -2):
        with pytest.raises(ValueError, match="power"):
            ChrfReward(power=bad)
    with pytest.raises(ValueError, match="threshold"):
        ChrfReward(threshold=float("inf"))
    with pytest.raises(TypeError, match="power"):
        ChrfReward(power=True)
    with pytest.raises(ValueError, match="word_order"):
        ChrfReward(word_order=-1)
    with pytest.raises(TypeError, match="CHRF option"):
        ChrfReward(tokenize="13a")
    with pytest.raises(ValueError, match="ids=True scores token ids with BLEU"):
        MetricReward(options=ChrfOptions(), ids=True)
    with pytest.raises(ValueError, match="language_column"):
        BleuReward(ids=True, language_column="lang")
    with pytest.raises(ValueError, match="ids=True"):
        BleuReward(pad_id=0)
    with pytest.raises(ValueError, match="both"):
        BleuReward("lang", language_column="lang")
    with pytest.raises(TypeError, match="either options= or option keywords"):
        MetricReward(options=ChrfOptions(), tokenize="13a")
    with pytest.raises(TypeError, match="reference_column"):
        BleuReward(3)
    with pytest.raises(TypeError, match="name"):
        BleuReward(name=1)
    assert completion_text("plain") == "plain"


def test_pickles_with_its_options_and_name():
    rewards = [
        BleuReward("ref", tokenize="intl", power=2.0, threshold=1.0, language_column="lang", name="my_bleu"),
        ChrfReward("ref", word_order=2),
        BleuReward("ref", ids=True, pad_id=[0, 2], tokenizer=WordTokenizer()),
        BleuReward("ref", scale=1.0).asynchronous(),
    ]
    for reward in rewards:
        copy = pickle.loads(pickle.dumps(reward))
        assert type(copy) is type(reward) and copy.__name__ == reward.__name__
    columns = dict(completions=["the cat sat"], completion_ids=[[3, 4, 5, 2]], ref=["the cat sat down"], lang=["en-zh"])
    for reward in rewards[:3]:
        assert pickle.loads(pickle.dumps(reward))(**columns) == reward(**columns)


def test_trl_reads_the_name_and_the_async_form():
    trl_utils = pytest.importorskip("trl.trainer.utils")
    reward = ChrfReward(word_order=2)
    assert trl_utils.get_callable_name(reward) == "chrf++"
    assert trl_utils.get_callable_name(BleuReward(name="bleu_de")) == "bleu_de"
    assert not trl_utils.is_async_callable(reward)
    async_reward = reward.asynchronous()
    assert isinstance(async_reward, AsyncReward) and trl_utils.is_async_callable(async_reward)
    assert trl_utils.get_callable_name(async_reward) == "chrf++"
    kwargs = trl_kwargs(reference=REFERENCES)
    assert asyncio.run(async_reward(prompts=PROMPTS, completions=COMPLETIONS, **kwargs)) == reward(
        prompts=PROMPTS, completions=COMPLETIONS, **kwargs
    )


def test_scores_in_a_spawned_process():
    """TRL's async GRPO trainer pickles reward_funcs into a process started with the spawn method."""
    columns = dict(prompts=PROMPTS, completions=COMPLETIONS, completion_ids=[[1], [2], [3]], reference=REFERENCES)
    rewards = [BleuReward(scale=1.0), ChrfReward(word_order=2, language_column="lang")]
    columns["lang"] = ["de-en", "de-zh", None]
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        results = [pool.apply(reward, kwds=columns) for reward in rewards]
    assert results == [reward(**columns) for reward in rewards]
    assert results[0] == [sacre(h, r) for h, r in zip(COMPLETIONS, REFERENCES)]


class Recorded(BleuReward):
    """A BleuReward that keeps what the trainer passed it (module level, so TRL sees a class instance)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls = []

    def __call__(self, **kwargs):
        out = super().__call__(**kwargs)
        self.calls.append(({k: v for k, v in kwargs.items() if k != "trainer_state"}, out))
        return out


@pytest.mark.slow
def test_one_real_grpo_step(tmp_path):
    pytest.importorskip("trl")
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    model, tokenizer, vocab = tiny_causal_lm.build()
    references = ["w1 w2 w3 w4", "w5 w6"]
    dataset = Dataset.from_dict(
        {
            "prompt": ["w1 w2 w3", "w4 w5"],
            "reference": references,
            "chrf_reference": [None, "w5 w6"],  # the first prompt skips the chrF++ reward
            "reference_ids": [[vocab[w] for w in r.split()] for r in references],
            "lang_pair": ["de-en", "en-zh"],
        }
    )
    text_reward = Recorded("reference")
    chrf_reward = ChrfReward("chrf_reference", word_order=2).asynchronous()
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
        model=model,
        reward_funcs=[text_reward, chrf_reward, ids_reward],
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
    )
    trainer.train()

    assert text_reward.calls, "GRPOTrainer never called the reward"
    kwargs, out = text_reward.calls[0]
    assert {"prompts", "completions", "completion_ids", "reference", "lang_pair", "log_metric", "log_extra"} <= set(
        kwargs
    )
    assert out == [sacre(c, r) * 0.01 for c, r in zip(kwargs["completions"], kwargs["reference"])]
    logs = trainer.state.log_history[0]
    assert logs["rewards/bleu/mean"] == pytest.approx(np.mean(out), abs=1e-6)
    # Word-level ids decode to the same tokens, so scoring ids and decoded text agree.
    assert logs["rewards/bleu_ids/mean"] == pytest.approx(logs["rewards/bleu/mean"], abs=1e-6)
    # the chrF++ reward ran (async) on the rows that have its reference only
    chrf_rows = [c for c, r in zip(kwargs["completions"], kwargs["chrf_reference"]) if r is not None]
    assert len(chrf_rows) == 2
    assert logs["rewards/chrf++/mean"] == pytest.approx(
        np.mean([sacre_chrf(c, "w5 w6", word_order=2) * 0.01 for c in chrf_rows]), abs=1e-6
    )
    # log_metric: each batch's corpus BLEU, BP and length ratio (TRL averages them over the step, in float32)
    corpus = [sacrebleu.corpus_bleu(k["completions"], [k["reference"]]) for k, _ in text_reward.calls]
    assert logs["bleu/corpus"] == pytest.approx(np.mean([c.score for c in corpus]), rel=1e-6)
    assert logs["bleu/bp"] == pytest.approx(np.mean([c.bp for c in corpus]), rel=1e-6)
    assert logs["bleu/length_ratio"] == pytest.approx(np.mean([c.sys_len / c.ref_len for c in corpus]), rel=1e-6)
