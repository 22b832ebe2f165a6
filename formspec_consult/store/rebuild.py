"""Replay events into the model-visible message list.

The live history (`agent.history.History`) changes its messages through :func:`apply_event` too,
so what a resumed session rebuilds is, by construction, what the model saw: there is one
implementation of every change, not a live one and a replayed one that could drift apart.

Five event types change the model-visible list:

- ``message``    {message}: appended.
- ``compaction`` {pruned, stubs, start, end, summary_message}: first the messages at `pruned`
  get their content replaced by the matching `stubs`; then ``messages[start:end]`` is replaced by
  `summary_message` (when there is one). Indices refer to the list before the compaction.
- ``repair``     {remove, insert}: messages at `remove` (indices in the old list) are dropped,
  then each ``[index, message]`` of `insert` is inserted, in order (indices in the new list).
- ``system_prompt`` {message, reason}: the system prompt (the first message) is replaced by
  `message` (inserted first when the list has none).
- ``rewind``     {to_seq, mode}: unless `mode` is ``files``, the list becomes what the events up to
  `to_seq` rebuild — exactly what the model saw at the end of that turn, a compaction made since
  included (the log keeps what it replaced). It is the one change that needs the events before
  it, so :func:`apply_event` takes them as `earlier`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from formspec_consult.store.records import (
    CompactionRecord,
    EventLogError,
    EventRecord,
    MessageRecord,
    RepairRecord,
    RewindRecord,
    SystemPromptRecord,
    record_from_json,
)

Message = dict[str, Any]

__all__ = ["apply_event", "pruned_stub", "rebuild_history"]


def pruned_stub(message: Message, tool_name: str | None) -> str:
    """The one-line stand-in for a blanked bulky tool output (used when an event has no stubs)."""
    size = len(str(message.get("content") or ""))
    call_id = message.get("tool_call_id", "?")
    return (
        f"[output of {tool_name or 'a tool'} pruned to save context ({size} chars); the full output "
        f"is in the transcript — read_transcript(query=\"{call_id}\", type=\"tool_result\") finds it, "
        "then read_transcript(seq=…) reads it in full]"
    )


def apply_event(
    messages: list[Message], event: EventRecord | Mapping[str, Any], earlier: Sequence[EventRecord] | None = None
) -> bool:
    """Apply one event to `messages` in place; return True if it changed the model-visible list.

    `earlier`: the events before this one, which a ``rewind`` rebuilds its list from."""
    record = event if isinstance(event, EventRecord) else record_from_json(event)
    if isinstance(record, RewindRecord):
        if not record.cuts_conversation:
            return False
        if earlier is None:
            raise EventLogError(f"the rewind with seq {record.seq} needs the events before it to rebuild from")
        messages[:] = rebuild_history(earlier, upto_seq=record.to_seq)
        return True
    if isinstance(record, MessageRecord):
        messages.append(copy.deepcopy(record.message))
        return True
    if isinstance(record, CompactionRecord):
        pruned, stubs = list(record.pruned), list(record.stubs)
        for position, index in enumerate(pruned):
            stub = stubs[position] if position < len(stubs) else pruned_stub(messages[index], None)
            messages[index] = {**messages[index], "content": stub}
        summary = record.summary_message
        if summary is not None:
            messages[int(record.start) : int(record.end)] = [copy.deepcopy(summary)]
        return bool(pruned) or summary is not None
    if isinstance(record, SystemPromptRecord):
        if messages and messages[0].get("role") == "system":
            messages[0] = copy.deepcopy(record.message)
        else:
            messages.insert(0, copy.deepcopy(record.message))
        return True
    if isinstance(record, RepairRecord):
        for index in sorted(record.remove, reverse=True):
            del messages[index]
        for index, message in record.insert:
            messages.insert(int(index), copy.deepcopy(message))
        return True
    return False


def rebuild_history(events: Iterable[EventRecord | Mapping[str, Any]], upto_seq: int | None = None) -> list[Message]:
    """Exactly the model-visible messages after every event with ``seq <= upto_seq`` (all if None).

    Rebuilding up to the seq of a ``request`` event gives the messages that request sent.
    """
    messages: list[Message] = []
    seen: list[EventRecord] = []
    for event in events:
        record = event if isinstance(event, EventRecord) else record_from_json(event)
        if upto_seq is not None and record.seq > upto_seq:
            break
        apply_event(messages, record, seen)
        seen.append(record)
    return messages
