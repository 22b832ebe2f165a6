"""The session's record of review actions: apply, undo and reject.

The local MCP server performs them, so it is their only writer: whichever client asked — our
TUI, a slash command, `formspec-consult apply`, or Claude Code through `mcp-serve` — the action
lands in the session's `events.jsonl` and `transcript.md` once, written where it happened.
"""

from __future__ import annotations

from pathlib import Path

from formspec_consult.i18n import _
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
from formspec_consult.store.review_results import Applied, Edited, PartApplied, Rejected, Undone
from formspec_consult.store.review_text import (
    format_apply,
    format_edit,
    format_part,
    format_reject,
    format_undo,
    state_label,
)
from formspec_consult.store.transcript import Transcript

Result = Applied | Undone | Rejected | Edited | PartApplied
EDIT_DIFF_CAP = 4000  # characters of a person's edit kept in the log (and told to the model)


def review_record(result: Result) -> tuple[EventRecord, str]:
    """(event record, transcript note) of a successful review action's answer — the one shape
    the client reads too (store.review_results), so the log and the client see the same."""
    if isinstance(result, Applied):
        record = ApplyRecord(path=result.path, file=result.file, backup=result.backup,
                             undo_step=result.undo_step, forced=result.forced)
        return record, format_apply(result)
    if isinstance(result, Undone):
        return (UndoRecord(path=result.path, file=result.file, outcome=result.outcome, undo_step=result.undo_step),
                format_undo(result))
    if isinstance(result, Edited):
        diff = result.diff if len(result.diff) <= EDIT_DIFF_CAP else result.diff[:EDIT_DIFF_CAP] + "\n… (cut)\n"
        return EditRecord(path=result.path, diff=diff, valid=result.valid), format_edit(result)
    if isinstance(result, PartApplied):
        part = PartRecord(path=result.path, accepted=list(result.accepted), rejected=list(result.rejected),
                          reason=result.reason)
        return part, format_part(part.path, part.accepted, part.rejected, part.reason)
    return RejectRecord(path=result.path, reason=result.reason), format_reject(result)


class ReviewJournal:
    """Appends review events to one session folder (opened per action: another process — the
    engine, a second server — may write the same log between two actions)."""

    def __init__(self, session_folder: Path) -> None:
        self.layout = SessionLayout(Path(session_folder))

    def record(self, result: Result) -> None:
        record, note = review_record(result)
        with EventLog(self.layout.events) as log:
            log.write(record)
        Transcript(self.layout.transcript).write_note(note)


def review_note(event: ApplyRecord | UndoRecord | RejectRecord) -> str:
    """The line a resumed session shows for a logged apply/undo/reject event."""
    if isinstance(event, ApplyRecord):
        return _("Applied {path} → {file}; undo with /undo.").format(path=event.path, file=event.file)
    if isinstance(event, UndoRecord):
        return _("Undid the apply of {path} ({outcome}).").format(path=event.path, outcome=state_label(event.outcome or ""))
    return format_reject(Rejected(path=event.path, remaining=(), reason=event.reason))
