"""Deciding *what* a compaction replaces: which bulky outputs to blank, which turns to summarise.

Pure functions over the message list; the :class:`~formspec_consult.agent.compaction.compress.Compressor`
turns a :class:`Plan` into one logged ``compaction`` event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from formspec_consult.agent.history.history import History
from formspec_consult.agent.history.summary import summary_message
from formspec_consult.store.rebuild import pruned_stub

Message = dict[str, Any]
_STUB_PREFIX = "[output of "

__all__ = ["Plan", "plan_compaction", "summary_message", "tool_names"]


@dataclass
class Plan:
    """Blank `pruned` (with `stubs`), then replace ``messages[start:end]`` by one summary."""

    start: int
    end: int
    pruned: list[int] = field(default_factory=list)
    stubs: list[str] = field(default_factory=list)
    summary_budget_tokens: int = 0

    def pruned_messages(self, messages: list[Message]) -> list[Message]:
        """A copy of `messages` with the planned stubs in place."""
        out = list(messages)
        for index, stub in zip(self.pruned, self.stubs, strict=True):
            out[index] = {**out[index], "content": stub}
        return out


def tool_names(messages: list[Message]) -> dict[str, str]:
    """Map every tool call id to the name of the tool it called."""
    return {
        call["id"]: call["function"]["name"]
        for message in messages
        for call in message.get("tool_calls") or []
    }


def plan_compaction(
    history: History,
    *,
    count_tokens: Callable[[list[Message]], int],
    threshold_tokens: int,
    keep_last_turns: int,
    prune_over: int,
    force: bool,
) -> Plan:
    """Choose the cheapest compaction that gets under the threshold (or the strongest one).

    Tries keeping `keep_last_turns` turns verbatim, then only the latest one. Old bulky tool
    outputs are blanked first; if that is enough (and not forced) nothing is summarised.
    """
    messages = history.messages
    blocks = history.blocks()
    head_end = blocks[0].end if blocks and blocks[0].kind == "head" else 0
    user_starts = [b.start for b in blocks if b.kind == "user"]
    last_block_start = blocks[-1].start if blocks else 0
    names = tool_names(messages)

    def prune(limit: int) -> tuple[list[int], list[str]]:
        indices = [
            i
            for i in range(head_end, limit)
            if messages[i].get("role") == "tool"
            and len(str(messages[i].get("content") or "")) > prune_over
            and not str(messages[i].get("content")).startswith(_STUB_PREFIX)
        ]
        return indices, [pruned_stub(messages[i], names.get(str(messages[i].get("tool_call_id")))) for i in indices]

    if not user_starts:  # no turn yet: only bulky outputs before the latest block can go
        pruned, stubs = prune(last_block_start)
        return Plan(head_end, head_end, pruned, stubs)
    for keep in range(min(keep_last_turns, len(user_starts)), 0, -1):
        kept_start = user_starts[-keep]
        pruned, stubs = prune(kept_start)
        plan = Plan(kept_start, kept_start, pruned, stubs)
        trial = plan.pruned_messages(messages)
        if not force and count_tokens(trial) <= threshold_tokens:
            return plan  # blanking old outputs is enough
        if kept_start <= head_end and keep > 1:
            continue
        remaining = count_tokens(trial[:head_end] + trial[kept_start:])
        budget = max(150, min(threshold_tokens // 4, threshold_tokens - remaining - 50))
        plan = Plan(head_end, kept_start, pruned, stubs, budget)
        if remaining + budget <= threshold_tokens or keep == 1:
            if remaining + budget > threshold_tokens:  # even the latest turn is too big: blank
                plan.pruned, plan.stubs = prune(last_block_start)  # its older bulky outputs too
                plan.summary_budget_tokens = 150 if kept_start > head_end else 0
            return plan
    raise AssertionError("unreachable: keep == 1 always returns")  # pragma: no cover
