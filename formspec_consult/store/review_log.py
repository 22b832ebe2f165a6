"""The session's record of review actions: apply, undo and reject.

The local MCP server performs them, so it is their only writer: whichever client asked — our
TUI, a slash command, `formspec-consult apply`, or Claude Code through `mcp-serve` — the action
lands in the session's `events.jsonl` and `transcript.md` once, written where it happened.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from formspec_consult.store.events import EventLog
from formspec_consult.store.layout import SessionLayout
from formspec_consult.store.records import ApplyRecord, RejectRecord, UndoRecord
from formspec_consult.store.review_results import Applied, Rejected, Undone
from formspec_consult.store.review_text import format_apply, format_reject, format_undo
from formspec_consult.store.transcript import Transcript

ReviewKind = Literal["apply", "undo", "reject"]


def review_record(kind: ReviewKind, result: dict[str, Any]) -> tuple[ApplyRecord | UndoRecord | RejectRecord, str]:
    """(event record, transcript note) of a successful review action's result, read as the
    client reads it (store.review_results), so the log and the client see one shape."""
    if kind == "apply":
        applied = Applied.from_json(result)
        record = ApplyRecord(path=applied.path, file=applied.file, backup=applied.backup,
                             undo_step=applied.undo_step, forced=applied.forced)
        return record, format_apply(applied)
    if kind == "undo":
        undone = Undone.from_json(result)
        return (UndoRecord(path=undone.path, file=undone.file, outcome=undone.outcome, undo_step=undone.undo_step),
                format_undo(undone))
    rejected = Rejected.from_json(result)
    return RejectRecord(path=rejected.path, reason=rejected.reason), format_reject(rejected)


class ReviewJournal:
    """Appends review events to one session folder (opened per action: another process — the
    engine, a second server — may write the same log between two actions)."""

    def __init__(self, session_folder: Path) -> None:
        self.layout = SessionLayout(Path(session_folder))

    def record(self, kind: ReviewKind, result: dict[str, Any]) -> None:
        record, note = review_record(kind, result)
        with EventLog(self.layout.events) as log:
            log.write(record)
        Transcript(self.layout.transcript).write_note(note)


def review_note(event: ApplyRecord | UndoRecord | RejectRecord) -> str:
    """The line a resumed session shows for a logged apply/undo/reject event."""
    if isinstance(event, ApplyRecord):
        return f"Applied {event.path} → {event.file}; undo with /undo."
    if isinstance(event, UndoRecord):
        return f"Undid the apply of {event.path} ({event.outcome})."
    return format_reject(Rejected(event.path, (), event.reason))
