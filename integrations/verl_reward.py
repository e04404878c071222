"""Check the verl reward config (``verl_reward.yaml``) the way verl uses it: load the function its
``custom_reward_function`` names and call it per sample and per batch with its ``reward_kwargs``.

    python integrations/verl_reward.py --smoke        # the bundled examples/ corpus, en-de and en-fi rows
    python integrations/verl_reward.py --config my_verl.yaml --hyp out.txt --ref ref.txt --lang-pair en-de

Every reward must be sacreBLEU's sentence score (BLEU, or chrF++ for the ``chrf_targets``) times
the ``scale``. Needs PyYAML (installed with most ML stacks); verl itself is not needed to check.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import Any, Callable, List, Optional

from recipe_extras import require

HERE = Path(__file__).resolve().parent


def load_reward(config_path: Path) -> tuple:
    """The function and keywords of ``reward.custom_reward_function``, resolved as verl resolves them."""
    import yaml

    section = yaml.safe_load(config_path.read_text(encoding="utf-8"))["reward"]["custom_reward_function"]
    path = section["path"]
    if not path.startswith("pkg://"):
        raise ValueError(f"this check loads pkg:// paths (an installed module); got {path!r}")
    function: Callable[..., Any] = getattr(importlib.import_module(path[len("pkg://"):]), section["name"])
    return function, dict(section.get("reward_kwargs") or {})


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="the bundled examples/ corpus")
    parser.add_argument("--config", default=str(HERE / "verl_reward.yaml"))
    parser.add_argument("--hyp")
    parser.add_argument("--ref")
    parser.add_argument("--lang-pair", default="en-de")
    args = parser.parse_args(argv)
    if args.smoke:
        hyps = (HERE.parent / "examples/hyps.txt").read_text(encoding="utf-8").splitlines()
        refs = (HERE.parent / "examples/refs.a.txt").read_text(encoding="utf-8").splitlines()
        # the same English lines twice: as en-de rows (BLEU) and as en-fi rows (chrF++ by the config)
        pairs = ["en-de"] * len(hyps) + ["en-fi"] * len(hyps)
        hyps, refs = hyps + hyps, refs + refs
    elif args.hyp and args.ref:
        hyps = Path(args.hyp).read_text(encoding="utf-8").splitlines()
        refs = Path(args.ref).read_text(encoding="utf-8").splitlines()
        pairs = [args.lang_pair] * len(hyps)
    else:
        parser.error("give --hyp and --ref, or --smoke")
    require("pyyaml", "yaml")

    compute_score, kwargs = load_reward(Path(args.config))
    infos = [{"lang_pair": p} for p in pairs]
    single = [compute_score("data", h, r, info, **kwargs) for h, r, info in zip(hyps, refs, infos)]
    batch = compute_score(data_sources=["data"] * len(hyps), solution_strs=hyps, ground_truths=refs,
                          extra_infos=infos, **kwargs)
    mean = sum(s["score"] for s in single) / len(single)
    print(f"{len(single)} rewards from {args.config}: mean {mean:.4f}")
    if batch != single:
        print("the batch form differs from the per-sample form", file=sys.stderr)
        return 1
    try:
        import sacrebleu
    except ImportError:
        print("sacrebleu is not installed: the check against it is skipped")
        return 0
    chrf_targets = set(kwargs.get("chrf_targets", []))
    scale = kwargs.get("scale", 0.01)
    for h, r, pair, got in zip(hyps, refs, pairs, single):
        target = pair.split("-")[1]
        if target in chrf_targets:
            expected = sacrebleu.sentence_chrf(h, [r], word_order=2).score
        else:
            expected = sacrebleu.BLEU(trg_lang=target, effective_order=True).sentence_score(h, [r]).score
        if got != {"score": expected * scale, "sentence_score": expected}:
            print(f"differs from sacreBLEU on {h!r} ({pair}): {got} vs {expected!r}", file=sys.stderr)
            return 1
    print(f"equal to sacreBLEU's: all {len(single)} rewards (BLEU, chrF++ for {sorted(chrf_targets)}) x {scale}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
