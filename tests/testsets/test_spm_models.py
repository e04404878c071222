"""SentencePiece models in ``$SACREBLEU/models``: downloaded when missing (from a loopback server
here), the first copy's SHA-256 recorded, every later load checked against it."""

from __future__ import annotations

import hashlib
import http.server
import threading

import pytest

from bleukit.tokenizers import spm


class _Handler(http.server.BaseHTTPRequestHandler):
    data = b"not really a model, but bytes to fetch and check" * 100
    requests = 0

    def do_GET(self):  # noqa: N802
        type(self).requests += 1
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.data)))
        self.end_headers()
        self.wfile.write(self.data)

    def log_message(self, *args):
        pass


@pytest.fixture()
def served(tmp_path, monkeypatch):
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    _Handler.requests = 0
    url = f"http://127.0.0.1:{srv.server_address[1]}/m/flores200sacrebleuspm"
    monkeypatch.setitem(spm.SPM_MODELS, "flores200", ("BLEUKIT_SPM_MODEL_FLORES200", url))
    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    monkeypatch.delenv("BLEUKIT_SPM_MODEL_FLORES200", raising=False)
    monkeypatch.delenv("BLEUKIT_TESTSETS_OFFLINE", raising=False)
    yield tmp_path
    srv.shutdown()
    srv.server_close()


def test_downloaded_once_recorded_and_checked(served):
    path = spm.spm_model_path("flores200")
    assert path == str(served / "models" / "flores200sacrebleuspm")
    with open(path, "rb") as f:
        assert f.read() == _Handler.data
    with open(path + ".bleukit-sha256") as f:
        assert f.read().strip() == hashlib.sha256(_Handler.data).hexdigest()
    assert spm.spm_model_path("flores200") == path and _Handler.requests == 1
    with open(path, "r+b") as f:  # truncated since
        f.truncate(100)
    with pytest.raises(FileNotFoundError, match="is not the model first used .* truncated or replaced"):
        spm.spm_model_path("flores200")


def test_a_copy_sacrebleu_left_is_recorded_at_first_use(served):
    (served / "models").mkdir()
    (served / "models" / "flores200sacrebleuspm").write_bytes(b"sacreBLEU's copy")
    assert spm.spm_model_path("flores200").endswith("flores200sacrebleuspm") and _Handler.requests == 0
    assert (served / "models" / "flores200sacrebleuspm.bleukit-sha256").exists()


def test_offline_and_missing_says_where_to_put_it(served, monkeypatch):
    monkeypatch.setenv("BLEUKIT_TESTSETS_OFFLINE", "1")
    with pytest.raises(FileNotFoundError, match="BLEUKIT_SPM_MODEL_FLORES200=/path/to/file") as info:
        spm.spm_model_path("flores200")
    assert "\n" not in str(info.value) and _Handler.requests == 0
