"""The model-visible conversation: OpenAI chat-format messages, logged as they change.

Every change goes through :func:`formspec_consult.store.rebuild.apply_event` after being logged,
so :func:`rebuild_history` over the event log always equals :attr:`History.messages`.

Structure the compressor relies on (see :meth:`History.blocks`): the *head* — everything before the
first user message: the system prompt and injected workspace context — then *turns*, each one user
message followed by assistant blocks (an assistant message and all its tool results, atomic).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from formspec_consult.agent.history.pairing import (
    PairingIssue,
    find_pairing_issues,
    plan_duplicate_ids,
    plan_repair,
)
from formspec_consult.agent.history.summary import SUMMARY_PREFIX, is_summary
from formspec_consult.errors import UserError
from formspec_consult.store.events import EventLog
from formspec_consult.store.rebuild import apply_event, rebuild_history
from formspec_consult.store.records import (
    CompactionRecord,
    EventRecord,
    MessageRecord,
    RepairRecord,
    RewindRecord,
    SystemPromptRecord,
)

Message = dict[str, Any]
Change = TypeVar("Change", MessageRecord, CompactionRecord, RepairRecord, SystemPromptRecord)
BlockKind = Literal["head", "summary", "user", "assistant", "system"]
_ROLES = frozenset({"system", "user", "assistant", "tool"})

__all__ = ["SUMMARY_PREFIX", "Block", "History", "HistoryError", "is_summary", "normalise_tool_call"]


class HistoryError(UserError):
    """The history is (or would become) invalid for a chat API."""


@dataclass(frozen=True)
class Block:
    """An atomic run of messages ``messages[start:end]`` that compaction keeps or replaces whole."""

    kind: BlockKind
    start: int
    end: int
    turn: int  # index of the turn (0-based) the block belongs to; -1 for the head


def normalise_tool_call(call: Any) -> dict[str, Any]:
    """An OpenAI tool call dict from a dict (OpenAI or flat ``{id, name, arguments}``) or a ToolCall."""
    if not isinstance(call, dict):
        call = {"id": call.id, "name": call.name, "arguments": call.arguments}
    if "function" in call:
        function = call["function"]
        name, arguments = function.get("name"), function.get("arguments", "{}")
    else:
        name, arguments = call.get("name"), call.get("arguments", "{}")
    if not call.get("id") or not name:
        raise HistoryError(f"a tool call needs an id and a name, got {call!r}")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {"id": str(call["id"]), "type": "function", "function": {"name": str(name), "arguments": arguments}}


class History:
    """The model-visible messages of a session, system message(s) first.

    Messages passed to the constructor are logged like any appended message, so a History with a
    log is always rebuildable; :meth:`restore` builds one from events without logging again.
    """

    def __init__(self, log: EventLog | None = None, messages: list[Message] | None = None) -> None:
        self.log = log
        self.messages: list[Message] = []
        for message in messages or []:
            self.append(message)

    # -- changes -------------------------------------------------------------------------------
    def append(self, message: Message) -> None:
        """Append one message (validated, copied) and log it as a ``message`` event."""
        self._apply(MessageRecord(message=_validated(message)))

    def add_user(self, text: str) -> None:
        """Append a user message."""
        self.append({"role": "user", "content": text})

    def add_assistant(self, text: str, tool_calls: list[Any] | None = None) -> None:
        """Append an assistant message; tool calls may be OpenAI dicts, flat dicts or ToolCalls."""
        # Text even beside tool calls ("" when there is none): strict chat templates (llama.cpp's)
        # fail on `content: null`, and litellm drops an empty text block for providers that refuse one.
        message: Message = {"role": "assistant", "content": text}
        if tool_calls:
            message["tool_calls"] = [normalise_tool_call(call) for call in tool_calls]
        self.append(message)

    def add_tool_result(self, call_id: str, content: str | list[dict[str, Any]]) -> None:
        """Append the result of tool call `call_id` (its assistant message must come before);
        `content` is text, or OpenAI content parts (text and images)."""
        self.append({"role": "tool", "tool_call_id": call_id, "content": content})

    def set_system_prompt(self, text: str, reason: str) -> bool:
        """Write the system prompt again (logged as a ``system_prompt`` event) when `text` differs
        from the one the history holds; True when it changed."""
        first = self.messages[0] if self.messages else None
        if first is not None and first.get("role") == "system" and first.get("content") == text:
            return False
        self._apply(SystemPromptRecord(message={"role": "system", "content": text}, reason=reason))
        return True

    def apply_logged(self, record: Change) -> Change:
        """Log a message-changing record (a compaction, a repair) and apply it; returns it as written."""
        return self._apply(record)

    def rewind(self, record: RewindRecord) -> RewindRecord:
        """Log a rewind and cut the messages back as the log rebuilds them (store/rebuild.py: the
        events up to its point, read back from the log, so live and rebuilt cannot differ)."""
        if self.log is None:
            raise HistoryError("a rewind needs the session's event log: it rebuilds from it")
        record = self.log.write(record)
        earlier = [event for event in EventLog.records(self.log.path) if event.seq < record.seq]
        apply_event(self.messages, record, earlier)
        return record

    def _apply(self, record: Change) -> Change:
        if self.log is not None:  # what is applied is what was written (secrets masked alike)
            record = self.log.write(record)
        apply_event(self.messages, record)
        return record

    # -- structure -----------------------------------------------------------------------------
    def blocks(self) -> list[Block]:
        """Split the messages into atomic blocks: head, summary, user, assistant(+its tool results)."""
        blocks: list[Block] = []
        messages = self.messages
        # The head (system prompt, injected workspace context) ends at the first user-role message.
        first_user = next((i for i, m in enumerate(messages) if m.get("role") == "user"), len(messages))
        if first_user:
            blocks.append(Block("head", 0, first_user, -1))
        turn, i = -1, first_user
        while i < len(messages):
            role = messages[i].get("role")
            if role == "user" and not is_summary(messages[i]):
                turn += 1
                blocks.append(Block("user", i, i + 1, turn))
                i += 1
            elif role == "user" or role == "system":
                kind: BlockKind = "summary" if is_summary(messages[i]) else "system"  # a mid-session notice
                blocks.append(Block(kind, i, i + 1, max(turn, 0)))
                i += 1
            else:  # an assistant message with every tool result that follows it (or a stray result)
                j = i + 1
                while j < len(messages) and messages[j].get("role") == "tool":
                    j += 1
                blocks.append(Block("assistant", i, j, max(turn, 0)))
                i = j
        return blocks

    def last_user_index(self) -> int | None:
        """Index of the latest real (non-summary) user message."""
        for index in range(len(self.messages) - 1, -1, -1):
            message = self.messages[index]
            if message.get("role") == "user" and not is_summary(message):
                return index
        return None

    # -- pairing -------------------------------------------------------------------------------
    def pairing_issues(self) -> list[PairingIssue]:
        """Every tool call/result pairing problem, both ways (empty when the history is valid)."""
        return find_pairing_issues(self.messages)

    def check_pairing(self) -> None:
        """Raise HistoryError unless every tool call has exactly one result right after its
        assistant message and every tool result belongs to such a call."""
        issues = self.pairing_issues()
        if issues:
            raise HistoryError("; ".join(issue.describe() for issue in issues))

    def repair_pairing(self) -> list[str]:
        """Make the pairing valid again (e.g. after a cancelled turn) and log it as a ``repair``
        event: unanswered calls get a "cancelled" result, misplaced results move next to their
        call, duplicate and orphaned results are dropped. Returns a description of each action."""
        actions: list[str] = []
        for planner in (plan_duplicate_ids, plan_repair):  # ids first: the pairing needs them unique
            plan = planner(self.messages)
            if plan.actions:
                self.apply_logged(RepairRecord(actions=plan.actions, remove=plan.remove, insert=plan.insert))
                actions += plan.actions
        return actions

    # -- restore -------------------------------------------------------------------------------
    @classmethod
    def restore(cls, events: Iterable[EventRecord | dict[str, Any]], log: EventLog | None = None) -> History:
        """The history exactly as the events left it; later changes are logged to `log`."""
        history = cls(log=None)
        history.messages = rebuild_history(events)
        history.log = log
        return history

    def snapshot(self) -> list[Message]:
        """A deep copy of the messages (what a request sends)."""
        return copy.deepcopy(self.messages)


def _validated(message: Message) -> Message:
    if not isinstance(message, dict):
        raise HistoryError(f"a message must be a dict, got {type(message).__name__}")
    role = message.get("role")
    if role not in _ROLES:
        raise HistoryError(f"message role must be one of {sorted(_ROLES)}, got {role!r}")
    if role == "tool" and not message.get("tool_call_id"):
        raise HistoryError("a tool message needs the tool_call_id of the call it answers")
    message = copy.deepcopy(message)
    if role == "assistant" and message.get("tool_calls"):
        message["tool_calls"] = [normalise_tool_call(call) for call in message["tool_calls"]]
    try:
        json.dumps(message)
    except (TypeError, ValueError) as exc:
        raise HistoryError(f"a message must be JSON-serialisable: {exc}") from exc
    return message
