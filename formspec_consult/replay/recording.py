"""A recorded session (`events.jsonl`) read as the steps a user took and what came back.

Steps are what the owner did, in order: a message (or a picked option, given as the letter that
was typed), an apply, an undo, a reject. Each step keeps the recorded events it produced,
already converted to AgentEvents, so the read-only replay can play them back as they happened.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from formspec_consult.agent.engine.replay import events_from_log
from formspec_consult.store.agent_events import (
    AgentEvent,
    AssistantMessage,
    DraftsChanged,
    Notice,
    UsageUpdated,
)
from formspec_consult.store.events import EventLogError, load_records
from formspec_consult.store.layout import EVENTS
from formspec_consult.store.records import (
    ApplyRecord,
    CommandRecord,
    CompactionRecord,
    DecisionRecord,
    EventRecord,
    RejectRecord,
    ResponseRecord,
    RewindRecord,
    SessionStartedRecord,
    SummaryWrittenRecord,
    ToolCallRecord,
    ToolResultRecord,
    TurnFinishedRecord,
    TurnStartedRecord,
    UndoRecord,
    UsageRecord,
)

MOVES = (ResponseRecord, ToolCallRecord, ToolResultRecord)  # how far a turn got, as a replay counts it

EVENT_LOG = EVENTS


class RecordingError(ValueError):
    """The folder or file is not a readable recorded session; the message says what to give."""


@dataclass
class Step:
    """One thing the user did. `text` is what to send ("B", "/apply path", "/undo")."""

    text: str
    kind: str  # "say" | "apply" | "undo" | "reject" | "command" (another slash command: /diff, /summary…)
    events: list[AgentEvent] = field(default_factory=list)
    path: str | None = None
    file: str | None = None  # the project file an apply or reject concerned, as recorded
    turn: int | None = None  # a message's turn number, as recorded
    # A message whose turn was cancelled (Esc; or interrupted, closed on resume), and how far it
    # had got: its model responses, tool calls and tool results in the log. A replay cancels it
    # at the same point, so it does not consume the next turn's recorded reply.
    cancelled: bool = False
    moves: int = 0


@dataclass
class Recording:
    """A whole session: its header and its steps."""

    folder: Path
    header: SessionStartedRecord  # empty when the log has none (a fragment of a session)
    steps: list[Step]
    raw: list[EventRecord]

    @property
    def session_id(self) -> str:
        return self.header.session_id or self.folder.name


def read_events(path: Path) -> list[EventRecord]:
    """The records of a session folder (or an events.jsonl file); a torn last line is skipped."""
    log = path / EVENT_LOG if path.is_dir() else path
    try:
        return load_records(log)
    except FileNotFoundError:
        raise RecordingError(f"No recorded session at {path}: give a session folder that holds {EVENT_LOG}.") from None
    except EventLogError as exc:
        raise RecordingError(str(exc) if str(exc).endswith(".") else f"{exc}.") from None


def _usage(event: UsageRecord, header: SessionStartedRecord, compactions: int) -> UsageUpdated:
    return UsageUpdated(
        context_tokens=int(event.context_tokens or 0),
        threshold_tokens=int(header.threshold_tokens or 0),
        window_tokens=int(header.usable_window or 0),
        reported=bool(event.reported),
        session_cost=event.session_cost,
        compactions=compactions,
    )


def _within_tool_call(records: list[EventRecord], event: EventRecord) -> bool:
    """True when a review event was logged while the model's own tool call ran (its tool_call is
    logged and its tool_result is not yet)."""
    open_calls: set[str] = set()
    for item in records:
        if item is event:
            return bool(open_calls)
        if isinstance(item, ToolCallRecord):
            open_calls.add(item.call_id)
        elif isinstance(item, ToolResultRecord):
            open_calls.discard(item.call_id)
    return False


def load(path: Path) -> Recording:
    """Read a recorded session into steps."""
    records = read_events(path)
    header = next((e for e in records if isinstance(e, SessionStartedRecord)), SessionStartedRecord())
    steps: list[Step] = []
    answer: str | None = None  # the letter typed for the next turn, from its "decision" event
    compactions = 0
    turns: dict[int, Step] = {}  # each message's step by its turn number
    open_turn: Step | None = None  # the message whose turn has started and not finished
    rewinding = False  # inside a `/rewind N`: its undos and rejects are its own (replayed with it)
    for event in records:
        if isinstance(event, (TurnStartedRecord, RewindRecord, CommandRecord)):
            rewinding = isinstance(event, CommandRecord) and event.name == "rewind" and bool(event.args)
        if open_turn is not None and isinstance(event, MOVES):
            open_turn.moves += 1
        if isinstance(event, DecisionRecord):
            answer = str(event.answer or "") or None
        elif isinstance(event, TurnStartedRecord):
            if open_turn is not None:  # a new turn before the last one finished: that one was cut off
                open_turn.cancelled = True
            steps.append(Step(answer or event.user_text, "say", turn=event.turn))
            turns[event.turn] = open_turn = steps[-1]
            answer = None
            steps[-1].events.extend(events_from_log([event]))
        elif isinstance(event, TurnFinishedRecord):
            step = turns.get(event.turn)
            if step is not None:
                step.cancelled = event.reason == "cancelled"
                step.events.extend(events_from_log([event]))  # with its own turn, closed late or not
            if step is open_turn:
                open_turn = None
        elif isinstance(event, (ApplyRecord, UndoRecord, RejectRecord)) and (
            rewinding or _within_tool_call(records, event)
        ):
            continue  # the model's tool call, or a rewind, made it: replaying that step makes it again
        elif isinstance(event, (ApplyRecord, UndoRecord, RejectRecord)):
            kind, target = event.type, event.path
            text = {"apply": f"/apply {target}", "undo": "/undo", "reject": f"/reject {target}"}[kind]
            verb = {"apply": "Applied", "undo": "Undid the apply of", "reject": "Rejected"}[kind]
            file = event.file if isinstance(event, ApplyRecord) else None
            events: list[AgentEvent] = [Notice("info", f"{verb} {target} (recorded)."), DraftsChanged((target,))]
            step = Step(text, kind, events, target, file)
            steps.append(step)
        elif isinstance(event, CommandRecord):
            words = [event.name, *(str(a) for a in event.args)]
            steps.append(Step("/" + " ".join(words), "command", path=words[1] if len(words) > 1 else None))
        elif steps and steps[-1].kind in {"say", "command"}:
            if isinstance(event, SummaryWrittenRecord):  # /summary: the reply is logged here, not as a response
                steps[-1].events.append(AssistantMessage(event.text))
            elif isinstance(event, UsageRecord):
                steps[-1].events.append(_usage(event, header, compactions))
            else:
                compactions += isinstance(event, CompactionRecord)
                steps[-1].events.extend(events_from_log([event]))
    if open_turn is not None:  # the log ends inside a turn: it was cut off
        open_turn.cancelled = True
    if not steps:
        raise RecordingError(f"{path} holds no turns to replay; pick a session that has a conversation.")
    return Recording(path, header, steps, records)
