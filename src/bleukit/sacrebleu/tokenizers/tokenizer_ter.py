"""sacreBLEU's ``sacrebleu.tokenizers.tokenizer_ter.TercomTokenizer``: its constructor (tercom's four
switches as keywords) on bleukit's tercom tokenizer (:class:`bleukit.metrics.ter.tokenizer.TercomTokenizer`,
the one TER scores with).

>>> TercomTokenizer(normalized=True)("Jim's car.")
"jim 's car ."
>>> TercomTokenizer(normalized=True, asian_support=True)("美众院公布对特")
'美 众 院 公 布 对 特'
"""

from __future__ import annotations

from ...metrics.ter.options import TerOptions
from ...metrics.ter.tokenizer import TercomTokenizer as _TercomTokenizer

__all__ = ["TercomTokenizer"]


class TercomTokenizer(_TercomTokenizer):
    """tercom's normalisation and tokenisation; ``tokenizer(line)`` gives the words joined by single
    spaces (the line is not stripped first), ``signature()`` is ``'tercom'``."""

    def __init__(
        self,
        normalized: bool = False,
        no_punct: bool = False,
        asian_support: bool = False,
        case_sensitive: bool = False,
    ) -> None:
        super().__init__(
            TerOptions(
                normalized=normalized, no_punct=no_punct, asian_support=asian_support, case_sensitive=case_sensitive
            )
        )
