"""Locks across processes: one apply per target file at a time, one writer per session.

Both are ``flock`` locks (through the ``filelock`` library), so the kernel releases them when the
holding process dies: a stale lock of a killed process is simply taken over by the next claimant.

- :func:`target_lock` — ``<project>/.formspec/locks/<digest>.lock`` per project file, held by
  apply and undo over check → validate → write, so two servers (two sessions, two processes)
  applying the same file run one after the other and the second sees the first one's change.
- :func:`external_session_claim` — a ``flock`` of the project folder itself, held by an
  ``mcp-serve`` without --session from choosing its session to its first write, so that two
  external conversations writing at once end in one session (the second follows the first).
- :class:`SessionWriter` — ``<session>/.writer.lock``, held by the process that appends to the
  session's event log (the TUI or a headless run) for as long as the session is open. Who holds
  it (pid, command, since) is kept beside it in ``.writer.json`` for the refusal message.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from formspec_consult.store.folder import SessionError
from formspec_consult.store.layout import LOCKS

TARGET_LOCK_TIMEOUT = 30.0  # seconds an apply waits for another apply of the same file
LOCKS_DIR = LOCKS


class TargetBusy(OSError):
    """Another process kept a target file's lock longer than the bounded wait."""


class LockFolderRefused(SessionError):
    """The project's lock folder is a symbolic link: no lock is made through it."""


class SessionBusy(SessionError):
    """Another live process is writing this session; the message names it."""


def _target_lock_path(formspec_dir: Path, project_rel: str) -> Path:
    digest = hashlib.sha256(project_rel.encode("utf-8")).hexdigest()[:24]
    return formspec_dir / LOCKS_DIR / f"{digest}.lock"


@contextlib.contextmanager
def target_lock(formspec_dir: Path, project_rel: str, timeout: float = TARGET_LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the lock of the project file ``project_rel`` (waits at most ``timeout`` seconds)."""
    path = _target_lock_path(formspec_dir, project_rel)
    for folder in (formspec_dir, path.parent):  # a lock made through a link lands outside the project
        if folder.is_symlink():
            raise LockFolderRefused(
                f"{folder} is a symbolic link (to {os.readlink(folder)}); formspec-consult keeps its locks "
                "only in a real folder of the project. Remove the link (it is recreated), then retry."
            )
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(path, timeout=timeout)
    try:
        lock.acquire()
    except Timeout as exc:
        raise TargetBusy(
            f"{project_rel} is being applied or undone by another formspec-consult process; "
            f"it did not finish within {timeout:.0f} s. Try again in a moment."
        ) from exc
    try:
        yield
    finally:
        lock.release()


def _holder_text(info: dict[str, Any]) -> str:
    command = info.get("command") or "?"
    return f"process {info.get('pid', '?')} ({command}, since {info.get('since', '?')})"


class SessionWriter:
    """The single-writer claim on one session folder; :meth:`claim` or refuse, :meth:`release`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.session_id = folder.name
        self._lock = FileLock(folder / ".writer.lock", timeout=0)

    @property
    def held(self) -> bool:
        return bool(self._lock.is_locked)

    def holder(self) -> dict[str, Any]:
        """What ``.writer.json`` says about the current (or last) holder."""
        try:
            data = json.loads((self.folder / ".writer.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def claim(self, wait: float = 0.0) -> None:
        """Become the session's writer, waiting at most ``wait`` seconds; :class:`SessionBusy` if not."""
        self.folder.mkdir(parents=True, exist_ok=True)
        try:
            self._lock.acquire(timeout=wait)
        except Timeout as exc:
            raise SessionBusy(
                f"Session {self.session_id} is open in another formspec-consult: "
                f"{_holder_text(self.holder())}. One process writes a session at a time: close "
                "that one first, or start a new session (without --resume/--continue)."
            ) from exc
        program = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python"
        if program in ("__main__.py", "-m", "-c"):  # `python -m formspec_consult`
            program = "formspec-consult"
        info = {
            "pid": os.getpid(),
            "command": " ".join([program, *sys.argv[1:]])[:200],
            "since": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        (self.folder / ".writer.json").write_text(json.dumps(info), encoding="utf-8")

    def release(self) -> None:
        """Give the session up (idempotent)."""
        if self._lock.is_locked:
            with contextlib.suppress(OSError):
                (self.folder / ".writer.json").unlink()
            self._lock.release(force=True)


@contextlib.contextmanager
def external_session_claim(project_root: Path, wait: float = TARGET_LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the project's external-session claim (waits for another process holding it).

    The lock is the project folder's own descriptor: it creates no file (a health check leaves
    nothing behind) and works in a read-only project. Where a folder cannot be locked (no
    ``flock``, an exotic file system) the claim is skipped: nothing else depends on it.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        yield
        return
    try:
        fd = os.open(project_root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        yield
        return
    try:
        deadline = time.monotonic() + wait
        while True:  # bounded: a process stuck holding the claim must not hang this one
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    break  # go on unclaimed: at worst two sessions, as before the claim existed
                time.sleep(0.02)
            except OSError:
                break
        yield
    finally:
        os.close(fd)  # closing releases the flock
