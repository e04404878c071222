"""Fetching a test set's raw files into ``$SACREBLEU/<set>/raw``: checked, locked, atomic.

- An archive is named as sacreBLEU names it (``<set with / as _>.<basename of URL>``) and is
  downloaded only when missing or empty. Its md5 (sacreBLEU's registry) is checked right after the
  download and, once per process, for an archive already in the cache before it is extracted or
  processed: a mismatch is an error, never a silently different test set.
- A download goes to a temporary file that is renamed into place only once complete and verified,
  and archives are extracted into a temporary folder whose files are then moved in: an interrupted
  or truncated transfer leaves nothing that looks complete.
- Processes fetching the same file wait for each other on ``<archive>.lock`` (an exclusive
  ``flock``, the lock sacreBLEU's portalocker takes on the same file).
- Without network, one line names the URL and where to put the file by hand.

``BLEUKIT_TESTSETS_OFFLINE=1`` forbids any download (the error says what is missing).
"""

from __future__ import annotations

import os
from contextlib import contextmanager

from .registry import TestSetInfo

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (about 5 ms of a --echo run)
if TYPE_CHECKING:
    from typing import Iterator, List, Optional, Sequence

__all__ = ["CacheError", "ensure_raw", "archive_name", "md5sum", "checksum", "GIT_BLOB_PREFIX", "download",
           "extract", "file_lock", "OFFLINE_ENVIRONMENT_VARIABLE", "TIMEOUT_S"]

OFFLINE_ENVIRONMENT_VARIABLE = "BLEUKIT_TESTSETS_OFFLINE"
#: seconds a connection may stay silent
TIMEOUT_S = 60.0
_VERIFIED: set = set()


class CacheError(Exception):
    """A test set that cannot be read, fetched or verified (one line for the command line)."""


def archive_name(info: TestSetInfo, url: str) -> str:
    """sacreBLEU's file name for a download: ``<set with / as _>.<basename of URL>``."""
    return info.name.replace("/", "_") + "." + os.path.basename(url)


def md5sum(path: str) -> str:
    import hashlib  # here, as shutil: a run that reads the cache needs neither

    h = hashlib.md5()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


GIT_BLOB_PREFIX = "git-blob-sha1:"


def checksum(path: str, expected: str) -> str:
    """The file's checksum of the kind ``expected`` names: an md5, or ``git-blob-sha1:<id>`` (the id
    ``git hash-object`` gives the file, as a repository pins it), in the same notation."""
    if not expected.startswith(GIT_BLOB_PREFIX):
        return md5sum(path)
    import hashlib

    h = hashlib.sha1(b"blob %d\0" % os.path.getsize(path))
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return GIT_BLOB_PREFIX + h.hexdigest()


@contextmanager
def file_lock(path: str) -> Iterator[None]:
    """An exclusive lock on ``path`` (created), released on exit; no-op where flock is missing."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "a") as handle:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            yield
            return
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _fill_by_hand(url: str, dest: str, md5: Optional[str]) -> str:
    check = f" (md5 {md5})" if md5 else ""
    return f"download {url} to {dest}{check} by hand, or run once where the network is reachable"


def download(url: str, dest: str, md5: Optional[str]) -> None:
    """``url`` → ``dest``, complete and with the expected md5, or an error and no ``dest``."""
    if os.environ.get(OFFLINE_ENVIRONMENT_VARIABLE) == "1":
        raise CacheError(f"{dest} is missing and {OFFLINE_ENVIRONMENT_VARIABLE}=1: {_fill_by_hand(url, dest, md5)}")
    import shutil
    import urllib.error
    import urllib.request

    tmp = f"{dest}.part{os.getpid()}"
    try:
        try:
            with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response, open(tmp, "wb") as out:
                expected = response.headers.get("Content-Length")
                shutil.copyfileobj(response, out, 1 << 20)
                size = out.tell()
        except (urllib.error.URLError, OSError, ValueError) as err:
            reason = getattr(err, "reason", err)
            raise CacheError(f"cannot download {url} ({reason}): {_fill_by_hand(url, dest, md5)}") from None
        if expected is not None and expected.isdigit() and int(expected) != size:
            raise CacheError(f"download of {url} was cut short ({size} of {expected} bytes); run again")
        if md5 is not None:
            got = checksum(tmp, md5)
            if got != md5:
                raise CacheError(f"md5 of {url} is {got}, expected {md5}: the download is corrupt or the file "
                                 "changed upstream; nothing was kept")
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _is_archive(path: str) -> bool:
    return path.endswith((".tar.gz", ".tgz", ".zip"))


def extract(archive: str, dest_dir: str) -> None:
    """Extract a ``.tar.gz``/``.tgz``/``.zip`` into ``dest_dir`` through a temporary folder."""
    import shutil

    tmp = os.path.join(dest_dir, f".extract{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        if archive.endswith(".zip"):
            import zipfile

            with zipfile.ZipFile(archive) as z:
                z.extractall(tmp)
        else:
            import tarfile

            with tarfile.open(archive) as t:
                try:
                    t.extractall(tmp, filter="data")
                except TypeError:  # pragma: no cover - Pythons before the filter argument
                    t.extractall(tmp)
        for folder, _, files in os.walk(tmp):
            target = os.path.join(dest_dir, os.path.relpath(folder, tmp))
            os.makedirs(target, exist_ok=True)
            for name in files:
                os.replace(os.path.join(folder, name), os.path.join(target, name))
    except (OSError, EOFError, ValueError) as err:
        raise CacheError(f"cannot extract {archive} ({err}); remove it and run again") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _verify_cached(path: str, md5: Optional[str]) -> None:
    if md5 is None or path in _VERIFIED:
        return
    got = checksum(path, md5)
    if got != md5:
        raise CacheError(f"md5 of the cached {path} is {got}, expected {md5}: it is truncated or not the "
                         "registered file; remove it and run again")
    _VERIFIED.add(path)


def ensure_raw(info: TestSetInfo, rdir: str, needed: Sequence[str], offline: bool = False) -> None:
    """Make sure the raw files ``needed`` (paths under ``rdir``) exist: a cached archive is verified
    and extracted, a missing one downloaded (unless ``offline``), verified and extracted."""
    have = all(os.path.exists(os.path.join(rdir, p)) for p in needed)
    archives: List[str] = []
    for url, md5 in zip(info.data, info.md5 or [None] * len(info.data)):
        path = os.path.join(rdir, archive_name(info, url))
        if os.path.exists(path) and os.path.getsize(path) > 0:
            _verify_cached(path, md5)
            archives.append(path)
        elif not have:
            if offline:
                raise CacheError(f"{info.name} is not in the cache: {_fill_by_hand(url, path, md5)}")
            with file_lock(f"{path}.lock"):
                if not (os.path.exists(path) and os.path.getsize(path) > 0):
                    os.makedirs(rdir, exist_ok=True)
                    download(url, path, md5)
                    _VERIFIED.add(path)
                    if _is_archive(path):
                        extract(path, rdir)
                    continue
            _verify_cached(path, md5)
            archives.append(path)
    if all(os.path.exists(os.path.join(rdir, p)) for p in needed):
        return
    for path in archives:
        if _is_archive(path):
            with file_lock(f"{path}.lock"):
                extract(path, rdir)
    missing = [p for p in needed if not os.path.exists(os.path.join(rdir, p))]
    if missing:
        raise CacheError(f"{os.path.join(rdir, missing[0])} is not in {info.name}'s downloaded files")
