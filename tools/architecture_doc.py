"""Draw bleukit's layers from its import graph into docs/architecture.md.

    python tools/architecture_doc.py          # rewrite the diagram (make architecture-doc)
    python tools/architecture_doc.py --check  # exit 1 if the committed diagram is stale

The diagram lists the layers of tools/import_graph.py's ``LAYERS``, top first, each room (a
top-level module or package of ``bleukit``) with its number of modules and the rooms it imports;
every arrow points to the same layer or one below (tests/core/test_architecture.py checks that, and
that the diagram in the docs is this script's output for the code as it is).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Dict, List, Set

sys.path.insert(0, str(Path(__file__).resolve().parent))

import import_graph  # noqa: E402

DOC = import_graph.REPO / "docs" / "architecture.md"
BEGIN = "<!-- begin: layer diagram, made by tools/architecture_doc.py (make architecture-doc); do not edit -->"
END = "<!-- end: layer diagram -->"


def diagram(edges: Dict[str, Set[str]]) -> str:
    """The diagram of the layers, their rooms and the rooms each imports, as a text block."""
    rooms = import_graph.room_graph(edges)
    counts: Dict[str, int] = {}
    for module in edges:
        counts[import_graph.room(module)] = counts.get(import_graph.room(module), 0) + 1
    width = max(len(f"{r} ({n})") for r, n in counts.items())
    lines: List[str] = []
    layers = list(reversed(import_graph.LAYERS))
    for k, (layer, what, members) in enumerate(layers):
        last = k == len(layers) - 1
        lines.append(f"{'┌' if k == 0 else '└' if last else '├'}─ {layer}: {what}")
        bar = " " if last else "│"
        for r in sorted(members, key=lambda m: (m != "bleukit", m.lstrip("_"))):
            label = f"{r} ({counts[r]})".ljust(width)
            targets = sorted(rooms.get(r, ()), key=lambda t: (-import_graph.layer_of(t), t.lstrip("_")))
            lines.append((f"{bar}    {label}" + (f"  → {', '.join(targets)}" if targets else "")).rstrip())
        if not last:
            lines.append("│")
    return "```text\n" + "\n".join(lines) + "\n```"


def section() -> str:
    return f"{BEGIN}\n{diagram(import_graph.graph())}\n{END}"


def updated(text: str) -> str:
    """``text`` (the page) with its diagram section made again."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + section() + text[end:]


def main(argv: List[str]) -> int:
    text = DOC.read_text(encoding="utf-8")
    new = updated(text)
    if "--check" in argv:
        if new != text:
            print(f"{DOC.relative_to(import_graph.REPO)}: the layer diagram is stale; run make architecture-doc")
            return 1
        return 0
    if new != text:
        DOC.write_text(new, encoding="utf-8", newline="\n")
        print(f"rewrote the layer diagram in {DOC.relative_to(import_graph.REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
