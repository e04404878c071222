"""bleukit.integrations.pandas: corpus scores of DataFrame columns per group, with CIs, equal to the
core on the same columns (and so to sacreBLEU), for BLEU and chrF; the sentence-BLEU column."""

from __future__ import annotations

import pytest
import sacrebleu
from sacrebleu.metrics import CHRF
from shared_data import load_corpus

import bleukit
from bleukit.metrics.chrf import ChrfOptions

pd = pytest.importorskip("pandas")
from bleukit.integrations import pandas as bleu_pd  # noqa: E402


@pytest.fixture(scope="module")
def frame(shared_data):
    hyps, refs, streams = load_corpus(shared_data, "wmt22-de-en", "hyp.Online-A.en", "ref.A.en+ref.B.en")
    df = pd.DataFrame({"hyp": hyps, "ref_a": streams[0], "ref_b": streams[1],
                       "domain": ["long" if len(r.split()) > 20 else "short" for r in streams[0]]})
    return df, hyps, refs, streams


def test_groups_with_cis_equal_the_core(frame):
    df, hyps, refs, streams = frame
    ours = bleu_pd.score_dataframe(df, "hyp", ["ref_a", "ref_b"], group_by="domain", n_bootstrap=100)
    core = bleukit.corpus_bleu(hyps, refs, group_by=df["domain"].tolist(), n_bootstrap=100)
    assert ours == core and ours.groups == core.groups
    assert [(g.mean, g.ci) for g in ours.groups.values()] == [(g.mean, g.ci) for g in core.groups.values()]
    theirs = sacrebleu.corpus_bleu(hyps, streams)
    assert ours.counts == theirs.counts and ours.score == pytest.approx(theirs.score, abs=1e-9, rel=0)


def test_chrf_and_several_group_columns(frame):
    df, hyps, refs, streams = frame
    df = df.assign(half=["first" if i < len(df) // 2 else "second" for i in range(len(df))])
    ours = bleu_pd.score_dataframe(df, "hyp", ["ref_a", "ref_b"], group_by=["domain", "half"], options=ChrfOptions())
    for (domain, half), group in ours.groups.items():
        mask = (df["domain"] == domain) & (df["half"] == half)
        theirs = CHRF().corpus_score(df["hyp"][mask].tolist(), [df["ref_a"][mask].tolist(), df["ref_b"][mask].tolist()])
        assert group.score == theirs.score
    assert ours.score == CHRF().corpus_score(hyps, streams).score
    assert bleu_pd.score_dataframe(df, "hyp", "ref_a", options=ChrfOptions()).score == CHRF().corpus_score(
        hyps, [streams[0]]).score


def test_missing_references_and_the_sentence_column(frame):
    df = pd.DataFrame({"hyp": ["a b c d", "x y z", "p q"], "r1": ["a b c d", None, "p q"],
                       "r2": [None, "x y z", float("nan")]})
    assert bleu_pd.score_dataframe(df, "hyp", ["r1", "r2"]) == bleukit.corpus_bleu(
        ["a b c d", "x y z", "p q"], [["a b c d"], ["x y z"], ["p q"]])
    out = bleu_pd.add_sentence_bleu(df, "hyp", ["r1", "r2"])
    assert "bleu" not in df.columns and out["bleu"].tolist() == bleukit.sentence_bleu_scores(
        ["a b c d", "x y z", "p q"], [["a b c d"], ["x y z"], ["p q"]]).tolist()


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda df: bleu_pd.score_dataframe(df["hyp"], "hyp", "ref_a"), TypeError, "df must be a pandas DataFrame"),
        (lambda df: bleu_pd.score_dataframe(df, "hyp", "nope"), ValueError,
         r"column\(s\) \['nope'\] not in the dataset"),
        (lambda df: bleu_pd.score_dataframe(df, "hyp", "ref_a", group_by="nope"), ValueError, "not in the dataset"),
        (lambda df: bleu_pd.add_sentence_bleu(df, "hyp", "ref_a", "domain"), ValueError, "already exists"),
    ],
)
def test_bad_input_is_named(frame, call, error, message):
    with pytest.raises(error, match=message):
        call(frame[0])
