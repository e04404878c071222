"""The test-set cache and downloads: registry facts, stale or truncated processed files, a cached
archive's checksum, and downloads from a loopback HTTP server serving real archives built at test
time (checksum mismatch, truncated transfer, two processes at once, no network). Offline."""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import testset_caches

import bleukit
import bleukit.testsets as ts
from bleukit.testsets import cache as tcache
from bleukit.testsets import download as tdownload
from bleukit.testsets import registry

PY = sys.executable
SRC = Path(__file__).resolve().parents[2] / "src"


class _Server(http.server.ThreadingHTTPServer):
    files: dict
    mode = "ok"
    delay = 0.0
    requests = 0


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        server = self.server
        server.requests += 1
        data = server.files.get(self.path)
        if data is None:
            self.send_error(404)
            return
        time.sleep(server.delay)
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2] if server.mode == "truncate" else data)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def archives(tmp_path_factory):
    """The real archives of the fake caches, by set: (archive name, bytes, md5)."""
    top = tmp_path_factory.mktemp("archives")
    testset_caches.build(top / "raw", extract=False)
    out = {}
    for name in ("wmt17", "wmt22"):
        raw = top / "raw" / name / "raw"
        (archive,) = [p for p in raw.iterdir() if p.suffix in (".tgz", ".gz")]
        data = archive.read_bytes()
        out[name] = (archive.name, data, hashlib.md5(data).hexdigest())
    return out


@pytest.fixture()
def server(archives):
    srv = _Server(("127.0.0.1", 0), _Handler)
    # served under the upstream basename: sacreBLEU's archive name is <set>.<basename of URL>
    srv.files = {f"/{name}/{arc.split('.', 1)[1]}": data for name, (arc, data, _) in archives.items()}
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _extra(path: Path, server, archives, md5=None, url=None) -> Path:
    records = json.loads((SRC / "bleukit" / "testsets" / "registry.json").read_text(encoding="utf-8"))["testsets"]
    sets = {}
    for name in ("wmt17", "wmt22"):
        arc, _, digest = archives[name]
        base = arc.split(".", 1)[1]
        u = f"{url}/{base}" if url else f"http://127.0.0.1:{server.server_address[1]}/{name}/{base}"
        sets[name] = dict(records[name], data=[u], md5=[md5 or digest])
    path.write_text(json.dumps({"testsets": sets}), encoding="utf-8")
    return path


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("SACREBLEU", str(root))
    monkeypatch.delenv("BLEUKIT_TESTSETS_OFFLINE", raising=False)
    tdownload._VERIFIED.clear()
    tcache._XML_CACHE.clear()
    return root


def test_registry_holds_sacrebleus_67_sets_with_checksums():
    names = list(registry.SACREBLEU_TESTSETS)
    assert len(names) == 67 and names[0] == "wmt24"
    infos = [registry.get(n) for n in names]
    urls = [u for i in infos for u in i.data]
    assert len(urls) == 128 and all(len(m or "") == 32 for i in infos for m in i.md5)
    assert sum(1 for i in infos if i.citation) == 28
    assert sum(len(i.langpairs) for i in infos) == 452
    assert registry.get("wmt22").pair_refs("de-en") == ["A"] and registry.get("wmt23").pair_refs("en-he") == ["refB"]
    assert registry.subsets("wmt19") and not registry.subsets("wmt17")


def test_registry_file_is_what_the_tool_generates():
    pytest.importorskip("sacrebleu")
    sys.path.insert(0, str(SRC.parent / "tools"))
    try:
        import testsets_registry
    finally:
        sys.path.pop(0)
    assert testsets_registry.main(["--check"]) == 0


def test_download_checks_extracts_processes_and_sacrebleu_reads_it(cache, server, archives, tmp_path, monkeypatch):
    monkeypatch.setenv("BLEUKIT_TESTSETS_EXTRA", str(_extra(tmp_path / "x.json", server, archives)))
    got = ts.load("wmt17", "en-de")
    assert server.requests == 1
    assert (cache / "wmt17" / "raw" / "wmt17.test.tgz").read_bytes() == archives["wmt17"][1]
    assert (cache / "wmt17" / "raw" / "test" / "newstest2017-ende-src.en.sgm").exists()
    assert len(got) == testset_caches.N and got.docids[0] == "doc0" and got.origlang[13] == "de"
    assert not [p for p in (cache / "wmt17").rglob("*") if ".part" in p.name or ".extract" in p.name]
    # sacreBLEU uses what bleukit fetched, as it is (no network: it would fail to download)
    pytest.importorskip("sacrebleu")
    proc = subprocess.run([PY, str(Path(__file__).parent / "sacrebleu_oracle.py")],
                          input=b'[["-t", "wmt17", "-l", "en-de", "--echo", "src"]]',
                          env=dict(os.environ, SACREBLEU=str(cache)), capture_output=True, check=True)
    assert json.loads(proc.stdout)[0]["stdout"] == "".join(s + "\n" for s in got.source)
    # a second load reads the processed files: no request
    assert ts.load("wmt17", "en-de").fields == got.fields and server.requests == 1


