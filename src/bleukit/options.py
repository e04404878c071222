"""BLEU options: their defaults (named once, used by every entry point), validation and signature.

>>> opts = BleuOptions(smooth_method="floor")
>>> opts.signature(nrefs=1)  # doctest: +ELLIPSIS
'nrefs:1|case:mixed|eff:no|tok:13a|smooth:floor[0.10]|version:bleukit-...'
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Optional, Sequence, Tuple, Union

from ._version import __version__
from .tokenizers import DEFAULT_TOKENIZER, TOKENIZERS

__all__ = [
    "BleuOptions",
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

NRefs = Union[int, str]


@dataclass(frozen=True)
class BleuOptions:
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
    weights: Optional[Tuple[float, ...]] = None
    effective_order: bool = False
    _resolved_smooth_value: Optional[float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.tokenize, str):
            raise TypeError(f"tokenize must be a str, got {type(self.tokenize).__name__}")
        if self.tokenize not in TOKENIZERS:
            raise ValueError(
                f"unknown tokenize={self.tokenize!r}; choose one of {', '.join(sorted(TOKENIZERS))}"
            )
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
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"smooth_value must be a number, got {type(value).__name__}")
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"smooth_value must be a finite number >= 0, got {value!r}")
        else:
            value = SMOOTH_DEFAULTS[self.smooth_method]
        object.__setattr__(self, "_resolved_smooth_value", value)
        order = self.max_ngram_order
        if isinstance(order, bool) or not isinstance(order, numbers.Integral):
            raise TypeError(f"max_ngram_order must be an int, got {type(order).__name__}")
        if order < 1:
            raise ValueError(f"max_ngram_order must be >= 1, got {order}")
        object.__setattr__(self, "max_ngram_order", int(order))
        if self.weights is not None:
            object.__setattr__(self, "weights", _check_weights(self.weights, int(order)))

    @property
    def resolved_smooth_value(self) -> Optional[float]:
        """The smoothing value in force: the given one or the method's default."""
        return self._resolved_smooth_value

    def signature(self, nrefs: NRefs, tokenizer_signature: Optional[str] = None) -> str:
        """sacreBLEU's signature string, with this package's name and version.

        ``order:`` and ``weights:`` appear only when they differ from the defaults, so a default
        signature reads field for field like sacreBLEU's.
        """
        smooth = self.smooth_method
        # as sacreBLEU: a value shows only for the methods that use one (floor, add-k)
        if SMOOTH_DEFAULTS[self.smooth_method] is not None:
            smooth += f"[{self._resolved_smooth_value:.2f}]"
        fields = [
            f"nrefs:{nrefs}",
            f"case:{'lc' if self.lowercase else 'mixed'}",
            f"eff:{'yes' if self.effective_order else 'no'}",
            f"tok:{tokenizer_signature or self.tokenize}",
            f"smooth:{smooth}",
        ]
        if self.max_ngram_order != DEFAULT_MAX_NGRAM_ORDER:
            fields.append(f"order:{self.max_ngram_order}")
        if self.weights is not None:
            fields.append("weights:" + ",".join(f"{w:g}" for w in self.weights))
        fields.append(f"version:bleukit-{__version__}")
        return "|".join(fields)


def _is_np_bool(value: object) -> bool:
    return type(value).__name__ == "bool_"


def _check_weights(weights: Sequence[float], order: int) -> Tuple[float, ...]:
    if isinstance(weights, (str, bytes)) or not hasattr(weights, "__len__"):
        raise TypeError(f"weights must be a sequence of {order} numbers, got {type(weights).__name__}")
    if len(weights) != order:
        raise ValueError(
            f"weights has {len(weights)} values but max_ngram_order is {order}: give one weight "
            "per n-gram order"
        )
    out = []
    for w in weights:
        if isinstance(w, bool) or not isinstance(w, numbers.Real):
            raise TypeError(f"weights must be numbers, got {type(w).__name__}")
        if not math.isfinite(w) or w < 0:
            raise ValueError(f"weights must be finite and >= 0, got {w!r}")
        out.append(float(w))
    if sum(out) <= 0:
        raise ValueError("weights must not all be zero")
    return tuple(out)
