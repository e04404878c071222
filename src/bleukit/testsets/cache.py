"""sacreBLEU 2.6's test-set cache: ``$SACREBLEU`` (default ``~/.sacrebleu``), read and written in its layout.

::

    $SACREBLEU/<set>/raw/<set with / as _>.<basename of URL>   the downloaded archive (or file)
    $SACREBLEU/<set>/raw/...                                    the archive, extracted
    $SACREBLEU/<set>/<set with / as _>.<pair>.<field>           processed: one segment per line,
                                                                ``:`` in a field written as ``-``

A cache sacreBLEU filled is used as it is, offline; what bleukit fills, sacreBLEU uses. Unlike
sacreBLEU 2.6, bleukit checks what it reads: processed files are written whole or not at all
(a temporary file renamed into place) with a small manifest (``.<name>.<pair>.bleukit.json``, sizes
and line counts) that a later read compares; files of one pair that disagree in their number of
lines, or do not end in a newline, are truncated, and files older than a raw file of their pair
(sacreBLEU's or bleukit's, made from an earlier download) are stale: either is made again from the
raw files (or, without them, reported with the command that clears them). A cached archive's md5 is checked
before it is extracted or processed.
"""

from __future__ import annotations

import json
import os
import re

from . import formats
from .download import CacheError, ensure_raw
from .registry import TestSetInfo, get

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (about 5 ms of a --echo run)
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Sequence, Tuple

__all__ = ["cache_dir", "set_dir", "raw_dir", "processed_path", "fieldnames", "field_lines", "process",
           "field_paths", "reference_fields", "keep_mask", "available_origlangs", "available_subsets",
           "CacheError", "xml_fields"]


def cache_dir() -> str:
    """``$SACREBLEU``, else ``~/.sacrebleu`` (read on each call)."""
    return os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))


def set_dir(name: str, root: Optional[str] = None) -> str:
    return os.path.join(root or cache_dir(), name)


def raw_dir(name: str, root: Optional[str] = None) -> str:
    return os.path.join(set_dir(name, root), "raw")


def processed_path(name: str, langpair: str, field: str, root: Optional[str] = None) -> str:
    """``<set>/<set with / as _>.<pair>.<field with : as ->``, sacreBLEU's processed file."""
    return os.path.join(set_dir(name, root), f"{name.replace('/', '_')}.{langpair}.{field.replace(':', '-')}")


def _manifest_path(name: str, langpair: str, root: Optional[str]) -> str:
    return os.path.join(set_dir(name, root), f".{name.replace('/', '_')}.{langpair}.bleukit.json")


def _check_pair(info: TestSetInfo, langpair: str) -> None:
    if langpair not in info.langpairs:
        from .registry import RegistryError

        raise RegistryError(f"No such language pair {info.name}/{langpair}")


_XML_CACHE: Dict[str, "formats.OrderedDict[str, List[Optional[str]]]"] = {}


def xml_fields(info: TestSetInfo, langpair: str, root: Optional[str] = None,
               offline: bool = False) -> "formats.OrderedDict[str, List[Optional[str]]]":
    """A WMT XML pair's fields from its raw file (parsed once per process)."""
    ensure_raw(info, raw_dir(info.name, root), [info.pair_path(langpair)], offline)
    path = os.path.join(raw_dir(info.name, root), info.pair_path(langpair))
    if path not in _XML_CACHE:
        _XML_CACHE[path] = formats.wmt_xml_fields(path)
    return _XML_CACHE[path]


def _static_fieldnames(info: TestSetInfo, langpair: str) -> List[str]:
    files = info.langpairs[langpair]
    if info.format in ("sgml", "sgml+txt", "iwslt"):
        fields = ["src"] + (["ref"] if len(files) == 2 else [f"ref:{i}" for i in range(len(files) - 1)])
        return fields + (["docid", "genre", "origlang"] if info.has_meta else [])
    return ["src", "ref"]


