"""TER options (tercom's four switches), validated once, and the signature string.

>>> TerOptions().signature(nrefs=1)  # doctest: +ELLIPSIS
'nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:bleukit-...'
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, fields
from typing import ClassVar, Mapping, Optional, Tuple, TypedDict

from ..._version import __version__
from ..base import MetricOptions, NRefs, Resampling

__all__ = ["TerOptions", "TerOptionKeywords", "TER_OPTION_NAMES", "TOKENIZER_SIGNATURE"]

#: The ``tok:`` signature field: tercom's tokenizer is the only one TER has (:mod:`.tokenizer`).
TOKENIZER_SIGNATURE = "tercom"


def _is_bool(value: object) -> bool:
    # numpy's bool is accepted as a bool (a flag read off an array); ints are not: TER(1) is
    # most likely a mistake, and sacreBLEU would silently treat any object as a truth value.
    # (numpy is looked up, not imported: a numpy bool exists only once numpy is loaded, and the
    # command line builds its parser from every metric's options without numpy)
    numpy = sys.modules.get("numpy")
    return isinstance(value, bool) or (numpy is not None and isinstance(value, numpy.bool_))


class TerOptionKeywords(TypedDict, total=False):
    """The option keywords of TER, for ``options=None, **keywords: Unpack[TerOptionKeywords]`` (defaults as
    :class:`TerOptions`)."""

    normalized: bool
    no_punct: bool
    asian_support: bool
    case_sensitive: bool


@dataclass(frozen=True)
class TerOptions(MetricOptions):
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

    metric: ClassVar[str] = "ter"
    SIGNATURE_ABBREVIATIONS: ClassVar[Mapping[str, str]] = {
        **MetricOptions.SIGNATURE_ABBREVIATIONS, "case": "c", "tok": "t", "norm": "nr", "punct": "pn", "asian": "as",
    }

    def __post_init__(self) -> None:
        for name in TER_OPTION_NAMES:
            value = getattr(self, name)
            if not _is_bool(value):
                raise TypeError(f"TER option {name} must be a bool (True or False), got {type(value).__name__}")
            object.__setattr__(self, name, bool(value))

    def signature(self, nrefs: NRefs, resampling: Optional[Resampling] = None) -> str:
        """sacreBLEU's TER signature, field for field, with this package's name and version.

        ``nrefs`` is the number of references per sentence, or ``"var"`` when it varies;
        ``resampling`` (``(test, n_samples, seed)``) adds a bootstrap's or randomization's fields
        after it, as sacreBLEU's.

        >>> TerOptions(normalized=True, case_sensitive=True).signature("var")  # doctest: +ELLIPSIS
        'nrefs:var|case:mixed|tok:tercom|norm:yes|punct:yes|asian:no|version:bleukit-...'
        >>> TerOptions().signature(1, ("bs", 1000, 12345)).split("|")[:3]
        ['nrefs:1', 'bs:1000', 'seed:12345']
        """
        def yes_no(flag: bool) -> str:
            return "yes" if flag else "no"

        parts = [f"nrefs:{nrefs}"]
        if resampling is not None:
            test, n_samples, seed = resampling
            parts += [f"{test}:{n_samples}", f"seed:{'none' if seed is None else seed}"]
        return "|".join(parts + [
            f"case:{'mixed' if self.case_sensitive else 'lc'}",
            f"tok:{TOKENIZER_SIGNATURE}",
            f"norm:{yes_no(self.normalized)}",
            f"punct:{yes_no(not self.no_punct)}",
            f"asian:{yes_no(self.asian_support)}",
            f"version:bleukit-{__version__}",
        ])


#: The option keywords, in declaration order (sacreBLEU's ``TER`` takes the same names).
TER_OPTION_NAMES: Tuple[str, ...] = tuple(f.name for f in fields(TerOptions))
