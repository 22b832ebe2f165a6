"""One line of what the person did to the drafts since the model's last reply.

Applies, rejects and undos are recorded in the session's event log by the local server, whoever
asked (the TUI, `/apply`, `formspec-consult apply` from another process). The model is told of
them once, at the start of its next turn, with the user's message: the system prompt stays as it
was (a provider's prompt cache keeps the prefix), and the line is logged inside that message, so
the event log still rebuilds exactly what the model saw.
"""

from __future__ import annotations

from pathlib import Path

from formspec_consult.store.events import EventLog
from formspec_consult.store.records import (
    ApplyRecord,
    EditRecord,
    MessageRecord,
    PartRecord,
    RejectRecord,
    RewindRecord,
    UndoRecord,
)

# Paths named per action; the rest are counted.
SHOWN = 4


def review_since(events: Path) -> str:
    """The note for the next user message; "" when the person changed nothing since the last reply."""
    done: dict[str, list[str]] = {"applied": [], "rejected": [], "undid": []}
    rewound: list[str] = []  # what a rewind since tells (store/rewind.py)
    details: list[str] = []  # the person's edits and partial reviews, each said in full
    for record in EventLog.records(events):
        if isinstance(record, MessageRecord) and record.message.get("role") == "assistant":
            done = {key: [] for key in done}  # the model saw what came before its reply
            rewound, details = [], []
        elif isinstance(record, RewindRecord):
            if record.cuts_conversation:  # the model's view is that turn's: what came before is gone
                done, rewound, details = {key: [] for key in done}, [], []
            else:  # the files went back: the rewind's own undos are told in its words
                done["undid"] = []
            rewound += [record.note] if record.note else []
        elif isinstance(record, EditRecord):
            verdict = "it passes validation" if record.valid else "it does not pass validation yet"
            details.append(f"The person edited the draft {record.path} themselves; their version is now the draft "
                           f"({verdict}). What they changed:\n{record.diff.rstrip()}")
        elif isinstance(record, PartRecord):
            why = f' Their reason: "{record.reason}".' if record.reason else ""
            details.append(f"The person accepted part of the draft {record.path}: {', '.join(record.accepted)} "
                           f"were applied; they rejected {', '.join(record.rejected)}.{why} The file in the "
                           "project now holds only the accepted part.")
        elif isinstance(record, ApplyRecord):
            done["applied"].append(record.path)
        elif isinstance(record, RejectRecord):
            done["rejected"].append(f'{record.path}, saying "{record.reason}"' if record.reason else record.path)
        elif isinstance(record, UndoRecord):
            done["undid"].append(record.path)
    parts = [f"{verb} {_paths(paths)}" for verb, paths in done.items() if paths]
    said = [f"[Since your last reply the person {'; '.join(parts)}.]"] if parts else []
    head = " ".join([*(f"[{note}]" for note in rewound), *said])
    return "\n".join([*([head] if head else []), *(f"[{detail}]" for detail in details)])


def _paths(paths: list[str]) -> str:
    count = len(paths)
    joint = "; " if any('"' in path for path in paths) else ", "  # a reason may hold commas
    named = joint.join(paths[:SHOWN]) + (f", … and {count - SHOWN} more" if count > SHOWN else "")
    noun = "draft" if count == 1 else "drafts"
    return f"{count} {noun} ({named})"