def test_checksum_mismatch_keeps_nothing(cache, server, archives, tmp_path, monkeypatch):
    monkeypatch.setenv("BLEUKIT_TESTSETS_EXTRA", str(_extra(tmp_path / "x.json", server, archives, md5="0" * 32)))
    with pytest.raises(ts.CacheError, match="md5 of http://127.0.0.1.* is [0-9a-f]{32}, expected 0{32}"):
        ts.load("wmt17", "en-de")
    assert [p.name for p in (cache / "wmt17" / "raw").iterdir()] == ["wmt17.test.tgz.lock"]


def test_truncated_transfer_keeps_nothing(cache, server, archives, tmp_path, monkeypatch):
    monkeypatch.setenv("BLEUKIT_TESTSETS_EXTRA", str(_extra(tmp_path / "x.json", server, archives)))
    server.mode = "truncate"
    with pytest.raises(ts.CacheError, match="cut short|cannot download"):
        ts.load("wmt22", "de-en")
    assert [p.name for p in (cache / "wmt22" / "raw").iterdir()] == ["wmt22.v1.1.tar.gz.lock"]
    server.mode = "ok"
    assert len(ts.load("wmt22", "de-en")) == testset_caches.N - 1


def test_two_processes_fetch_once(cache, server, archives, tmp_path, monkeypatch):
    extra = _extra(tmp_path / "x.json", server, archives)
    server.delay = 0.5
    env = dict(os.environ, SACREBLEU=str(cache), BLEUKIT_TESTSETS_EXTRA=str(extra), PYTHONPATH=str(SRC))
    code = "import bleukit.testsets as t; print(len(t.load('wmt22', 'de-en')))"
    procs = [subprocess.Popen([PY, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(2)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert [o[0].strip() for o in outs] == [str(testset_caches.N - 1).encode()] * 2
    assert server.requests == 1


def test_no_network_is_one_line_naming_the_url(cache, server, archives, tmp_path, monkeypatch):
    monkeypatch.setenv("BLEUKIT_TESTSETS_EXTRA", str(_extra(tmp_path / "x.json", server, archives,
                                                            url="http://127.0.0.1:9")))
    with pytest.raises(ts.CacheError) as info:
        ts.load("wmt17", "en-de")
    message = str(info.value)
    assert "\n" not in message and "http://127.0.0.1:9/test.tgz" in message and "by hand" in message
    assert str(cache / "wmt17" / "raw" / "wmt17.test.tgz") in message


@pytest.fixture()
def filled(cache, tmp_path, monkeypatch):
    """A raw cache (extracted archives) and its extra registry."""
    extra = testset_caches.build(cache)
    monkeypatch.setenv("BLEUKIT_TESTSETS_EXTRA", str(extra))
    monkeypatch.setenv("BLEUKIT_TESTSETS_OFFLINE", "1")
    return cache


def test_cached_archive_checksum_is_checked_before_processing(filled):
    (filled / "wmt17" / "raw" / "wmt17.test.tgz").write_bytes(b"x")  # sacreBLEU 2.6 would accept it
    with pytest.raises(ts.CacheError, match="md5 of the cached .*wmt17.test.tgz"):
        ts.load("wmt17", "en-de")


@pytest.mark.parametrize("damage", ["cut mid-line", "one line short", "manifest size", "raw file newer"])
def test_truncated_or_stale_processed_files_are_remade(filled, damage):
    good = ts.load("wmt17", "en-de").fields
    ref = filled / "wmt17" / "wmt17.en-de.ref"
    data = ref.read_bytes()
    if damage == "cut mid-line":
        ref.write_bytes(data[: len(data) // 2])
    elif damage == "one line short":  # as sacreBLEU left it: no manifest, whole lines
        (filled / "wmt17" / ".wmt17.en-de.bleukit.json").unlink()
        ref.write_bytes(data[: data.rindex(b"\n", 0, len(data) - 1) + 1])
    elif damage == "raw file newer":  # as sacreBLEU left it from an earlier download: whole, same length
        (filled / "wmt17" / ".wmt17.en-de.bleukit.json").unlink()
        ref.write_bytes(data.replace(b"Die", b"Das", 1))
        raw = filled / "wmt17" / "raw" / "test" / "newstest2017-ende-ref.de.sgm"
        fresh = raw.with_name(raw.name + ".new")  # extracted again afterwards (a new inode: a newer ctime)
        fresh.write_bytes(raw.read_bytes())
        fresh.replace(raw)
    else:  # the same number of lines, but not what bleukit wrote
        ref.write_bytes(data.replace(b"Die", b"Das", 1) + b"")
        ref.write_bytes(ref.read_bytes()[:-2] + b"\n")
    assert ts.load("wmt17", "en-de").fields == good
    assert ref.read_bytes() == data


def test_truncated_processed_file_without_raw_files_is_an_error(filled):
    ts.load("wmt17", "en-de")
    ref = filled / "wmt17" / "wmt17.en-de.ref"
    ref.write_bytes(ref.read_bytes()[:100])
    shutil.rmtree(filled / "wmt17" / "raw")
    with pytest.raises(ts.CacheError, match=r"truncated or stale .*\(rm -r "):
        ts.load("wmt17", "en-de")


def test_api_fields_filters_and_concatenation(filled):
    t = ts.load("wmt22", "de-en")
    assert list(t.fields)[:6] == ["src", "ref:A", "ref:B", "docid", "origlang", "JDExploreAcademy"]
    assert list(t.fields)[-1] == "domain" and t.reference_names == ["ref:A"]
    assert set(t.systems) == {"JDExploreAcademy", "Online-A"} and t.domain == t.fields["domain"]
    assert t.reference_streams == [t.references["ref:A"]]
    de = ts.load("wmt22", "de-en", origlang="de")
    assert set(de.origlang) == {"de"} and len(de) + len(ts.load("wmt22", "de-en", origlang="non-de")) == len(t)
    news = ts.load("wmt22", "de-en", subset="news")
    assert set(news.domain) == {"news"}
    twice = ts.load("wmt22,wmt22", "de-en")
    assert twice.source == t.source * 2
    assert ts.fields("wmt17", "en-de") == ["src", "ref", "docid", "genre", "origlang"]
    assert ts.citation("wmt17").startswith("@") and ts.description("wmt22")
    with pytest.raises(ts.RegistryError, match="No such language pair wmt17/xx-yy"):
        ts.load("wmt17", "xx-yy")
    # the scoring functions take the test set's streams
    import bleukit

    hyps = t.systems["Online-A"]
    from bleukit.sacrebleu import corpus_bleu as sacrebleu_corpus_bleu

    expected = sacrebleu_corpus_bleu(hyps, t.reference_streams).score
    assert bleukit.corpus_bleu(hyps, t).score == expected > 0
    assert bleukit.corpus_chrf(hyps, t).score == sacrebleu_corpus_bleu.__globals__["corpus_chrf"](
        hyps, t.reference_streams).score
    assert len(bleukit.sentence_bleu_scores(hyps, t)) == len(t)
    both = ts.load("wmt22", "de-en")
    both.reference_names = ["ref:A", "ref:B"]  # two references per segment
    assert bleukit.corpus_bleu(hyps, both).score == sacrebleu_corpus_bleu(hyps, both.reference_streams).score
    assert type(bleukit.compare_systems({"a": hyps, "b": t.systems["JDExploreAcademy"]}, t)).__name__ == \
        "SystemComparison"


def test_the_report_scores_against_a_test_set_and_shows_its_source(filled):
    t = ts.load("wmt22", "de-en")
    systems = list(t.systems.items())
    keywords = dict(n_samples=50, n_bootstrap=20, n_examples=3, n_explained=1)
    report = bleukit.build_report(systems, t, **keywords)
    assert report.data == bleukit.build_report(systems, t.reference_entries, sources=t.source, **keywords).data
    lines = report.data["differences"]["lines"]
    assert len(lines) == 3 and [x["source"] for x in lines] == [t.source[x["line"] - 1] for x in lines]


def test_cached_archive_without_its_files_is_extracted(cache, monkeypatch):
    """sacreBLEU 2.6 extracts only right after a download: an archive alone is never unpacked."""
    monkeypatch.setenv("BLEUKIT_TESTSETS_EXTRA", str(testset_caches.build(cache, extract=False)))
    monkeypatch.setenv("BLEUKIT_TESTSETS_OFFLINE", "1")
    assert not (cache / "wmt22" / "raw" / "wmt22-news-systems-1.1").exists()
    assert len(ts.load("wmt22", "de-en")) == testset_caches.N - 1
    assert (cache / "wmt22" / "raw" / "wmt22-news-systems-1.1" / "xml" / "wmttest2022.de-en.all.xml").exists()
    assert not [p for p in (cache / "wmt22" / "raw").iterdir() if p.name.startswith(".extract")]
