"""Lines and branches of src/bleukit that one coverage run covered and another does not.

A change to the tests (a stored oracle instead of a live peer, a shared fixture, a parallel run)
must not leave any code less tested. Measure the suite before and after the change (``make
coverage`` writes ``.coverage``; keep the one from before under another name), then:

    python .ci/coverage_diff.py BEFORE.coverage AFTER.coverage

It prints, per file, the lines and branches covered before but not after, and exits 1 if there are
any; files are matched by their path below ``src/``, so the two runs may come from different
checkouts.
"""

from __future__ import annotations

import argparse
import sys
from typing import Dict, Set, Tuple

from coverage import CoverageData


def _by_package_path(path: str) -> Tuple[Dict[str, Set[int]], Dict[str, Set[Tuple[int, int]]]]:
    data = CoverageData(basename=path)
    data.read()
    lines, arcs = {}, {}
    for measured in data.measured_files():
        marker = measured.replace("\\", "/").rfind("/src/bleukit/")
        if marker < 0:
            continue
        key = measured[marker + len("/src/") :]
        lines[key] = set(data.lines(measured) or ())
        arcs[key] = set(data.arcs(measured) or ())
    return lines, arcs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    args = parser.parse_args(argv)
    lines_before, arcs_before = _by_package_path(args.before)
    lines_after, arcs_after = _by_package_path(args.after)
    lost_lines = lost_arcs = 0
    for key in sorted(lines_before):
        gone = sorted(lines_before[key] - lines_after.get(key, set()))
        gone_arcs = sorted(arcs_before[key] - arcs_after.get(key, set()))
        if gone or gone_arcs:
            print(f"{key}: lines {gone} branches {gone_arcs}")
        lost_lines += len(gone)
        lost_arcs += len(gone_arcs)
    total = (sum(map(len, lines_before.values())), sum(map(len, lines_after.values())))
    arcs = (sum(map(len, arcs_before.values())), sum(map(len, arcs_after.values())))
    print(f"files: {len(lines_before)} before, {len(lines_after)} after")
    print(f"covered lines: {total[0]} before, {total[1]} after; covered before, not after: {lost_lines}")
    print(f"covered branches: {arcs[0]} before, {arcs[1]} after; covered before, not after: {lost_arcs}")
    return 1 if lost_lines or lost_arcs else 0


if __name__ == "__main__":
    sys.exit(main())
