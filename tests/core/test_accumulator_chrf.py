"""chrF through the statistics accumulator: batches, merges and a two-process gloo all-reduce give
exactly the one-pass chrF / chrF++ (bleukit.corpus_chrf), which is sacreBLEU's."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest
from sacrebleu.metrics import CHRF
from shared_data import load_corpus

from bleukit import ChrfOptions, StatisticsAccumulator, corpus_chrf, corpus_statistics

OPTIONS = [ChrfOptions(), ChrfOptions(word_order=2), ChrfOptions(word_order=2, lowercase=True, beta=1)]


@pytest.fixture(scope="module")
def de_en(shared_data):
    hyps, _, streams = load_corpus(shared_data, "wmt22-de-en", "hyp.LT22.en", "ref.A.en+ref.B.en")
    hyps = hyps[:700]
    ref_a, ref_b = streams[0][:700], [None if i % 4 == 0 else r for i, r in enumerate(streams[1][:700])]
    return hyps, [ref_a, ref_b], [list(pair) for pair in zip(ref_a, ref_b)]


@pytest.mark.parametrize("split", [1, 64, 333])
@pytest.mark.parametrize("options", OPTIONS, ids=["chrF", "chrF++", "chrF1++lc"])
def test_batches_equal_the_one_pass_score_and_sacrebleu(de_en, split, options):
    hyps, streams, refs = de_en
    acc = StatisticsAccumulator(options, extras=["lines"])
    for start in range(0, len(hyps), split):
        acc.add_text(hyps[start : start + split], refs[start : start + split], lines=len(hyps[start : start + split]))
    result = acc.result()
    kw = options.to_dict()
    assert result == corpus_chrf(hyps, refs, **kw)
    assert result.score == CHRF(**kw).corpus_score(hyps, streams).score
    assert acc.n_rows == len(hyps) and acc.counters == {"lines": len(hyps)}
    assert result.signature.startswith("nrefs:var|")


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
