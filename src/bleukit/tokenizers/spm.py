"""SentencePiece tokenizers of spBLEU: ``flores101``, ``flores200``, ``spBLEU-1K`` and ``spm``
(sacreBLEU's old name for ``flores101``, whose signature it prints) (extra ``bleukit[spm]``).

The model file is ``model_file=``, or the environment variable ``BLEUKIT_SPM_MODEL_FLORES101`` /
``BLEUKIT_SPM_MODEL_FLORES200`` / ``BLEUKIT_SPM_MODEL_SPBLEU_1K``, or else the copy in
sacreBLEU's cache (``$SACREBLEU/models/``, default ``~/.sacrebleu/models/``), downloaded there as
sacreBLEU does when it is missing (locked, atomic; ``BLEUKIT_TESTSETS_OFFLINE=1`` forbids it).
sacreBLEU pins no checksum for these models, so the cache records the SHA-256 of the copy the
first time bleukit downloads or reads it (``<model>.bleukit-sha256``) and every later load is
checked against it: a truncated or replaced model is an error, not a different score. With the same model
file the tokens are sacreBLEU's (``" ".join(EncodeAsPieces(line))``). The compiled kernel does not
implement them, so statistics come from the Python engine.

>>> import os
>>> from unittest import mock
>>> with mock.patch.dict(os.environ, {"BLEUKIT_SPM_MODEL_FLORES200": "/nonexistent.model"}):
...     try:
...         TokenizerSPM("flores200")
...     except FileNotFoundError as err:
...         print(str(err).split(":")[0])
BLEUKIT_SPM_MODEL_FLORES200 names /nonexistent.model, which does not exist
"""

from __future__ import annotations

import os
from typing import Optional

from .base import Tokenizer

__all__ = ["TokenizerSPM", "TokenizerFlores101", "TokenizerFlores200", "TokenizerSpm", "TokenizerSpBLEU1K",
           "SPM_MODELS", "spm_model_path"]

#: name -> (environment variable, sacreBLEU's download URL; its basename is the cached file name)
SPM_MODELS = {
    "flores101": (
        "BLEUKIT_SPM_MODEL_FLORES101",
        "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model",
    ),
    "flores200": ("BLEUKIT_SPM_MODEL_FLORES200", "https://tinyurl.com/flores200sacrebleuspm"),
    "spBLEU-1K": ("BLEUKIT_SPM_MODEL_SPBLEU_1K", "https://www.dlnlp.ai/spBLEU-1K/spbleu-1k_tokenizer_spm.model"),
}
#: sacreBLEU's ``spm``: the FLORES-101 model under its old name
_ALIASES = {"spm": "flores101"}


def spm_model_path(name: str, model_file: Optional[str] = None, download: bool = True) -> str:
    """The model file for ``name``: the argument, the environment variable, or sacreBLEU's cached
    copy (downloaded when missing unless ``download`` is false: then a missing one is an error).

    >>> spm_model_path("flores101", model_file=__file__) == __file__
    True
    """
    name = _ALIASES.get(name, name)
    if name not in SPM_MODELS:
        raise ValueError(f"unknown SentencePiece tokenizer {name!r}; choose one of {', '.join(SPM_MODELS)}")
    env, url = SPM_MODELS[name]
    if model_file is not None:
        path = os.fspath(model_file)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"model_file {path} does not exist")
        return path
    from_env = os.environ.get(env)
    if from_env:
        if not os.path.isfile(from_env):
            raise FileNotFoundError(f"{env} names {from_env}, which does not exist")
        return from_env
    sacrebleu_dir = os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))
    cached = os.path.join(sacrebleu_dir, "models", os.path.basename(url))
    if not os.path.isfile(cached) and not download:
        raise FileNotFoundError(f"tokenize={name!r}: no model at {cached} (and no download asked for)")
    if not os.path.isfile(cached):
        from ..testsets.download import CacheError, file_lock
        from ..testsets.download import download as fetch

        try:
            with file_lock(f"{cached}.lock"):
                if not os.path.isfile(cached):
                    fetch(url, cached, None)
        except CacheError as err:
            raise FileNotFoundError(
                f"tokenize={name!r} needs its SentencePiece model file ({err}): set {env}=/path/to/file "
                f"(or pass model_file=, or put the file at {cached})"
            ) from None
    _check_recorded(cached)
    return cached


def _sha256(path: str) -> str:
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _check_recorded(path: str) -> None:
    """The model's SHA-256 against the one recorded at its first use (recorded now if none is)."""
    record = f"{path}.bleukit-sha256"
    digest = _sha256(path)
    try:
        with open(record, encoding="ascii") as f:
            expected = f.read().strip()
    except OSError:
        tmp = f"{record}.tmp{os.getpid()}"
        with open(tmp, "w", encoding="ascii") as f:
            f.write(digest + "\n")
        os.replace(tmp, record)
        return
    if digest != expected:
        raise FileNotFoundError(
            f"{path} is not the model first used (SHA-256 {digest}, recorded {expected} in {record}): it is "
            "truncated or replaced; remove both files to download it again"
        )


class TokenizerSPM(Tokenizer):
    """spBLEU tokenization: SentencePiece pieces joined by spaces (sacreBLEU's ``TokenizerSPM``)."""

    def __init__(self, name: str = "flores200", model_file: Optional[str] = None) -> None:
        path = spm_model_path(name, model_file)
        try:
            import sentencepiece
        except ImportError as err:
            raise ImportError(
                f"tokenize={name!r} needs sentencepiece: pip install 'bleukit[spm]'"
            ) from err
        self.name = name
        self.model_file = path
        self._sp = sentencepiece.SentencePieceProcessor()
        self._sp.Load(path)

    def __call__(self, line: str) -> str:
        return " ".join(self._sp.EncodeAsPieces(line))

    # A copy (pickle, deepcopy) loads the model file again rather than relying on whether this
    # sentencepiece version can pickle its processor.
    def __getstate__(self) -> dict:
        return {"name": self.name, "model_file": self.model_file}

    def __setstate__(self, state: dict) -> None:
        TokenizerSPM.__init__(self, state["name"], state["model_file"])

    def __repr__(self) -> str:
        return f"TokenizerSPM({self.name!r}, model_file={self.model_file!r})"


class TokenizerFlores101(TokenizerSPM):
    """``flores101``: spBLEU with the FLORES-101 SentencePiece model."""

    def __init__(self, model_file: Optional[str] = None) -> None:
        super().__init__("flores101", model_file)


class TokenizerFlores200(TokenizerSPM):
    """``flores200``: spBLEU with the FLORES-200 SentencePiece model."""

    def __init__(self, model_file: Optional[str] = None) -> None:
        super().__init__("flores200", model_file)


class TokenizerSpm(TokenizerSPM):
    """``spm``: sacreBLEU's first name for ``flores101`` (the same model; its signature says flores101)."""

    def __init__(self, model_file: Optional[str] = None) -> None:
        super().__init__("spm", model_file)

    def signature(self) -> str:
        return "flores101"


class TokenizerSpBLEU1K(TokenizerSPM):
    """``spBLEU-1K``: spBLEU with the SentencePiece model of 1,000 languages (sacreBLEU 2.4+)."""

    def __init__(self, model_file: Optional[str] = None) -> None:
        super().__init__("spBLEU-1K", model_file)
