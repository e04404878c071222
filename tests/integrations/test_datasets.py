"""bleukit.integrations.datasets (Dataset.map with num_proc=2) and the evaluate module's own
distributed mode (num_process=2), on the real WMT data against sacreBLEU's scores."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from shared_data import REPO, expected_score, load_corpus

import bleukit

datasets = pytest.importorskip("datasets")
from bleukit.integrations import datasets as bleu_ds  # noqa: E402

datasets.disable_progress_bars()


def _expected(shared_data, **match):
    with open(shared_data / "expected_scores.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    (row,) = [r for r in rows if all(r[k] == v for k, v in match.items())]
    return row


def _assert_sacrebleu(result, row):
    assert result.score == expected_score(row)
    assert (result.counts, result.totals, result.sys_len, result.ref_len) == (
        row["counts"],
        row["totals"],
        row["sys_len"],
        row["ref_len"],
    )
    assert result.signature.split("|")[:-1] == row["signature"].split("|")[:-1]


@pytest.fixture(scope="module")
def de_en(shared_data):
    hyps, refs, streams = load_corpus(shared_data, "wmt22-de-en", "hyp.JDExploreAcademy.en", "ref.A.en+ref.B.en")
    ds = datasets.Dataset.from_dict({"hyp": hyps, "ref_a": streams[0], "ref_b": streams[1]})
    return hyps, refs, ds


def test_statistics_columns_with_two_processes_equal_sacrebleu(de_en, shared_data, tmp_path):
    hyps, refs, ds = de_en
    fn = bleu_ds.statistics_function("hyp", ["ref_a", "ref_b"], tokenize="intl")
    with_stats = ds.map(fn, batched=True, batch_size=300, num_proc=2)
    options = bleukit.BleuOptions(tokenize="intl")
    want = bleukit.corpus_statistics(hyps, refs, options=options).rows
    assert np.array_equal(np.array(with_stats["bleu_stats"]), want)
    row = _expected(
        shared_data,
        dataset="wmt22-de-en",
        hyp="hyp.JDExploreAcademy.en",
        refs="ref.A.en+ref.B.en",
        tokenize="intl",
        lowercase=False,
        smooth="exp",
    )
    _assert_sacrebleu(bleu_ds.score_dataset_statistics(with_stats, tokenize="intl", batch_size=500), row)
    # Summing after a filter scores exactly the rows kept.
    kept = with_stats.filter(lambda r: len(r["hyp"]) > 100)
    subset = [(h, r) for h, r in zip(hyps, refs) if len(h) > 100]
    assert bleu_ds.score_dataset_statistics(kept, tokenize="intl") == bleukit.corpus_bleu(
        [h for h, _ in subset], [r for _, r in subset], tokenize="intl"
    )
    # The one-call form, and a column of reference lists instead of two columns.
    default_row = _expected(
        shared_data,
        dataset="wmt22-de-en",
        hyp="hyp.JDExploreAcademy.en",
        refs="ref.A.en+ref.B.en",
        tokenize="13a",
        lowercase=False,
        smooth="exp",
    )
    _assert_sacrebleu(bleu_ds.score_dataset(ds, "hyp", ["ref_a", "ref_b"], num_proc=2), default_row)
    lists = datasets.Dataset.from_dict({"hyp": hyps, "refs": refs})
    _assert_sacrebleu(bleu_ds.score_dataset(lists, "hyp", "refs"), default_row)


def test_sentence_bleu_column_with_two_processes(de_en):
    import sacrebleu

    hyps, refs, ds = de_en
    scored = bleu_ds.add_sentence_bleu(ds, "hyp", ["ref_a", "ref_b"], num_proc=2, batch_size=250)
    got = np.array(scored["bleu"])
    np.testing.assert_array_equal(got, bleukit.sentence_bleu_scores(hyps, refs))
    for i in range(0, len(hyps), 131):
        assert got[i] == sacrebleu.sentence_bleu(hyps[i], refs[i]).score
    assert scored.filter(lambda r: r["bleu"] >= 40).num_rows == int((got >= 40).sum())


def test_groups_of_a_column_with_two_processes_equal_the_core(de_en):
    hyps, refs, ds = de_en
    labels = [f"len{min(len(r[0].split()) // 10, 3)}" for r in refs]
    systems = ["a" if i % 3 else "b" for i in range(len(hyps))]
    ds = ds.add_column("bucket", labels).add_column("sys", systems)
    ours = bleu_ds.score_dataset(ds, "hyp", ["ref_a", "ref_b"], "bucket", num_proc=2, batch_size=300, tokenize="intl")
    core = bleukit.corpus_bleu(hyps, refs, group_by=labels, tokenize="intl")
    assert ours == core and list(ours.groups) == list(core.groups)
    assert all(ours.groups[k] == core.groups[k] for k in core.groups)
    two = bleu_ds.score_dataset(ds, "hyp", ["ref_a", "ref_b"], ["sys", "bucket"], tokenize="intl")
    core_two = bleukit.corpus_bleu(hyps, refs, group_by=list(zip(systems, labels)), tokenize="intl")
    assert {k: v.score for k, v in two.groups.items()} == {k: v.score for k, v in core_two.groups.items()}
    with pytest.raises(ValueError, match="not in the dataset"):
        bleu_ds.score_dataset(ds, "hyp", "ref_a", "domain")


def test_bootstrap_cis_of_the_corpus_and_of_each_group_equal_the_core(de_en):
    from bleukit.metrics.chrf import ChrfOptions

    hyps, refs, ds = de_en
    labels = [min(len(r[0].split()) // 10, 3) for r in refs]
    ds = ds.add_column("bucket", labels)
    ours = bleu_ds.score_dataset(ds, "hyp", ["ref_a", "ref_b"], "bucket", num_proc=2, batch_size=300, n_bootstrap=200,
                               seed=4)
    core = bleukit.corpus_bleu(hyps, refs, group_by=labels, n_bootstrap=200, seed=4)
    assert ours == core and (ours.mean, ours.ci) == (core.mean, core.ci) and "|bs:200|seed:4|" in ours.signature
    assert {k: (g.score, g.mean, g.ci) for k, g in ours.groups.items()} == {
        k: (g.score, g.mean, g.ci) for k, g in core.groups.items()}
    chrf = bleu_ds.score_dataset(ds, "hyp", ["ref_a", "ref_b"], n_bootstrap=100, options=ChrfOptions(word_order=2))
    expected = bleukit.corpus_chrf(hyps, refs, word_order=2, n_bootstrap=100)
    assert (chrf.score, chrf.mean, chrf.ci, chrf.groups) == (expected.score, expected.mean, expected.ci, None)


def test_bad_input_is_named(de_en):
    _, _, ds = de_en
    with pytest.raises(TypeError, match="unknown BLEU option"):
        bleu_ds.statistics_function("hyp", "ref_a", smoothing="exp")
    with pytest.raises(ValueError, match=r"column\(s\) \['nope'\] not in the dataset"):
        bleu_ds.score_dataset(ds.select(range(3)), "hyp", "nope")
    with pytest.raises(ValueError, match="'ref_b' already exists"):
        bleu_ds.add_sentence_bleu(ds.select(range(3)), "hyp", "ref_a", output_column="ref_b")
    with_stats = ds.select(range(3)).map(bleu_ds.statistics_function("hyp", "ref_a"), batched=True)
    with pytest.raises(ValueError, match="must hold 6 integers per row"):
        bleu_ds.score_dataset_statistics(with_stats, max_ngram_order=2)
    with pytest.raises(ValueError, match="empty dataset"):
        bleu_ds.score_dataset_statistics(with_stats.select([]))


def test_importing_bleukit_imports_no_ray_or_datasets():
    code = (
        "import sys, bleukit, bleukit.integrations, bleukit.integrations._columns; "
        "print(sorted(m for m in ('ray', 'datasets', 'pyarrow') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]"


EVALUATE_WORKER = r"""
import json, sys
import evaluate
metric_path, process_id, cache_dir, data = sys.argv[1], int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
metric = evaluate.load(metric_path, num_process=2, process_id=process_id, experiment_id="bleukit-test",
                       cache_dir=cache_dir)
