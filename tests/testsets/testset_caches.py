"""sacreBLEU test-set caches built at test time from the real lines in ../shared/data, in the real
raw formats: a WMT fake-SGML pair with document attributes (wmt17 en-de), WMT 2021+ XML files with
two translators, systems, a testsuite document, a segment without references, origlang and domain
(wmt22 de-en; cs-en, whose registry entry names its reference), a TSV (mtnt2019 en-fr) and plain
text (multi30k/2016 en-fr), each with the archive sacreBLEU would have downloaded.

The archives are not the registered ones, so their md5s differ from sacreBLEU's registry: an
``extra`` registry file (``$BLEUKIT_TESTSETS_EXTRA``) records theirs for bleukit, which checks a
cached archive (sacreBLEU does not).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tarfile
from pathlib import Path
from typing import Dict, List, Sequence
from xml.sax.saxutils import escape, quoteattr

from shared_data import SHARED_DATA, read_lines

#: sacreBLEU run as the oracle with a hash seed where its set of translators iterates A before B
#: (2.6's order depends on the seed; bleukit sorts them)
ORACLE_HASH_SEED = "5"
N = 120  # segments per set: enough documents, a fast oracle
_SIZE = [N]  # what build(n=...) asks for (the benchmark takes whole files)


def _lines(folder: str, name: str, n: int = 0) -> List[str]:
    return read_lines(SHARED_DATA / folder / name)[: n or _SIZE[0]]


def _tgz(path: Path, files: Dict[str, bytes]) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            tar.addfile(info, io.BytesIO(data))


def _sgml(kind: str, lines: List[str], docs: List[Dict[str, str]], per_doc: int,
          docids: Sequence[str] = ()) -> bytes:
    out = [f'<{kind}set setid="newstest2017" srclang="any">']
    for d, start in enumerate(range(0, len(lines), per_doc)):
        attrs = docs[d % len(docs)]
        docid = docids[d % len(docids)] if docids else f"doc{d}"
        out.append("<doc " + " ".join(f'{k}="{v}"' for k, v in attrs.items()) + f' docid="{docid}">')
        out.append("<p>")
        for k, line in enumerate(lines[start:start + per_doc], start + 1):
            text = escape(line)
            if k % 7 == 0:
                text = f"  {text}   with \t extra  space "  # sacreBLEU's clean-up
            out.append(f'<seg id="{k}">{text}</seg>')
        out.append("</p>")
        out.append("</doc>")
    out.append(f"</{kind}set>")
    return ("\n".join(out) + "\n").encode("utf-8")


def _wmt17() -> Dict[str, Dict[str, bytes]]:
    src = _lines("wmt17-en-de", "hyp.online-A.0.de")
    ref = _lines("wmt17-en-de", "ref.de")
    docs = [{"sysid": "ref", "genre": "news", "origlang": "en"}, {"sysid": "ref", "genre": "news", "origlang": "de"},
            {"sysid": "ref", "genre": "blog", "origlang": "de"}]
    return {"wmt17.test.tgz": {"test/newstest2017-ende-src.en.sgm": _sgml("src", src, docs, 13),
                               "test/newstest2017-ende-ref.de.sgm": _sgml("ref", ref, docs, 13)}}


def _wmt19() -> Dict[str, Dict[str, bytes]]:
    """wmt19 de-en with the document ids of sacreBLEU's country/domain annotations (--subset, -d)."""
    registry = json.loads((Path(__file__).resolve().parents[2] / "src" / "bleukit" / "testsets" /
                           "registry.json").read_text(encoding="utf-8"))
    docids = list(registry["subsets"]["wmt19"])[:12] + ["not.annotated.1"]
    src = _lines("wmt22-de-en", "hyp.LT22.en")
    ref = _lines("wmt22-de-en", "ref.A.en")
    docs = [{"sysid": "ref", "origlang": "de"}, {"sysid": "ref", "origlang": "en"}]
    return {"wmt19.test.tgz": {"sgm/newstest2019-deen-src.de.sgm": _sgml("src", src, docs, 9, docids),
                               "sgm/newstest2019-deen-ref.en.sgm": _sgml("ref", ref, docs, 9, docids)}}


