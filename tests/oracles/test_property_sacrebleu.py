"""Property-based differential tests against sacreBLEU on random text (thousands of cases), on both
engines, compared with ``==``: the scores are sacreBLEU's floats bit for bit."""

import os

import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU
from strategies import corpora, sentences

import bleukit

TOKENIZERS = ["13a", "intl", "zh", "char", "none"]
SMOOTHING = ["none", "floor", "add-k", "exp"]
# BLEUKIT_PROPERTY_EXAMPLES raises the count for a deeper hunt than CI needs.
CASES = settings(
    max_examples=int(os.environ.get("BLEUKIT_PROPERTY_EXAMPLES", "400")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)

# Both engines on every example (each_engine, tests/conftest.py): sacreBLEU, most of the cost, runs
# once per example for the two.

options = st.fixed_dictionaries(
    {
        "lowercase": st.booleans(),
        "smooth_method": st.sampled_from(SMOOTHING),
        "max_ngram_order": st.integers(1, 5),
    },
    optional={"smooth_value": st.sampled_from([0.0, 0.01, 0.5, 1, 2.5])},
)


def _comparable(opts):
    if opts["smooth_method"] in ("none", "exp"):
        opts.pop("smooth_value", None)  # sacreBLEU ignores it there; keep signatures comparable
    return opts


@pytest.mark.parametrize("tokenize", TOKENIZERS)
@CASES
@given(data=corpora(), opts=options, effective_order=st.booleans())
def test_corpus_bleu_equals_sacrebleu(each_engine, tokenize, data, opts, effective_order):
    hyps, streams = data
    opts = _comparable(dict(opts))
    metric = BLEU(tokenize=tokenize, effective_order=effective_order, **opts)
    theirs = metric.corpus_score(hyps, streams)
    signature = str(metric.get_signature()).split("|")[:-1]
    for engine in each_engine():
        ours = bleukit.corpus_bleu(
            hyps, bleukit.references_from_streams(streams), tokenize=tokenize, effective_order=effective_order, **opts
        )
        assert ours.score == theirs.score, engine
        assert ours.counts == theirs.counts, engine
        assert ours.totals == theirs.totals, engine
        assert (ours.sys_len, ours.ref_len) == (theirs.sys_len, theirs.ref_len), engine
        assert ours.bp == theirs.bp, engine
        assert ours.precisions == theirs.precisions, engine
        ours_sig = [f for f in ours.signature.split("|") if not f.startswith("order:")]
        assert ours_sig[:-1] == signature, engine


@pytest.mark.parametrize("tokenize", TOKENIZERS)
@CASES
@given(data=corpora(max_sentences=4), opts=options)
def test_sentence_scores_equal_sacrebleu(each_engine, tokenize, data, opts):
    hyps, streams = data
    opts = _comparable(dict(opts))
    per_hyp = bleukit.references_from_streams(streams)
    # sacrebleu.sentence_bleu has no max_ngram_order argument; BLEU(...).sentence_score is the same code.
    metric = BLEU(tokenize=tokenize, effective_order=True, **opts)
    theirs = [metric.sentence_score(h, [r for r in refs if r is not None]).score for h, refs in zip(hyps, per_hyp)]
    plain = None
    if opts["max_ngram_order"] == 4:
        kw = {k: v for k, v in opts.items() if k != "max_ngram_order"}
        plain = sacrebleu.sentence_bleu(hyps[0], [r for r in per_hyp[0] if r is not None], tokenize=tokenize, **kw)
    for engine in each_engine():
        ours = bleukit.sentence_bleu_scores(hyps, per_hyp, tokenize=tokenize, **opts)
        assert ours.tolist() == theirs, engine
        first = bleukit.sentence_bleu(hyps[0], per_hyp[0], tokenize=tokenize, **opts)
        assert first.score == theirs[0], engine
        if plain is not None:
            assert first.score == plain.score, engine


@settings(max_examples=int(os.environ.get("BLEUKIT_PROPERTY_EXAMPLES", "300")), deadline=None)
@given(hyp=sentences(), refs=st.lists(sentences(), min_size=1, max_size=3), tokenize=st.sampled_from(TOKENIZERS))
def test_tokenizers_equal_sacrebleu(hyp, refs, tokenize):
    """Token streams, not only scores: each tokenizer's output equals sacreBLEU's."""
    from sacrebleu.metrics.bleu import _get_tokenizer

    theirs = _get_tokenizer(tokenize)()
    ours = bleukit.get_tokenizer(tokenize)
    for line in [hyp, *refs]:
        assert ours(line.rstrip()) == theirs(line.rstrip())
