"""What the person did to the drafts since the model last spoke, as one line for the model.

The person applies, rejects and undoes between turns (the diffs pane, `/apply`, `formspec-consult
apply`, another client); the local server logs each in the session's event log. The model would
not know: the line goes before the person's next message (in the history, so the log rebuilds
it), on a resumed session too.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from formspec_consult.store.events import EventLog
from formspec_consult.store.records import (
    ApplyRecord,
    EventRecord,
    RejectRecord,
    ResponseRecord,
    ToolResultRecord,
    UndoRecord,
)

MAX_PATHS = 12  # per action; more are counted


def review_line(events: Iterable[EventRecord]) -> str | None:
    """The line for the review events after the model's last reply or tool result (None: none)."""
    applied: list[str] = []
    rejected: list[str] = []
    undone: list[str] = []
    for event in events:
        if isinstance(event, (ResponseRecord, ToolResultRecord)):  # the model spoke (or its call ran)
            applied, rejected, undone = [], [], []
        elif isinstance(event, ApplyRecord):
            applied.append(event.path)
        elif isinstance(event, RejectRecord):
            rejected.append(event.path)
        elif isinstance(event, UndoRecord):
            undone.append(event.path)
    parts = [f"{verb} {_paths(paths)}" for verb, paths in
             (("applied", applied), ("rejected", rejected), ("undid the apply of", undone)) if paths]
    if not parts:
        return None
    return f"[Since your last reply the person {'; '.join(parts)}.]"


def _paths(paths: list[str]) -> str:
    shown = ", ".join(paths[:MAX_PATHS])
    return shown + (f" and {len(paths) - MAX_PATHS} more" if len(paths) > MAX_PATHS else "")


def review_line_of(log_path: Path) -> str | None:
    """:func:`review_line` over a session's event log."""
    return review_line(EventLog.records(log_path))
