"""BLEU options: their defaults (named once, used by every entry point), validation and signature.

>>> opts = BleuOptions(smooth_method="floor")
>>> opts.signature(nrefs=1)  # doctest: +ELLIPSIS
'nrefs:1|case:mixed|eff:no|tok:13a|smooth:floor[0.10]|version:bleukit-...'
"""

from __future__ import annotations

import functools
import numbers
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Optional, Sequence, Tuple, TypedDict

from ..._version import __version__
from ...inputs import check_number
from ...tokenizers import DEFAULT_TOKENIZER, check_tokenizer_name, tokenizer_class
from ..base import MetricOptions, NRefs, Resampling

__all__ = [
    "BleuOptions",
    "BleuOptionKeywords",
    "BleuIdOptionKeywords",
    "BleuMbrOptionKeywords",
    "OPTION_NAMES",
    "check_max_ngram_order",
    "SMOOTH_DEFAULTS",
    "DEFAULT_MAX_NGRAM_ORDER",
    "DEFAULT_CORPUS_SMOOTH",
    "DEFAULT_SENTENCE_SMOOTH",
]

#: Default smoothing value per method (Chen & Cherry 2014 for floor and add-k), as sacreBLEU.
SMOOTH_DEFAULTS = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
DEFAULT_MAX_NGRAM_ORDER = 4
DEFAULT_CORPUS_SMOOTH = "exp"
DEFAULT_SENTENCE_SMOOTH = "exp"


class _BleuFormulaKeywords(TypedDict, total=False):
    smooth_method: str
    smooth_value: Optional[float]
    max_ngram_order: int
    effective_order: bool


class BleuIdOptionKeywords(_BleuFormulaKeywords, total=False):
    """The option keywords of token-id BLEU (no tokenizer, no lowercasing: ids are tokens)."""

    weights: Optional[Sequence[float]]


class BleuMbrOptionKeywords(_BleuFormulaKeywords, total=False):
    """The option keywords of ``mbr_select`` (its ``weights`` are the pseudo-references')."""

    tokenize: str
    lowercase: bool


class BleuOptionKeywords(BleuMbrOptionKeywords, total=False):
    """The option keywords of BLEU, for ``options=None, **keywords: Unpack[BleuOptionKeywords]`` (defaults as
    :class:`BleuOptions`; a test checks that the keys are :data:`OPTION_NAMES`)."""

    weights: Optional[Sequence[float]]


