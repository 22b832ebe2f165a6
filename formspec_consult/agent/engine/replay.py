"""The earlier conversation of a resumed session, rebuilt as AgentEvents from the event log."""

from __future__ import annotations

from collections.abc import Iterable

from formspec_consult.agent.engine.phase import announcement
from formspec_consult.agent.history.summary import compaction_done
from formspec_consult.agent.loop.options import find_options
from formspec_consult.store.agent_events import (
    AgentEvent,
    AssistantMessage,
    Notice,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
)
from formspec_consult.store.records import (
    ApplyRecord,
    CompactionRecord,
    EventRecord,
    NoticeRecord,
    PhaseRecord,
    RejectRecord,
    ResponseRecord,
    RewindRecord,
    ToolCallRecord,
    ToolResultRecord,
    TurnFinishedRecord,
    TurnStartedRecord,
    UndoRecord,
)
from formspec_consult.store.review_log import review_note
from formspec_consult.store.rewind import describe as describe_rewind


def _one(event: EventRecord) -> AgentEvent | None:
    if isinstance(event, TurnStartedRecord):
        return TurnStarted(event.turn, event.user_text)
    if isinstance(event, ResponseRecord):
        calls = tuple(dict(call) for call in event.tool_calls)
        return AssistantMessage(event.text, calls, () if calls else find_options(event.text))
    if isinstance(event, ToolCallRecord):
        return ToolCallStarted(event.call_id, event.server, event.name, dict(event.arguments))
    if isinstance(event, ToolResultRecord):
        return ToolCallFinished(
            event.call_id, event.server, event.name, event.ok, event.result, float(event.duration_ms or 0.0)
        )
    if isinstance(event, CompactionRecord):
        return compaction_done(event)
    if isinstance(event, (ApplyRecord, UndoRecord, RejectRecord)):  # recorded by the local server
        return Notice("info", review_note(event))
    if isinstance(event, NoticeRecord):
        return Notice(event.level, event.message)
    if isinstance(event, PhaseRecord) and event.reason != "drafted":  # Draft is logged, not announced
        return Notice("info", announcement(event.reason, event.phase))
    if isinstance(event, TurnFinishedRecord):
        return TurnFinished(event.reason, event.error)
    if isinstance(event, RewindRecord):
        return Notice("info", describe_rewind(event))
    return None


def events_from_log(events: Iterable[EventRecord]) -> list[AgentEvent]:
    """AgentEvents for every logged turn, response, tool call/result, compaction and notice of the
    conversation as it stands: a rewind drops what came after its point (and says so)."""
    shown: list[tuple[int, AgentEvent]] = []
    for event in events:
        if isinstance(event, RewindRecord) and event.cuts_conversation:
            shown = [(seq, item) for seq, item in shown if seq <= event.to_seq]
        converted = _one(event)
        if converted is not None:
            shown.append((event.seq, converted))
    return [item for _, item in shown]
