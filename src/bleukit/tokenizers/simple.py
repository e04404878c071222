"""The two tokenizers without rules: ``char`` (every character a token) and ``none`` (whitespace only).

>>> TokenizerChar()("ab"), TokenizerNone()("a,b")
('a b', 'a,b')
"""

from __future__ import annotations

from .base import Tokenizer

__all__ = ["TokenizerChar", "TokenizerNone"]


class TokenizerChar(Tokenizer):
    """Every character is a token (whitespace characters vanish in the final split).

    >>> TokenizerChar()("ab c")
    'a b   c'
    """

    name = "char"

    def __call__(self, line: str) -> str:
        return " ".join(line)


class TokenizerNone(Tokenizer):
    """No tokenization: tokens are the whitespace-separated words of the input.

    >>> TokenizerNone()("Hello, world!")
    'Hello, world!'
    """

    name = "none"

    def __call__(self, line: str) -> str:
        return line
