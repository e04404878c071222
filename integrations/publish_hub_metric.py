"""Publish bleukit as a Hub metric: write the metric repository, load it with ``evaluate`` as the
Hub would serve it, and upload it as a Space.

    python integrations/publish_hub_metric.py --smoke                         # write and load, offline
    python integrations/publish_hub_metric.py --repo-id me/bleukit             # ... and upload (needs a token)

The folder holds ``bleukit.py`` (the module ``evaluate.load("me/bleukit")`` downloads), the metric
card, ``requirements.txt``, a small widget and, by default, bleukit itself as a pure-Python wheel
that ``requirements.txt`` names by its URL in the Space (bleukit is not on PyPI yet; once it is,
``--requirement 'bleukit>=VERSION'`` names the release instead). Before uploading, the folder is
loaded with ``evaluate.load(folder)`` and its scores are checked against sacreBLEU's. Needs the
``metric`` extra (``huggingface_hub``, which comes with it, for the upload).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import List, Optional

from recipe_extras import require

from bleukit.evaluate_module.hub import write_metric_repo

HYPS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
REFS = ["The dog bit the man.", "It was not unexpected.", "The man bit him first."]


def check_folder(folder: Path) -> Optional[str]:
    """None when the metric loaded from ``folder`` scores as sacreBLEU (when installed); else why not."""
    import evaluate

    metric = evaluate.load(str(folder))
    ours = metric.compute(predictions=HYPS, references=REFS)["score"]
    print(f"evaluate.load({str(folder)!r}).compute(...)['score'] = {ours!r}")
    try:
        import sacrebleu
    except ImportError:
        print("sacrebleu is not installed: the check against it is skipped")
        return None
    theirs = sacrebleu.corpus_bleu(HYPS, [REFS]).score
    return None if ours == theirs else f"score {ours!r}, sacreBLEU's {theirs!r}"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="write and load the repository only, offline")
    parser.add_argument("--repo-id", default="user/bleukit", help="the Space users load, e.g. me/bleukit")
    parser.add_argument("--requirement", default=None, help="how the Space installs bleukit (see above)")
    parser.add_argument("--out-dir", default=None, help="where to write the folder (default: a temporary one)")
    args = parser.parse_args(argv)
    require("'.[metric]'", "evaluate", "huggingface_hub")

    name = args.repo_id.rsplit("/", 1)[-1]
    folder = Path(args.out_dir or tempfile.mkdtemp(prefix="bleukit-hub-")) / name
    write_metric_repo(folder, name=name, repo_id=args.repo_id, requirement=args.requirement)
    print(f"wrote {sorted(p.name for p in folder.iterdir())} to {folder}")
    problem = check_folder(folder)
    if problem is not None:
        print(f"differs from sacreBLEU: {problem}", file=sys.stderr)
        return 1
    print("equal to sacreBLEU's corpus BLEU, loaded from the folder as the Hub serves it")
    if args.smoke:
        return 0

    from huggingface_hub import HfApi

    api = HfApi()
    api.create_repo(args.repo_id, repo_type="space", space_sdk="gradio", exist_ok=True)
    api.upload_folder(repo_id=args.repo_id, folder_path=str(folder), repo_type="space")
    print(f'uploaded: evaluate.load("{args.repo_id}") now loads it')
    return 0


if __name__ == "__main__":
    sys.exit(main())
