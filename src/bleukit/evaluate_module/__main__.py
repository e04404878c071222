"""``python -m bleukit.evaluate_module OUT_DIR [--name bleukit] [--repo-id user/bleukit] [--requirement REQ]``: write a
Hub metric repo."""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from .hub import write_metric_repo


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bleukit.evaluate_module", description=__doc__)
    parser.add_argument("out_dir", help="folder to write the repository's files into")
    parser.add_argument("--name", default="bleukit", help="repository and module name (default: bleukit)")
    parser.add_argument("--repo-id", default=None, help="the Hub id users load, e.g. me/bleukit")
    parser.add_argument(
        "--requirement",
        default=None,
        help="how the Space installs bleukit, one pip requirement line (e.g. 'bleukit>=0.1.0' once released, or "
        "'bleukit @ git+https://HOST/OWNER/bleukit@v0.1.0'); default: a pure-Python wheel of the installed "
        "bleukit in the repository's wheels/, named by its URL in the Space",
    )
    args = parser.parse_args(argv)
    out = write_metric_repo(args.out_dir, name=args.name, repo_id=args.repo_id, requirement=args.requirement)
    print(f"wrote {out}: upload it as the Space {args.repo_id or 'user/' + args.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
