"""Events the agent loop yields. The TUI, the headless mode and the event log consume them.

The loop is an async generator of these; nothing here knows about widgets or files.
Every event serialises to a JSON-safe dict with :func:`event_to_dict` (the `--json` output).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class TurnStarted:
    turn: int
    user_text: str
    kind: str = field(default="turn_started", init=False)


@dataclass(frozen=True)
class AssistantDelta:
    text: str
    kind: str = field(default="assistant_delta", init=False)


@dataclass(frozen=True)
class AssistantMessage:
    """A complete assistant message (text and any tool calls it asked for)."""

    text: str
    tool_calls: tuple[dict[str, Any], ...] = ()
    options: tuple[str, ...] = ()  # "A) …" lines found in the text, offered as choices
    kind: str = field(default="assistant_message", init=False)


@dataclass(frozen=True)
class ToolCallStarted:
    call_id: str
    server: str
    name: str
    arguments: dict[str, Any]
    kind: str = field(default="tool_call_started", init=False)


@dataclass(frozen=True)
class ToolCallFinished:
    call_id: str
    server: str
    name: str
    ok: bool
    result: str  # full text, as the tool returned it (the model may see a capped copy)
    duration_ms: float
    kind: str = field(default="tool_call_finished", init=False)


@dataclass(frozen=True)
class UsageUpdated:
    context_tokens: int  # tokens of the last request
    threshold_tokens: int  # compaction triggers above this
    window_tokens: int  # usable window (context window − reserved output)
    reported: bool  # provider-reported (True) or estimated locally (False)
    session_cost: float | None = None
    compactions: int = 0
    kind: str = field(default="usage_updated", init=False)


@dataclass(frozen=True)
class CompactionDone:
    summary: str
    replaced_messages: int
    tokens_before: int
    tokens_after: int
    method: Literal["pruned", "summarised", "extractive"] = "summarised"
    kind: str = field(default="compaction_done", init=False)


@dataclass(frozen=True)
class DraftsChanged:
    """Drafts in the session changed (proposed, applied, rejected, undone)."""

    paths: tuple[str, ...] = ()
    kind: str = field(default="drafts_changed", init=False)


@dataclass(frozen=True)
class SessionChanged:
    """The session itself moved: `rewound` (its conversation cut back to `turn`: a view shows it
    again from the log) or `forked` (`session_id` is the new fork, which the app switches to)."""

    session_id: str
    reason: Literal["rewound", "forked"]
    turn: int = 0
    kind: str = field(default="session_changed", init=False)


@dataclass(frozen=True)
class Notice:
    level: Literal["info", "warning", "error"]
    message: str
    kind: str = field(default="notice", init=False)


@dataclass(frozen=True)
class TurnFinished:
    reason: Literal["done", "cancelled", "step_limit", "error"]
    error: str | None = None
    kind: str = field(default="turn_finished", init=False)


AgentEvent = (
    TurnStarted
    | AssistantDelta
    | AssistantMessage
    | ToolCallStarted
    | ToolCallFinished
    | UsageUpdated
    | CompactionDone
    | DraftsChanged
    | SessionChanged
    | Notice
    | TurnFinished
)


def event_to_dict(event: AgentEvent) -> dict[str, Any]:
    data = asdict(event)
    data["type"] = data.pop("kind")
    return data