def fieldnames(info: TestSetInfo, langpair: str, root: Optional[str] = None, offline: bool = False) -> List[str]:
    """The pair's fields in sacreBLEU's order (WMT XML: from a manifest bleukit wrote, else the raw file)."""
    _check_pair(info, langpair)
    if info.format not in ("wmtxml", "jsonl"):
        return _static_fieldnames(info, langpair)
    manifest = _read_manifest(info, langpair, root)
    if manifest is not None:
        return list(manifest["fields"])
    if info.format == "jsonl":
        return list(_raw_text_fields(info, langpair, root, offline))
    return list(xml_fields(info, langpair, root, offline))


def reference_fields(info: TestSetInfo, langpair: str, root: Optional[str] = None,
                     offline: bool = False) -> List[str]:
    """The fields that score the pair: every ``ref*`` field, or a WMT XML pair's default translators."""
    if info.format == "jsonl":
        return [f for f in fieldnames(info, langpair, root, offline) if f.startswith("ref")]
    if info.format == "wmtxml":
        allowed = [formats.ref_field(t) for t in info.pair_refs(langpair)]
        present = [f for f in allowed if _nonempty(processed_path(info.name, langpair, f, root))]
        if len(present) == len(allowed):  # no parse needed: sacreBLEU's order is the fields' one
            order = fieldnames(info, langpair, root, offline) if len(allowed) > 1 else allowed
            return [f for f in order if f in allowed]
        return [f for f in fieldnames(info, langpair, root, offline) if f in allowed]
    return [f for f in fieldnames(info, langpair, root, offline) if f.startswith("ref")]


def _nonempty(path: str) -> bool:
    try:
        return os.path.getsize(path) > 0
    except OSError:
        return False


def _raw_files(info: TestSetInfo, langpair: str) -> List[Tuple[str, int]]:
    """The raw files a pair is made from, relative to ``raw/``, each with its TSV column (0 elsewhere)."""
    if info.format in ("wmtxml", "jsonl"):
        return [(info.pair_path(langpair), 0)]
    out = []
    for k, meta in enumerate(info.langpairs[langpair]):
        index_file = meta.split(":") if info.format == "tsv" else [meta]
        if len(index_file) == 2:  # sacreBLEU's "column:file"
            out.append((index_file[1], int(index_file[0])))
        else:
            out.append((meta, 0 if k == 0 or info.format != "tsv" else 1))
    return out


def _older_than_raw(info: TestSetInfo, langpair: str, processed: Sequence[str], root: Optional[str]) -> bool:
    """Whether a raw file of the pair was made after a processed file: a raw file made again (a new
    download, extracted afresh) after sacreBLEU or bleukit processed the old one leaves processed
    files of the same length and other text. A raw file's ctime is when it was created or its
    content last changed (extraction cannot set it back to the archive's date, as it does mtime)."""
    made = []
    for rel, _ in _raw_files(info, langpair):
        try:
            made.append(os.stat(os.path.join(raw_dir(info.name, root), rel)).st_ctime_ns)
        except OSError:
            pass  # no raw file (a cache of processed files alone): nothing to compare with
    if not made:
        return False
    return max(made) > min(os.stat(p).st_mtime_ns for p in processed)


def _raw_text_fields(info: TestSetInfo, langpair: str, root: Optional[str], offline: bool) -> Dict[str, List[str]]:
    """Every field of a pair, made from the raw files as sacreBLEU's processing makes them."""
    rdir = raw_dir(info.name, root)
    if info.format == "wmtxml":
        return {k: [formats.clean(v) for v in values]  # type: ignore[arg-type]
                for k, values in xml_fields(info, langpair, root, offline).items()}
    if info.format == "jsonl":
        from .wmt25 import pair_fields

        ensure_raw(info, rdir, [info.pair_path(langpair)], offline)
        return pair_fields(os.path.join(rdir, info.pair_path(langpair)), langpair)
    raw = _raw_files(info, langpair)
    files = [p for p, _ in raw]
    ensure_raw(info, rdir, files, offline)
    names = fieldnames(info, langpair, root)
    if info.format == "tsv":
        return {f: formats.tsv_column(formats.read_raw_lines(os.path.join(rdir, p)), c)
                for f, (p, c) in zip(names, raw)}
    if info.format == "txt":
        return {f: formats.plain_text(formats.read_raw_lines(os.path.join(rdir, p))) for f, p in zip(names, files)}
    out: Dict[str, List[str]] = {}
    for f, p in zip(names, files):
        lines = formats.read_raw_lines(os.path.join(rdir, p))
        if info.format == "sgml+txt" and not p.endswith(".sgm"):
            out[f] = formats.plain_text(lines)
        else:
            out[f] = formats.sgml_text(lines)
    if info.has_meta:
        src_lines = formats.read_raw_lines(os.path.join(rdir, files[0]))
        for meta in ("docid", "genre", "origlang"):
            out[meta] = formats.sgml_meta(src_lines, meta)
    return out


