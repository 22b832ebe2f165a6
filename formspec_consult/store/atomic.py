"""Crash-safe file writes: a temporary file in the same folder, fsync, then ``os.replace``."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

ABSENT = "absent"


def sha256_of(path: Path) -> str:
    """The sha256 hex digest of a file's bytes, or ``"absent"`` when there is no such file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return ABSENT
    return hashlib.sha256(data).hexdigest()


def sha256_bytes(data: bytes | None) -> str:
    """The sha256 hex digest of ``data`` (``"absent"`` for ``None``)."""
    return ABSENT if data is None else hashlib.sha256(data).hexdigest()


def write_atomic(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` so that readers see either the old or the new bytes, never half.

    Parent folders are created. The file keeps the mode of the file it replaces. ``durable``
    also fsyncs the file and its folder (for the project's real files and the undo stack); drafts
    skip it — they are scratch copies, and the fsyncs would cost more than validating them.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp_name, path.stat().st_mode & 0o7777)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    if durable:
        _fsync_dir(path.parent)


def remove_file(path: Path) -> None:
    """Delete ``path`` (if present) and make the removal durable."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
        _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    # Makes the rename itself durable; not supported on every platform, so best effort.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
