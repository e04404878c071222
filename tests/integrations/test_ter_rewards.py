"""TER as a reward (``TerReward``, ``metric="ter"`` in verl and OpenRLHF), called as TRL 1.16, verl 0.9
and OpenRLHF 0.11 call reward functions (the call shapes of test_rewards.py and test_rl_frameworks.py).

TER is lower-is-better; its reward is ``max(0, 100 - TER) * scale`` (``1 - TER/100`` clipped at 0
by default). Every TER is sacreBLEU's ``TER().sentence_score`` with ==, and every reward that
mapping of it, computed here from sacreBLEU's number."""

from __future__ import annotations

import asyncio
import multiprocessing
import pickle

import numpy as np
import pytest
import sacrebleu
import tiny_causal_lm
from shared_data import read_lines
from test_rewards import COMPLETIONS, PROMPTS, REFERENCES, Logs, trl_kwargs
from test_rl_frameworks import CHAT, openrlhf_fetch, openrlhf_reward_func, verl_custom_reward_fn

import bleukit.integrations.openrlhf as openrlhf_module
from bleukit.integrations.rewards import MetricReward, TerReward
from bleukit.metrics.ter import TerOptions


def sacre_ter(hyp, refs, **kw):
    return sacrebleu.metrics.TER(**kw).sentence_score(hyp, [refs] if isinstance(refs, str) else refs).score


def ter_reward(ter, scale=0.01):
    """The documented mapping, from sacreBLEU's TER."""
    return max(0.0, 100.0 - ter) * scale


@pytest.fixture(scope="module")
def wmt(shared_data):
    folder = shared_data / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.Online-A.en")[:120]
    refs = [list(r) for r in zip(read_lines(folder / "ref.A.en")[:120], read_lines(folder / "ref.B.en")[:120])]
    return hyps, refs


def test_trl_call_equals_sacrebleu_on_real_data(wmt):
    hyps, refs = wmt
    for keywords in ({}, {"normalized": True}, {"case_sensitive": True, "no_punct": True}):
        reward = TerReward("reference", **keywords)
        out = reward(prompts=["p"] * len(hyps), completions=hyps, completion_ids=[[1]] * len(hyps),
                     **trl_kwargs(reference=refs))
        ters = [sacre_ter(h, r, **keywords) for h, r in zip(hyps, refs)]
        assert reward.scores(hyps, refs) == ters  # the TER itself, unscaled
        assert out == [ter_reward(t) for t in ters]
        assert all(type(x) is float and 0.0 <= x <= 1.0 for x in out)
    assert TerReward().__name__ == "ter"
    # the generic class with TER's options is the same reward
    generic = MetricReward("reference", options=TerOptions(normalized=True))
    assert generic(completions=hyps[:30], reference=refs[:30]) == TerReward(normalized=True)(
        completions=hyps[:30], reference=refs[:30])


def test_lower_ter_is_a_higher_reward_and_the_clip():
    reward = TerReward(scale=1.0)
    hyps = ["the cat sat on the mat", "the cat sat", "mat", "a b c d e f g h i j k l"]
    out = reward(completions=hyps, reference=["the cat sat on the mat"] * 4)
    ters = [sacre_ter(h, "the cat sat on the mat") for h in hyps]
    assert ters[-1] > 100 and out[-1] == 0.0  # more edits than reference words: clipped, as empty
    assert out == [ter_reward(t, 1.0) for t in ters]
    assert sorted(range(4), key=lambda i: ters[i]) == sorted(range(4), key=lambda i: -out[i])
    assert reward(completions=[""], reference=["the cat"]) == [0.0]  # TER 100
    # rows without a reference give None (TRL skips this reward for them)
    assert reward(completions=COMPLETIONS, reference=[None, REFERENCES[1], [None]]) == [
        None, ter_reward(sacre_ter(COMPLETIONS[1], REFERENCES[1]), 1.0), None]


def test_threshold_and_power_apply_to_the_complement():
    plain = TerReward(scale=1.0).scores(COMPLETIONS, REFERENCES)
    shaped = TerReward(scale=0.01, power=2.0, threshold=60.0)(completions=COMPLETIONS, reference=REFERENCES)
    goodness = [max(0.0, 100.0 - t) for t in plain]
    assert shaped == [0.0 if g < 60.0 else (g * 0.01) ** 2.0 for g in goodness]
    assert 0.0 in shaped and any(0 < s < 1 for s in shaped)


def test_logs_corpus_ter():
    logs = Logs()
    TerReward(name="ter_de")(prompts=PROMPTS, completions=COMPLETIONS, **trl_kwargs(logs, reference=REFERENCES))
    streams = [[REFERENCES[0], REFERENCES[1][0], REFERENCES[2]], [None, REFERENCES[1][1], None]]
    assert logs.metrics == {"ter_de/corpus": [sacrebleu.corpus_ter(COMPLETIONS, streams).score]}
    assert logs.extra == {}


def test_options_are_checked():
    with pytest.raises(TypeError, match="normalized"):
        TerReward(normalized="yes")
    with pytest.raises(TypeError, match="tokenize"):
        TerReward(tokenize="13a")
    with pytest.raises(ValueError, match="ids=True"):
        MetricReward(options=TerOptions(), ids=True)