def _write_atomic(path: str, data: bytes) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def process(info: TestSetInfo, langpair: str, root: Optional[str] = None, offline: bool = False) -> List[str]:
    """Make every processed file of a pair from the raw files (replacing what is there); its fields."""
    fields = _raw_text_fields(info, langpair, root, offline)
    os.makedirs(set_dir(info.name, root), exist_ok=True)
    manifest: Dict[str, object] = {"fields": list(fields), "files": {}}
    for field, lines in fields.items():
        data = "".join(f"{line}\n" for line in lines).encode("utf-8")
        path = processed_path(info.name, langpair, field, root)
        _write_atomic(path, data)
        manifest["files"][os.path.basename(path)] = [len(data), len(lines)]  # type: ignore[index]
    _write_atomic(_manifest_path(info.name, langpair, root), json.dumps(manifest).encode("utf-8"))
    return list(fields)


def _read_manifest(info: TestSetInfo, langpair: str, root: Optional[str]) -> Optional[dict]:
    try:
        with open(_manifest_path(info.name, langpair, root), encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        return None
    for base, (size, _) in manifest.get("files", {}).items():
        try:
            if os.path.getsize(os.path.join(set_dir(info.name, root), base)) != size:
                return None  # a processed file changed since bleukit wrote it
        except OSError:
            return None
    return manifest if "fields" in manifest else None


def _read_processed(path: str) -> Optional[List[str]]:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if not data or not data.endswith(b"\n"):
        return None  # missing, empty or cut mid-line
    return [line.rstrip() for line in data.decode("utf-8").split("\n")[:-1]]


def field_paths(info: TestSetInfo, langpair: str, fields: Sequence[str], root: Optional[str] = None,
                offline: bool = False) -> List[str]:
    """The processed files of ``fields``, made (and checked) first."""
    field_lines(info, langpair, fields, root, offline)
    return [processed_path(info.name, langpair, f, root) for f in fields]


def field_lines(info: TestSetInfo, langpair: str, fields: Sequence[str], root: Optional[str] = None,
                offline: bool = False) -> List[List[str]]:
    """The lines of each field (trailing whitespace stripped, as sacreBLEU reads them).

    Processed files are used when they are whole and agree with each other (and with bleukit's
    manifest where there is one); otherwise the pair is processed again from its raw files.
    """
    _check_pair(info, langpair)
    # the source is read too: every field must have its number of lines
    wanted = list(dict.fromkeys(["src", *fields]))
    got = [_read_processed(processed_path(info.name, langpair, f, root)) for f in wanted]
    lengths = {len(lines) for lines in got if lines is not None}
    if all(lines is not None for lines in got) and len(lengths) == 1:
        manifest_ok = True
        if os.path.exists(_manifest_path(info.name, langpair, root)):
            manifest_ok = _read_manifest(info, langpair, root) is not None
        paths = [processed_path(info.name, langpair, f, root) for f in wanted]
        if manifest_ok and not _older_than_raw(info, langpair, paths, root):
            return [got[wanted.index(f)] for f in fields]  # type: ignore[misc]
    try:
        process(info, langpair, root, offline)
    except CacheError as err:
        if any(lines is not None for lines in got):
            raise CacheError(
                f"the processed files of {info.name}/{langpair} in {set_dir(info.name, root)} are truncated or "
                f"stale and the raw files to remake them are missing ({err}); remove them (rm -r "
                f"{set_dir(info.name, root)}) and run again"
            ) from None
        raise
    out = []
    for f in fields:
        lines = _read_processed(processed_path(info.name, langpair, f, root))
        out.append(lines if lines is not None else [])
    return out


_RE_ORIGLANG = re.compile(r'.* origlang="([^"]+)".*\n')
_RE_DOCID = re.compile(r'.* docid="([^"]+)".*\n')


def _include(origlang: Optional[str], doc_origlang: Optional[str]) -> bool:
    if origlang is None:
        return True
    if origlang.startswith("non-"):
        return doc_origlang != origlang[4:]
    return doc_origlang == origlang


def keep_mask(info: TestSetInfo, langpair: str, origlang: Optional[str], subset: Optional[str],
              root: Optional[str] = None, offline: bool = False) -> List[bool]:
    """Which segments a ``--origlang``/``--subset`` filter keeps, read from the raw SGML or XML."""
    if subset is not None and subset.startswith("country:"):
        subset = subset[8:]
    rel = info.pair_path(langpair)
    if info.format == "wmtxml":
        fields = xml_fields(info, langpair, root, offline)
        domains = fields.get("domain") or [None] * len(fields["origlang"])
        return [_include(origlang, o) and (subset is None or (d is not None and re.search(subset, d) is not None))
                for o, d in zip(fields["origlang"], domains)]
    if rel.endswith(".sgm"):
        ensure_raw(info, raw_dir(info.name, root), [rel], offline)
        tags: Dict[str, str] = {}
        if subset is not None:
            from .registry import subsets

            tags = subsets(info.name)
            if not tags:
                raise CacheError(f"No subset annotation available for test set {info.name}")
        keep = []
        for doc in formats.sgml_doc_lines(formats.read_raw_lines(os.path.join(raw_dir(info.name, root), rel))):
            if doc is None:
                keep.append(False)
                continue
            include = _include(origlang, _RE_ORIGLANG.sub(r"\1", doc))
            if subset is not None and not re.search(subset, tags.get(_RE_DOCID.sub(r"\1", doc), "")):
                include = False
            keep.append(include)
        return keep
    raise CacheError(f"--origlang and --subset supports only WMT *.xml and *.sgm files, not {rel!r}")


def available_origlangs(info: TestSetInfo, langpair: str, root: Optional[str] = None,
                        offline: bool = False) -> List[str]:
    """The original languages of a pair's documents (``-d``'s rows)."""
    if info.format == "wmtxml":
        return sorted({str(o) for o in xml_fields(info, langpair, root, offline)["origlang"]})
    rel = info.pair_path(langpair)
    if not rel.endswith(".sgm"):
        return []
    ensure_raw(info, raw_dir(info.name, root), [rel], offline)
    langs = {_RE_ORIGLANG.sub(r"\1", line) for line in
             formats.read_raw_lines(os.path.join(raw_dir(info.name, root), rel)) if line.startswith("<doc ")}
    return sorted(langs)


def available_subsets(info: TestSetInfo, langpair: str, root: Optional[str] = None,
                      offline: bool = False) -> List[str]:
    """The domains (WMT XML) or ``country:XX`` and domains (wmt18/wmt19 annotations) of a pair."""
    if info.format == "wmtxml":
        fields = xml_fields(info, langpair, root, offline)
        return sorted({str(d) for d in fields["domain"]}) if "domain" in fields else []
    from .registry import subsets

    tags = subsets(info.name)
    out = {"country:" + v.split("-")[0] for v in tags.values()} | {v.split("-")[1] for v in tags.values()}
    return sorted(out)


def pair_tuple(name: str, langpair: str) -> Tuple[TestSetInfo, str]:
    """The registry entry and pair (errors for unknown ones)."""
    info = get(name)
    _check_pair(info, langpair)
    return info, langpair
