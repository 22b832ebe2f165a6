"""Find the project's consultation sessions on disk for the sessions screen.

A session is a folder under `<project>/.formspec/consult/` holding `events.jsonl` or
`transcript.md` (design/01). Reading is cheap: a stat and the first user line of the transcript.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from formspec_consult.i18n import _
from formspec_consult.store.folder import list_sessions as folder_sessions
from formspec_consult.store.layout import SessionLayout, consult_dir


@dataclass(frozen=True)
class SessionSummary:
    """A session as listed: id, last change, and a hint of what it was about."""

    session_id: str
    path: Path
    modified: datetime
    title: str


def _title(folder: Path) -> str:
    """The first line the user wrote: the text after the transcript's first `## You` heading."""
    transcript = SessionLayout(folder).transcript
    try:
        with transcript.open(encoding="utf-8", errors="replace") as handle:
            after_you = False
            for _line_no, line in zip(range(400), handle, strict=False):
                text = line.strip()
                if text.startswith("## You"):
                    after_you = True
                elif after_you and text:
                    return text[:80]
    except OSError:
        pass
    return _("(no messages yet)")


def list_sessions(project_root: Path) -> list[SessionSummary]:
    """Sessions of the project (the store's list: `store.folder.list_sessions`) that hold a
    conversation, most recently changed first."""
    found: list[SessionSummary] = []
    for info in folder_sessions(consult_dir(project_root)):
        files = SessionLayout(info.path)
        present = [m for m in (files.events, files.transcript) if m.is_file()]
        if not present:
            continue
        mtime = max(m.stat().st_mtime for m in present)
        found.append(SessionSummary(info.id, info.path, datetime.fromtimestamp(mtime, tz=UTC), _title(info.path)))
    return sorted(found, key=lambda s: s.modified, reverse=True)
