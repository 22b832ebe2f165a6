"""The consultant of an eval case: the real engine, driven through its public API only.

This is the ONE module of the eval harness that knows the engine (Engine, EngineOptions, its
events and call_tool): everything else sees :class:`Consultation`. Drafts are applied the way
every client applies them, through the local MCP server's tools.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from contextlib import aclosing
from pathlib import Path
from typing import Any

from formspec_consult.agent.engine.engine import Engine, EngineOptions, ServerSpecs, ToolError
from formspec_consult.eval.owner import ConsultantTurn
from formspec_consult.eval.scoring import ApplyOutcome
from formspec_consult.providers.base import Provider
from formspec_consult.store.agent_events import AssistantMessage, ToolCallFinished, TurnFinished
from formspec_consult.store.layout import EVENTS
from formspec_consult.store.records import EventRecord, MessageRecord, SystemPromptRecord
from formspec_consult.store.review_flow import ReviewFlow


class CaseFailed(RuntimeError):
    """The consultant could not run the case (the engine failed a turn)."""


class Consultation:
    """One case's session on a fresh project, with the run's shared provider instance."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @classmethod
    async def open(
        cls, project: Path, provider: Provider, *, verify: str, max_steps: int | None = None,
        in_process: bool = False, servers: ServerSpecs | None = None,
    ) -> Consultation:
        flags: dict[str, Any] = {"verify": verify}
        if max_steps:
            flags["max_steps"] = max_steps
        engine = await Engine.open(
            EngineOptions(project=project, flags=flags, provider=provider, in_memory_server=in_process, servers=servers)
        )
        return cls(engine)

    @property
    def session_dir(self) -> Path:
        return self.engine.session_dir

    async def turn(self, text: str) -> ConsultantTurn:
        """Run one owner message; a turn that ends in error raises CaseFailed."""
        reply, passed, reason, error = "", 0, "done", None
        async with aclosing(self.engine.run_turn(text)) as events:
            async for event in events:
                if isinstance(event, AssistantMessage) and event.text:
                    reply = event.text
                elif isinstance(event, ToolCallFinished) and event.ok and _is_propose(event.name):
                    passed += _passes(event.result)
                elif isinstance(event, TurnFinished):
                    reason, error = event.reason, event.error
        if reason == "error":
            raise CaseFailed(error or "the turn failed")
        return ConsultantTurn(reply, tuple(self.engine.last_options), passed)

    async def apply_all(self) -> ApplyOutcome:
        """Apply every draft that passes the gate (list_drafts, apply_draft); note the refusals."""
        outcome = ApplyOutcome()
        flow = ReviewFlow(self.engine.call_tool)
        drafts = await flow.drafts()
        outcome.drafts = {d.path: d.valid for d in drafts}
        for draft in drafts:
            if not draft.valid:
                outcome.refused.append({"path": draft.path, "error": f"{draft.problems} blocking problem(s)"})
                continue
            try:
                applied = await flow.apply(draft.path)
            except ToolError as exc:
                outcome.refused.append({"path": draft.path, "error": str(exc)})
                continue
            outcome.applied.append(draft.path)
            outcome.project_valid = applied.validation.ok
            outcome.project_problems = len(applied.validation.problems)
        return outcome

    async def aclose(self) -> None:
        await self.engine.aclose()


def _is_propose(name: str) -> bool:
    return name.rsplit("__", 1)[-1] == "propose_spec_file"


def _passes(result: str) -> int:
    """1 when a propose_spec_file result says nothing blocks the draft."""
    try:
        data = json.loads(result)
    except ValueError:
        return 0
    return int(isinstance(data, dict) and data.get("blocking_problems", 1) == 0)


def read_events(session_dir: Path) -> list[EventRecord]:
    """The session's event log (what the model saw, every tool call and result, usage)."""
    from formspec_consult.store.events import load_records

    return load_records(session_dir / EVENTS)


def system_prompt(events: Iterable[EventRecord]) -> str:
    """Every system prompt the consultant was given, in order: the session's first, then each one
    written again (at the Draft phase's offer, on resume, at a phase change: `system_prompt` events),
    each after a heading that says from which event on it was sent. One prompt is returned as it is."""
    prompts: list[tuple[str, str]] = []
    for event in events:
        if isinstance(event, MessageRecord) and event.message.get("role") == "system" and not prompts:
            prompts.append(("the start", str(event.message.get("content") or "")))
        elif isinstance(event, SystemPromptRecord):
            text = str(event.message.get("content") or "")
            if not prompts or prompts[-1][1] != text:
                prompts.append((f"event {event.seq} ({event.reason or 'rewritten'})", text))
    if len(prompts) <= 1:
        return prompts[0][1] if prompts else ""
    return "\n\n".join(f"# System prompt {i} — from {when} on\n\n{text.rstrip()}"
                       for i, (when, text) in enumerate(prompts, 1)) + "\n"
