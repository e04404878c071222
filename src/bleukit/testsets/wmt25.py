"""WMT25's general test set, which sacreBLEU 2.6 lacks (its issue #290), as ``-t wmt25 -l en-de_DE``.

The organisers release it as one JSON line per document, ``data/wmt25-genmt.jsonl`` in
wmt-conference/wmt25-general-mt: ``doc_id``, ``domain``, ``src_lang``, ``tgt_lang`` (``de_DE``),
``src_text`` and ``refs`` (``{"refA": {"ref": ...}}``, empty where a pair has no human reference),
paragraphs separated by a blank line. bleukit fetches it from a pinned commit and checks its git blob
id (``git hash-object``: content-addressed, so the pin is the file itself). A document's
paragraphs are its segments (whitespace collapsed, one per line); where a reference has another
number of paragraphs than the source, the document is one segment. Fields: ``src``, ``ref:refA``
(where the pair has references), ``docid``, ``domain``; the pair is ``<src_lang>-<tgt_lang>``.

>>> REGISTRY_ENTRY["wmt25"]["langpairs"]["en-de_DE"]
['wmt25.wmt25-genmt.jsonl']
>>> pair_fields_from_lines([json.dumps({"doc_id": "d", "domain": "news", "src_lang": "en", "tgt_lang": "de_DE",
...     "src_text": "A b.\\n\\nC.", "refs": {"refA": {"ref": "X.\\n\\nY  z."}}})], "en-de_DE")["ref:refA"]
['X.', 'Y z.']
"""

from __future__ import annotations

import json

from .formats import clean

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (about 5 ms of a --echo run)
if TYPE_CHECKING:
    from typing import Any, Dict, Iterable, List

__all__ = ["REGISTRY_ENTRY", "COMMIT", "GIT_BLOB", "LANGPAIRS", "pair_fields", "pair_fields_from_lines"]

#: wmt-conference/wmt25-general-mt, the commit bleukit's copy is taken from, and the file's git blob id
COMMIT = "ebae87369fc8931d7f1c6faf8192e8f04a480d1f"
GIT_BLOB = "f9b0c8a0033374a8cda8215edaa3e7b899c96505"
#: the pairs of the organisers' automatic scores (data/automatic_scores at that commit)
LANGPAIRS = ["cs-de_DE", "cs-uk_UA", "en-ar_EG", "en-bho_IN", "en-bn_BD", "en-cs_CZ", "en-de_DE", "en-el_GR",
             "en-et_EE", "en-fa_IR", "en-hi_IN", "en-id_ID", "en-is_IS", "en-it_IT", "en-ja_JP", "en-kn_IN",
             "en-ko_KR", "en-lt_LT", "en-mas_KE", "en-mr_IN", "en-ro_RO", "en-ru_RU", "en-sr_Cyrl_RS",
             "en-sr_Latn_RS", "en-sv_SE", "en-th_TH", "en-tr_TR", "en-uk_UA", "en-vi_VN", "en-zh_CN", "ja-zh_CN"]

REGISTRY_ENTRY: Dict[str, Any] = {
    "wmt25": {
        "format": "jsonl",
        "data": [f"https://raw.githubusercontent.com/wmt-conference/wmt25-general-mt/{COMMIT}/data/wmt25-genmt.jsonl"],
        "md5": [f"git-blob-sha1:{GIT_BLOB}"],
        "description": "WMT25 general MT test set (organisers' JSONL release; not in sacreBLEU 2.6)",
        "citation": None,
        "langpairs": {pair: ["wmt25.wmt25-genmt.jsonl"] for pair in LANGPAIRS},  # the download, as named
    }
}


def pair_fields_from_lines(lines: Iterable[str], langpair: str) -> Dict[str, List[str]]:
    """The fields of one pair from the JSONL lines."""
    src_lang, _, tgt_lang = langpair.partition("-")
    docs = [json.loads(line) for line in lines if line.strip()]
    docs = [d for d in docs if d.get("src_lang") == src_lang and d.get("tgt_lang") == tgt_lang]
    ref_names = sorted({name for d in docs for name in (d.get("refs") or {})})
    fields: Dict[str, List[str]] = {"src": []}
    fields.update({f"ref:{name}": [] for name in ref_names})
    fields["docid"], fields["domain"] = [], []
    for d in docs:
        src = d["src_text"].split("\n\n")
        refs = {name: (d.get("refs") or {}).get(name, {}).get("ref", "").split("\n\n") for name in ref_names}
        if any(len(r) != len(src) for r in refs.values()):
            src = [d["src_text"]]
            refs = {name: [" ".join(r)] for name, r in refs.items()}
        fields["src"] += [clean(s) for s in src]
        for name, paragraphs in refs.items():
            fields[f"ref:{name}"] += [clean(p) for p in paragraphs]
        fields["docid"] += [str(d["doc_id"])] * len(src)
        fields["domain"] += [str(d.get("domain", ""))] * len(src)
    return fields


def pair_fields(path: str, langpair: str) -> Dict[str, List[str]]:
    with open(path, encoding="utf-8") as f:
        return pair_fields_from_lines(f, langpair)


def fieldnames(path: str, langpair: str) -> List[str]:
    return list(pair_fields(path, langpair))