def test_pickles_async_and_spawned_process():
    reward = TerReward("ref", normalized=True, name="ter_norm")
    columns = dict(prompts=PROMPTS, completions=COMPLETIONS, completion_ids=[[1], [2], [3]], ref=REFERENCES)
    copy = pickle.loads(pickle.dumps(reward))
    assert copy.__name__ == "ter_norm" and copy(**columns) == reward(**columns)
    assert asyncio.run(reward.asynchronous()(**columns)) == reward(**columns)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.apply(reward, kwds=columns) == reward(**columns)
    trl_utils = pytest.importorskip("trl.trainer.utils")
    assert trl_utils.get_callable_name(reward) == "ter_norm"


def test_verl_single_and_batch_forms(wmt):
    hyps, refs = wmt
    compute_score = verl_custom_reward_fn("pkg://bleukit.integrations.verl", "compute_score", {"metric": "ter"})
    single = compute_score(data_source="wmt", solution_str=hyps[0], ground_truth=refs[0],
                           extra_info={"lang_pair": "de-en", "num_turns": None, "rollout_reward_scores": {}})
    want = sacre_ter(hyps[0], refs[0])
    assert single == {"score": ter_reward(want), "sentence_score": want}
    scores = compute_score(data_sources=np.array(["wmt"] * 40, dtype=object), solution_strs=hyps[:40],
                           ground_truths=refs[:40], extra_infos=[{"lang_pair": "de-en"}] * 40)
    ters = [sacre_ter(h, r) for h, r in zip(hyps[:40], refs[:40])]
    assert [s["sentence_score"] for s in scores] == ters
    assert [s["score"] for s in scores] == [ter_reward(t) for t in ters]
    # chrF++ for some targets, TER for the rest: both rewards higher-is-better on the same 0-1 scale
    mixed = verl_custom_reward_fn("pkg://bleukit.integrations.verl", "compute_score",
                                  {"metric": "ter", "chrf_targets": ["fi"], "normalized": True})
    out = mixed(data_sources=["a", "b"], solution_strs=["Kissa istui.", hyps[1]],
                ground_truths=["Kissa istuu.", refs[1]], extra_infos=[{"lang_pair": "en-fi"}, {"lang_pair": "de-en"}])
    chrf = sacrebleu.metrics.CHRF(word_order=2).sentence_score("Kissa istui.", ["Kissa istuu."]).score
    assert out[0] == {"score": chrf * 0.01, "sentence_score": chrf}
    assert out[1]["sentence_score"] == sacre_ter(hyps[1], refs[1], normalized=True)


def test_openrlhf_reward_file_with_ter(wmt, tmp_path):
    hyps, refs = wmt
    (tmp_path / "reward.py").write_text(
        "from bleukit.integrations.openrlhf import RewardFunction\n"
        "reward_func = RewardFunction(metric='ter', scale=1.0)\n"
    )
    reward_func = openrlhf_reward_func(str(tmp_path / "reward.py"))
    prompts = [CHAT.format(i) for i in range(10)]
    queries = [p + h + "<|im_end|>" for p, h in zip(prompts, hyps)]
    infos = openrlhf_fetch(reward_func, queries, prompts, [{"references": r} for r in refs[:10]])
    for info, hyp, ref in zip(infos, hyps, refs):
        ter = sacre_ter(hyp, ref)
        assert info["extra_logs"]["sentence_score"].item() == ter
        assert info["rewards"][0].item() == info["scores"][0].item() == float(np.float32(ter_reward(ter, 1.0)))
    assert openrlhf_module.RewardFunction(metric="ter").config == {"metric": "ter"}


@pytest.mark.slow
def test_one_real_grpo_step_with_ter(tmp_path):
    pytest.importorskip("trl")
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    model, tokenizer, _ = tiny_causal_lm.build()
    calls = []

    class Recorded(TerReward):
        def __call__(self, **kwargs):
            out = super().__call__(**kwargs)
            calls.append((kwargs["completions"], kwargs["reference"], out))
            return out

    dataset = Dataset.from_dict({"prompt": ["w1 w2 w3", "w4 w5"], "reference": ["w1 w2 w3 w4", "w5 w6"]})
    args = GRPOConfig(output_dir=str(tmp_path), per_device_train_batch_size=4, num_generations=2,
                      max_completion_length=6, max_steps=1, report_to="none", logging_steps=1,
                      save_strategy="no", use_cpu=True)
    trainer = GRPOTrainer(model=model, reward_funcs=[Recorded("reference")], args=args, train_dataset=dataset,
                          processing_class=tokenizer)
    trainer.train()
    assert calls
    completions, references, out = calls[0]
    assert out == [ter_reward(sacre_ter(c, r)) for c, r in zip(completions, references)]
    logs = trainer.state.log_history[0]
    assert logs["rewards/ter/mean"] == pytest.approx(np.mean(out), abs=1e-6)
    assert logs["ter/corpus"] == pytest.approx(
        np.mean([sacrebleu.corpus_ter(c, [r]).score for c, r, _ in calls]), rel=1e-6)
