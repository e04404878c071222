"""chrF through the scale-out adapters (``options=ChrfOptions(...)``): Hugging Face datasets with two
processes and Ray Data with two CPUs give exactly the one-pass chrF / chrF++, which is sacreBLEU's."""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import CHRF
from shared_data import load_corpus

import bleukit
from bleukit import ChrfOptions

CHRF_PP = ChrfOptions(word_order=2)


@pytest.fixture(scope="module")
def de_en(shared_data):
    hyps, _, streams = load_corpus(shared_data, "wmt22-de-en", "hyp.Online-A.en", "ref.A.en+ref.B.en")
    ref_b = [None if i % 5 == 0 else r for i, r in enumerate(streams[1])]
    return hyps, [streams[0], ref_b], [list(pair) for pair in zip(streams[0], ref_b)]


# ----------------------------------------------------------------------------- datasets


def test_datasets_statistics_columns_and_corpus_chrf(de_en):
    datasets = pytest.importorskip("datasets")
    from bleukit.integrations import datasets as hf

    datasets.disable_progress_bars()
    hyps, streams, refs = de_en
    ds = datasets.Dataset.from_dict({"hyp": hyps, "ref_a": streams[0], "ref_b": streams[1]})
    fn = hf.statistics_function(
        "hyp", ["ref_a", "ref_b"], column="chrf_stats", nrefs_column="chrf_nrefs", options=CHRF_PP
    )
    with_stats = ds.map(fn, batched=True, batch_size=300, num_proc=2)
    table = bleukit.corpus_statistics(hyps, refs, options=CHRF_PP)
    assert np.array_equal(np.array(with_stats["chrf_stats"]), table.rows)
    summed = hf.score_dataset_statistics(
        with_stats, column="chrf_stats", nrefs_column="chrf_nrefs", options=CHRF_PP, batch_size=500
    )
    expected = bleukit.corpus_chrf(hyps, refs, word_order=2)
    assert summed == expected and summed.score == CHRF(word_order=2).corpus_score(hyps, streams).score
    assert hf.score_dataset(ds, "hyp", ["ref_a", "ref_b"], num_proc=2, options=CHRF_PP) == expected
    with pytest.raises(ValueError, match="must hold 18 integers per row"):
        hf.score_dataset_statistics(
            with_stats, column="chrf_stats", nrefs_column="chrf_nrefs", options=ChrfOptions()
        )


def test_datasets_sentence_chrf_column(de_en):
    datasets = pytest.importorskip("datasets")
    from bleukit.integrations import datasets as hf

    datasets.disable_progress_bars()
    hyps, streams, refs = de_en
    ds = datasets.Dataset.from_dict({"hyp": hyps, "refs": refs})
    scored = hf.add_sentence_bleu(ds, "hyp", "refs", output_column="chrf", num_proc=2, batch_size=250, options=CHRF_PP)
    got = np.array(scored["chrf"])
    assert got.tolist() == bleukit.sentence_chrf_scores(hyps, refs, word_order=2).tolist()
    metric = CHRF(word_order=2)
    for i in range(0, len(hyps), 97):
        assert got[i] == metric.sentence_score(hyps[i], [r for r in refs[i] if r is not None]).score


# ----------------------------------------------------------------------------- Ray


@pytest.mark.slow  # Ray's start-up takes tens of seconds on a loaded 2-core machine
@pytest.mark.xdist_group("ray")  # one worker starts the session's Ray (tests/conftest.py)
def test_ray_grouped_corpus_chrf_and_sentence_column(ray_local, de_en):
    import pyarrow as pa

    from bleukit.integrations import ray as bleu_ray

    hyps, streams, refs = de_en
    n = len(hyps)
    half = n // 2
    table = pa.table(
        {
            "id": list(range(n)),
            "part": ["a"] * half + ["b"] * (n - half),
            "hyp": hyps,
            "ref_a": streams[0],
            "ref_b": streams[1],
        }
    )
    ds = ray_local.data.from_arrow([table.slice(k, 400) for k in range(0, n, 400)])
    by_part = bleu_ray.score_ray_dataset(
        ds, "hyp", ["ref_a", "ref_b"], group_by="part", batch_size=300, options=CHRF_PP
    ).groups
    assert list(by_part) == ["a", "b"]
    metric = CHRF(word_order=2)
    for key, rows in (("a", slice(0, half)), ("b", slice(half, n))):
        assert by_part[key] == bleukit.corpus_chrf(hyps[rows], refs[rows], word_order=2)
        assert by_part[key].score == metric.corpus_score(hyps[rows], [s[rows] for s in streams]).score
    assert bleu_ray.score_ray_dataset(ds, "hyp", ["ref_a", "ref_b"], options=CHRF_PP) == bleukit.corpus_chrf(
        hyps, refs, word_order=2
    )
    scored = bleu_ray.add_sentence_bleu(ds, "hyp", ["ref_a", "ref_b"], output_column="chrf", options=CHRF_PP)
    got = np.zeros(n)
    rows = scored.take_all()
    got[[row["id"] for row in rows]] = [row["chrf"] for row in rows]
    assert got.tolist() == bleukit.sentence_chrf_scores(hyps, refs, word_order=2).tolist()
