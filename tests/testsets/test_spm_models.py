"""SentencePiece models in ``$SACREBLEU/models``: downloaded when missing (from a loopback server
here), the first copy's SHA-256 recorded, every later load checked against it."""

from __future__ import annotations

import hashlib

import pytest
from loopback import serving

from bleukit.tokenizers import spm

MODEL = b"not really a model, but bytes to fetch and check" * 100


@pytest.fixture()
def served(tmp_path, monkeypatch):
    """The cache folder and the list of GETs, with the model served on loopback."""
    with serving(MODEL) as (base, requests):
        url = f"{base}/m/flores200sacrebleuspm"
        monkeypatch.setitem(spm.SPM_MODELS, "flores200", ("BLEUKIT_SPM_MODEL_FLORES200", url))
        monkeypatch.setenv("SACREBLEU", str(tmp_path))
        monkeypatch.delenv("BLEUKIT_SPM_MODEL_FLORES200", raising=False)
        monkeypatch.delenv("BLEUKIT_TESTSETS_OFFLINE", raising=False)
        yield tmp_path, requests


def test_downloaded_once_recorded_and_checked(served):
    folder, requests = served
    path = spm.spm_model_path("flores200")
    assert path == str(folder / "models" / "flores200sacrebleuspm")
    with open(path, "rb") as f:
        assert f.read() == MODEL
    with open(path + ".bleukit-sha256") as f:
        assert f.read().strip() == hashlib.sha256(MODEL).hexdigest()
    assert spm.spm_model_path("flores200") == path and len(requests) == 1
    with open(path, "r+b") as f:  # truncated since
        f.truncate(100)
    with pytest.raises(FileNotFoundError, match="is not the model first used .* truncated or replaced"):
        spm.spm_model_path("flores200")


def test_a_copy_sacrebleu_left_is_recorded_at_first_use(served):
    folder, requests = served
    (folder / "models").mkdir()
    (folder / "models" / "flores200sacrebleuspm").write_bytes(b"sacreBLEU's copy")
    assert spm.spm_model_path("flores200").endswith("flores200sacrebleuspm") and requests == []
    assert (folder / "models" / "flores200sacrebleuspm.bleukit-sha256").exists()


def test_offline_and_missing_says_where_to_put_it(served, monkeypatch):
    _, requests = served
    monkeypatch.setenv("BLEUKIT_TESTSETS_OFFLINE", "1")
    with pytest.raises(FileNotFoundError, match="BLEUKIT_SPM_MODEL_FLORES200=/path/to/file") as info:
        spm.spm_model_path("flores200")
    assert "\n" not in str(info.value) and requests == []
