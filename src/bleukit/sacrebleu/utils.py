"""sacreBLEU 2.6's ``sacrebleu.utils``: the test-set functions other tools import (COMET's
``comet-score -d wmt22:de-en`` imports ``get_source_file`` and ``get_reference_files``), on
bleukit's registry and cache, which is sacreBLEU's (``$SACREBLEU``, default ``~/.sacrebleu``).

Unknown test sets raise ``Exception("No such test set ...")`` as sacreBLEU's do; files are the
processed ``<set>.<pair>.<field>`` files sacreBLEU writes, downloaded and processed when missing.

>>> get_langpairs_for_testset("wmt22")[:2], get_langpairs_for_testset("nosuch")
(['cs-en', 'cs-uk'], [])
>>> get_available_testsets()[:2]
['wmt24', 'wmt23']
"""

from __future__ import annotations

import gzip
import logging
import math
import os
import sys
from typing import IO, Any, Dict, List, Optional, Sequence

from ..testsets import cache as _cache
from ..testsets import download as _download
from ..testsets import registry as _registry
from .dataset import DATASETS, SUBSETS

__all__ = ["USERHOME", "SACREBLEU_DIR", "sacrelogger", "smart_open", "my_log", "sum_of_lists", "args_to_dict",
           "print_test_set", "get_source_file", "get_reference_files", "get_files", "extract_tarball", "get_md5sum",
           "download_file", "download_test_set", "get_langpairs_for_testset", "get_available_testsets",
           "get_available_testsets_for_langpair", "get_available_origlangs", "get_available_subsets",
           "filter_subset", "sanity_check_lengths", "DATASETS", "SUBSETS"]

USERHOME = os.path.expanduser("~")
#: the cache root when this module was imported (bleukit itself reads $SACREBLEU on each call)
SACREBLEU_DIR = os.environ.get("SACREBLEU", os.path.join(USERHOME, ".sacrebleu"))
sacrelogger = logging.getLogger("sacrebleu")


def smart_open(file: str, mode: str = "rt", encoding: str = "utf-8") -> IO[Any]:
    """A text file split on ``\\n`` only (``.gz`` decompressed)."""
    if file.endswith(".gz"):
        return gzip.open(file, mode=mode, encoding=encoding, newline="\n")  # type: ignore[return-value]
    return open(file, mode=mode, encoding=encoding, newline="\n")


def my_log(num: float) -> float:
    """``log(num)``, or -9999999999 for 0."""
    return -9999999999 if num == 0.0 else math.log(num)


def sum_of_lists(lists: Sequence[Sequence[float]]) -> List[float]:
    """Element-wise sums of equally long lists."""
    if len(lists) == 1:
        return list(lists[0])
    return [sum(column) for column in zip(*lists)]


def args_to_dict(args: Any, prefix: str, strip_prefix: bool = False) -> Dict[str, Any]:
    """The ``prefix_*`` entries of an argparse namespace (prefix removed with ``strip_prefix``)."""
    prefix += "_"
    return {(k.replace(prefix, "") if strip_prefix else k): v for k, v in vars(args).items() if k.startswith(prefix)}


def _info(test_set: str) -> "_registry.TestSetInfo":
    if test_set not in DATASETS:
        raise Exception(f"No such test set {test_set}")
    return _registry.get(test_set)


def get_source_file(test_set: str, langpair: str) -> str:
    """The processed source file of a test set's pair (fetched and processed first if needed)."""
    return DATASETS[_info(test_set).name].get_source_file(langpair)


def get_reference_files(test_set: str, langpair: str) -> List[str]:
    """The processed files of the references that score the pair."""
    return DATASETS[_info(test_set).name].get_reference_files(langpair)


def get_files(test_set: str, langpair: str) -> List[str]:
    """The processed files of every field of the pair."""
    return DATASETS[_info(test_set).name].get_files(langpair)


def download_test_set(test_set: str, langpair: Optional[str] = None) -> List[str]:
    """Fetch and process a test set (every pair without ``langpair``); the processed files."""
    info = _info(test_set)
    paths: List[str] = []
    for pair in [langpair] if langpair else list(info.langpairs):
        paths += _cache.field_paths(info, pair, _cache.fieldnames(info, pair))
    return paths


def get_langpairs_for_testset(testset: str) -> List[str]:
    return list(DATASETS[testset].langpairs) if testset in DATASETS else []


def get_available_testsets() -> List[str]:
    return sorted(DATASETS, reverse=True)


def get_available_testsets_for_langpair(langpair: str) -> List[str]:
    src, trg = langpair.split("-")[:2]
    return [d.name for d in DATASETS.values() if f"{src}-{trg}" in d.langpairs or f"{trg}-{src}" in d.langpairs]


def get_available_origlangs(test_sets: Optional[str], langpair: str) -> List[str]:
    if test_sets is None:
        return []
    return sorted({o for t in test_sets.split(",") for o in _cache.available_origlangs(_info(t), langpair)})


def get_available_subsets(test_sets: Optional[str], langpair: str) -> List[str]:
    if test_sets is None:
        return []
    return sorted({s for t in test_sets.split(",") for s in _cache.available_subsets(_info(t), langpair)})


def filter_subset(systems: Sequence[Sequence[str]], test_sets: Optional[str], langpair: Optional[str],
                  origlang: Optional[str], subset: Optional[str] = None) -> Any:
    """The segments of the documents with that original language / annotation matching ``subset``."""
    if origlang is None and subset is None:
        return systems
    if test_sets is None or langpair is None:
        raise ValueError("Filtering for --origlang or --subset needs a test (-t) and a language pair (-l).")
    keep: List[bool] = []
    for t in test_sets.split(","):
        keep += _cache.keep_mask(_info(t), langpair, origlang, subset)
    return [[s for s, ok in zip(stream, keep) if ok] for stream in systems]


def print_test_set(test_set: str, langpair: str, requested_fields: Sequence[str], origlang: Optional[str] = None,
                   subset: Optional[str] = None) -> None:
    """Print fields of a test set's pair, tab-separated (``--echo``), to stdout."""
    from ..testsets import echo

    _info(test_set)
    sys.stdout.write(echo(test_set, langpair, list(requested_fields), origlang, subset))


def extract_tarball(filepath: str, destdir: str) -> None:
    if filepath.endswith((".tar.gz", ".tgz", ".zip")):
        _download.extract(filepath, destdir)


def get_md5sum(dest_path: str) -> str:
    return _download.md5sum(dest_path)


def download_file(source_path: str, dest_path: str, extract_to: Optional[str] = None,
                  expected_md5: Optional[str] = None) -> None:
    """Download (checked, locked, atomic) unless ``dest_path`` exists, then extract it to ``extract_to``."""
    os.makedirs(os.path.dirname(dest_path) or ".", exist_ok=True)
    with _download.file_lock(f"{dest_path}.lock"):
        if not os.path.exists(dest_path) or os.path.getsize(dest_path) == 0:
            _download.download(source_path, dest_path, expected_md5)
            if extract_to is not None:
                extract_tarball(dest_path, extract_to)


def sanity_check_lengths(system: Sequence[str], refs: Sequence[Sequence[str]], test_set: Optional[str] = None
                         ) -> None:
    n = len(system)
    if any(len(ref) != n for ref in refs):
        sacrelogger.error("System and reference streams have different lengths.")
        if test_set:
            sacrelogger.error("This could be an issue with your system output or with sacreBLEU's reference "
                              "database if -t is given.")
        raise SystemExit(1)


