"""The real data compared live against sacreBLEU 2.6 with options the expected file does not cover, on
both engines, with ``==``."""

import numpy as np
import pytest
import sacrebleu
from sacrebleu.metrics import BLEU
from shared_data import load_corpus

import bleukit

CORPUS_CASES = [
    # dataset, hyp, refs, options
    ("wmt17-en-de", "hyp.uedin-nmt.4722.de", "ref.de", dict(tokenize="intl", lowercase=True)),
    ("wmt17-en-de", "hyp.online-A.0.de", "ref.de", dict(smooth_method="floor", smooth_value=0.3)),
    ("wmt17-en-de", "hyp.KIT.4950.de", "ref.de", dict(smooth_method="add-k", smooth_value=0.5, max_ngram_order=2)),
    ("wmt17-en-de", "hyp.LIUM-NMT.4900.de", "ref.de", dict(max_ngram_order=6, effective_order=True)),
    ("wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en", dict(tokenize="char", max_ngram_order=1)),
    ("wmt22-de-en", "hyp.Online-A.en", "ref.A.en+ref.B.en", dict(lowercase=True, smooth_method="none")),
    ("wmt22-en-zh", "hyp.Online-B.zh", "ref.A.zh+ref.B.zh", dict(tokenize="zh", lowercase=True, max_ngram_order=3)),
    ("kftt-en-ja", "hyp.ja", "ref.ja", dict(tokenize="ja-mecab", smooth_method="floor")),
]


@pytest.mark.parametrize("dataset, hyp, refs, opts", CORPUS_CASES, ids=lambda x: str(x))
def test_corpus_against_sacrebleu(engine, shared_data, dataset, hyp, refs, opts):
    hyps, per_hyp, streams = load_corpus(shared_data, dataset, hyp, refs)
    theirs = BLEU(**opts).corpus_score(hyps, streams)
    metric = BLEU(**opts)
    metric.corpus_score(hyps, streams)
    ours = bleukit.corpus_bleu(hyps, per_hyp, **opts)
    assert ours.score == theirs.score
    assert ours.counts == theirs.counts and ours.totals == theirs.totals
    assert (ours.sys_len, ours.ref_len) == (theirs.sys_len, theirs.ref_len)
    assert ours.precisions == theirs.precisions and ours.bp == theirs.bp
    their_sig = str(metric.get_signature()).split("|")
    our_sig = [f for f in ours.signature.split("|") if not f.startswith("order:")]
    assert our_sig[:-1] == their_sig[:-1]


def test_missing_references_against_sacrebleu(engine, shared_data):
    """Every third line loses reference B (None): nrefs becomes 'var', as in sacreBLEU."""
    hyps, _, (ref_a, ref_b) = load_corpus(shared_data, "wmt22-de-en", "hyp.JDExploreAcademy.en", "ref.A.en+ref.B.en")
    ref_b = [None if i % 3 == 0 else r for i, r in enumerate(ref_b)]
    metric = BLEU()
    theirs = metric.corpus_score(hyps, [ref_a, ref_b])
    ours = bleukit.corpus_bleu(hyps, bleukit.references_from_streams([ref_a, ref_b]))
    assert ours.score == theirs.score
    assert ours.signature.split("|")[:-1] == str(metric.get_signature()).split("|")[:-1]
    assert ours.signature.startswith("nrefs:var|")


@pytest.mark.parametrize(
    "dataset, hyp, refs, opts",
    [
        ("wmt17-en-de", "hyp.online-B.0.de", "ref.de", dict()),
        ("wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en", dict(smooth_method="floor", lowercase=True)),
        ("wmt22-en-zh", "hyp.LanguageX.zh", "ref.A.zh", dict(tokenize="zh", smooth_method="add-k")),
        (
            "wmt17-en-de",
            "hyp.KIT.4950.de",
            "ref.de",
            dict(tokenize="intl", smooth_method="none", effective_order=False),
        ),
    ],
    ids=lambda x: str(x),
)
def test_sentence_scores_against_sacrebleu(engine, shared_data, dataset, hyp, refs, opts):
    hyps, per_hyp, _ = load_corpus(shared_data, dataset, hyp, refs)
    hyps, per_hyp = hyps[:400], per_hyp[:400]
    eff = opts.pop("effective_order", True)
    ours = bleukit.sentence_bleu_scores(hyps, per_hyp, effective_order=eff, **opts)
    theirs = np.array(
        [sacrebleu.sentence_bleu(h, r, use_effective_order=eff, **opts).score for h, r in zip(hyps, per_hyp)]
    )
    assert ours.tolist() == theirs.tolist()
    for i in (0, 7, 123):
        assert bleukit.sentence_bleu(hyps[i], per_hyp[i], effective_order=eff, **opts).score == theirs[i]