def _xml(pair: str, src: List[str], refs: Dict[str, List[str]], systems: Dict[str, List[str]],
         domain: bool) -> bytes:
    sl, tl = pair.split("-")
    out = ['<?xml version="1.0" encoding="utf-8"?>', '<dataset id="wmttest2022">']
    per_doc = 11
    for d, start in enumerate(range(0, len(src), per_doc)):
        attrs = f'id="doc{d}" origlang="{(sl, tl)[d % 2]}"'
        if domain:
            attrs += f' domain="{("news", "social", "ecommerce")[d % 3]}"'
        out.append(f"  <doc {attrs}>")
        ids = range(start, min(start + per_doc, len(src)))

        def block(tag: str, extra: str, lines: List[str], skip=(), ids=ids):
            out.append(f"    <{tag} {extra}>")
            out.append("      <p>")
            for i in ids:
                text = "" if i in skip else escape(lines[i])
                out.append(f'        <seg id="{i + 1}">{text}</seg>')
            out.append("      </p>")
            out.append(f"    </{tag}>")

        block("src", f'lang="{sl}"', src)
        for t, lines in refs.items():
            # segment 5 has no reference at all (skipped); segment 8 only B's
            skip = {4} | ({7} if t == "A" else set())
            block("ref", f'lang="{tl}" translator={quoteattr(t)}' if t else f'lang="{tl}"', lines, skip)
        for name, lines in systems.items():
            block("hyp", f'lang="{tl}" system={quoteattr(name)}', lines)
        out.append("  </doc>")
    out.append('  <doc id="ts-1" origlang="en" testsuite="challenge">')
    out.append(f'    <src lang="{sl}"><p><seg id="1">testsuite only</seg></p></src>')
    out.append("  </doc>")
    out.append("</dataset>")
    return ("\n".join(out) + "\n").encode("utf-8")


def _wmt22() -> Dict[str, Dict[str, bytes]]:
    src = _lines("wmt22-de-en", "hyp.LT22.en")
    ref_a, ref_b = _lines("wmt22-de-en", "ref.A.en"), _lines("wmt22-de-en", "ref.B.en")
    systems = {"JDExploreAcademy": _lines("wmt22-de-en", "hyp.JDExploreAcademy.en"),
               "Online-A": _lines("wmt22-de-en", "hyp.Online-A.en")}
    zh_a = _lines("wmt22-en-zh", "ref.A.zh", 60)
    zh_b = _lines("wmt22-en-zh", "ref.B.zh", 60)
    prefix = "wmt22-news-systems-1.1/xml/"
    return {"wmt22.v1.1.tar.gz": {
        prefix + "wmttest2022.de-en.all.xml": _xml("de-en", src, {"B": ref_b, "A": ref_a}, systems, True),
        prefix + "wmttest2022.cs-en.all.xml": _xml("cs-en", src[:60], {"B": ref_b[:60]}, {}, False),
        prefix + "wmttest2022.en-zh.all.xml": _xml("en-zh", src[:60], {"A": zh_a, "B": zh_b},
                                                   {"LanguageX": _lines("wmt22-en-zh", "hyp.LanguageX.zh", 60)},
                                                   False),
    }}


def _iwslt_xml(kind: str, lang: str, lines: List[str]) -> bytes:
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<mteval>", f'<{kind}set setid="iwslt2017-test" srclang="english"'
           f' trglang="french" lang="{lang}">']
    for d, start in enumerate(range(0, len(lines), 10)):
        out += [f'<doc docid="{1000 + d}" genre="lectures">', "<url>http://www.ted.com/talks/x</url>",
                f"<talkid>{1000 + d}</talkid>", "<title>A talk</title>"]
        out += [f'<seg id="{k}"> {escape(t)} </seg>' for k, t in enumerate(lines[start:start + 10], start + 1)]
        out.append("</doc>")
    out += [f"</{kind}set>", "</mteval>"]
    return ("\n".join(out) + "\n").encode("utf-8")


def _iwslt17() -> Dict[str, Dict[str, bytes]]:
    src, ref = _lines("wmt17-en-de", "hyp.uedin-nmt.4722.de"), _lines("wmt17-en-de", "ref.de")
    # the reference of en-fr is the source file of the fr-en archive
    return {"iwslt17.en-fr.tgz": {"en-fr/IWSLT17.TED.tst2017.en-fr.en.xml": _iwslt_xml("src", "en", src)},
            "iwslt17.fr-en.tgz": {"fr-en/IWSLT17.TED.tst2017.fr-en.fr.xml": _iwslt_xml("src", "fr", ref)}}


