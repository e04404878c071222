"""Raw test-set files → the text sacreBLEU 2.6 writes for each field, one segment per line.

Every reader returns exact lines (no line ends) as sacreBLEU's processing writes them:

- WMT "fake SGML" (and IWSLT XML, read the same way): each line that starts with ``<seg `` becomes
  its text (the regex ``<seg.*?>(.*)</seg>.*?``, then whitespace collapsed and stripped, entities
  left as they are); ``docid``/``genre``/``origlang`` come from the last ``<doc `` line carrying the
  attribute, repeated on each of its segments.
- WMT 2021+ XML: :func:`wmt_xml_fields` (documents with a ``testsuite`` attribute and segments
  without a non-empty reference skipped, one field per translator and per system).
- TSV: one column of each line; plain text: each line with trailing whitespace stripped.

>>> clean("  a \\t b\\n")
'a b'
"""

from __future__ import annotations

import re
from collections import OrderedDict

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (about 5 ms of a --echo run)
if TYPE_CHECKING:
    from typing import Dict, Iterable, List, Optional

__all__ = ["clean", "read_raw_lines", "sgml_text", "sgml_meta", "plain_text", "tsv_column", "wmt_xml_fields",
           "ref_field", "sgml_doc_lines"]

_WS = re.compile(r"\s+")
_SEG = re.compile(r"<seg.*?>(.*)</seg>.*?")


def clean(s: str) -> str:
    """sacreBLEU's clean-up of a segment: strip, then every whitespace run becomes one space."""
    return _WS.sub(" ", s.strip())


def read_raw_lines(path: str) -> List[str]:
    """A raw file's lines with their ``\\n`` (split on ``\\n`` only; ``.gz`` decompressed)."""
    if path.endswith(".gz"):
        import gzip

        with gzip.open(path, "rt", encoding="utf-8", newline="\n") as g:
            return list(g)
    with open(path, encoding="utf-8", newline="\n") as f:
        return list(f)


def sgml_text(lines: Iterable[str]) -> List[str]:
    """The segments of a fake-SGML (or IWSLT XML) file."""
    return [clean(_SEG.sub(r"\1", line)) for line in lines if line.startswith("<seg ")]


def sgml_meta(lines: Iterable[str], attribute: str) -> List[str]:
    """A ``<doc>`` attribute projected onto each segment (the last value seen when a doc lacks it)."""
    pattern = re.compile(rf'{attribute}="(.*?)"')
    value, out = "", []
    for line in lines:
        if line.startswith("<doc "):
            match = pattern.search(line)
            if match is not None:
                value = match.group(1)
        elif line.startswith("<seg "):
            out.append(value)
    return out


def sgml_doc_lines(lines: Iterable[str]) -> List[Optional[str]]:
    """Per segment, the ``<doc `` line it belongs to (``None`` before any), for --origlang/--subset."""
    doc: Optional[str] = None
    out: List[Optional[str]] = []
    for line in lines:
        if line.startswith("<doc "):
            doc = line
        if line.startswith("<seg "):
            out.append(doc)
    return out


def plain_text(lines: Iterable[str]) -> List[str]:
    """Plain-text lines, trailing whitespace stripped."""
    return [line.rstrip() for line in lines]


def tsv_column(lines: Iterable[str], index: int) -> List[str]:
    """Column ``index`` of each tab-separated line (an empty column stays an empty line)."""
    return [line.rstrip("\n").split("\t")[index] for line in lines]


def ref_field(translator: Optional[str]) -> str:
    """``ref:<translator>``, or ``ref`` for a reference without (or with an empty) translator."""
    return f"ref:{translator}" if translator else "ref"


def wmt_xml_fields(path: str) -> "OrderedDict[str, List[Optional[str]]]":
    """The fields of a WMT 2021+ ``*.all.xml`` file, uncleaned (sacreBLEU cleans them when writing).

    Order: ``src``, the references (``ref:<translator>`` sorted by translator, where sacreBLEU 2.6's
    order depends on the hash seed), ``docid``, ``origlang``, each system in order of appearance,
    then ``domain`` when the file's last kept document has one.
    """
    import xml.etree.ElementTree as ET

    root = ET.parse(path).getroot()
    src_langs = {e.get("lang") for e in root.iter("src")}
    ref_docs_all = list(root.iter("ref"))
    ref_langs = {e.get("lang") for e in ref_docs_all}
    if len(src_langs) != 1 or len(ref_langs) != 1:
        raise ValueError(f"{path}: expected one source and one reference language, found "
                         f"{len(src_langs)} and {len(ref_langs)}")
    translators = sorted({e.get("translator") for e in ref_docs_all}, key=lambda t: (t is not None, t or ""))
    refs: Dict[str, List[Optional[str]]] = {ref_field(t): [] for t in translators}
    src: List[Optional[str]] = []
    docids: List[Optional[str]] = []
    origlangs: List[Optional[str]] = []
    domains: List[Optional[str]] = []
    systems: "OrderedDict[str, List[Optional[str]]]" = OrderedDict()
    seen_domain = False

    def segments(element: ET.Element) -> Dict[int, str]:
        return {int(seg.get("id", "")): seg.text or "" for seg in element.iter("seg")}

    for doc in root.iter("doc"):
        if "testsuite" in doc.attrib:
            continue
        src_segs: Dict[int, Optional[str]] = {}
        for src_doc in doc.iter("src"):
            for seg in src_doc.iter("seg"):
                src_segs[int(seg.get("id", ""))] = seg.text
        by_translator = {r.get("translator"): segments(r) for r in doc.iter("ref")}
        hyps = {h.get("system"): segments(h) for h in doc.iter("hyp")}
        for seg_id in sorted(src_segs):
            if not any(sents.get(seg_id, "") for sents in by_translator.values()):
                continue
            for t in translators:
                refs[ref_field(t)].append(by_translator.get(t, {}).get(seg_id, ""))
            src.append(src_segs[seg_id])
            for system, hyp in hyps.items():
                systems.setdefault(str(system), []).append(hyp[seg_id])
            docids.append(doc.attrib["id"])
            origlangs.append(doc.attrib["origlang"])
            domains.append(doc.get("domain"))
            seen_domain = doc.get("domain") is not None
    fields: "OrderedDict[str, List[Optional[str]]]" = OrderedDict(src=src)
    fields.update(refs)
    fields["docid"] = docids
    fields["origlang"] = origlangs
    for system, sents in systems.items():
        fields[system] = sents
    if seen_domain:
        fields["domain"] = domains
    return fields
