"""Tool call / tool result pairing: find every problem, both ways, and plan a repair.

Chat APIs reject a history where an assistant's tool call has no result right after it, or where
a tool result has no call ("tool_use ids were found without tool_result blocks"). Cancelled turns
and crashes are the usual cause. This module is pure: it reads messages and returns plans.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Message = dict[str, Any]
CANCELLED_RESULT = "cancelled: this tool call did not run because the turn was interrupted"

__all__ = [
    "CANCELLED_RESULT",
    "PairingIssue",
    "RepairPlan",
    "find_pairing_issues",
    "plan_duplicate_ids",
    "plan_repair",
]


@dataclass(frozen=True)
class PairingIssue:
    kind: Literal["unanswered", "orphan", "duplicate", "duplicate_call_id"]
    call_id: str
    index: int  # the assistant message (unanswered, duplicate_call_id) or the tool message

    def describe(self) -> str:
        return {
            "unanswered": f"tool call {self.call_id} (message {self.index}) has no result right after it",
            "orphan": f"tool result {self.call_id} (message {self.index}) does not follow its call",
            "duplicate": f"tool call {self.call_id} has a second result (message {self.index})",
            "duplicate_call_id": f"message {self.index} uses tool call id {self.call_id} twice",
        }[self.kind]


@dataclass
class RepairPlan:
    """Remove `remove` (old indices), then insert each ``[index, message]`` in order."""

    actions: list[str] = field(default_factory=list)
    remove: list[int] = field(default_factory=list)
    insert: list[list[Any]] = field(default_factory=list)


def _call_ids(message: Message) -> list[str]:
    return [call["id"] for call in message.get("tool_calls") or []]


def _well_placed(messages: list[Message]) -> tuple[set[int], dict[int, list[str]]]:
    """Indices of tool results sitting in their call's run, and each assistant's unanswered ids."""
    good: set[int] = set()
    missing: dict[int, list[str]] = {}
    i = 0
    while i < len(messages):
        message = messages[i]
        if message.get("role") == "assistant" and message.get("tool_calls"):
            wanted = list(dict.fromkeys(_call_ids(message)))
            seen: set[str] = set()
            j = i + 1
            while j < len(messages) and messages[j].get("role") == "tool":
                call_id = messages[j].get("tool_call_id")
                if call_id in wanted and call_id not in seen:
                    seen.add(call_id)
                    good.add(j)
                j += 1
            unanswered = [c for c in wanted if c not in seen]
            if unanswered:
                missing[i] = unanswered
            i = j
        else:
            i += 1
    return good, missing


def find_pairing_issues(messages: list[Message]) -> list[PairingIssue]:
    """Every pairing problem in `messages`, in message order."""
    issues: list[PairingIssue] = []
    good, missing = _well_placed(messages)
    answered: set[str] = set()
    for index, message in enumerate(messages):
        if message.get("role") == "assistant":
            ids = _call_ids(message)
            for call_id in sorted({c for c in ids if ids.count(c) > 1}):
                issues.append(PairingIssue("duplicate_call_id", call_id, index))
            for call_id in missing.get(index, []):
                issues.append(PairingIssue("unanswered", call_id, index))
        elif message.get("role") == "tool":
            call_id = str(message.get("tool_call_id"))
            if index in good:
                answered.add(call_id)
            elif call_id in answered:
                issues.append(PairingIssue("duplicate", call_id, index))
            else:
                issues.append(PairingIssue("orphan", call_id, index))
    return issues


def plan_repair(messages: list[Message]) -> RepairPlan:
    """Plan the smallest change that makes the pairing valid.

    Unanswered calls get the misplaced result with their id when one exists (moved next to the
    call), else a "cancelled" result. Results with no call, or a second result, are dropped.
    """
    plan = RepairPlan()
    good, missing = _well_placed(messages)
    stray = [i for i, m in enumerate(messages) if m.get("role") == "tool" and i not in good]
    wanted = {call_id for ids in missing.values() for call_id in ids}
    movable: dict[str, int] = {}
    for index in stray:
        call_id = str(messages[index].get("tool_call_id"))
        if call_id in wanted and call_id not in movable:
            movable[call_id] = index
        else:
            plan.actions.append(f"dropped a tool result with no matching call ({call_id}, message {index})")
    plan.remove = stray
    names = {c["id"]: c["function"]["name"] for m in messages for c in m.get("tool_calls") or []}
    new_len = 0
    removed = set(stray)
    for index in range(len(messages)):
        if index in removed:
            continue
        new_len += 1
        after = index + 1
        while after in removed:
            after += 1
        run_ends = after >= len(messages) or messages[after].get("role") != "tool"
        owner = _run_owner(messages, index)
        if owner is None or not run_ends or owner not in missing:
            continue
        for call_id in missing[owner]:
            if call_id in movable:
                result = dict(messages[movable[call_id]])
                plan.actions.append(f"moved the result of tool call {call_id} back next to its call")
            else:
                result = {"role": "tool", "tool_call_id": call_id, "content": CANCELLED_RESULT}
                plan.actions.append(f"added a 'cancelled' result for tool call {call_id} ({names.get(call_id)})")
            plan.insert.append([new_len, result])
            new_len += 1
    return plan


def plan_duplicate_ids(messages: list[Message]) -> RepairPlan:
    """Plan renaming tool-call ids that repeat inside one assistant message (``call_0`` twice).

    The n-th call with a repeated id becomes ``<id>~n`` (unique in the history), and the n-th
    result with that id in the call's run follows it, so each call keeps its own result.
    """
    plan = RepairPlan()
    taken = {c["id"] for m in messages for c in m.get("tool_calls") or []}
    for index, message in enumerate(messages):
        ids = _call_ids(message) if message.get("role") == "assistant" else []
        if len(ids) == len(set(ids)):
            continue
        seen: dict[str, list[str]] = {}
        calls = []
        for call in message["tool_calls"]:
            old = call["id"]
            new, n = old, len(seen.get(old, [])) + 1
            if old in seen:
                while new in taken:
                    n += 1
                    new = f"{old}~{n}"
                taken.add(new)
                plan.actions.append(f"renamed a repeated tool call id {old} to {new} (message {index})")
            seen.setdefault(old, []).append(new)
            calls.append({**call, "id": new})
        plan.remove.append(index)
        plan.insert.append([index, {**message, "tool_calls": calls}])
        j, used = index + 1, {old: 0 for old in seen}
        while j < len(messages) and messages[j].get("role") == "tool":
            old = str(messages[j].get("tool_call_id"))
            if old in seen and used[old] < len(seen[old]):
                new = seen[old][used[old]]
                used[old] += 1
                if new != old:
                    plan.remove.append(j)
                    plan.insert.append([j, {**messages[j], "tool_call_id": new}])
            j += 1
    return plan


def _run_owner(messages: list[Message], index: int) -> int | None:
    """The assistant message whose tool-call run ends at `index` (itself or its last result)."""
    j = index
    while j >= 0 and messages[j].get("role") == "tool":
        j -= 1
    if j >= 0 and messages[j].get("role") == "assistant" and messages[j].get("tool_calls"):
        return j
    return None