def _google_ar() -> Dict[str, Dict[str, bytes]]:
    """WMT19's paraphrased references: an SGML source in an archive and a plain-text reference file."""
    src, ref = _lines("wmt17-en-de", "hyp.online-B.0.de"), _lines("wmt17-en-de", "ref.de")
    docs = [{"sysid": "ref", "origlang": "en"}]
    return {"wmt19_google_ar.test.tgz": {"sgm/newstest2019-ende-src.en.sgm": _sgml("src", src, docs, 20)},
            "wmt19_google_ar.wmt19-ende-ar.ref": {"": "".join(f"{r} \n" for r in ref).encode("utf-8")}}


def _mtnt() -> Dict[str, Dict[str, bytes]]:
    src, ref = _lines("kftt-en-ja", "hyp.ja"), _lines("kftt-en-ja", "ref.ja")
    rows = [f"{k}\t{k * 3}\t{s}\t{r}\n" for k, (s, r) in enumerate(zip(src, ref))]
    rows[3] = "3\t9\t\t\n"  # an empty source and reference, as MTNT2019 ja-en line 632
    return {"mtnt2019.MTNT2019.tar.gz": {"MTNT2019/en-fr.final.tsv": "".join(rows).encode("utf-8")}}


def _multi30k() -> Dict[str, Dict[str, bytes]]:
    src, ref = _lines("wmt17-en-de", "hyp.KIT.4950.de"), _lines("wmt17-en-de", "ref.de")
    return {"multi30k_2016.multi30k_test_sets_d3ec2a38.tar.gz": {
        "test_2016_flickr.en": "".join(f"{s}  \n" for s in src).encode("utf-8"),
        "test_2016_flickr.fr": "".join(f"{r}\n" for r in ref).encode("utf-8")}}


#: set -> archive name -> {member: bytes}
def archives() -> Dict[str, Dict[str, Dict[str, bytes]]]:
    return {"wmt17": _wmt17(), "wmt19": _wmt19(), "wmt22": _wmt22(), "mtnt2019": _mtnt(),
            "multi30k/2016": _multi30k(), "iwslt17": _iwslt17(), "wmt19/google/ar": _google_ar()}


def build(root: Path, extract: bool = True, n: int = N) -> Path:
    """A raw cache at ``root`` (archives, extracted unless ``extract`` is false) of ``n`` segments
    per set and the extra registry with the archives' md5s next to it; returns the registry's path."""
    _SIZE[0] = n
    registry = json.loads((Path(__file__).resolve().parents[2] / "src" / "bleukit" / "testsets" /
                           "registry.json").read_text(encoding="utf-8"))["testsets"]
    extra = {}
    for name, per_archive in archives().items():
        raw = root / name / "raw"
        raw.mkdir(parents=True, exist_ok=True)
        md5s = []
        for url in registry[name]["data"]:
            # every download of the set is there (sacreBLEU fetches the missing ones): a stand-in
            # archive for the pairs not built here
            archive = name.replace("/", "_") + "." + os.path.basename(url)
            members = per_archive.get(archive, {"placeholder.txt": b"not used\n"})
            if "" in members:  # a plain file, stored as downloaded
                (raw / archive).write_bytes(members[""])
            else:
                _tgz(raw / archive, members)
                if extract:
                    for member, data in members.items():
                        (raw / member).parent.mkdir(parents=True, exist_ok=True)
                        (raw / member).write_bytes(data)
            md5s.append(hashlib.md5((raw / archive).read_bytes()).hexdigest())
        extra[name] = dict(registry[name], md5=md5s)
    path = root.parent / f"{root.name}.extra.json"
    path.write_text(json.dumps({"testsets": extra}), encoding="utf-8")
    return path


def copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def environment(root: Path, extra: Path, **more: str) -> Dict[str, str]:
    env = dict(os.environ, SACREBLEU=str(root), BLEUKIT_TESTSETS_EXTRA=str(extra), NO_COLOR="1",
               BLEUKIT_TESTSETS_OFFLINE="1", PYTHONHASHSEED=ORACLE_HASH_SEED)
    env.update(more)
    return env
