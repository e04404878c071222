"""Score a corpus as a data job: Hugging Face ``datasets`` (``map`` over processes) and Ray Data
(``map_batches`` over a cluster), corpus BLEU and a sentence-BLEU column to filter on.

    python integrations/score_datasets_and_ray.py --smoke              # the bundled examples/ corpus
    python integrations/score_datasets_and_ray.py --hyp out.de --ref ref.de [--ref ref2.de] \\
        --num-proc 8 --threshold 50 --engine datasets                  # or ray, or both

Both jobs turn each row into integer statistics and sum them, so the corpus score equals
``bleukit.corpus_bleu`` of the rows however the work was split; the recipe checks it (and every
sentence score) against sacreBLEU when that is installed. Needs the ``hf`` extra for ``datasets``
and the ``ray`` extra for Ray Data.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

from recipe_extras import require

REPO = Path(__file__).resolve().parents[1]


def read_lines(path: str) -> List[str]:
    return Path(path).read_text(encoding="utf-8").splitlines()


def rows(hyps: List[str], refs: List[List[str]]) -> Dict[str, List[str]]:
    """Columns: ``hyp`` and one column per reference set (``ref0``, ``ref1``, ...)."""
    if any(len(r) != len(hyps) for r in refs):
        raise ValueError(f"every reference file must have as many lines as the hypotheses ({len(hyps)})")
    return {"hyp": hyps, **{f"ref{k}": r for k, r in enumerate(refs)}}


def with_datasets(columns: Dict[str, List[str]], num_proc: Optional[int], threshold: float) -> Dict[str, Any]:
    from datasets import Dataset, disable_progress_bars

    from bleukit.integrations import datasets as bk

    disable_progress_bars()
    refs = [c for c in columns if c != "hyp"]
    ds = Dataset.from_dict(columns)
    corpus = bk.score_dataset(ds, "hyp", refs, num_proc=num_proc)
    scored = bk.add_sentence_bleu(ds, "hyp", refs, num_proc=num_proc)
    kept = scored.filter(lambda row: row["bleu"] >= threshold)
    return {"corpus": corpus, "sentences": list(scored["bleu"]), "kept": len(kept)}


def with_ray(columns: Dict[str, List[str]], threshold: float) -> Dict[str, Any]:
    import ray

    from bleukit.integrations import ray as bk

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    refs = [c for c in columns if c != "hyp"]
    items = [{name: values[i] for name, values in columns.items()} for i in range(len(columns["hyp"]))]
    ds = ray.data.from_items(items)
    corpus = bk.score_ray_dataset(ds, "hyp", refs)
    # Ray Data may reorder blocks: the hypothesis goes with its score
    scored = {row["hyp"]: row["bleu"] for row in bk.add_sentence_bleu(ds, "hyp", refs).take_all()}
    kept = sum(1 for score in scored.values() if score >= threshold)
    ray.shutdown()
    return {"corpus": corpus, "sentences": [scored[h] for h in columns["hyp"]], "kept": kept}


def sacrebleu_scores(hyps: List[str], refs: List[List[str]]) -> Optional[Dict[str, Any]]:
    try:
        import sacrebleu
    except ImportError:
        return None
    per_sentence = [sacrebleu.sentence_bleu(h, [r[i] for r in refs]).score for i, h in enumerate(hyps)]
    return {"corpus": sacrebleu.corpus_bleu(hyps, refs).score, "sentences": per_sentence}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="the bundled examples/ corpus, both engines")
    parser.add_argument("--hyp", help="hypotheses, one per line")
    parser.add_argument("--ref", action="append", help="a reference file, one per line (repeatable)")
    parser.add_argument("--engine", choices=["datasets", "ray", "both"], default="both")
    parser.add_argument("--num-proc", type=int, default=None, help="datasets' map processes")
    parser.add_argument("--threshold", type=float, default=50.0, help="keep sentences with BLEU >= this")
    args = parser.parse_args(argv)
    if args.smoke:
        hyp_file, ref_files = str(REPO / "examples/hyps.txt"), [str(REPO / f"examples/refs.{k}.txt") for k in "ab"]
        num_proc = 2
    elif args.hyp and args.ref:
        hyp_file, ref_files, num_proc = args.hyp, args.ref, args.num_proc
    else:
        parser.error("give --hyp and at least one --ref, or --smoke")
    hyps, refs = read_lines(hyp_file), [read_lines(f) for f in ref_files]
    columns = rows(hyps, refs)

    if args.engine in ("datasets", "both"):
        require("'.[hf]'", "datasets")
    if args.engine in ("ray", "both"):
        require("'.[ray]'", "ray")

    results = {}
    if args.engine in ("datasets", "both"):
        results["datasets"] = with_datasets(columns, num_proc, args.threshold)
    if args.engine in ("ray", "both"):
        results["ray"] = with_ray(columns, args.threshold)
    for engine, out in results.items():
        print(f"{engine}: {out['corpus']}  ({out['kept']} of {len(hyps)} sentences with BLEU >= {args.threshold})")

    theirs = sacrebleu_scores(hyps, refs)
    if theirs is None:
        print("sacrebleu is not installed: the check against it is skipped")
        return 0
    for engine, out in results.items():
        if out["corpus"].score != theirs["corpus"] or out["sentences"] != theirs["sentences"]:
            print(f"{engine} differs from sacreBLEU: corpus {out['corpus'].score!r} vs {theirs['corpus']!r}, "
                  f"sentences {out['sentences']!r} vs {theirs['sentences']!r}", file=sys.stderr)
            return 1
    print(f"equal to sacreBLEU's: corpus BLEU {theirs['corpus']!r} and all {len(hyps)} sentence scores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
