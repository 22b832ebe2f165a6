"""A scripted stand-in for the engine: same surface as `formspec_consult.agent.engine.engine.Engine`.

Each turn yields the next scripted list of events. A `hold` event pauses the turn until the
test releases it, so cancelling a running turn can be tested without sleeps. Review tools keep
an in-memory set of drafts with an undo stack, like the local server does on disk.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from formspec_consult.agent.engine.status import EngineStatus
from formspec_consult.agent.loop.permissions import Approver
from formspec_consult.mcp_client.manager import ToolError
from formspec_consult.mcp_client.status import ServerStatus
from formspec_consult.spec.model import Problem, ValidationResult
from formspec_consult.store.agent_events import (
    AgentEvent,
    AssistantMessage,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from formspec_consult.store.changeset import line_counts
from formspec_consult.store.review_results import (
    Applied,
    ChangeRow,
    DiffList,
    DraftBlocks,
    DraftDiff,
    DraftList,
    DraftRow,
    LiveState,
    Rejected,
    SettledRow,
    ToolResult,
    TurnChanges,
    Undone,
)


class Hold:
    """A pseudo-event: the fake turn waits here until `FakeEngine.release()`."""


@dataclass
class FakeDraft:
    path: str
    status: str = "new"
    valid: bool = True
    problems: list[str] = field(default_factory=list)
    diff: str = ""
    state: LiveState = "pending"

    def gate_problems(self) -> tuple[Problem, ...]:
        """The problems as the gate reports them (here: messages without a line)."""
        return tuple(Problem("FS-TEST", f"spec/{self.path}", None, "schema", text) for text in self.problems)


class FakeEngine:
    """Scripted engine. `turns` are event lists; TurnStarted/TurnFinished are added around each."""

    provider_name = "scripted"
    read_only = False

    def __init__(
        self,
        turns: Sequence[Sequence[AgentEvent | Hold]] | None = None,
        *,
        past: Sequence[AgentEvent] | None = None,
        drafts: list[FakeDraft] | None = None,
        root: Path = Path("/tmp/fake-project"),
        session_id: str = "s-test",
        model: str = "fake/model",
        fail_tools: bool = False,
    ) -> None:
        self.turns: list[Sequence[AgentEvent | Hold]] = list(turns or [])
        self.past = list(past or [])
        self.drafts = {d.path: d for d in drafts or []}
        self.project_root = root
        self.session_id = session_id
        self.session_dir = root / ".formspec" / "consult" / session_id
        self.model = model
        self.last_options: tuple[str, ...] = ()
        self.fail_tools = fail_tools
        self.sent: list[str] = []
        self.recorded_commands: list[str] = []
        self.approver: Approver | None = None
        self.tool_calls: list[tuple[str, dict[str, Any]]] = []
        self.applied: list[str] = []
        self.undo_stack: list[FakeDraft] = []
        self.settled: dict[str, SettledRow] = {}
        # list_draft_blocks answers, per draft path: a draft's diff in store.blocks' blocks
        self.blocks: dict[str, DraftBlocks] = {}
        # list_turn_changes: the latest turn's draft paths (None: every draft of the fake session)
        self.turn_paths: list[str] | None = None
        self.cancelled = False
        self.closed_between_events = False
        self.closed = False
        self.restarts = 0
        self._release = asyncio.Event()
        self.holding = False
        # Engine.status().mcp: the real record, each server with the file its stderr goes to.
        self.mcp: list[ServerStatus] = [
            ServerStatus("formspec-local", "running", tools=18, log=str(self.session_dir / "mcp-local.log")),
            ServerStatus("registry", "running", tools=3, log=str(self.session_dir / "mcp-registry.log")),
        ]
        self.usage = UsageUpdated(context_tokens=1200, threshold_tokens=90000, window_tokens=120000, reported=False, session_cost=0.0)

    def release(self) -> None:
        self._release.set()

    def past_events(self) -> list[AgentEvent]:
        return list(self.past)

    async def model_ready(self) -> None:
        """The fake has no model layer to load (the real engine's is tested in test_startup_order)."""

    def set_approver(self, approver: Approver | None) -> None:
        self.approver = approver

    def record_command(self, text: str) -> None:
        self.recorded_commands.append(text)

    async def run_turn(self, text: str) -> AsyncIterator[AgentEvent]:
        self.sent.append(text)
        yield TurnStarted(turn=len(self.sent), user_text=text)
        events = self.turns.pop(0) if self.turns else []
        try:
            for event in events:
                if isinstance(event, Hold):
                    self.holding = True
                    await self._release.wait()
                    self.holding = False
                    continue
                if isinstance(event, UsageUpdated):
                    self.usage = event
                if isinstance(event, AssistantMessage) and event.options:
                    self.last_options = event.options
                yield event
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        except GeneratorExit:  # closed by the consumer while suspended between two events
            self.closed_between_events = True
            raise
        yield TurnFinished(reason="done")

    def resolve_choice(self, text: str) -> str:
        letter = text.strip().rstrip(")").upper()
        for option in self.last_options:
            if option.upper().startswith(letter + ")"):
                return option
        return text

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        arguments = arguments or {}
        self.tool_calls.append((name, arguments))
        if self.fail_tools:
            raise RuntimeError("local server is not responding")
        # The local server's shapes, built with the records the review workflow reads them into
        # (so this stand-in cannot drift from the server), and a ToolError (its message) on refusal.
        return ToolResult.of(name, self._answer(name, arguments))

    def _answer(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if name == "list_draft_blocks":
            return self.blocks[arguments["path"]].to_json()
        if name == "list_turn_changes":
            return self._turn_changes().to_json()
        if name == "list_drafts":
            rows = tuple(DraftRow(path=d.path, status=d.status, state=d.state, valid=d.valid, problems=len(d.problems),
                                  target_changed=False) for d in self.drafts.values())
            return DraftList(session=self.session_id, drafts=rows, settled=tuple(self.settled.values())).to_json()
        if name == "diff_drafts":
            diffs = tuple(DraftDiff(path=d.path, status=d.status, state=d.state, valid=d.valid,
                                    problems=d.gate_problems(), target_changed=False, diff=d.diff)
                          for d in self.drafts.values())
            return DiffList(session=self.session_id, drafts=diffs).to_json()
        if name == "apply_draft":
            draft = self.drafts.get(arguments["file"])
            if draft is None:
                raise ToolError(f"There is no draft at {arguments['file']}.")
            if not draft.valid and not arguments.get("force"):
                raise ToolError(
                    f"{draft.path} fails validation ({len(draft.problems)} problem(s); first: {draft.problems[0]}). "
                    "Fix the draft with propose_spec_file, or pass force: true to apply it anyway."
                )
            self.undo_stack.append(self.drafts.pop(draft.path))
            self.applied.append(draft.path)
            self.settled[draft.path] = SettledRow(path=draft.path, file=f"spec/{draft.path}", state="applied", at=None)
            return Applied(path=draft.path, file=f"spec/{draft.path}", backup=f"undo/{draft.path}", previous="backed up",
                           undo_step=len(self.undo_stack), forced=bool(arguments.get("force")),
                           validation=ValidationResult(ok=True)).to_json()
        if name == "reject_draft":
            self.drafts.pop(arguments["path"], None)
            self.settled[arguments["path"]] = SettledRow(path=arguments["path"], file=f"spec/{arguments['path']}",
                                                         state="rejected", at=None)
            return Rejected(path=arguments["path"], remaining=tuple(sorted(self.drafts)),
                            reason=arguments.get("reason")).to_json()
        if name == "undo_apply":
            if not self.undo_stack:
                raise ToolError("Nothing to undo in this session.")
            draft = self.undo_stack.pop()
            self.applied.remove(draft.path)
            self.settled.pop(draft.path, None)
            back = draft.path not in self.drafts
            if back:
                self.drafts[draft.path] = replace(draft, state="undone")
            return Undone(path=draft.path, file=f"spec/{draft.path}", outcome="restored",
                          draft="back for review" if back else "newer draft kept", undo_step=len(self.undo_stack) + 1,
                          remaining_steps=len(self.undo_stack), validation=ValidationResult(ok=True)).to_json()
        raise ToolError(f"Unknown tool {name}.")

    def _turn_changes(self) -> TurnChanges:
        """The latest turn's changeset: every draft of the fake session (`turn_paths` when set),
        live ones with their diff's counts, settled ones with their state."""
        paths = self.turn_paths if self.turn_paths is not None else [*self.drafts, *self.settled]
        rows = []
        for path in paths:
            draft = self.drafts.get(path) or next((d for d in self.undo_stack if d.path == path), None)
            added, removed = line_counts(draft.diff) if draft is not None else (None, None)
            if path in self.drafts:
                live = self.drafts[path]
                rows.append(ChangeRow(path=path, file=f"spec/{path}", status=live.status, state=live.state,
                                      valid=live.valid, problems=len(live.problems), added=added, removed=removed,
                                      diff=live.diff, later_turn=None))
            else:
                state = self.settled[path].state if path in self.settled else "withdrawn"
                rows.append(ChangeRow(path=path, file=f"spec/{path}", status=draft.status if draft else "",
                                      state=state, valid=None, problems=0, added=added if draft else None,
                                      removed=removed if draft else None, diff=draft.diff if draft else "",
                                      later_turn=None))
        turn = max(1, len(self.sent))
        said = self.sent[-1] if self.sent else ""
        return TurnChanges(session=self.session_id, turn=turn if rows else 0, user_text=said if rows else "",
                           turns=(turn,) if rows else (), files=tuple(rows))

    async def restart_mcp(self, server: str | None = None) -> None:
        self.restarts += 1

    def status(self) -> EngineStatus:
        return EngineStatus(
            model=self.model,
            provider=self.provider_name,
            session=self.session_id,
            session_dir=str(self.session_dir),
            project=str(self.project_root),
            context_tokens=self.usage.context_tokens,
            threshold_tokens=self.usage.threshold_tokens,
            window_tokens=self.usage.window_tokens,
            reported=self.usage.reported,
            cost=self.usage.session_cost,
            compactions=self.usage.compactions,
            turn=len(self.sent),
            mcp=tuple(self.mcp),
        )

    async def aclose(self) -> None:
        self.closed = True


class FakeFactory:
    """An engine factory (EngineFactory) that returns `engine` (or raises `fail`), recording resume
    requests in `requested`."""

    def __init__(self, engine: FakeEngine, fail: Exception | None = None) -> None:
        self.engine = engine
        self.fail = fail
        self.requested: list[str | None] = []

    async def __call__(self, resume: str | None, *, model: str | None = None) -> FakeEngine:
        self.requested.append(resume)
        if model:
            self.engine.model = model
        if self.fail is not None:
            raise self.fail
        return self.engine


def factory_for(engine: FakeEngine, *, fail: Exception | None = None) -> FakeFactory:
    """An engine factory that returns `engine` (or raises `fail`), recording resume requests."""
    return FakeFactory(engine, fail)
