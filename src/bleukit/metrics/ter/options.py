"""TER options (tercom's four switches), validated once, and the signature string.

>>> TerOptions().signature(nrefs=1)  # doctest: +ELLIPSIS
'nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:bleukit-...'
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Dict, Tuple, Union

import numpy as np

from ..._version import __version__

__all__ = ["TerOptions", "TER_OPTION_NAMES"]

NRefs = Union[int, str]


def _is_bool(value: object) -> bool:
    # numpy's bool is accepted as a bool (a flag read off an array); ints are not: TER(1) is
    # most likely a mistake, and sacreBLEU would silently treat any object as a truth value.
    return isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class TerOptions:
    """Every option that changes a TER number, as ``sacrebleu.metrics.TER`` takes them.

    - ``normalized``: tercom's normalisation (XML entities, punctuation split off words;
      with ``asian_support`` also CJK characters split into tokens of their own);
    - ``no_punct``: remove ``.,?:;!"()`` (with ``asian_support`` also CJK and full-width
      punctuation);
    - ``asian_support``: the CJK parts of the two options above (alone it changes nothing);
    - ``case_sensitive``: keep case (by default text is lowercased).

    >>> TerOptions(no_punct=True).no_punct
    True
    >>> TerOptions(normalized="yes")
    Traceback (most recent call last):
    ...
    TypeError: TER option normalized must be a bool (True or False), got str
    """

    normalized: bool = False
    no_punct: bool = False
    asian_support: bool = False
    case_sensitive: bool = False

    def __post_init__(self) -> None:
        for name in TER_OPTION_NAMES:
            value = getattr(self, name)
            if not _is_bool(value):
                raise TypeError(f"TER option {name} must be a bool (True or False), got {type(value).__name__}")
            object.__setattr__(self, name, bool(value))

    def to_dict(self) -> Dict[str, Any]:
        """The option keywords and their values: ``TerOptions(**opts.to_dict()) == opts``.

        >>> TerOptions(case_sensitive=True).to_dict()["case_sensitive"]
        True
        """
        return {name: getattr(self, name) for name in TER_OPTION_NAMES}

    def signature(self, nrefs: NRefs) -> str:
        """sacreBLEU's TER signature, field for field, with this package's name and version.

        ``nrefs`` is the number of references per sentence, or ``"var"`` when it varies.

        >>> TerOptions(normalized=True, case_sensitive=True).signature("var")  # doctest: +ELLIPSIS
        'nrefs:var|case:mixed|tok:tercom|norm:yes|punct:yes|asian:no|version:bleukit-...'
        """
        from .tokenizer import TercomTokenizer  # the tok: field is what the tokenizer reports

        def yes_no(flag: bool) -> str:
            return "yes" if flag else "no"

        return "|".join([
            f"nrefs:{nrefs}",
            f"case:{'mixed' if self.case_sensitive else 'lc'}",
            f"tok:{TercomTokenizer(self).signature()}",
            f"norm:{yes_no(self.normalized)}",
            f"punct:{yes_no(not self.no_punct)}",
            f"asian:{yes_no(self.asian_support)}",
            f"version:bleukit-{__version__}",
        ])


#: The option keywords, in declaration order (sacreBLEU's ``TER`` takes the same names).
TER_OPTION_NAMES: Tuple[str, ...] = tuple(f.name for f in fields(TerOptions))
