"""The tokenizer interface: ``tokenizer(line) -> str`` with tokens separated by spaces, and a signature.

>>> class Upper(Tokenizer):
...     name = "upper"
...     def __call__(self, line: str) -> str:
...         return line.upper()
>>> Upper()("a b"), Upper().signature()
('A B', 'upper')
"""

from __future__ import annotations

__all__ = ["Tokenizer"]


class Tokenizer:
    """Base class: ``tokenizer(line) -> str`` with tokens separated by single spaces."""

    name: str = ""

    def signature(self) -> str:
        """The value of the ``tok:`` signature field."""
        return self.name

    def __call__(self, line: str) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
