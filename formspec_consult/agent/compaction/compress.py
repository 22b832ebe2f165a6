"""Structured history compression: prune, then summarise, then (if need be) extract.

Cuts happen only at turn boundaries; an assistant message and all its tool results are one
atomic block; the head (system prompt + injected workspace context) and the latest user message
are never touched. Every chosen option (``[chosen: …]``) survives verbatim. If the summariser is
missing, fails, returns junk or would overflow, a deterministic extractive summary is used, so
compaction can never fail or brick a session. The transcript on disk is never touched: the
compaction is one ``compaction`` event listing what it replaced.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from formspec_consult.agent.compaction.extractive import chosen_options, extractive_summary
from formspec_consult.agent.compaction.plan import Plan, plan_compaction, tool_names
from formspec_consult.agent.compaction.rolling import Summariser, rolling_summary
from formspec_consult.agent.history.history import History
from formspec_consult.agent.history.pairing import find_pairing_issues
from formspec_consult.agent.history.summary import compaction_done, summary_message
from formspec_consult.store.agent_events import CompactionDone
from formspec_consult.store.rebuild import apply_event
from formspec_consult.store.records import CompactionMethod, CompactionRecord

Message = dict[str, Any]
_log = logging.getLogger(__name__)
_SUMMARY_REQUEST_OVERHEAD = 600  # tokens of the compress prompt itself (the reply budget is added)

__all__ = ["Compressor", "Summariser", "estimate_tokens"]


def estimate_tokens(messages: list[Message]) -> int:
    """A cheap offline estimate (≈4 characters a token, plus per-message overhead)."""
    total = 0
    for message in messages:
        total += 4 + len(str(message.get("content") or "")) // 4
        for call in message.get("tool_calls") or []:
            total += 8 + (len(call["function"]["name"]) + len(call["function"]["arguments"])) // 4
    return total


class Compressor:
    """Keeps a History under `threshold` × `usable_window` tokens."""

    def __init__(
        self,
        *,
        count_tokens: Callable[[list[Message]], int],
        usable_window: int,
        threshold: float = 0.75,
        summarise: Summariser | None = None,
        keep_last_turns: int = 2,
        prune_tool_output_over: int = 2000,
    ) -> None:
        if usable_window <= 0:
            raise ValueError(f"usable_window must be positive, got {usable_window}")
        if not 0.05 <= threshold <= 1.0:
            raise ValueError(f"threshold is a fraction of the usable window (0.05–1.0), got {threshold}")
        self.count_tokens = count_tokens
        self.usable_window = usable_window
        self.threshold = threshold
        self.threshold_tokens = int(usable_window * threshold)
        self.summarise = summarise
        self.keep_last_turns = max(1, keep_last_turns)
        self.prune_tool_output_over = prune_tool_output_over
        self.compactions = 0

    def needs_compaction(self, history: History) -> bool:
        """True when the history is above the threshold."""
        return self.count_tokens(history.messages) > self.threshold_tokens

    async def compact(
        self, history: History, *, force: bool = False, focus: str | None = None
    ) -> CompactionDone | None:
        """Compact `history` if it is above the threshold (or `force`); None when nothing was done."""
        tokens_before = self.count_tokens(history.messages)
        if not force and tokens_before <= self.threshold_tokens:
            return None
        try:
            event = await self._best_event(history, force=force, focus=focus)
        except Exception:  # noqa: BLE001 - compaction must never take a session down
            _log.exception("compaction failed unexpectedly; the history is left as it was")
            return None
        if event is None:
            return None  # nothing old enough to compact: the latest turn alone is what remains
        return self._commit(history, event, tokens_before)

    async def _best_event(self, history: History, *, force: bool, focus: str | None) -> CompactionRecord | None:
        """The first compaction that gets under the threshold, keeping as many turns as possible."""
        event: CompactionRecord | None = None
        for keep in dict.fromkeys((self.keep_last_turns, 1)):  # fewer kept turns only if needed
            plan = plan_compaction(
                history,
                count_tokens=self.count_tokens,
                threshold_tokens=self.threshold_tokens,
                keep_last_turns=keep,
                prune_over=self.prune_tool_output_over,
                force=force,
            )
            if event is not None and plan.end <= event.end:
                break  # keeping one turn would replace nothing more: stay with the first attempt
            candidate = await self._event(history, plan, focus)
            if candidate is not None:
                event = candidate
            if event is not None and event.tokens_after <= self.threshold_tokens:
                break
        return event

    async def _event(self, history: History, plan: Plan, focus: str | None) -> CompactionRecord | None:
        """The ``compaction`` record `plan` leads to (with its tokens_after), or None if it is a no-op."""
        text: str
        method: CompactionMethod
        text, method = "", "pruned"
        if plan.end > plan.start:
            text, method = await self._summary(history, plan, focus)
            replaced = plan.pruned_messages(history.messages)[plan.start : plan.end]
            if self.count_tokens([summary_message(text, replaced=len(replaced))]) >= self.count_tokens(replaced):
                text, method = "", "pruned"  # a summary bigger than what it replaces helps nobody
        if not text and not plan.pruned:
            return None
        summary = summary_message(text, replaced=plan.end - plan.start) if text else None
        names = tool_names(history.messages)
        event = CompactionRecord(
            start=plan.start,
            end=plan.end if summary else plan.start,
            summary_message=summary,
            method=method,
            pruned=plan.pruned,
            stubs=plan.stubs,
            pruned_tools=[names.get(str(history.messages[i].get("tool_call_id"))) for i in plan.pruned],
            focus=focus,
        )
        after = copy.deepcopy(history.messages)
        apply_event(after, event)
        issues = find_pairing_issues(after)
        if issues:  # cannot happen by construction; never commit it if it ever does
            _log.error("compaction plan skipped, it would break tool pairing: %s", issues[0].describe())
            return None
        return dataclasses.replace(event, tokens_after=self.count_tokens(after))

    async def _summary(self, history: History, plan: Plan, focus: str | None) -> tuple[str, CompactionMethod]:
        """The LLM summary when it is usable, else the extractive one."""
        replaced = plan.pruned_messages(history.messages)[plan.start : plan.end]
        chosen = chosen_options(replaced)
        budget_chars = max(600, plan.summary_budget_tokens * 3)  # ≈3 chars a token: stay under
        if self.summarise is not None:
            room = self.usable_window - _SUMMARY_REQUEST_OVERHEAD - plan.summary_budget_tokens
            text = await rolling_summary(
                self.summarise, replaced, focus=focus, room=room, budget_chars=budget_chars, count=self.count_tokens
            )
            if text is not None:
                return _with_decisions(text, chosen), "summarised"
        return extractive_summary(replaced, focus=focus, budget_chars=budget_chars), "extractive"

    def _commit(self, history: History, event: CompactionRecord, tokens_before: int) -> CompactionDone:
        written = history.apply_logged(dataclasses.replace(event, tokens_before=tokens_before))
        history.check_pairing()  # by construction; a failure here is a bug worth surfacing loudly
        self.compactions += 1
        return compaction_done(written)


def _with_decisions(text: str, chosen: list[str]) -> str:
    """Append every chosen option the summariser dropped, verbatim (decisions must survive)."""
    missing = [line for line in chosen if line not in text]
    if not missing:
        return text
    return text + "\n\nDecisions (chosen options, verbatim):\n" + "\n".join(f"- {line}" for line in missing)
