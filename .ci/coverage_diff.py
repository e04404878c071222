"""Lines and branches of src/bleukit that one coverage run covered and another does not.

A change to the tests (a stored oracle instead of a live peer, a shared fixture, a parallel run)
must not leave any code less tested. Measure the suite before and after the change (``make
coverage`` writes ``.coverage``; keep the one from before under another name), then:

    python .ci/coverage_diff.py BEFORE.coverage AFTER.coverage

It prints, per file, the lines and branches covered before but not after, and exits 1 if there are
any; files are matched by their path below ``src/``, so the two runs may come from different
checkouts.

Where the change moved code between files (a refactoring between the two runs), ``--by-source``
matches by source instead of by path: a line is its enclosing function or class (qualified name)
and its text, wherever it now lives, and a branch is the pair of such lines. It prints what was
covered before, still exists, and is no longer covered (a loss), and counts what was covered before
and no longer exists in that form (code the change rewrote, which it cannot compare). A line
"exists" after if it is a statement that can run (not one under ``if TYPE_CHECKING:``, which only a
type checker reads), and a branch if the later code has that way from its first line to its second.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import json
import sys
from typing import Dict, Set, Tuple

from coverage import CoverageData
from coverage.python import PythonParser

#: blocks that never run (coverage.py's exclusion regex): imports made for the type checker alone
NEVER_RUN = r"^\s*if TYPE_CHECKING:"


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


def _line_keys(path: str) -> Dict[int, Tuple[str, str]]:
    """Each line of a source file as (enclosing qualified name, its text with spaces collapsed)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    scope: Dict[int, str] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}.{child.name}" if prefix else child.name
                start = min([d.lineno for d in child.decorator_list] + [child.lineno])
                for number in range(start, (child.end_lineno or child.lineno) + 1):
                    scope[number] = name  # an inner definition overwrites its lines below
                visit(child, name)
            else:
                visit(child, prefix)

    visit(ast.parse(text), "")
    return {n: (scope.get(n, "<module>"), " ".join(line.split())) for n, line in enumerate(text.splitlines(), 1)}


def _branches(pairs, keys: Dict[int, Tuple[str, str]], branch_lines: Set[int]) -> set:
    """Arcs from a line with more than one way out (as coverage.py counts branches), as source keys;
    a negative end is the exit of the code object that starts there, named by its scope."""
    return {(keys[a], ("<exit>", keys[-b][0]) if b < 0 else keys[b])
            for a, b in pairs if a in branch_lines and abs(b) in keys}


def _by_source(path: str):
    """Covered lines and arcs of a run as source keys, and every key its files hold.

    ``path`` is a coverage data file (its checkout must still be there: the sources are read) or
    the keys of one saved by ``--save-keys`` (gzipped JSON), which outlives the checkout."""
    if path.endswith(".json.gz"):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            saved = json.load(f)
        as_key = tuple
        present_arcs = saved.get("present_arcs")  # keys saved before possible arcs were kept: None
        return ({as_key(k) for k in saved["covered"]}, {(as_key(a), as_key(b)) for a, b in saved["arcs"]},
                {as_key(k) for k in saved["present"]},
                None if present_arcs is None else {(as_key(a), as_key(b)) for a, b in present_arcs})
    data = CoverageData(basename=path)
    data.read()
    covered: set = set()
    arcs: set = set()
    present: set = set()
    present_arcs: set = set()
    for measured in data.measured_files():
        if measured.replace("\\", "/").rfind("/src/bleukit/") < 0:
            continue
        try:
            keys = _line_keys(measured)
        except FileNotFoundError:  # the run's checkout must still exist: its files are read
            sys.exit(f"{path}: {measured} is gone; keep the run's checkout")
        parser = PythonParser(filename=measured, exclude=NEVER_RUN)
        parser.parse_source()
        statements = {n for n in parser.statements if n in keys}  # what coverage.py counts (no docstrings)
        covered.update(keys[n] for n in data.lines(measured) or () if n in statements)
        present.update(keys[n] for n in statements)
        branch_lines = {line for line, exits in parser.exit_counts().items() if exits > 1}
        arcs.update(_branches(data.arcs(measured) or (), keys, branch_lines))
        present_arcs.update(_branches(parser.arcs(), keys, branch_lines))
    return covered, arcs, present, present_arcs


def main_by_source(before: str, after: str) -> int:
    covered_before, arcs_before, _, _ = _by_source(before)
    covered_after, arcs_after, present_after, present_arcs_after = _by_source(after)
    lost = sorted(covered_before & present_after - covered_after)
    rewritten = covered_before - present_after
    if present_arcs_after is not None:
        arcs_comparable = arcs_before & present_arcs_after
    else:  # older saved keys: both lines still there
        scopes_after = {scope for scope, _ in present_after}
        arcs_comparable = {(start, end) for start, end in arcs_before if start in present_after
                           and (end in present_after or (end[0] == "<exit>" and end[1] in scopes_after))}
    lost_arcs = sorted(arcs_comparable - arcs_after)
    for scope, text in lost:
        print(f"line lost: {scope}: {text}")
    for start, end in lost_arcs:
        print(f"branch lost: {start[0]}: {start[1]!r} -> {end[1] if end[0] == '<exit>' else repr(end[1])}")
    print(f"covered lines (by source): {len(covered_before)} before, {len(covered_after)} after; "
          f"before's still in the code: {len(covered_before) - len(rewritten)}, not covered after: {len(lost)}; "
          f"rewritten or removed since: {len(rewritten)}")
    print(f"covered branches (by source): {len(arcs_before)} before, {len(arcs_after)} after; "
          f"before's still in the code: {len(arcs_comparable)}, not covered after: {len(lost_arcs)}")
    return 1 if lost or lost_arcs else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--by-source", action="store_true", help="match lines by function and text, not by path")
    parser.add_argument("--save-keys", metavar="OUT.json.gz",
                        help="write BEFORE's source keys (with AFTER as a note of where they came from) and stop")
    args = parser.parse_args(argv)
    if args.save_keys:
        covered, arcs, present, present_arcs = _by_source(args.before)
        with gzip.open(args.save_keys, "wt", encoding="utf-8") as f:
            json.dump({"source": args.after, "covered": sorted(covered), "arcs": sorted(arcs),
                       "present": sorted(present), "present_arcs": sorted(present_arcs)}, f, separators=(",", ":"))
        print(f"{args.save_keys}: {len(covered)} lines, {len(arcs)} branches")
        return 0
    if args.by_source:
        return main_by_source(args.before, args.after)
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