hyps, refs = data["hyps"][process_id::2], data["refs"][process_id::2]
for start in range(0, len(hyps), 400):
    metric.add_batch(predictions=hyps[start:start + 400], references=refs[start:start + 400])
print(json.dumps(metric.compute(**data["options"])))
"""


@pytest.mark.slow  # two fresh interpreters importing evaluate: 20 s or more on a busy machine
def test_evaluate_module_in_its_distributed_mode(shared_data, tmp_path):
    """Two processes each add their half; process 0's compute() scores all of it, exactly."""
    hyps, refs, _ = load_corpus(shared_data, "wmt22-de-en", "hyp.Online-A.en", "ref.A.en+ref.B.en")
    data_file = tmp_path / "data.json"
    data_file.write_text(json.dumps({"hyps": hyps, "refs": refs, "options": {"smooth_method": "floor"}}))
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_HOME=str(tmp_path / "hf"))
    script = EVALUATE_WORKER.replace("json.loads(sys.argv[4])", "json.load(open(sys.argv[4]))")
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                script,
                str(REPO / "bleu_metric.py"),
                str(pid),
                str(tmp_path / "cache"),
                str(data_file),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=str(tmp_path),
        )
        for pid in (0, 1)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
    first, second = (json.loads(out.strip().splitlines()[-1]) for out, _ in outs)
    assert second is None
    row = _expected(
        shared_data,
        dataset="wmt22-de-en",
        hyp="hyp.Online-A.en",
        refs="ref.A.en+ref.B.en",
        tokenize="13a",
        lowercase=False,
        smooth="floor",
    )
    assert first["score"] == expected_score(row)
    assert [first[k] for k in ("counts", "totals", "sys_len", "ref_len")] == [
        row[k] for k in ("counts", "totals", "sys_len", "ref_len")
    ]
    assert first["signature"].split("|")[:-1] == row["signature"].split("|")[:-1]
