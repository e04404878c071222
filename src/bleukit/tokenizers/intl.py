"""mteval-v14's international tokenizer (``intl``): Unicode punctuation and symbols split off.

>>> TokenizerIntl()("Hi, there!")
'Hi , there !'
"""

from __future__ import annotations

from .base import Tokenizer

__all__ = ["TokenizerIntl"]


class TokenizerIntl(Tokenizer):
    """mteval-v14 international tokenization: split Unicode punctuation and symbols.

    Uses the ``regex`` package's Unicode property tables, as sacreBLEU does.

    >>> TokenizerIntl()("Größe: 3,5 m²!")
    'Größe : 3,5 m²!'
    """

    name = "intl"

    def __init__(self) -> None:
        import regex

        self._rules = (
            (regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
            (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
            (regex.compile(r"(\p{S})"), r" \1 "),
        )

    def __call__(self, line: str) -> str:
        for pattern, repl in self._rules:
            line = pattern.sub(repl, line)
        return " ".join(line.split())
