"""chrF options: defaults (named once), validation, and sacreBLEU's signature fields.

chrF (Popović 2015) is the F-score of character n-gram precision and recall; with word n-grams
(``word_order`` > 0, usually 2) it is chrF++ (Popović 2017). The defaults are sacreBLEU's.

>>> ChrfOptions().signature(nrefs=1)  # doctest: +ELLIPSIS
'nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:bleukit-...'
>>> ChrfOptions(word_order=2).name
'chrF2++'
"""

from __future__ import annotations

import math
import numbers
import sys
from dataclasses import dataclass, field
from typing import ClassVar, Mapping, Optional, TypedDict, Union

from ..._version import __version__
from ...inputs import check_number
from ..base import MetricOptions, NRefs, Resampling
from .defaults import DEFAULT_BETA, DEFAULT_CHAR_ORDER, DEFAULT_WORD_ORDER

__all__ = [
    "ChrfOptions",
    "ChrfOptionKeywords",
    "DEFAULT_CHAR_ORDER",
    "DEFAULT_WORD_ORDER",
    "DEFAULT_BETA",
    "MAX_ORDER",
    "Beta",
]

#: Most n-gram orders (char + word) a statistics table may have: 3 columns per order, and the
#: native kernel keeps per-order arrays on the stack of its f-score.
MAX_ORDER = 1000

Beta = Union[int, float]


def _check_flag(name: str, value: object) -> bool:
    # numpy's bool only where numpy is loaded (no value can be one otherwise): options are made
    # without importing it
    np = sys.modules.get("numpy")
    if isinstance(value, bool) or (np is not None and isinstance(value, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be a bool, got {type(value).__name__}")


def _check_order(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    order = int(value)
    if order < minimum or order > MAX_ORDER:
        raise ValueError(f"{name} must be between {minimum} and {MAX_ORDER}, got {value}")
    return order


def _check_beta(value: object) -> Beta:
    number = check_number(value, "beta", minimum=0)
    # An integer beta stays an int, as in sacreBLEU: beta ** 2 and 1 + beta ** 2 are then exact
    # integers that are rounded once when they meet a float (see formula.py).
    beta: Beta = int(value) if isinstance(value, numbers.Integral) else number
    try:
        factor = float(beta**2)
    except OverflowError:
        factor = math.inf
    if not math.isfinite(factor):
        raise ValueError(f"beta={value!r} is too large: beta ** 2 must be a finite float")
    return beta


class ChrfOptionKeywords(TypedDict, total=False):
    """The option keywords of chrF, for ``options=None, **keywords: Unpack[ChrfOptionKeywords]`` (defaults as
    :class:`ChrfOptions`)."""

    char_order: int
    word_order: int
    beta: Beta
    lowercase: bool
    whitespace: bool
    eps_smoothing: bool


@dataclass(frozen=True)
class ChrfOptions(MetricOptions):
    """Every option that changes a chrF number, validated on construction.

    ``char_order`` character n-gram orders (>= 1) and ``word_order`` word n-gram orders (>= 0;
    2 is chrF++), ``beta`` the weight of recall against precision, ``lowercase`` compares
    ``str.lower()`` text, ``whitespace`` keeps whitespace inside character n-grams (by default it
    is removed), ``eps_smoothing`` averages per-order F-scores with 1e-16 for empty orders (the
    chrF++.py/Moses/NLTK formula) instead of sacreBLEU's default: F of the precision and recall
    averaged over the orders that have n-grams on both sides.

    >>> ChrfOptions(beta=3, lowercase=True).signature(2).split("|")[:3]
    ['nrefs:2', 'case:lc', 'eff:yes']
    >>> ChrfOptions(char_order=0)
    Traceback (most recent call last):
    ...
    ValueError: char_order must be between 1 and 1000, got 0
    """

    char_order: int = DEFAULT_CHAR_ORDER
    word_order: int = DEFAULT_WORD_ORDER
    beta: Beta = DEFAULT_BETA
    lowercase: bool = False
    whitespace: bool = False
    eps_smoothing: bool = False
    _order: int = field(init=False, repr=False, compare=False)

    metric: ClassVar[str] = "chrf"
    SIGNATURE_ABBREVIATIONS: ClassVar[Mapping[str, str]] = {
        **MetricOptions.SIGNATURE_ABBREVIATIONS, "case": "c", "eff": "e", "nc": "nc", "nw": "nw", "space": "s",
    }

    def __post_init__(self) -> None:
        char_order = _check_order("char_order", self.char_order, 1)
        word_order = _check_order("word_order", self.word_order, 0)
        if char_order + word_order > MAX_ORDER:
            raise ValueError(f"char_order + word_order must be at most {MAX_ORDER}, got {char_order + word_order}")
        object.__setattr__(self, "char_order", char_order)
        object.__setattr__(self, "word_order", word_order)
        object.__setattr__(self, "beta", _check_beta(self.beta))
        for name in ("lowercase", "whitespace", "eps_smoothing"):
            object.__setattr__(self, name, _check_flag(name, getattr(self, name)))
        object.__setattr__(self, "_order", char_order + word_order)

    @property
    def order(self) -> int:
        """Orders in all: ``char_order + word_order``.

        >>> ChrfOptions(word_order=2).order
        8
        """
        return self._order

    @property
    def columns(self) -> int:
        """Columns of a statistics table: (hypothesis, reference, matches) per order.

        >>> ChrfOptions().columns
        18
        """
        return 3 * self._order

    @property
    def name(self) -> str:
        """The score's name as sacreBLEU writes it: ``chrF<beta>`` and one ``+`` per word order.

        >>> ChrfOptions(beta=1, word_order=1).name
        'chrF1+'
        """
        return f"chrF{self.beta}" + "+" * self.word_order

    def signature(self, nrefs: NRefs, resampling: Optional[Resampling] = None) -> str:
        """sacreBLEU's chrF signature (``CHRFSignature`` fields), with this package's version.

        ``eff:yes`` is sacreBLEU's name for the default (effective-order) formula, ``eff:no``
        for ``eps_smoothing``. ``nrefs`` is a count or ``'var'`` when it varies; ``resampling``
        (``(test, n_samples, seed)``) adds a bootstrap's or randomization's fields after it.

        >>> ChrfOptions(whitespace=True, eps_smoothing=True).signature("var")  # doctest: +ELLIPSIS
        'nrefs:var|case:mixed|eff:no|nc:6|nw:0|space:yes|version:bleukit-...'
        >>> ChrfOptions().signature(1, ("bs", 1000, 12345)).split("|")[:3]
        ['nrefs:1', 'bs:1000', 'seed:12345']
        """
        parts = [f"nrefs:{nrefs}"]
        if resampling is not None:
            test, n_samples, seed = resampling
            parts += [f"{test}:{n_samples}", f"seed:{'none' if seed is None else seed}"]
        return "|".join(parts + [
            f"case:{'lc' if self.lowercase else 'mixed'}",
            f"eff:{'no' if self.eps_smoothing else 'yes'}",
            f"nc:{self.char_order}",
            f"nw:{self.word_order}",
            f"space:{'yes' if self.whitespace else 'no'}",
            f"version:bleukit-{__version__}",
        ])
