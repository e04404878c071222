"""bleukit.integrations.ray on a local Ray (2 CPUs): real WMT/KFTT data against sacreBLEU's scores,
and a generated corpus of a million rows against the single-process result.

Ray's start-up takes tens of seconds on a loaded 2-core machine: one session-scoped cluster
(``ray_local`` in tests/conftest.py) serves every test that uses Ray, and the module is marked slow.
"""

from __future__ import annotations

import importlib.util
import json
from collections import defaultdict

import numpy as np
import pytest
from shared_data import REPO, SHARED_DATA, expected_score, load_corpus

import bleukit

ray = pytest.importorskip("ray")
pa = pytest.importorskip("pyarrow")
from ray.data.expressions import col  # noqa: E402

from bleukit.integrations import ray as bleu_ray  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]


def _blocks(columns: dict, n_blocks: int):
    """A Ray dataset of ``n_blocks`` blocks (so several tasks and partial sums per group)."""
    table = pa.table(columns)
    step = -(-table.num_rows // n_blocks)
    return ray.data.from_arrow([table.slice(k, step) for k in range(0, table.num_rows, step)])


# ----------------------------------------------------------------------------- real data

_REF_CONFIGS = {  # expected_scores "refs" shape -> (use ref A, use ref B)
    "A": (True, False),
    "B": (False, True),
    "AB": (True, True),
}


def _ref_config(refs: str) -> str:
    if "+" in refs:
        return "AB"
    return "B" if ".B." in refs else "A"


def _expected_by_options():
    with open(SHARED_DATA / "expected_scores.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    by_options = defaultdict(list)
    for row in rows:
        by_options[(row["tokenize"], row["lowercase"], row["smooth"])].append(row)
    return by_options


def _table_for(rows):
    """One table holding every (dataset, system, reference configuration) of ``rows``: the
    configuration decides which of the two reference columns are filled (None = missing)."""
    cols = defaultdict(list)
    for row in rows:
        hyps, _, streams = load_corpus(SHARED_DATA, row["dataset"], row["hyp"], row["refs"])
        config = _ref_config(row["refs"])
        if config == "AB":
            ref_a, ref_b = streams
        elif config == "A":
            ref_a, ref_b = streams[0], [None] * len(hyps)
        else:
            ref_a, ref_b = [None] * len(hyps), streams[0]
        n = len(hyps)
        cols["dataset"] += [row["dataset"]] * n
        cols["system"] += [row["hyp"]] * n
        cols["refs"] += [config] * n
        cols["hyp"] += hyps
        cols["ref_a"] += ref_a
        cols["ref_b"] += ref_b
    return dict(cols)


def test_real_data_equals_sacrebleu_per_group(ray_local, shared_data):
    """All 176 sacreBLEU scores, one Ray job per option set, grouped by (dataset, system, refs)."""
    checked = 0
    for (tokenize, lowercase, smooth), rows in _expected_by_options().items():
        ds = _blocks(_table_for(rows), n_blocks=6)
        results = bleu_ray.score_ray_dataset(
            ds,
            "hyp",
            ["ref_a", "ref_b"],
            group_by=["dataset", "system", "refs"],
            batch_size=700,
            tokenize=tokenize,
            lowercase=lowercase,
            smooth_method=smooth,
        )
        assert len(results.groups) == len(rows)
        for row in rows:
            got = results.groups[(row["dataset"], row["hyp"], _ref_config(row["refs"]))]
            assert got.score == expected_score(row), row
            assert (got.counts, got.totals, got.sys_len, got.ref_len) == (
                row["counts"],
                row["totals"],
                row["sys_len"],
                row["ref_len"],
            )
            assert got.signature.split("|")[:-1] == row["signature"].split("|")[:-1]
            checked += 1
    assert checked == 176


def test_plain_corpus_bleu_equals_the_core(ray_local, shared_data):
    hyps, refs, streams = load_corpus(shared_data, "wmt22-de-en", "hyp.Online-A.en", "ref.A.en+ref.B.en")
    # Missing references on some rows: the signature says nrefs:var, as the core does.
    ref_b = [None if i % 5 == 0 else r for i, r in enumerate(streams[1])]
    ds = _blocks({"hyp": hyps, "ref_a": streams[0], "ref_b": ref_b}, n_blocks=4)
    got = bleu_ray.score_ray_dataset(ds, "hyp", ["ref_a", "ref_b"], batch_size=300, smooth_method="floor")
    want = bleukit.corpus_bleu(hyps, list(zip(streams[0], ref_b)), smooth_method="floor")
    assert got == want and got.signature.startswith("nrefs:var|")
    # A column of reference lists is one column holding several references per row.
    ds_lists = _blocks({"hyp": hyps, "refs": [list(r) for r in zip(streams[0], ref_b)]}, n_blocks=3)
    assert bleu_ray.score_ray_dataset(ds_lists, "hyp", "refs", smooth_method="floor") == want


@pytest.mark.parametrize(
    "options, corpus_score",
    [
        (bleukit.BleuOptions(), bleukit.corpus_bleu),
        (bleukit.ChrfOptions(word_order=2), lambda h, r, **kw: bleukit.corpus_chrf(h, r, word_order=2, **kw)),
        (bleukit.TerOptions(), bleukit.corpus_ter),
    ],
    ids=["bleu", "chrf++", "ter"],
)
def test_groups_with_bootstrap_ci_whatever_the_row_order(ray_local, shared_data, options, corpus_score):
    """Each group's score and bootstrap CI equal the core's group_by on the same rows, put in the
    canonical order (rows sorted by their statistics: last column first for np.lexsort); the same
    result from the rows shuffled into other blocks."""
    hyps, refs, streams = load_corpus(shared_data, "wmt22-de-en", "hyp.Online-A.en", "ref.A.en+ref.B.en")
    n = 240
    hyps, refs = hyps[:n], [list(r) for r in refs[:n]]
    labels = [("short" if len(h.split()) < 15 else "long") for h in hyps]
    stats = bleukit.corpus_statistics(hyps, refs, options=options)
    order = np.lexsort([stats.nrefs] + [stats.rows[:, k] for k in reversed(range(stats.rows.shape[1]))])
    want = corpus_score(
        [hyps[i] for i in order], [refs[i] for i in order], n_bootstrap=300, seed=7, group_by=[labels[i] for i in order]
    )
    columns = {"hyp": hyps, "refs": refs, "len": labels}
    shuffled = np.random.default_rng(1).permutation(n)
    results = []
    for table, n_blocks in ((columns, 3), ({k: [v[i] for i in shuffled] for k, v in columns.items()}, 5)):
        ds = _blocks(table, n_blocks=n_blocks)
        results.append(
            bleu_ray.score_ray_dataset(ds, "hyp", "refs", group_by="len", batch_size=70, n_bootstrap=300, seed=7,
                                 options=options)
        )
    for got in results:
        assert got == want and got.to_dict() == want.to_dict()
        assert list(got.groups) == list(want.groups) == ["long", "short"]
        for label, group in got.groups.items():
            assert (group.score, group.mean, group.ci) == (want.groups[label].score, want.groups[label].mean,
                                                           want.groups[label].ci)
            assert group.ci is not None and group.ci > 0
    # without n_bootstrap the groups are summed in the tasks: the same scores, no CI
    plain = bleu_ray.score_ray_dataset(_blocks(columns, n_blocks=4), "hyp", "refs", group_by="len", options=options)
    assert {k: g.score for k, g in plain.groups.items()} == {k: g.score for k, g in want.groups.items()}
    assert plain.score == want.score and plain.groups["long"].ci is None


def test_sentence_bleu_column_equals_sacrebleu(ray_local, shared_data):
    import sacrebleu

    hyps, refs, _ = load_corpus(shared_data, "wmt17-en-de", "hyp.online-A.0.de", "ref.de")
    ds = _blocks({"id": list(range(len(hyps))), "hyp": hyps, "ref": [r[0] for r in refs]}, n_blocks=4)
    scored = bleu_ray.add_sentence_bleu(ds, "hyp", "ref", batch_size=500).take_all()
    assert sorted((row["id"], row["hyp"]) for row in scored) == list(enumerate(hyps))
    got = np.zeros(len(hyps))
    got[[row["id"] for row in scored]] = [row["bleu"] for row in scored]
    np.testing.assert_array_equal(got, bleukit.sentence_bleu_scores(hyps, refs))
    for i in range(0, len(hyps), 97):
        assert got[i] == sacrebleu.sentence_bleu(hyps[i], refs[i]).score
    kept = bleu_ray.add_sentence_bleu(ds, "hyp", "ref", output_column="s").filter(expr=col("s") >= 30).count()
    assert kept == int((got >= 30).sum())


def test_bad_input_is_named(ray_local):
    ds = ray.data.from_items([{"hyp": "a b", "ref": "a b", "bleu": 1.0}])
    with pytest.raises(TypeError, match="unknown BLEU option"):
        bleu_ray.score_ray_dataset(ds, "hyp", "ref", smoothing="exp")
    with pytest.raises(ValueError, match=r"column\(s\) \['nope'\] not in the dataset"):
        bleu_ray.score_ray_dataset(ds, "hyp", "nope")
    with pytest.raises(ValueError, match="'bleu' already exists"):
        bleu_ray.add_sentence_bleu(ds, "hyp", "ref")
    with pytest.raises(ValueError, match="empty dataset"):
        bleu_ray.score_ray_dataset(ds.filter(expr=col("bleu") > 2), "hyp", "ref")
    with pytest.raises(ValueError, match="both the hypothesis and a reference"):
        bleu_ray.score_ray_dataset(ds, "hyp", ["ref", "hyp"])
    with pytest.raises(ValueError, match="n_bootstrap"):
        bleu_ray.score_ray_dataset(ds, "hyp", "ref", n_bootstrap=0)
    with pytest.raises(ValueError, match="empty dataset"):
        bleu_ray.score_ray_dataset(ds.filter(expr=col("bleu") > 2), "hyp", "ref", group_by="hyp", n_bootstrap=10)
    # Raised inside a task: Ray wraps it in its own exception type, the message is kept.
    lazy = ds.map_batches(lambda batch: batch, batch_format="pyarrow")
    assert lazy.columns(fetch_if_missing=False) is None
    with pytest.raises(Exception, match=r"column\(s\) \['nope'\] not in the dataset"):
        bleu_ray.score_ray_dataset(lazy, "hyp", "nope")
    with pytest.raises(Exception, match="'bleu' already exists"):
        bleu_ray.add_sentence_bleu(lazy, "hyp", "ref").take_all()
    with pytest.raises(Exception, match="holds no reference"):
        bleu_ray.score_ray_dataset(ray.data.from_items([{"hyp": "a", "r1": None, "r2": None}]), "hyp", ["r1", "r2"])


# ----------------------------------------------------------------------------- a million rows


def _scale_corpus():
    spec = importlib.util.spec_from_file_location("scale_corpus", REPO / "benchmarks" / "scale_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_million_rows_equal_single_process(ray_local):
    n = 1_000_000
    hyps, refs = _scale_corpus().make_rows(0, n, seed=2026)
    options = bleukit.BleuOptions()
    single = bleukit.score_statistics(bleukit.corpus_statistics(hyps, refs, options=options), options)
    ds = _blocks({"hyp": hyps, "ref": refs}, n_blocks=16)
    del hyps, refs
    got = bleu_ray.score_ray_dataset(ds, "hyp", "ref", batch_size=20_000)
    assert got == single and got.sys_len > 10_000_000
