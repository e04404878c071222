"""The statistics accumulator of every metric: rows added in batches (and merged shards, and an
all-reduce over processes) give exactly the one-pass corpus result, which is sacreBLEU's.

The table runs through the harness (tests/metrics/harness.py): for each case and chunk size the
streamed result equals ``corpus_<metric>`` and sacreBLEU's corpus score, on both engines. The
metric-specific tests below (merges, errors, the gloo all-reduce) follow it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest
from metrics.harness import Corpus, MetricCase, MetricTester
from sacrebleu.metrics import CHRF
from shared_data import load_corpus
from small_corpus import HYPS, REFS

from bleukit import BleuOptions, ChrfOptions, StatisticsAccumulator, corpus_bleu, corpus_chrf, corpus_statistics

# 700 WMT22 de-en lines, the second reference missing on every 4th
DE_EN = Corpus("wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en", 700, missing=((1, 4),))
CHRF_OPTIONS = [{}, {"word_order": 2}, {"word_order": 2, "lowercase": True, "beta": 1}]

# (case, chunk sizes)
TABLE = [
    (MetricCase("bleu", {"smooth_method": "floor", "lowercase": True}, hyps=tuple(HYPS), refs=tuple(REFS),
                name="small"), [1, 2, 3]),
    # the default engine: the rows are the table's, which test_api.py checks on both engines
    *[(MetricCase("chrf", options, corpus=DE_EN, engines="default"), [1, 64, 333]) for options in CHRF_OPTIONS],
    # one reference: the summed row is sacreBLEU's total exactly; the default engine (TER's
    # pure-Python engine is test_ter_vs_sacrebleu.py's)
    (MetricCase("ter", {"normalized": True}, corpus=Corpus("wmt22-de-en", "hyp.Online-A.en", "ref.B.en", 300),
                engines="default"), [37]),
]


@pytest.mark.parametrize("case, chunk", [
    pytest.param(case, chunk, id=f"{case.id}-by{chunk}") for case, chunks in TABLE for chunk in chunks])
def test_batches_equal_the_one_pass_score_and_sacrebleu(case, chunk, each_engine):
    MetricTester(case, each_engine).check_accumulator(chunk)


@pytest.fixture(scope="module")
def de_en(shared_data):
    hyps, _, streams = load_corpus(shared_data, "wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en")
    hyps = hyps[:700]
    ref_a, ref_b = streams[0][:700], [None if i % 4 == 0 else r for i, r in enumerate(streams[1][:700])]
    return hyps, [ref_a, ref_b], [list(pair) for pair in zip(ref_a, ref_b)]


def test_accumulator_keeps_a_common_reference_count_and_merges():
    opts = BleuOptions()
    left, right = StatisticsAccumulator(opts), StatisticsAccumulator(opts)
    left.add_text(["a b c"], [["a b c", "a"]])
    right.add(corpus_statistics(["d e"], [["d e", "f"]], options=opts))
    left.merge(right)
    assert left.result() == corpus_bleu(["a b c", "d e"], [["a b c", "a"], ["d e", "f"]])
    assert left.result().signature.startswith("nrefs:2|")


def test_accumulator_errors_name_the_problem():
    acc = StatisticsAccumulator(BleuOptions())
    with pytest.raises(ValueError, match="empty corpus"):
        acc.result()
    with pytest.raises(ValueError, match="max_ngram_order=2"):
        acc.add(corpus_statistics(["a"], ["a"], options=BleuOptions(max_ngram_order=2)))
    with pytest.raises(TypeError, match="unknown counter"):
        acc.add_text(["a"], ["a"], tokens=1)
    with pytest.raises(TypeError, match="BleuStatistics"):
        acc.add([[1, 1, 1, 0, 0, 0, 1, 0, 0, 0]])
    with pytest.raises(ValueError, match="different options"):
        acc.merge(StatisticsAccumulator(BleuOptions(lowercase=True)))


def test_all_reduce_without_torch_distributed_changes_nothing():
    acc = StatisticsAccumulator(BleuOptions())
    acc.add_text(HYPS, REFS)
    before = acc.result()
    acc.all_reduce()
    assert acc.result() == before


def test_merged_shards_and_a_common_reference_count(de_en):
    hyps, _, refs = de_en
    options = ChrfOptions(word_order=2)
    shards = [StatisticsAccumulator(options) for _ in range(3)]
    full = [[r[0]] for r in refs]
    for k, acc in enumerate(shards):
        acc.add(corpus_statistics(hyps[k::3], full[k::3], options=options))
    shards[0].merge(shards[1])
    shards[0].merge(shards[2])
    assert shards[0].result() == corpus_chrf(hyps, full, word_order=2)
    assert shards[0].result().signature.startswith("nrefs:1|")
    with pytest.raises(ValueError, match="char_order=6, word_order=0"):
        shards[0].add(corpus_statistics(hyps[:2], full[:2], options=ChrfOptions()))
    with pytest.raises(ValueError, match="different options"):
        shards[0].merge(StatisticsAccumulator(ChrfOptions(word_order=2, beta=1)))


WORKER = r"""
import json, os, sys
import torch.distributed as dist
from bleukit import ChrfOptions, StatisticsAccumulator
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
data = json.load(open(sys.argv[1]))
acc = StatisticsAccumulator(ChrfOptions(word_order=2), extras=["lines"])
hyps, refs = data["hyps"][rank::world], data["refs"][rank::world]
for start in range(0, len(hyps), 50):
    acc.add_text(hyps[start:start + 50], refs[start:start + 50], lines=len(hyps[start:start + 50]))
mine = acc.result().score
acc.all_reduce()
result = acc.result()
print(json.dumps({"rank": rank, "mine": mine, "score": result.score, "matches": result.matches,
                  "rows": acc.n_rows, "lines": acc.counters["lines"], "signature": result.signature}))
dist.destroy_process_group()
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow  # two fresh interpreters importing torch: 15 s on a busy machine
def test_two_process_gloo_all_reduce_gives_the_one_pass_chrf(de_en, tmp_path):
    pytest.importorskip("torch.distributed")
    hyps, streams, refs = de_en
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"hyps": hyps, "refs": refs}))
    port = _free_port()
    procs = []
    for rank in range(2):
        env = dict(
            os.environ,
            RANK=str(rank),
            WORLD_SIZE="2",
            MASTER_ADDR="127.0.0.1",
            MASTER_PORT=str(port),
            OMP_NUM_THREADS="1",
            PYTHONPATH=os.pathsep.join(sys.path),
        )
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", WORKER, str(data)],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    outs = []
    for p in procs:
        try:
            outs.append(p.communicate(timeout=240))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
    ranks = [json.loads(out.strip().splitlines()[-1]) for out, _ in outs]
    expected = corpus_chrf(hyps, refs, word_order=2)
    for r in ranks:
        assert r["score"] == expected.score == CHRF(word_order=2).corpus_score(hyps, streams).score
        assert r["matches"] == expected.matches and r["signature"] == expected.signature
        assert r["rows"] == r["lines"] == len(hyps)
    # each rank's own shard scored differently before the reduction: the sum did the work
    assert ranks[0]["mine"] != ranks[1]["mine"]
