"""The turn changeset: the drafts one consultant turn proposed, read from the session's event log.

A turn that proposes several files is one change to the person: they see its files together (new
or changed, how many lines each adds and removes, what the gate says) and accept or reject the
set in one step. This module only finds which paths each turn proposed; what became of each draft
(under review, applied, rejected) is the review's (store/review.py `SessionReview.changes`), and
accepting or rejecting the set is the review workflow's, one apply or reject per draft, so the
event log and undo stay exactly as for single drafts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from formspec_consult.store.records import (
    EventRecord,
    RewindRecord,
    ToolCallRecord,
    ToolResultRecord,
    TurnStartedRecord,
)

PROPOSE = "propose_spec_file"


@dataclass
class TurnProposals:
    """One turn of the conversation and the draft paths it proposed, in the order it asked."""

    turn: int
    user_text: str
    start_seq: int
    calls: list[str] = field(default_factory=list)  # its proposals' call ids, in the order asked
    written: dict[str, str] = field(default_factory=dict)  # call id -> the draft path it wrote

    @property
    def paths(self) -> list[str]:
        """The paths the turn's proposals wrote, in the order it asked (each once)."""
        found = [self.written[call] for call in self.calls if call in self.written]
        return list(dict.fromkeys(found))


def turn_proposals(records: Iterable[EventRecord]) -> list[TurnProposals]:
    """Every turn the conversation holds now (a rewind drops those after its point), oldest first,
    each with the paths its proposals wrote (a proposal the server refused wrote nothing)."""
    turns: list[TurnProposals] = []
    current: TurnProposals | None = None
    asked: dict[str, object] = {}  # call id -> the path the call asked for
    for record in records:
        if isinstance(record, TurnStartedRecord):
            current = TurnProposals(record.turn, record.user_text, record.seq)
            turns.append(current)
        elif isinstance(record, ToolCallRecord) and record.name == PROPOSE and current is not None:
            asked[record.call_id] = record.arguments.get("path")
            current.calls.append(record.call_id)
        elif isinstance(record, ToolResultRecord) and record.name == PROPOSE and record.ok and current is not None:
            path = _written_path(record.result) or asked.get(record.call_id)
            if isinstance(path, str) and path:
                current.written[record.call_id] = path
        elif isinstance(record, RewindRecord) and record.cuts_conversation:
            turns = [t for t in turns if t.start_seq <= record.to_seq]
            current = None
    return turns


def _written_path(result: str) -> str | None:
    """The draft path a proposal's answer names (its spelling after the server resolved it)."""
    try:
        answer = json.loads(result)
    except ValueError:
        return None
    path = answer.get("path") if isinstance(answer, dict) and answer.get("written") else None
    return path if isinstance(path, str) else None


def line_counts(diff: str) -> tuple[int, int]:
    """(lines added, lines removed) of a unified diff."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed
