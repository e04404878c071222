"""A griffe extension for the API pages: the doctests of a docstring become fenced ``pycon`` blocks.

The docstrings are plain text with doctests (they run in the suite); read as Markdown, an example
line such as ``>>> x[0][1]`` would be a reference link and its output a paragraph. Each run of lines
from a ``>>>`` line to the next blank line is fenced as it is, so the page shows it as code.
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    r"""``text`` with every doctest run fenced.

    >>> fence_doctests("Sum:\n\n>>> 1 + 1\n2\n\nDone.").splitlines()
    ['Sum:', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'Done.']
    """
    out, lines, i = [], text.splitlines(), 0
    in_fence = False
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if in_fence or not line.lstrip().startswith(">>>"):
            out.append(line)
            i += 1
            continue
        indent = line[: len(line) - len(line.lstrip())]
        out.append(f"{indent}```pycon")
        while i < len(lines) and lines[i].strip():
            out.append(lines[i])
            i += 1
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    """Fence the doctests of every docstring griffe loads."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
