"""The earlier conversation of a resumed session, rebuilt as AgentEvents from the event log."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from formspec_consult.agent.history.summary import summary_text
from formspec_consult.agent.loop.options import find_options
from formspec_consult.store.agent_events import (
    AgentEvent,
    AssistantMessage,
    CompactionDone,
    Notice,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from formspec_consult.store.review_log import review_note


def _one(event: dict[str, Any]) -> AgentEvent | None:
    kind = event.get("type")
    if kind == "turn_started":
        return TurnStarted(int(event.get("turn", 0)), str(event.get("user_text", "")))
    if kind == "response":
        calls = tuple(event.get("tool_calls") or ())
        text = str(event.get("text") or "")
        return AssistantMessage(text, calls, () if calls else find_options(text))
    if kind == "tool_call":
        return ToolCallStarted(
            str(event.get("call_id")),
            str(event.get("server", "?")),
            str(event.get("name")),
            dict(event.get("arguments") or {}),
        )
    if kind == "tool_result":
        return ToolCallFinished(
            str(event.get("call_id")),
            str(event.get("server", "?")),
            str(event.get("name")),
            bool(event.get("ok")),
            str(event.get("result", "")),
            float(event.get("duration_ms") or 0.0),
        )
    if kind == "compaction":
        summary = event.get("summary_message")
        pruned = event.get("pruned") or []
        if isinstance(summary, dict):
            text = summary_text(summary.get("content", ""))
            replaced = int(event.get("end", 0)) - int(event.get("start", 0))
        else:
            text = f"Pruned {len(pruned)} old tool output(s); the full outputs stay in the transcript."
            replaced = len(pruned)
        return CompactionDone(
            text,
            replaced,
            int(event.get("tokens_before") or 0),
            int(event.get("tokens_after") or 0),
            event.get("method", "summarised"),
        )
    if kind in {"apply", "undo", "reject"}:  # recorded by the local server, whichever client asked
        return Notice("info", review_note(event))
    if kind == "notice":
        return Notice(event.get("level", "info"), str(event.get("message", "")))
    if kind == "turn_finished":
        return TurnFinished(event.get("reason", "done"), event.get("error"))
    if kind == "usage":
        return UsageUpdated(
            int(event.get("context_tokens") or 0),
            int(event.get("threshold_tokens") or 0),
            int(event.get("window_tokens") or 0),
            bool(event.get("reported")),
            event.get("session_cost"),
        )
    return None


def events_from_log(events: Iterable[dict[str, Any]]) -> list[AgentEvent]:
    """AgentEvents for every logged turn, response, tool call/result, compaction and notice."""
    out: list[AgentEvent] = []
    for event in events:
        converted = _one(event)
        if converted is not None and not isinstance(converted, UsageUpdated):
            out.append(converted)
    return out
