"""The session's record of review actions: apply, undo and reject.

The local MCP server performs them, so it is their only writer: whichever client asked — our
TUI, a slash command, `formspec-consult apply`, or Claude Code through `mcp-serve` — the action
lands in the session's `events.jsonl` and `transcript.md` once, written where it happened.
"""

from __future__ import annotations

from pathlib import Path

from formspec_consult.store.events import EventLog
from formspec_consult.store.layout import SessionLayout
from formspec_consult.store.records import ApplyRecord, RejectRecord, UndoRecord
from formspec_consult.store.review_results import Applied, Rejected, Undone
from formspec_consult.store.review_text import format_apply, format_reject, format_undo
from formspec_consult.store.transcript import Transcript


def review_record(result: Applied | Undone | Rejected) -> tuple[ApplyRecord | UndoRecord | RejectRecord, str]:
    """(event record, transcript note) of a successful review action's answer — the one shape
    the client reads too (store.review_results), so the log and the client see the same."""
    if isinstance(result, Applied):
        record = ApplyRecord(path=result.path, file=result.file, backup=result.backup,
                             undo_step=result.undo_step, forced=result.forced)
        return record, format_apply(result)
    if isinstance(result, Undone):
        return (UndoRecord(path=result.path, file=result.file, outcome=result.outcome, undo_step=result.undo_step),
                format_undo(result))
    return RejectRecord(path=result.path, reason=result.reason), format_reject(result)


class ReviewJournal:
    """Appends review events to one session folder (opened per action: another process — the
    engine, a second server — may write the same log between two actions)."""

    def __init__(self, session_folder: Path) -> None:
        self.layout = SessionLayout(Path(session_folder))

    def record(self, result: Applied | Undone | Rejected) -> None:
        record, note = review_record(result)
        with EventLog(self.layout.events) as log:
            log.write(record)
        Transcript(self.layout.transcript).write_note(note)


def review_note(event: ApplyRecord | UndoRecord | RejectRecord) -> str:
    """The line a resumed session shows for a logged apply/undo/reject event."""
    if isinstance(event, ApplyRecord):
        return f"Applied {event.path} → {event.file}; undo with /undo."
    if isinstance(event, UndoRecord):
        return f"Undid the apply of {event.path} ({event.outcome})."
    return format_reject(Rejected(path=event.path, remaining=(), reason=event.reason))
