"""The append-only event log of a session: `<session>/events.jsonl`.

One JSON object per line, each with ``{"v", "seq", "ts", "type"}`` beside its data. Every event is
written as one whole line under an exclusive ``flock`` of the file, then fsynced, so a crash (even
``kill -9``) can at worst tear the very last line — which :meth:`EventLog.read` skips with a
warning. An append is all-or-nothing: when the write or the fsync fails (a full disk), the file is
truncated back to where the line began and :class:`EventLogWriteError` says what happened, so a
reader never meets a torn line in the middle of the log. A brief second writer (``formspec-consult
apply`` on a session the TUI has open) never reuses a seq: the lock holder reads the last seq again
when the file grew under it. The log is the source of truth for resuming: :func:`rebuild_history`
replays it into exactly the model-visible messages at any point.

Secrets never reach the disk: keys named like credentials are dropped at any depth, and values
registered with :meth:`EventLog.add_secret` are masked wherever they appear in a string.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from formspec_consult.store.rebuild import apply_event, rebuild_history
from formspec_consult.store.records import (
    RECORD_TYPES,
    SCHEMA_VERSION,
    EventLogError,
    EventRecord,
    dump_event,
    record_from_json,
)

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "EVENT_TYPES",
    "SCHEMA_VERSION",
    "EventLog",
    "EventLogError",
    "EventLogWriteError",
    "apply_event",
    "events_of",
    "load_records",
    "rebuild_history",
    "scrub_secrets",
]

# The event types and their data fields, from the typed records (readers ignore types they do
# not know). Only message, compaction and repair change what the model sees — see
# formspec_consult.store.rebuild.
EVENT_TYPES: dict[str, tuple[str, ...]] = {
    name: tuple(f.name for f in fields(cls) if f.name not in {"v", "seq", "ts", "extra", "order"})
    for name, cls in RECORD_TYPES.items()
}
_RESERVED = frozenset({"v", "seq", "ts", "type"})
# Credential-like key names: api_key, x-api-key, authorization, token, access_token, secret, …
# (but not the many legitimate counters such as "tokens", "prompt_tokens" or "max_tokens").
_SECRET_KEY = re.compile(
    r"^(?:.*[_-])?(?:api[_-]?key|apikey|authorization|auth|token|secret|password|passwd|"
    r"credentials?|cookie|bearer)$",
    re.IGNORECASE,
)
_MASK = "[redacted]"
R = TypeVar("R", bound=EventRecord)
_log = logging.getLogger(__name__)


class EventLogWriteError(OSError):
    """An event could not be written (disk full, read-only file system); nothing of it was kept.

    The message is one line that names the log and says what to do.
    """


def scrub_secrets(value: Any, secrets: Iterable[str] = ()) -> tuple[Any, list[str]]:
    """Return a copy of `value` without credential-like keys, and the dotted paths it dropped.

    Known secret *values* (API keys resolved at runtime) are masked inside any string too.
    """
    dropped: list[str] = []
    known = [s for s in secrets if s]

    def walk(item: Any, where: str) -> Any:
        if isinstance(item, dict):
            out: dict[str, Any] = {}
            for key, sub in item.items():
                name = str(key)
                if _SECRET_KEY.match(name):
                    dropped.append(f"{where}{name}")
                    continue
                out[name] = walk(sub, f"{where}{name}.")
            return out
        if isinstance(item, (list, tuple)):
            return [walk(sub, where) for sub in item]
        if isinstance(item, str) and known:
            for secret in known:
                if secret in item:
                    item = item.replace(secret, _MASK)
            return item
        return item

    return walk(value, ""), dropped


class EventLog:
    """Append-only, crash-safe JSON-lines log of one session's events."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._secrets: list[str] = []
        if self.path.is_symlink():  # appending through it would write wherever the link points
            raise EventLogError(
                f"The session log {self.path} is a symbolic link (to {os.readlink(self.path)}); "
                "formspec-consult writes a session's log only into a real file of its folder. Remove the "
                "link and put the real events.jsonl back (or start a new session)."
            )
        self.last_seq: int = _last_seq(self.path)
        self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        self._size = os.fstat(self._fd).st_size  # where our last append ended

    def add_secret(self, value: str) -> None:
        """Register a secret value (e.g. the resolved API key) to mask wherever it would be logged."""
        if value and len(value) >= 6 and value not in self._secrets:
            self._secrets.append(value)

    def append(self, type: str, **data: Any) -> dict[str, Any]:  # noqa: A002 - contract name
        """Append one event and return it as written (with ``v``, ``seq``, ``ts`` and ``type``)."""
        if not isinstance(type, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", type):
            raise EventLogError(f"event type must be a snake_case name, got {type!r}")
        clash = _RESERVED & data.keys()
        if clash:
            raise EventLogError(f"event data may not use reserved field(s) {sorted(clash)}")
        clean, dropped = scrub_secrets(data, self._secrets)
        if dropped:
            _log.warning("event %r: dropped secret-like field(s) %s", type, ", ".join(dropped))
        with self._lock:
            if self._fd < 0:
                raise EventLogError(f"event log {self.path} is closed")
            if os.fstat(self._fd).st_size != self._size:  # another writer (the local server) appended
                self.last_seq = max(self.last_seq, _last_seq(self.path))
            seq = self.last_seq + 1
            event = {"v": SCHEMA_VERSION, "seq": seq, "ts": _now(), "type": type, **clean}
            try:
                line = dump_event(event, _jsonable)
            except (TypeError, ValueError) as exc:
                raise EventLogError(f"event {type!r} is not JSON-serialisable: {exc}") from exc
            with _locked(self._fd):
                start = os.fstat(self._fd).st_size
                if start != self._size:  # another process appended (or crashed mid-line) meanwhile
                    self.last_seq = max(self.last_seq, _last_seq(self.path))
                    seq = self.last_seq + 1
                    event["seq"] = seq
                    line = dump_event(event, _jsonable)
                # A torn last line left by a crash must not glue itself to this event: end it first.
                lead = b"\n" if start and os.pread(self._fd, 1, start - 1) != b"\n" else b""
                self._write_all(lead + (line + "\n").encode("utf-8"), start, type)
            self.last_seq = seq
            self._size = os.fstat(self._fd).st_size
        return event

    def write(self, record: R) -> R:
        """Append a typed record; return it as written (its ``seq`` and ``ts`` filled in)."""
        written = record_from_json(self.append(record.type, **record.data()), check=False)
        assert isinstance(written, type(record))
        return written

    def _write_all(self, data: bytes, start: int, type: str) -> None:  # noqa: A002
        """Write ``data`` at the end and fsync it, or truncate back to ``start`` and raise."""
        try:
            written = os.write(self._fd, data)  # one write of one whole line (O_APPEND)
            while written < len(data):  # a short write: only on a signal or a nearly full disk
                written += os.write(self._fd, data[written:])
            os.fsync(self._fd)
        except OSError as exc:
            try:
                os.ftruncate(self._fd, start)  # all or nothing: no torn line stays behind
                os.fsync(self._fd)
            except OSError:
                pass
            self._size = os.fstat(self._fd).st_size
            error = EventLogWriteError(
                f"Could not write the session log {self.path} ({exc.strerror or exc}); the "
                f"{type!r} event was not recorded. Free some disk space (or make the folder "
                "writable), then resume the session with --resume to close the turn."
            )
            error.errno = exc.errno
            raise error from exc
        self._size = start + len(data)

    def close(self) -> None:
        """Close the file; further appends raise."""
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # best effort; the fd is already synced after every event
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    @staticmethod
    def records(path: Path) -> Iterator[EventRecord]:
        """Every event of the log in order, as typed records (torn lines skipped, as by read)."""
        return (record_from_json(event, source=str(path)) for event in EventLog.read(path))

    @staticmethod
    def read(path: Path) -> Iterator[dict[str, Any]]:
        """Yield every event of the log in order.

        A line that is not a JSON object (a torn write after a crash) is skipped with a logged
        warning, never an exception; a missing file yields nothing.
        """
        path = Path(path)
        if not path.exists():
            return
        with path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                event = _parse_event(raw)
                if event is None:
                    _log.warning("%s line %d is torn, not an event, or nested too deeply to read; skipped", path, number)
                    continue
                yield event


def load_events(path: Path) -> list[dict[str, Any]]:
    """Every event of a log, strictly: for replay, where a damaged log must not pass unnoticed.

    Only a torn *last* line (the process died mid-write) is skipped; any other line that is not
    an event raises EventLogError naming it. A missing file raises FileNotFoundError.
    """
    path = Path(path)
    return events_of(path.read_bytes(), path)


def events_of(data: bytes, path: Path) -> list[dict[str, Any]]:
    """The events of a log's bytes (read by the caller, e.g. without following a link), strictly
    as :func:`load_events` reads them; `path` names the log in what is said."""
    lines = data.splitlines()
    events: list[dict[str, Any]] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        event = _parse_event(raw)
        if event is None:
            if number == len(lines):
                break
            raise EventLogError(
                f"{path}: line {number} is not a valid event (not JSON, or nested too deeply to read); "
                "the event log is damaged"
            )
        events.append(event)
    return events


def load_records(path: Path) -> list[EventRecord]:
    """Every event of a log as typed records, strictly (see load_events)."""
    return [record_from_json(event, source=str(path)) for event in load_events(path)]


def _parse_event(raw: bytes) -> dict[str, Any] | None:
    """One log line as an event, or None when it is torn or not an event."""
    try:
        event = json.loads(raw)
    except (ValueError, RecursionError):  # torn, or nested deeper than the decoder can go
        return None
    return event if isinstance(event, dict) and "type" in event else None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _jsonable(value: Any) -> Any:
    """Serialise the few non-JSON types that events carry (paths, sets, dataclasses)."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(value)
    raise TypeError(f"{type(value).__name__} is not JSON-serialisable")


@contextlib.contextmanager
def _locked(fd: int) -> Iterator[None]:
    """An exclusive lock on the log file across processes (no-op where flock does not exist)."""
    if fcntl is None:  # pragma: no cover - not POSIX
        yield
        return
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _last_seq(path: Path) -> int:
    """The highest seq in an existing log: scan the tail first, the whole file only if needed."""
    if not path.exists() or path.stat().st_size == 0:
        return 0
    size = path.stat().st_size
    with path.open("rb") as handle:
        handle.seek(max(0, size - 65536))
        tail = handle.read().splitlines()
    for raw in reversed(tail[1:] if size > 65536 else tail):
        try:
            event = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(event, dict) and isinstance(seq := event.get("seq"), int):
            return seq
    return max((e.get("seq", 0) for e in EventLog.read(path) if isinstance(e.get("seq"), int)), default=0)
