"""sacreBLEU 2.6's ``sacrebleu.dataset``: ``DATASETS`` (name → test set), ``SUBSETS``, ``COUNTRIES``,
``DOMAINS``, on bleukit's registry and cache (:mod:`bleukit.testsets`).

Each test set has sacreBLEU's attributes (``name``, ``data``, ``md5``, ``description``,
``citation``, ``langpairs``, ``kwargs``) and methods (``fieldnames``, ``get_files``,
``get_source_file``, ``get_reference_files``, ``source``, ``references``, ``maybe_download``,
``process_to_text``); the class names are sacreBLEU's.

>>> DATASETS["wmt22"].langpairs["cs-en"]["refs"], type(DATASETS["wmt17"]).__name__
(['B'], 'FakeSGMLDataset')
>>> "citation" in DATASETS["wmt17"], len(DATASETS)
(True, 67)
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Tuple

from ...testsets import cache as _cache
from ...testsets import registry as _registry

__all__ = ["DATASETS", "SUBSETS", "COUNTRIES", "DOMAINS", "Dataset", "FakeSGMLDataset", "WMTAdditionDataset",
           "IWSLTXMLDataset", "WMTXMLDataset", "TSVDataset", "PlainTextDataset"]


class Dataset:
    """One registered test set, sacreBLEU's ``Dataset`` interface over bleukit's cache."""

    def __init__(self, info: "_registry.TestSetInfo") -> None:
        self._info = info
        self.name = info.name
        self.data = list(info.data)
        self.md5 = list(info.md5)
        self.description = info.description
        self.citation = info.citation
        self.langpairs = {k: (dict(v) if isinstance(v, dict) else list(v)) for k, v in info.langpairs.items()}
        self.kwargs: Dict[str, Any] = {"refs": list(info.refs)} if info.format == "wmtxml" else {}

    def __contains__(self, attribute: str) -> bool:
        # sacreBLEU 2.6's CLI asks `'citation' in DATASETS[name]` (a TypeError there): an attribute test
        return getattr(self, attribute, None) is not None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    def maybe_download(self) -> None:
        """Fetch (or check) the raw files of every pair."""
        for pair in self.langpairs:
            _cache.process(self._info, pair)

    def process_to_text(self, langpair: Optional[str] = None) -> None:
        for pair in [langpair] if langpair else list(self.langpairs):
            _cache.process(self._info, pair)

    def fieldnames(self, langpair: str) -> List[str]:
        return _cache.fieldnames(self._info, langpair)

    def get_files(self, langpair: str) -> List[str]:
        return _cache.field_paths(self._info, langpair, self.fieldnames(langpair))

    def get_source_file(self, langpair: str) -> str:
        return _cache.field_paths(self._info, langpair, ["src"])[0]

    def get_reference_files(self, langpair: str) -> List[str]:
        fields = _cache.reference_fields(self._info, langpair)
        return _cache.field_paths(self._info, langpair, fields)

    def source(self, langpair: str) -> Iterator[str]:
        yield from _cache.field_lines(self._info, langpair, ["src"])[0]

    def references(self, langpair: str) -> Iterator[Tuple[str, ...]]:
        fields = _cache.reference_fields(self._info, langpair)
        yield from zip(*_cache.field_lines(self._info, langpair, fields))


class FakeSGMLDataset(Dataset):
    """WMT's SGML test sets (up to 2020)."""


class WMTAdditionDataset(FakeSGMLDataset):
    """SGML sets with extra plain-text references."""


class IWSLTXMLDataset(FakeSGMLDataset):
    """IWSLT's XML files, read as SGML."""


class WMTXMLDataset(Dataset):
    """WMT 2021+ XML test sets."""


class TSVDataset(Dataset):
    """Tab-separated test sets (MTNT)."""


class PlainTextDataset(Dataset):
    """Aligned plain-text files."""


_CLASSES = {"sgml": FakeSGMLDataset, "sgml+txt": WMTAdditionDataset, "iwslt": IWSLTXMLDataset,
            "wmtxml": WMTXMLDataset, "tsv": TSVDataset, "txt": PlainTextDataset}

#: sacreBLEU 2.6's 67 test sets (bleukit's additions are in bleukit.testsets, not here)
DATASETS: Dict[str, Dataset] = {name: _CLASSES[_registry.get(name).format](_registry.get(name))
                                for name in _registry.SACREBLEU_TESTSETS}
SUBSETS: Dict[str, Dict[str, str]] = {name: _registry.subsets(name) for name in ("wmt18", "wmt19")}
COUNTRIES = sorted({v.split("-")[0] for v in SUBSETS["wmt19"].values()})
DOMAINS = sorted({v.split("-")[1] for v in SUBSETS["wmt19"].values()})
