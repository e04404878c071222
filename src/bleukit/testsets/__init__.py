"""sacreBLEU's registered test sets, read from (and written to) sacreBLEU 2.6's cache layout.

>>> ts = load("wmt17", "en-de")                     # doctest: +SKIP
>>> ts.source[0], ts.references["ref"][0], ts.docids[0], ts.origlang[0]   # doctest: +SKIP
>>> bleukit.corpus_bleu(hyps, ts)                   # doctest: +SKIP

:func:`load` gives a :class:`TestSet` (source, references by name, the references that score it,
document ids, original languages, domains, system outputs); ``"wmt21,wmt22"`` concatenates sets and
``origlang=``/``subset=`` filter documents as sacreBLEU's ``--origlang``/``--subset`` do. The cache
is ``$SACREBLEU`` (default ``~/.sacrebleu``): see :mod:`bleukit.testsets.cache`; downloads:
:mod:`bleukit.testsets.download`; the registry: :mod:`bleukit.testsets.registry`.

>>> langpairs("wmt22")[:3]
['cs-en', 'cs-uk', 'de-en']
>>> "wmt22" in testsets_for_langpair("en-de")
True
"""

from __future__ import annotations

from .cache import CacheError, cache_dir, field_lines, fieldnames, keep_mask, reference_fields
from .registry import RegistryError, get, langpairs_for, testset_names

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (about 5 ms of a --echo run)
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Sequence

__all__ = ["TestSet", "load", "echo", "testsets", "langpairs", "testsets_for_langpair", "fields", "description",
           "citation", "cache_dir", "CacheError", "RegistryError"]


class TestSet:
    """One pair of one or more registered test sets, its fields as lists of segments."""

    __test__ = False  # not a pytest test class

    def __init__(self, name: str, langpair: str, fields: Optional[Dict[str, List[str]]] = None,
                 reference_names: Optional[List[str]] = None) -> None:
        self.name = name
        self.langpair = langpair
        #: every field by name (``src``, ``ref``/``ref:A``..., ``docid``, ``origlang``, ``genre``,
        #: ``domain``, systems)
        self.fields: Dict[str, List[str]] = dict(fields or {})
        #: the references that score it (a WMT XML set's default translators), by field name
        self.reference_names: List[str] = list(reference_names or [])

    def __repr__(self) -> str:
        return f"TestSet({self.name!r}, {self.langpair!r}, {len(self)} segments, fields {list(self.fields)})"

    @property
    def source(self) -> List[str]:
        return self.fields["src"]

    @property
    def references(self) -> Dict[str, List[str]]:
        """Every reference stream, by field name (``ref``, ``ref:A``, ``ref:0``...)."""
        return {k: v for k, v in self.fields.items() if k.startswith("ref")}

    @property
    def reference_streams(self) -> List[List[str]]:
        """The streams sacreBLEU scores ``-t`` with, for ``corpus_bleu(hyps, ts.reference_streams)``."""
        return [self.fields[k] for k in self.reference_names]

    @property
    def reference_entries(self) -> List[object]:
        """The scoring references as one entry per segment (a string, or a list for several):
        what bleukit's functions take, so ``bleukit.corpus_bleu(hyps, ts)`` scores against them."""
        streams = self.reference_streams
        return list(streams[0]) if len(streams) == 1 else [list(r) for r in zip(*streams)]

    @property
    def docids(self) -> Optional[List[str]]:
        return self.fields.get("docid")

    @property
    def origlang(self) -> Optional[List[str]]:
        return self.fields.get("origlang")

    @property
    def domain(self) -> Optional[List[str]]:
        return self.fields.get("domain") or self.fields.get("genre")

    @property
    def systems(self) -> Dict[str, List[str]]:
        """System outputs shipped with a WMT XML set, by system name."""
        meta = {"src", "docid", "origlang", "genre", "domain"}
        return {k: v for k, v in self.fields.items() if k not in meta and not k.startswith("ref")}

    def __len__(self) -> int:
        return len(self.source)


def load(name: str, langpair: str, origlang: Optional[str] = None, subset: Optional[str] = None,
         offline: bool = False) -> TestSet:
    """A test set's pair from the cache (downloaded and processed first when missing).

    ``name`` may be a comma list (the sets concatenated, fields they all have). ``origlang`` keeps
    documents of that original language (``non-xx``: all others), ``subset`` those whose
    annotation (domain; ``country:XX`` for wmt18/wmt19) matches a regular expression.
    """
    names = name.split(",")
    per_set = []
    for one in names:
        info = get(one)
        fnames = fieldnames(info, langpair, offline=offline)
        lines = field_lines(info, langpair, fnames, offline=offline)
        data = dict(zip(fnames, lines))
        if origlang is not None or subset is not None:
            keep = keep_mask(info, langpair, origlang, subset, offline=offline)
            data = {k: [s for s, ok in zip(v, keep) if ok] for k, v in data.items()}
        per_set.append((data, reference_fields(info, langpair, offline=offline)))
    common = [f for f in per_set[0][0] if all(f in d for d, _ in per_set)]
    merged = {f: [s for d, _ in per_set for s in d[f]] for f in common}
    refs = [f for f in per_set[0][1] if f in merged]
    return TestSet(name=name, langpair=langpair, fields=merged, reference_names=refs)


def testsets() -> List[str]:
    """Every registered test set (sacreBLEU 2.6's 67 and bleukit's additions)."""
    return testset_names()


def langpairs(name: str) -> List[str]:
    return langpairs_for(name)


def testsets_for_langpair(langpair: str) -> List[str]:
    """The test sets that have ``langpair`` in either direction."""
    src, _, trg = langpair.partition("-")
    return [n for n in testset_names() if f"{src}-{trg}" in langpairs_for(n) or f"{trg}-{src}" in langpairs_for(n)]


def fields(name: str, langpair: str, offline: bool = False) -> List[str]:
    """A pair's field names in sacreBLEU's order (references sorted, where 2.6's order is random)."""
    return fieldnames(get(name), langpair, offline=offline)


def description(name: str) -> str:
    return get(name).description


def citation(name: str) -> Optional[str]:
    return get(name).citation


def echo(name: str, langpair: str, requested: Sequence[str], origlang: Optional[str] = None,
         subset: Optional[str] = None, offline: bool = False) -> str:
    """sacreBLEU's ``--echo``: the requested fields of one test set's pair, tab-separated, a line per
    segment (``all``: every field; ``ref``: the smallest ``ref:*`` where there is no ``ref``).
    An unknown field is a :class:`RegistryError` naming the available ones."""
    info = get(name)
    names = fieldnames(info, langpair, offline=offline)
    wanted = list(requested)
    if "all" in wanted and len(wanted) != 1:
        raise RegistryError("Cannot use --echo all with other fields")
    if "all" in wanted:
        wanted = names
    refs = [f for f in names if f.startswith("ref")]
    if "ref" in wanted and "ref" not in names and refs:
        wanted = [min(refs) if f == "ref" else f for f in wanted]
    for f in wanted:
        if f not in names:
            hint = f" ('ref' also allowed, for {min(refs)})" if "ref" not in names and refs else ""
            raise RegistryError(f"No such field {f} in test set {name} for language pair {langpair}; available "
                                f"fields: {', '.join(names)}{hint}")
    columns = field_lines(info, langpair, wanted, offline=offline)
    if origlang is not None or subset is not None:
        keep = keep_mask(info, langpair, origlang, subset, offline=offline)
        columns = [[s for s, ok in zip(col, keep) if ok] for col in columns]
    return "".join("\t".join(row) + "\n" for row in zip(*columns))
