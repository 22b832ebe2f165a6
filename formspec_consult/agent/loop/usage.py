"""Token and cost accounting of a session: what UsageUpdated, the `usage` event and /status show."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from formspec_consult.providers.base import Completion
from formspec_consult.store.records import EventRecord, UsageRecord


@dataclass
class UsageTotals:
    """Running usage of the session.

    `context_tokens` is the size of the latest request: provider-reported when the provider said
    so (`reported`), else the local count made before sending it.
    """

    context_tokens: int = 0
    reported: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost: float | None = None
    requests: int = 0

    def add(self, completion: Completion) -> UsageRecord:
        """Account one response; returns its `usage` event."""
        usage = completion.usage
        self.requests += 1
        if usage is not None and usage.reported:
            self.context_tokens, self.reported = usage.prompt_tokens, True
            self.prompt_tokens += usage.prompt_tokens
            self.completion_tokens += usage.completion_tokens
            self.cached_tokens += usage.cached_tokens
        else:  # nothing reported: keep the local count of the request, estimate the answer
            self.reported = False
            self.prompt_tokens += self.context_tokens
            self.completion_tokens += usage.completion_tokens if usage else len(completion.text) // 4
        if usage is not None and usage.cost is not None:
            self.cost = (self.cost or 0.0) + usage.cost
        return UsageRecord(
            context_tokens=self.context_tokens,
            reported=self.reported,
            prompt_tokens=usage.prompt_tokens if usage else self.context_tokens,
            completion_tokens=usage.completion_tokens if usage else None,
            cached_tokens=usage.cached_tokens if usage else 0,
            cost=usage.cost if usage else None,
            session_cost=self.cost,
        )

    def restore(self, events: Iterable[EventRecord]) -> None:
        """Pick the totals back up from a resumed session's `usage` events."""
        usages = [e for e in events if isinstance(e, UsageRecord)]
        if not usages:
            return
        last = usages[-1]
        self.context_tokens = int(last.context_tokens or 0)
        self.reported = bool(last.reported)
        self.cost = last.session_cost
        self.requests = len(usages)
        self.prompt_tokens = sum(int(e.prompt_tokens or 0) for e in usages)
        self.completion_tokens = sum(int(e.completion_tokens or 0) for e in usages)
        self.cached_tokens = sum(int(e.cached_tokens or 0) for e in usages)
