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
from formspec_consult.store.records import (
    ApplyRecord,
    EditRecord,
    EventRecord,
    PartRecord,
    RejectRecord,
    UndoRecord,
)
from formspec_consult.store.review_results import Applied, Edited, Rejected, Undone
from formspec_consult.store.review_text import (
    format_apply,
    format_edit,
    format_part,
    format_reject,
    format_undo,
)
from formspec_consult.store.transcript import Transcript

ReviewKind = Literal["apply", "undo", "reject", "edit", "partial"]
EDIT_DIFF_CAP = 4000  # characters of a person's edit kept in the log (and told to the model)


def review_record(kind: ReviewKind, result: dict[str, Any]) -> tuple[EventRecord, str]:
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
    if kind == "edit":
        edited = Edited.from_json(result)
        diff = edited.diff if len(edited.diff) <= EDIT_DIFF_CAP else edited.diff[:EDIT_DIFF_CAP] + "\n… (cut)\n"
        return EditRecord(path=edited.path, diff=diff, valid=edited.valid), format_edit(edited)
    if kind == "partial":
        part = PartRecord(path=str(result["path"]), accepted=list(result["accepted"]),
                          rejected=list(result["rejected"]), reason=result.get("reason") or None)
        return part, format_part(part.path, part.accepted, part.rejected, part.reason)
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
