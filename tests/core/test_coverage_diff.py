"""``.ci/coverage_diff.py --by-source``: the proof that a change to the tests left no code less
tested, across a refactoring that moved code between files (lines matched by function and text)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import coverage  # the dev extra has it, through pytest-cov

ROOT = Path(__file__).resolve().parents[2]

SOURCE = '''\
"""A module."""


def kept(x):
    if x:
        return 1
    return 2


def helper(x):
    return x + 1
'''


def _tool():
    spec = importlib.util.spec_from_file_location("coverage_diff", ROOT / ".ci" / "coverage_diff.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(tmp_path: Path, name: str, relative: str, source: str, calls: str) -> str:
    """Run ``calls`` against ``source`` saved at ``<name>/src/bleukit/<relative>``, under coverage."""
    path = tmp_path / name / "src" / "bleukit" / relative
    path.parent.mkdir(parents=True)
    path.write_text(source, encoding="utf-8")
    data = str(tmp_path / f"{name}.coverage")
    cov = coverage.Coverage(data_file=data, branch=True, include=[str(path)])
    namespace: dict = {}
    cov.start()
    try:
        exec(compile(source, str(path), "exec"), namespace)
        exec(calls, namespace)
    finally:
        cov.stop()
    cov.save()
    return data


def test_moved_code_still_covered_is_no_loss(tmp_path, capsys):
    before = _run(tmp_path, "before", "old.py", SOURCE, "kept(1); kept(0); helper(1)")
    moved = SOURCE.replace('"""A module."""', '"""A module."""\n\nimport math')
    after = _run(tmp_path, "after", "analysis/new.py", moved, "kept(0); kept(1); helper(2)")
    assert _tool().main(["--by-source", before, after]) == 0
    assert "not covered after: 0" in capsys.readouterr().out


def test_a_moved_line_or_branch_left_uncovered_is_a_loss(tmp_path, capsys):
    before = _run(tmp_path, "before", "old.py", SOURCE, "kept(1); kept(0); helper(1)")
    after = _run(tmp_path, "after", "analysis/new.py", SOURCE, "kept(1)")
    assert _tool().main(["--by-source", before, after]) == 1
    out = capsys.readouterr().out
    assert "line lost: kept: return 2" in out
    assert "line lost: helper: return x + 1" in out
    assert "branch lost: kept: 'if x:' -> 'return 2'" in out


def test_rewritten_code_is_counted_apart_not_as_a_loss(tmp_path, capsys):
    before = _run(tmp_path, "before", "old.py", SOURCE, "kept(1); kept(0); helper(1)")
    rewritten = SOURCE.replace("return x + 1", "return 1 + x")
    after = _run(tmp_path, "after", "new.py", rewritten, "kept(1); kept(0)")
    assert _tool().main(["--by-source", before, after]) == 0
    out = capsys.readouterr().out
    assert "rewritten or removed since: 1" in out


def test_saved_keys_outlive_the_checkout(tmp_path, capsys):
    before = _run(tmp_path, "before", "old.py", SOURCE, "kept(1); kept(0); helper(1)")
    saved = str(tmp_path / "before.json.gz")
    assert _tool().main(["--save-keys", saved, before, "before: the test's tree"]) == 0
    (tmp_path / "before" / "src" / "bleukit" / "old.py").unlink()
    after = _run(tmp_path, "after", "new.py", SOURCE, "kept(1)")
    assert _tool().main(["--by-source", saved, after]) == 1
    assert "line lost: helper: return x + 1" in capsys.readouterr().out


def test_a_branch_the_new_code_cannot_take_and_type_checking_imports_are_not_losses(tmp_path, capsys):
    # the whole-suite comparison across issue 42 flagged both: a check inserted after an `if` (its
    # way out now leads to the new line) and an import moved under `if TYPE_CHECKING:` (never run)
    source = "from typing import List\n\n\ndef f(x):\n    if x:\n        return 1\n    y = 2\n    return y\n"
    before = _run(tmp_path, "before", "old.py", source, "f(1); f(0)")
    changed = source.replace("from typing import List\n", "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                             "    from typing import List\n").replace("    y = 2\n", "    z = 3\n    y = 2\n")
    after = _run(tmp_path, "after", "new.py", changed, "f(1); f(0)")
    assert _tool().main(["--by-source", before, after]) == 0
    out = capsys.readouterr().out
    assert "lost" not in out.replace("not covered after", "")
    assert "rewritten or removed since: 1" in out  # the import: present only for the type checker
    assert "before's still in the code: 1, not covered after: 0" in out  # 'if x:' -> 'return 1' only
