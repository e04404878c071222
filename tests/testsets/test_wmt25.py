"""WMT25 (not in sacreBLEU 2.6) from a JSONL file in the organisers' format, fetched from a loopback
server with its git blob id checked: ``-t wmt25 -l en-de_DE`` with ``--echo``, scoring, documents."""

from __future__ import annotations

import io
import json
import shutil
import subprocess

import pytest
from loopback import serving
from shared_data import SHARED_DATA, read_lines

import bleukit.testsets as ts
from bleukit.cli import main as bleukit_main
from bleukit.testsets import download as tdownload
from bleukit.testsets.wmt25 import REGISTRY_ENTRY


def _jsonl() -> bytes:
    src = read_lines(SHARED_DATA / "wmt17-en-de" / "hyp.online-B.0.de")[:40]
    ref = read_lines(SHARED_DATA / "wmt17-en-de" / "ref.de")[:40]
    docs = []
    for k in range(0, 40, 8):
        docs.append({"doc_id": f"en-de_DE_#_news_#_d{k}", "domain": ("news", "social")[k % 16 // 8],
                     "src_lang": "en", "tgt_lang": "de_DE", "src_text": "\n\n".join(src[k:k + 8]),
                     "video": None, "screenshot": None, "refs": {"refA": {"ref": "\n\n".join(ref[k:k + 8])}}})
    docs.append({"doc_id": "cs-de_DE_#_x", "domain": "news", "src_lang": "cs", "tgt_lang": "de_DE",
                 "src_text": "Ahoj.\n\nSvěte.", "video": None, "screenshot": None, "refs": {}})
    return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs).encode("utf-8")


@pytest.fixture()
def wmt25(tmp_path, monkeypatch):
    data = _jsonl()
    path = tmp_path / "blob"
    path.write_bytes(data)
    blob = tdownload.checksum(str(path), tdownload.GIT_BLOB_PREFIX)
    with serving(data) as (base, _):
        record = dict(REGISTRY_ENTRY["wmt25"], md5=[blob], data=[f"{base}/x/wmt25-genmt.jsonl"])
        extra = tmp_path / "extra.json"
        extra.write_text(json.dumps({"testsets": {"wmt25": record}}), encoding="utf-8")
        monkeypatch.setenv("BLEUKIT_TESTSETS_EXTRA", str(extra))
        monkeypatch.setenv("SACREBLEU", str(tmp_path / "cache"))
        monkeypatch.delenv("BLEUKIT_TESTSETS_OFFLINE", raising=False)
        yield tmp_path, data, blob


def test_git_blob_id_is_gits(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("no git")
    path = tmp_path / "f"
    path.write_bytes(_jsonl())
    expected = subprocess.run(["git", "hash-object", str(path)], capture_output=True, text=True, check=True).stdout
    assert tdownload.checksum(str(path), "git-blob-sha1:x") == "git-blob-sha1:" + expected.strip()


def test_wmt25_echo_score_and_documents(wmt25):
    tmp, data, _ = wmt25
    t = ts.load("wmt25", "en-de_DE")
    assert (tmp / "cache" / "wmt25" / "raw" / "wmt25.wmt25-genmt.jsonl").read_bytes() == data
    assert len(t) == 40 and t.reference_names == ["ref:refA"]
    assert t.docids[:9] == ["en-de_DE_#_news_#_d0"] * 8 + ["en-de_DE_#_news_#_d8"]
    assert set(t.domain) == {"news", "social"}
    out = io.StringIO()
    assert bleukit_main(["-t", "wmt25", "-l", "en-de_DE", "--echo", "src", "docid"], stdout=out) == 0
    assert out.getvalue().splitlines()[0] == f"{t.source[0]}\t{t.docids[0]}"
    hyp = tmp / "hyp"
    hyp.write_text("".join(s + "\n" for s in read_lines(SHARED_DATA / "wmt17-en-de" / "hyp.KIT.4950.de")[:40]),
                   encoding="utf-8")
    ref = tmp / "ref"
    ref.write_text("".join(s + "\n" for s in t.references["ref:refA"]), encoding="utf-8")
    with_t, with_file = io.StringIO(), io.StringIO()
    assert bleukit_main(["-t", "wmt25", "-l", "en-de_DE", "-i", str(hyp), "-b"], stdout=with_t) == 0
    assert bleukit_main([str(ref), "-i", str(hyp), "-b"], stdout=with_file) == 0
    assert with_t.getvalue() == with_file.getvalue()
    listed = io.StringIO()
    assert bleukit_main(["--list", "-t", "wmt25", "-l", "en-de_DE"], stdout=listed) == 0
    assert listed.getvalue() == "en-de_DE: src, ref:refA, docid, domain\n"
    # a pair without human references: the source only
    assert ts.fields("wmt25", "cs-de_DE") == ["src", "docid", "domain"]


def test_wmt25_wrong_blob_is_refused(wmt25, monkeypatch):
    tmp, _, blob = wmt25
    extra = json.loads((tmp / "extra.json").read_text())
    extra["testsets"]["wmt25"]["md5"] = ["git-blob-sha1:" + "0" * 40]
    (tmp / "extra.json").write_text(json.dumps(extra))
    with pytest.raises(ts.CacheError, match="is " + blob + ", expected git-blob-sha1:0{40}"):
        ts.load("wmt25", "en-de_DE")
