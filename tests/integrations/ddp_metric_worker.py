"""One process of the two-process gloo runs in test_torchmetrics.py (imported by name in the spawned children)."""

from __future__ import annotations

import json

import torch.distributed as dist


def run(rank: int, world_size: int, init_file: str, out_dir: str, jobs: list, shards: list) -> None:
    """For each (name, metric, keywords) job: update with this rank's shard in batches of 7, compute (which
    syncs over the processes), and write what this rank sees to ``out_dir/<name>.rank<rank>.json``."""
    from bleukit.integrations.torchmetrics import BLEUScore, CHRFScore, TERScore

    classes = {"bleu": BLEUScore, "chrf": CHRFScore, "ter": TERScore}
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world_size)
    try:
        hyps, refs = shards[rank]
        for name, metric, keywords in jobs:
            scorer = classes[metric](**keywords)
            for start in range(0, len(hyps), 7):
                scorer.update(hyps[start:start + 7], refs[start:start + 7])
            score = scorer.compute()
            result = scorer.result()
            with open(f"{out_dir}/{name}.rank{rank}.json", "w", encoding="utf-8") as f:
                json.dump({"score": float(score), "score_dtype": str(score.dtype), "signature": result.signature,
                           "state_dtype": str(scorer.statistics.dtype), "local_statistics": scorer.statistics.tolist(),
                           "result_score": result.score}, f)
    finally:
        dist.destroy_process_group()
