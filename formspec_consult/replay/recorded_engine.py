"""A read-only engine that plays a recording back: the same events, at a chosen speed.

It stands in for the real Engine in `formspec-consult replay`: every `run_turn` plays the next
recorded step (whatever the text), review tools answer from the drafts recorded so far, and
anything that would change the project is refused — a replay never writes.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from formspec_consult.agent.engine.status import EngineStatus
from formspec_consult.i18n import _
from formspec_consult.replay.recording import Recording, Step
from formspec_consult.store.agent_events import (
    AgentEvent,
    AssistantDelta,
    AssistantMessage,
    DraftsChanged,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    UsageUpdated,
)
from formspec_consult.store.review_results import (
    DiffList,
    DraftDiff,
    DraftList,
    DraftRow,
    Proposed,
    SettledRow,
    SettledState,
    ToolResult,
    ToolResultError,
)

READ_ONLY = "This is a read-only replay: nothing is applied. Run `formspec-consult demo` to try it for real."

if TYPE_CHECKING:
    from formspec_consult.agent.loop.permissions import Approver


def _chunks(text: str, words: int = 4) -> list[str]:
    parts = text.split(" ")
    return [" ".join(parts[i : i + words]) + (" " if i + words < len(parts) else "") for i in range(0, len(parts), words)]


class RecordedEngine:
    """Plays `recording` step by step; `speed` scales the pauses (0 = as fast as possible)."""

    provider_name = "replay"
    read_only = True  # the player says "space to continue" at the review step, not "press a"

    def __init__(self, recording: Recording, *, speed: float = 1.0) -> None:
        self.recording = recording
        self.speed = speed
        self.position = 0
        self.session_id = recording.session_id
        self.session_dir = recording.folder
        self.project_root = Path(recording.header.project or recording.folder)
        self.model = recording.header.model or "recorded"
        self.last_options: tuple[str, ...] = ()
        self._usage: UsageUpdated | None = None
        # What the local server would list: drafts under review, those applied or rejected, and
        # the applies an undo takes back (newest last) — answered with the server's records.
        self._drafts: dict[str, DraftDiff] = {}
        self._settled: dict[str, SettledRow] = {}
        self._applied: list[DraftDiff] = []
        self._proposed: dict[str, dict[str, Any]] = {}

    @property
    def finished(self) -> bool:
        """True once every recorded step has been played."""
        return self.position >= len(self.recording.steps)

    def past_events(self) -> list[AgentEvent]:
        return []

    def resolve_choice(self, text: str) -> str:
        return text

    async def model_ready(self) -> None:
        """A replay has no model to load."""

    def set_approver(self, approver: Approver | None) -> None:
        """A replay asks nobody: the recorded answers are played as they were given."""

    def record_command(self, text: str) -> None:
        """The app ran a recorded command itself (`/diff` opens the diff pane): move past it."""
        if not self.finished and self.recording.steps[self.position].text == text.strip():
            self.position += 1

    async def _pause(self, seconds: float) -> None:
        await anyio.sleep(seconds / self.speed if self.speed > 0 else 0)

    async def run_turn(self, text: str) -> AsyncIterator[AgentEvent]:
        """Play the next recorded step (the text typed is ignored: the recording decides)."""
        if self.finished:
            return
        step = self.recording.steps[self.position]
        self.position += 1
        self._review(step)
        for event in step.events:
            if isinstance(event, AssistantMessage) and event.text:
                for piece in _chunks(event.text):
                    await self._pause(0.03)
                    yield AssistantDelta(piece)
                self.last_options = event.options
            elif isinstance(event, ToolCallStarted):
                self._proposed[event.call_id] = {"name": event.name, **event.arguments}
                await self._pause(0.2)
            elif isinstance(event, ToolCallFinished):
                path = self._track(event)
                if path:
                    yield event
                    yield DraftsChanged((path,))  # the log has no such event: the pane needs it
                    continue
            elif isinstance(event, UsageUpdated):
                self._usage = event
            yield event
        if not any(isinstance(e, TurnFinished) for e in step.events):
            # As the engine ends every turn and command: a review step or a command (no turn_finished
            # in the log) is done; a message whose turn was cut off without one was cancelled.
            yield TurnFinished("cancelled" if step.cancelled else "done")
        await self._pause(0.4)

    def _review(self, step: Step) -> None:
        """A recorded apply, reject or undo changes the drafts as the local server does: an apply
        or reject takes the draft out of review (listed as settled), an undo puts the draft the
        last apply took back for review (state undone) unless a newer draft of it is listed."""
        if step.kind in {"apply", "reject"} and step.path:
            draft = self._drafts.pop(step.path, None)
            state: SettledState = "applied" if step.kind == "apply" else "rejected"
            self._settled[step.path] = SettledRow(path=step.path, file=step.file or step.path, state=state, at=None)
            if step.kind == "apply" and draft is not None:
                self._applied.append(draft)
        elif step.kind == "undo" and self._applied:
            draft = self._applied.pop()
            self._settled.pop(draft.path, None)
            self._drafts.setdefault(draft.path, draft.model_copy(update={"state": "undone"}))

    def _track(self, event: ToolCallFinished) -> str | None:
        """Remember drafts from recorded `propose_spec_file` results; return the draft's path."""
        call = self._proposed.pop(event.call_id, {})
        if event.name != "propose_spec_file" or not event.ok:
            return None
        try:
            proposed = Proposed.from_result(ToolResult.of(event.name, json.loads(event.result)))
        except (ValueError, ToolResultError):  # not the tool's result: the pane shows no draft for it
            return None
        content = str(call.get("content") or "")
        diff = "".join(difflib.unified_diff([], content.splitlines(keepends=True), "/dev/null", f"b/{proposed.path}"))
        blocking = () if proposed.passes else tuple(proposed.validation.problems)
        self._drafts[proposed.path] = DraftDiff(path=proposed.path, status=proposed.status, state="pending",
                                                valid=proposed.passes, problems=blocking, target_changed=False,
                                                diff=diff)
        self._settled.pop(proposed.path, None)
        return proposed.path

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        """The review tools a replay answers, in the local server's shapes (built with the records
        the review workflow reads them into); anything that would write is refused."""
        if name == "list_drafts":
            rows = tuple(DraftRow(path=d.path, status=d.status, state=d.state, valid=d.valid, problems=len(d.problems),
                                  target_changed=d.target_changed) for d in self._drafts.values())
            listing = DraftList(session=self.session_id, drafts=rows, settled=tuple(self._settled.values()))
            return ToolResult.of(name, listing.to_json())
        if name == "diff_drafts":
            path = (arguments or {}).get("path")
            diffs = tuple(d for d in self._drafts.values() if not path or d.path == path)
            return ToolResult.of(name, DiffList(session=self.session_id, drafts=diffs).to_json())
        raise PermissionError(READ_ONLY)

    async def restart_mcp(self, server: str | None = None) -> None:
        raise PermissionError(READ_ONLY)

    def status(self) -> EngineStatus:
        usage = self._usage
        return EngineStatus(
            model=self.model, provider=self.provider_name, session=self.session_id,
            session_dir=str(self.session_dir), project=str(self.project_root),
            context_tokens=usage.context_tokens if usage else 0,
            threshold_tokens=usage.threshold_tokens if usage else 0,
            window_tokens=usage.window_tokens if usage else 0,
            reported=usage.reported if usage else False,
            cost=usage.session_cost if usage else None,
            compactions=usage.compactions if usage else 0,
            turn=self.position, mcp_note=_("replay (no servers)"),
        )

    async def aclose(self) -> None:
        return None
