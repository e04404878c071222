"""The metrics, one package each, found by name: a metric is a folder here that exposes ``METRIC``.

Each package holds the metric's options, table, extractor (compiled kernel and pure-Python
reference), formula and result, and implements :class:`bleukit.metrics.base.Metric`. Nothing
else lists the metrics: a package here is registered by being here (it is imported on first use),
so adding a metric means adding a folder.

>>> sorted(available_metrics())[:1]
['bleu']
>>> get_metric("bleu").name
'bleu'
"""

from __future__ import annotations

import functools
import importlib
import os
from typing import Any, Callable, Dict, Mapping, Optional, Set, Tuple, TypeVar

from .base import Metric, MetricOptions, MetricResult, Statistics

__all__ = [
    "Metric",
    "MetricOptions",
    "MetricResult",
    "Statistics",
    "available_metrics",
    "get_metric",
    "metric_for",
    "resolve_options",
    "cached_options",
]


@functools.lru_cache(maxsize=None)
def available_metrics() -> Tuple[str, ...]:
    """The names of the metric packages (without importing them).

    >>> "bleu" in available_metrics()
    True
    """
    # The folders with an ``__init__.py`` (what ``pkgutil.iter_modules`` reports as packages, without
    # importing pkgutil: the command line asks this on every run).
    names: Set[str] = set()
    for folder in __path__:
        with os.scandir(folder) as entries:
            names.update(e.name for e in entries if e.is_dir() and e.name.isidentifier()
                         and os.path.isfile(os.path.join(e.path, "__init__.py")))
    return tuple(sorted(names))


@functools.lru_cache(maxsize=None)
def get_metric(name: str) -> Metric[Any, Any, Any]:
    """The metric called ``name`` (its package's ``METRIC``), imported on first use.

    >>> get_metric("bleu").higher_is_better
    True
    """
    if not isinstance(name, str):
        raise TypeError(f"a metric name must be a str, got {type(name).__name__}")
    key = name.lower()
    if key not in available_metrics():
        raise ValueError(f"unknown metric {name!r}; choose one of {', '.join(available_metrics())}")
    metric = importlib.import_module(f"{__name__}.{key}").METRIC
    if not isinstance(metric, Metric) or metric.name != key:
        raise TypeError(f"bleukit.metrics.{key}.METRIC must be a Metric named {key!r}")
    return metric


def metric_for(options: Any) -> Metric[Any, Any, Any]:
    """The metric whose options ``options`` are (a ``TypeError`` for anything else).

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> metric_for(BleuOptions()).name
    'bleu'
    """
    if not isinstance(options, MetricOptions):
        raise TypeError(
            f"options must be a metric's options (e.g. bleukit.BleuOptions), got {type(options).__name__}"
        )
    return get_metric(options.metric)


def resolve_options(
    options: Optional[MetricOptions],
    keywords: Mapping[str, Any],
    *,
    sentence: bool = False,
    default_metric: str = "bleu",
) -> MetricOptions:
    """The options an entry point runs with: ``options`` (any metric's options object), or else the
    options of ``default_metric`` (BLEU unless the entry point is one metric's own) from the option
    ``keywords`` (sentence-level defaults with ``sentence=True``). This is the one way every
    function beyond sacreBLEU's takes options: ``options=`` or the typed keywords
    (``**keywords: Unpack[BleuOptionKeywords]``, ``ChrfOptionKeywords``, ``TerOptionKeywords``).

    Giving both is a ``TypeError``: the keywords would be silently ignored otherwise.

    >>> resolve_options(None, {"tokenize": "intl"}).tokenize
    'intl'
    >>> resolve_options(None, {"word_order": 2}, default_metric="chrf").word_order
    2
    """
    if options is None:
        return get_metric(default_metric).options_type.from_keywords(keywords, sentence=sentence)
    metric_for(options)
    if keywords:
        raise TypeError(
            f"give either options= or option keywords, not both (got options={type(options).__name__} "
            f"and {', '.join(sorted(keywords))})"
        )
    return options


OptionsT = TypeVar("OptionsT", bound=MetricOptions)

# Options built from the public functions' keyword values, kept: a one-sentence call in a loop
# (an RL reward, a notebook) then spends nothing on building and validating them.
_OPTIONS: Dict[Tuple[Any, ...], Any] = {}


def cached_options(build: Callable[..., OptionsT], *values: Any) -> OptionsT:
    """``build(*values)`` (an options type, or a function that returns options), built once per
    distinct ``values`` and kept (the latest 256 sets). Keys hold the values' types too, so that
    ``True`` and ``1`` (one a ``TypeError``, the other a number) never share an entry; an
    unhashable value is built each time, so the options' own checks name the problem. Pass no
    sequence whose items' types matter (BLEU's ``weights``): the key would not hold them.

    >>> from bleukit.metrics.chrf import ChrfOptions
    >>> cached_options(ChrfOptions, 6, 2) is cached_options(ChrfOptions, 6, 2)
    True
    """
    try:
        key = (build, *values, *map(type, values))
        return _OPTIONS[key]  # type: ignore[no-any-return]
    except KeyError:
        pass
    except TypeError:  # an unhashable value
        return build(*values)
    options = build(*values)
    if len(_OPTIONS) >= 256:  # full: the oldest set goes, so the options in use now are kept
        del _OPTIONS[next(iter(_OPTIONS))]
    _OPTIONS[key] = options
    return options
