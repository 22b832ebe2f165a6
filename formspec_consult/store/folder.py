"""Session folders: ``<project>/.formspec/consult/<id>/`` with ``draft/`` and ``undo/``.

Ids look like ``20261130-214233-9f3a`` (UTC time + 4 random hex digits) so they sort by
creation time. Other parts write ``events.jsonl`` and ``transcript.md`` into the same folder.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from formspec_consult.errors import UserError
from formspec_consult.store.layout import EXTERNAL_SESSION, MCP_REGISTRY_LOG, MCP_SERVER_LOG, SessionLayout

_GENERATED = re.compile(r"^(\d{8}-\d{6})-[0-9a-f]{4}$")
# Ids given by callers (tests, scripts) may be any short safe name.
_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# Files that live beside the session folders: an id must never name one of them.
_RESERVED = frozenset({EXTERNAL_SESSION, MCP_SERVER_LOG, MCP_REGISTRY_LOG})


class SessionError(UserError, ValueError):
    """A session id is malformed or names no session."""


@dataclass(frozen=True)
class SessionInfo:
    """One session folder: its id, creation time (UTC) and path."""

    id: str
    created: datetime
    path: Path


def new_session_id(now: datetime | None = None) -> str:
    """A fresh, sortable session id such as ``20261130-214233-9f3a``."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return f"{moment:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


def check_session_id(session_id: str) -> str:
    """Return ``session_id`` when it is a safe folder name, else raise :class:`SessionError`."""
    if not isinstance(session_id, str) or not _SAFE.match(session_id) or ".." in session_id:
        raise SessionError(
            f"{session_id!r} is not a valid session id (letters, digits, '.', '_', '-'; "
            "e.g. 20261130-214233-9f3a)."
        )
    if session_id in _RESERVED:
        raise SessionError(
            f"{session_id!r} is the name of a file formspec-consult keeps beside the sessions, not a "
            "session id; pick another name (e.g. 20261130-214233-9f3a) or omit it."
        )
    return session_id


def session_dir(consult_dir: Path, session_id: str) -> Path:
    """The folder of session ``session_id`` (which may not exist yet)."""
    return consult_dir / check_session_id(session_id)


def _created(path: Path) -> datetime:
    match = _GENERATED.match(path.name)
    if match:
        return datetime.strptime(match.group(1), "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
    return datetime.fromtimestamp(path.stat().st_mtime, UTC)


def list_sessions(consult_dir: Path) -> list[SessionInfo]:
    """Every session folder under ``consult_dir``, oldest first (newest last)."""
    if not consult_dir.is_dir():
        return []
    found = [
        SessionInfo(id=entry.name, created=_created(entry), path=entry)
        for entry in consult_dir.iterdir()
        if entry.is_dir() and _SAFE.match(entry.name) and ".." not in entry.name and entry.name not in _RESERVED
    ]
    return sorted(found, key=lambda info: (info.created, info.id))


def latest_session(consult_dir: Path) -> str | None:
    """The id of the newest session, or ``None`` when there is none."""
    sessions = list_sessions(consult_dir)
    return sessions[-1].id if sessions else None


def ensure_session(consult_dir: Path, session_id: str | None = None) -> tuple[str, Path]:
    """Create (or reuse) a session folder with its ``draft/`` and ``undo/`` sub-folders.

    With ``session_id=None`` a new id is generated. Returns ``(id, folder)``.
    """
    sid = check_session_id(session_id) if session_id is not None else new_session_id()
    folder = consult_dir / sid
    while session_id is None and folder.exists():  # two sessions started in the same second
        sid = new_session_id()
        folder = consult_dir / sid
    files = SessionLayout(folder)
    files.draft.mkdir(parents=True, exist_ok=True)
    files.undo.mkdir(parents=True, exist_ok=True)
    return sid, folder


def existing_session(consult_dir: Path, session_id: str) -> Path:
    """The folder of an existing session, or :class:`SessionError` saying which ids exist."""
    folder = session_dir(consult_dir, session_id)
    if not folder.is_dir():
        known = [info.id for info in list_sessions(consult_dir)][-5:]
        hint = f" Recent sessions: {', '.join(known)}." if known else " There are no sessions yet."
        raise SessionError(
            f"There is no session {session_id!r}.{hint} Omit 'session' to use the current one."
        )
    return folder


EXTERNAL_POINTER = EXTERNAL_SESSION  # in the consult dir: the session external clients share


def current_external_session(consult_dir: Path) -> str | None:
    """The session `mcp-serve` without --session binds to: the one named in ``external-session``,
    if that session still exists (else None: the next server starts a fresh one)."""
    try:
        sid = (consult_dir / EXTERNAL_POINTER).read_text(encoding="utf-8").strip()
        check_session_id(sid)
    except (OSError, ValueError):  # missing, unreadable, not UTF-8 or not an id: start afresh
        return None
    return sid if (consult_dir / sid).is_dir() else None


def set_current_external_session(consult_dir: Path, session_id: str) -> None:
    """Make ``session_id`` the one later `mcp-serve` processes without --session bind to."""
    from formspec_consult.store.atomic import write_atomic

    write_atomic(consult_dir / EXTERNAL_POINTER, (check_session_id(session_id) + "\n").encode("utf-8"))
