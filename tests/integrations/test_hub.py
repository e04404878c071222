"""Hub eval results: entries of real scores written as .eval_results YAML and read back with
huggingface_hub's own parser, offline; values equal sacreBLEU's scores with ==."""

from __future__ import annotations

import pytest

pytest.importorskip("huggingface_hub", reason="needs huggingface_hub (pip install 'bleukit[hub]')")

import sacrebleu  # noqa: E402
import yaml  # noqa: E402
from huggingface_hub import EvalResultEntry, parse_eval_result_entries  # noqa: E402
from shared_data import read_lines  # noqa: E402

import bleukit  # noqa: E402
from bleukit.integrations.hub import eval_result_entry, write_eval_results  # noqa: E402

LINES = 200


@pytest.fixture(scope="module")
def wmt22_zh(shared_data):
    folder = shared_data / "wmt22-en-zh"
    refs = [read_lines(folder / f"ref.{k}.zh")[:LINES] for k in "AB"]
    return read_lines(folder / "hyp.Online-B.zh")[:LINES], refs


def test_entries_round_trip_through_huggingface_hub(wmt22_zh, tmp_path):
    hyps, streams = wmt22_zh
    refs = [list(r) for r in zip(*streams)]
    bleu = bleukit.corpus_bleu(hyps, refs, tokenize="zh")
    chrf = bleukit.corpus_chrf(hyps, refs, word_order=2)
    entries = [
        eval_result_entry(bleu, dataset_id="wmt/wmt22", task_id="en-zh", date="2026-11-24T01:00:00Z"),
        eval_result_entry(chrf, dataset_id="wmt/wmt22", task_id="en-zh", notes="zero-shot",
                          source_url="https://example.org/run", source_name="run logs"),
    ]
    path = write_eval_results(entries, tmp_path, "wmt22")
    assert path == tmp_path / ".eval_results" / "wmt22.yaml"
    parsed = parse_eval_result_entries(yaml.safe_load(path.read_text(encoding="utf-8")))
    assert parsed == entries
    assert parsed[0].value == sacrebleu.corpus_bleu(hyps, streams, tokenize="zh").score
    assert parsed[1].value == sacrebleu.corpus_chrf(hyps, streams, word_order=2).score
    assert parsed[0].notes == f"BLEU|{bleu.signature}"
    assert "tok:zh" in parsed[0].notes and "nrefs:2" in parsed[0].notes
    assert parsed[1].notes == f"chrF2++|{chrf.signature}; zero-shot"
    assert parsed[1].source_name == "run logs"


def test_a_lower_is_better_metric_too(wmt22_zh, tmp_path):
    hyps, streams = wmt22_zh
    ter = bleukit.corpus_ter(hyps, [list(r) for r in zip(*streams)], asian_support=True)
    path = write_eval_results([eval_result_entry(ter, dataset_id="wmt/wmt22", task_id="en-zh")], tmp_path)
    (entry,) = parse_eval_result_entries(yaml.safe_load(path.read_text(encoding="utf-8")))
    assert entry.value == sacrebleu.corpus_ter(hyps, streams, asian_support=True).score
    assert entry.notes == f"TER|{ter.signature}" and "asian:yes" in entry.notes


def test_bad_input_is_named(tmp_path):
    result = bleukit.corpus_bleu(["a"], [["a"]])
    with pytest.raises(TypeError, match="bleukit result"):
        eval_result_entry(41.2, dataset_id="d", task_id="t")
    with pytest.raises(ValueError, match="dataset_id"):
        eval_result_entry(result, dataset_id="", task_id="t")
    with pytest.raises(ValueError, match="source_url"):  # huggingface_hub's own check
        eval_result_entry(result, dataset_id="d", task_id="t", source_name="x")
    entry = eval_result_entry(result, dataset_id="d", task_id="t")
    with pytest.raises(TypeError, match="list of"):
        write_eval_results(entry, tmp_path)
    with pytest.raises(ValueError, match="plain file name"):
        write_eval_results([entry], tmp_path, "../escape")
    with pytest.raises(TypeError, match=r"entries\[0\]"):
        write_eval_results([{"value": 1}], tmp_path)
    assert isinstance(entry, EvalResultEntry)