@dataclass(frozen=True)
class BleuOptions(MetricOptions):
    """Every option that changes a BLEU number, validated on construction.

    ``weights`` (optional) are the n-gram weights of the geometric mean, one per order; ``None``
    means uniform weights, sacreBLEU's formula. With ``effective_order`` the weights of the
    orders that are used are renormalised to sum to one.
    """

    tokenize: str = DEFAULT_TOKENIZER
    lowercase: bool = False
    smooth_method: str = DEFAULT_CORPUS_SMOOTH
    smooth_value: Optional[float] = None
    max_ngram_order: int = DEFAULT_MAX_NGRAM_ORDER
    weights: Optional[Sequence[float]] = None  # kept as a tuple of floats
    effective_order: bool = False
    _resolved_smooth_value: Optional[float] = field(init=False, repr=False, compare=False)

    metric: ClassVar[str] = "bleu"
    #: sacreBLEU's ``sentence_bleu`` turns effective order on (short segments often lack 4-grams).
    SENTENCE_DEFAULTS: ClassVar[Mapping[str, Any]] = {"effective_order": True}
    SIGNATURE_ABBREVIATIONS: ClassVar[Mapping[str, str]] = {
        **MetricOptions.SIGNATURE_ABBREVIATIONS, "case": "c", "eff": "e", "tok": "tok", "smooth": "s",
    }

    def __post_init__(self) -> None:
        check_tokenizer_name(self.tokenize)
        if not isinstance(self.lowercase, (bool,)) and not _is_np_bool(self.lowercase):
            raise TypeError(f"lowercase must be a bool, got {type(self.lowercase).__name__}")
        if not isinstance(self.effective_order, bool) and not _is_np_bool(self.effective_order):
            raise TypeError(
                f"effective_order must be a bool, got {type(self.effective_order).__name__}"
            )
        object.__setattr__(self, "lowercase", bool(self.lowercase))
        object.__setattr__(self, "effective_order", bool(self.effective_order))
        if not isinstance(self.smooth_method, str) or self.smooth_method not in SMOOTH_DEFAULTS:
            raise ValueError(
                f"unknown smooth_method={self.smooth_method!r}; choose one of "
                f"{', '.join(SMOOTH_DEFAULTS)}"
            )
        value = self.smooth_value
        if value is not None:
            # Any real number type (Fraction, Decimal, numpy) becomes the float the formula uses,
            # so nothing fails later (formatting the signature, say).
            value = check_number(value, "smooth_value", minimum=0)
            object.__setattr__(self, "smooth_value", value)
        else:
            value = SMOOTH_DEFAULTS[self.smooth_method]
        object.__setattr__(self, "_resolved_smooth_value", value)
        order = check_max_ngram_order(self.max_ngram_order)
        object.__setattr__(self, "max_ngram_order", order)
        if self.weights is not None:
            object.__setattr__(self, "weights", _check_weights(self.weights, order))

    @property
    def resolved_smooth_value(self) -> Optional[float]:
        """The smoothing value in force: the given one or the method's default."""
        return self._resolved_smooth_value

    def tokenizer_signature(self) -> str:
        """The ``tok:`` field, as the tokenizer itself reports it (the MeCab ones add their version).

        >>> BleuOptions(tokenize="intl").tokenizer_signature()
        'intl'
        """
        return _tokenizer_signature(self.tokenize)

    def signature(self, nrefs: NRefs, resampling: Optional[Resampling] = None) -> str:
        """sacreBLEU's signature string, with this package's name and version.

        ``order:`` and ``weights:`` appear only when they differ from the defaults, so a default
        signature reads field for field like sacreBLEU's. As in sacreBLEU, the smoothing value is
        shown only for the methods that take one (floor, add-k). ``resampling`` is
        ``(test, n_samples, seed)`` of a bootstrap (``"bs"``) or randomization (``"ar"``) test,
        shown right after ``nrefs:`` as sacreBLEU does (``seed:none`` when unseeded).

        >>> BleuOptions().signature(1, resampling=("bs", 1000, 12345)).split("|")[:3]
        ['nrefs:1', 'bs:1000', 'seed:12345']
        """
        smooth = self.smooth_method
        if SMOOTH_DEFAULTS[self.smooth_method] is not None:
            smooth += f"[{self._resolved_smooth_value:.2f}]"
        parts = [f"nrefs:{nrefs}"]
        if resampling is not None:
            test, n_samples, seed = resampling
            parts += [f"{test}:{n_samples}", f"seed:{'none' if seed is None else seed}"]
        parts += [
            f"case:{'lc' if self.lowercase else 'mixed'}",
            f"eff:{'yes' if self.effective_order else 'no'}",
            f"tok:{self.tokenizer_signature()}",
            f"smooth:{smooth}",
        ]
        if self.max_ngram_order != DEFAULT_MAX_NGRAM_ORDER:
            parts.append(f"order:{self.max_ngram_order}")
        if self.weights is not None:
            parts.append("weights:" + ",".join(f"{w:g}" for w in self.weights))
        parts.append(f"version:bleukit-{__version__}")
        return "|".join(parts)


#: The option keywords every entry point accepts, in declaration order (the evaluate module and
#: the app derive their option names from this).
OPTION_NAMES: Tuple[str, ...] = BleuOptions.option_names()


@functools.lru_cache(maxsize=None)
def _tokenizer_signature(name: str) -> str:
    from ...tokenizers import Tokenizer

    # Only a tokenizer class that overrides signature() (MeCab adds its version) is built here:
    # building one loads a dictionary or model, which a plain name does not need.
    cls = tokenizer_class(name)
    if cls.signature is Tokenizer.signature:
        return name
    return cls().signature()


def check_max_ngram_order(order: object) -> int:
    """The one check of a maximum n-gram order: an int >= 1 (a ``TypeError`` or ``ValueError``).

    >>> check_max_ngram_order(4)
    4
    """
    if isinstance(order, bool) or not isinstance(order, numbers.Integral):
        raise TypeError(f"max_ngram_order must be an int, got {type(order).__name__}")
    if order < 1:
        raise ValueError(f"max_ngram_order must be >= 1, got {order}")
    return int(order)


def _is_np_bool(value: object) -> bool:
    return type(value).__name__ == "bool_"


def _check_weights(weights: Sequence[float], order: int) -> Tuple[float, ...]:
    # A mapping or set has a length but no order: iterating it would silently use its keys.
    if isinstance(weights, (str, bytes, dict, set, frozenset)) or not hasattr(weights, "__len__") \
            or not hasattr(weights, "__getitem__"):
        raise TypeError(f"weights must be a sequence of {order} numbers, got {type(weights).__name__}")
    if len(weights) != order:
        raise ValueError(
            f"weights has {len(weights)} values but max_ngram_order is {order}: give one weight "
            "per n-gram order"
        )
    out = [check_number(w, f"weights[{i}]", minimum=0) for i, w in enumerate(weights)]
    if sum(out) <= 0:
        raise ValueError("weights must not all be zero")
    return tuple(out)
