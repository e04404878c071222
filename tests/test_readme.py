"""Every fenced ```python / ```bash / ```sh / ```console example in the README and in the docs site's
pages (docs/**/*.md, see mkdocs.yml) runs as written.

A block preceded by ``<!-- skip: REASON -->`` (e.g. one that needs the internet to load a Hub
checkpoint) is skipped with that reason. Blocks are found afresh at each run, so sections other
people add are tested without touching this file. Python blocks run in a fresh namespace in this
process (those using Ray in a fresh interpreter: Ray is one runtime per process), shell blocks with
``bash -e -o pipefail``; both in the repository root, offline
(``HF_HUB_OFFLINE=1``), with this checkout's ``src`` first on the path.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import List, NamedTuple, Optional

import pytest
from shared_data import REPO

README = REPO / "README.md"
# the site's pages; docs/_ext holds the site's build extension, not pages
DOCS = sorted(p for p in (REPO / "docs").rglob("*.md") if "_ext" not in p.relative_to(REPO / "docs").parts)

_FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)\s*$")
_SKIP = re.compile(r"^<!--\s*skip:\s*(.*?)\s*-->\s*$")
LANGUAGES = {"python": "python", "py": "python", "bash": "shell", "sh": "shell", "shell": "shell", "console": "console"}


class Block(NamedTuple):
    line: int  # 1-based line of the opening fence
    language: str
    code: str
    skip: Optional[str]
    heading: str


def readme_blocks(text: str) -> List[Block]:
    """The fenced blocks of a markdown text with their language, skip reason and section."""
    blocks, lines = [], text.splitlines()
    heading, i = "", 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#") and not line.startswith("#!"):
            heading = line.lstrip("#").strip()
        m = _FENCE.match(line)
        if m and m.group(1):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            k = i - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            skip = _SKIP.match(lines[k]) if k >= 0 else None
            blocks.append(
                Block(
                    i + 1,
                    m.group(1).lower(),
                    "\n".join(lines[i + 1 : j]) + "\n",
                    skip.group(1) if skip else None,
                    heading,
                )
            )
            i = j
        i += 1
    return blocks


def test_block_finder_reads_skips_and_languages():
    text = "# A\n\n```python\nx = 1\n```\n\n<!-- skip: needs internet -->\n\n```bash\ncurl x\n```\n```text\nno\n```\n"
    blocks = readme_blocks(text)
    assert [(b.line, b.language, b.code, b.skip, b.heading) for b in blocks] == [
        (3, "python", "x = 1\n", None, "A"),
        (9, "bash", "curl x\n", "needs internet", "A"),
        (12, "text", "no\n", None, "A"),
    ]


class Example(NamedTuple):
    source: str  # the file, relative to the repository root
    block: Block


def _examples(paths: List[Path]) -> List[Example]:
    return [
        Example(path.relative_to(REPO).as_posix(), block)
        for path in paths
        for block in readme_blocks(path.read_text(encoding="utf-8"))
        if block.language in LANGUAGES
    ]


EXAMPLES = _examples([README, *DOCS])
_RAY = re.compile(r"^\s*(import ray|from ray)\b", re.M)


def test_docs_pages_are_found_and_have_examples():
    # the runner must see the site's pages: a moved docs folder would otherwise test nothing
    sources = {example.source for example in EXAMPLES}
    assert "docs/getting-started.md" in sources and "README.md" in sources
    assert all(path.suffix == ".md" for path in DOCS) and len(DOCS) >= 10


def _param(example: Example):
    block = example.block
    # A Ray block starts a Ray runtime in a fresh interpreter (10-20 s): slow, like tests/integrations/test_ray.py.
    marks = [pytest.mark.slow] if LANGUAGES[block.language] == "python" and _RAY.search(block.code) else []
    return pytest.param(example, id=f"{example.source}:line{block.line}-{block.language}", marks=marks)


_PRINTED = re.compile(r"#\s*(-?\d+(?:\.\d+)?)\s*$")


def _with_printed_values(code: str, first_line: int):
    """The block's syntax tree, with every one-line expression whose comment is a bare number
    (``expr  # 0.5``; ``print(expr)  # 2`` too) recording its value, and those numbers by README
    line: the README shows what the code prints (it said 0.5 where Python prints
    0.49999999999999994, issue 20)."""
    import ast

    tree = ast.parse(code)
    lines = code.splitlines()
    expected = {}
    for stmt in tree.body:
        if not isinstance(stmt, ast.Expr) or stmt.lineno != stmt.end_lineno:
            continue
        m = _PRINTED.search(lines[stmt.lineno - 1])
        if not m:
            continue
        line = first_line + stmt.lineno
        target = stmt.value
        is_print = isinstance(target, ast.Call) and getattr(target.func, "id", "") == "print" and len(target.args) == 1
        record = lambda v, line=line: ast.Call(  # noqa: E731
            ast.Name("__readme_value__", ast.Load()), [v, ast.Constant(line)], []
        )
        if is_print:
            target.args[0] = record(target.args[0])
        else:
            stmt.value = record(target)
        expected[line] = m.group(1)
    return ast.fix_missing_locations(tree), expected


def _environment() -> dict:
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    # the `bleukit` and `python` of this interpreter's environment come first
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def _console_commands(code: str) -> str:
    return "\n".join(line[2:] for line in code.splitlines() if line.startswith("$ ")) + "\n"


@pytest.mark.parametrize("example", [_param(e) for e in EXAMPLES])
def test_readme_example_runs(example: Example, monkeypatch):
    block, where = example.block, f"{example.source} line {example.block.line}"
    if block.skip:
        pytest.skip(f"{where}: {block.skip}")
    if "shared/data" in block.code and not (REPO.parent / "shared" / "data").exists():
        pytest.skip(f"{where}: uses the real MT data in ../shared/data, absent here")
    kind = LANGUAGES[block.language]
    if kind == "python" and _RAY.search(block.code):
        # Ray is one runtime per process (the Ray tests may hold it): a fresh interpreter.
        out = subprocess.run(
            [sys.executable, "-c", block.code],
            cwd=REPO,
            env=_environment(),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert out.returncode == 0, f"{where}:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
        return
    if kind == "python":
        for key, value in _environment().items():
            if key.startswith(("HF_", "TRANSFORMERS_")):
                monkeypatch.setenv(key, value)
        monkeypatch.chdir(REPO)
        tree, expected = _with_printed_values(block.code, block.line)
        seen: dict = {}
        namespace = {"__name__": "__readme__", "__readme_value__": lambda v, line: seen.setdefault(line, v)}
        exec(compile(tree, f"{example.source}:{block.line}", "exec"), namespace)
        for line, text in expected.items():
            value = seen[line]
            said = f"{example.source} line {line} says {text}"
            assert text in (repr(value), str(value)), f"{said}, the code gives {value!r}"
        return
    script = block.code if kind == "shell" else _console_commands(block.code)
    out = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=REPO,
        env=_environment(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, f"{where} ({block.heading}):\n{out.stdout}\n{out.stderr}"



@pytest.mark.slow
@pytest.mark.xdist_group("package")  # the session's one build (built_dist, tests/conftest.py)
def test_quick_start_runs_where_only_the_package_is_installed(built_dist, tmp_path):
    # The README's set-up (`pip install .`, make demo) installs bleukit and its dependencies, not the
    # test dependencies: the Quick start imported sacreBLEU and failed there. It runs here in exactly
    # that environment, a fresh venv holding the wheel and what it pulls from the package registry.
    from shared_data import skip_unless_required

    (block,) = [e.block for e in EXAMPLES if e.source == "README.md" and e.block.heading == "Quick start"]
    _, wheel = built_dist
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    installed = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)],
                               capture_output=True, text=True, timeout=600)
    if installed.returncode != 0:
        skip_unless_required(f"pip could not install the wheel's dependencies: {installed.stderr[-500:]}",
                             "BLEUKIT_REQUIRE_REGISTRY")
    tree, _ = _with_printed_values(block.code, block.line)
    script = tmp_path / "quick_start.py"
    script.write_text(
        "import json\nseen = {}\n__readme_value__ = lambda value, name: seen.setdefault(name, value)\n"
        + ast.unparse(tree)
        + "\nprint(json.dumps([v for v in seen.values() if isinstance(v, float)]))\n",
        encoding="utf-8",
    )
    out = subprocess.run([str(python), str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert subprocess.run([str(python), "-c", "import sacrebleu"], capture_output=True).returncode != 0
    namespace: dict = {}
    exec(block.code.split("result = ")[0], namespace)  # the hyps and refs
    sacrebleu = pytest.importorskip("sacrebleu")
    (score,) = json.loads(out.stdout.splitlines()[-1])
    assert score == sacrebleu.corpus_bleu(namespace["hyps"], [namespace["refs"]]).score
