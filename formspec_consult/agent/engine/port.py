"""What the app needs from the consultation engine (`formspec_consult.agent.engine.engine.Engine`).

The app never imports the engine module at start-up (it imports the provider, hence litellm):
it is handed an :data:`EngineFactory` and only ever talks to the object it returns through this
protocol. Tests pass a scripted fake that implements the same surface.

Every engine has the whole surface, replays and fakes included: `read_only` (a replay, whose
review actions are shown, not run), `set_approver` (who answers the model's write calls) and
`record_command` (log a slash command the app ran itself) — nothing is probed with `getattr`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # the events module is not needed to paint the first frame
    from formspec_consult.agent.engine.status import EngineStatus
    from formspec_consult.agent.loop.permissions import Approver
    from formspec_consult.store.agent_events import AgentEvent
    from formspec_consult.store.review_results import ToolResult


class EngineLike(Protocol):
    """The engine surface the TUI uses (a subset of the engine contract)."""

    session_id: str
    session_dir: Path
    project_root: Path
    model: str
    provider_name: str
    read_only: bool  # a replay: review actions are shown as recorded, never run

    @property
    def last_options(self) -> tuple[str, ...]:
        """The options the last assistant reply offered."""
        ...

    def past_events(self) -> list[AgentEvent]:
        """The earlier conversation of a resumed session, tool calls included."""
        ...

    async def model_ready(self) -> None:
        """Wait until a turn can run (the engine may open before its model layer has loaded);
        raise why it cannot (the engine is then closed)."""
        ...

    def run_turn(self, text: str) -> AsyncIterator[AgentEvent]:
        """Run one user turn (or slash command); cancel the consuming task to cancel it."""
        ...

    def resolve_choice(self, text: str) -> str:
        """Turn a picked option ("B", "b)", the option text) into the text to send."""
        ...

    def set_approver(self, approver: Approver | None) -> None:
        """Who answers when the model calls a write tool (the app asks the person)."""
        ...

    def record_command(self, text: str) -> None:
        """Log a slash command the app ran itself (`/diff` shown in the diff pane), so the session
        log — and a replay of it — holds it at this point."""
        ...

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        """Call a tool of the local MCP server directly (review actions, status): its answer, to be
        read into the tool's record (store.review_results); raises on a refusal."""
        ...

    async def restart_mcp(self, server: str | None = None) -> None:
        """Restart the MCP servers (or the one named)."""
        ...

    def status(self) -> EngineStatus:
        """Model, provider, session, context figures, cost, compactions, turn, mcp state."""
        ...

    async def aclose(self) -> None:
        """Close servers and the session log."""
        ...


class EngineFactory(Protocol):
    """Opens the engine: `resume` is a session id (None: what the command line asked for);
    `model`, when given, replaces the configured model (`/model NAME` reopens the session)."""

    def __call__(self, resume: str | None, *, model: str | None = None) -> Awaitable[EngineLike]: ...
