"""The tool-calls pane: MCP server state, a button to open the server log, and every call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape
from textual.app import ComposeResult
from textual.containers import HorizontalGroup, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Button, Static

from formspec_consult.agent.commands.format import describe_server
from formspec_consult.i18n import _
from formspec_consult.tui.widgets.tool_call_entry import ToolCallEntry

if TYPE_CHECKING:
    from formspec_consult.agent.engine.status import EngineStatus


def describe_mcp(status: EngineStatus | None) -> str:
    """One line of MCP server state from `Engine.status()` (None: no engine yet)."""
    if status is None or not (status.mcp or status.mcp_note):
        return "MCP: " + _("not connected")
    if not status.mcp:
        return f"MCP  {status.mcp_note}"
    return "MCP  " + " · ".join(f"{server.name}: {describe_server(server)}" for server in status.mcp)


class ToolCallsPane(Vertical):
    """Calls in order, newest at the bottom; only the newest `max_entries` stay mounted."""

    mcp_state: reactive[EngineStatus | None] = reactive(None)

    class LogRequested(Message):
        """The user asked to open the MCP server log."""

    class RestartRequested(Message):
        """The user asked to restart the MCP servers."""

    def __init__(self, *, max_entries: int = 60, id: str | None = None) -> None:
        super().__init__(id=id)
        self.max_entries = max_entries
        self._calls: dict[str, ToolCallEntry] = {}

    def compose(self) -> ComposeResult:
        with HorizontalGroup(classes="pane-header"):
            yield Static(_("Tool calls"), classes="pane-title")
            yield Button(_("log"), id="mcp-log", compact=True)
            yield Button(_("restart"), id="mcp-restart", compact=True)
        yield Static(describe_mcp(None), id="mcp-state")
        yield VerticalScroll(id="tool-list")

    def on_mount(self) -> None:
        self.query_one("#tool-list", VerticalScroll).anchor()

    def watch_mcp_state(self, state: EngineStatus | None) -> None:
        if self.is_mounted:
            self.query_one("#mcp-state", Static).update(escape(describe_mcp(state)))

    def entry(self, call_id: str) -> ToolCallEntry | None:
        """The entry of a call still mounted, by id."""
        return self._calls.get(call_id)

    async def start_call(self, call_id: str, server: str, name: str, arguments: dict[str, Any]) -> ToolCallEntry:
        """Show a running call."""
        entry = ToolCallEntry(call_id, server, name, arguments)
        self._calls[call_id] = entry
        await self.query_one("#tool-list", VerticalScroll).mount(entry)
        await self._prune()
        return entry

    async def finish_call(
        self, call_id: str, server: str, name: str, ok: bool, result: str, duration_ms: float
    ) -> None:
        """Complete a call (a finish without a start, e.g. from an old log, gets its own entry)."""
        entry = self._calls.get(call_id) or await self.start_call(call_id, server, name, {})
        entry.finish(ok, result, duration_ms)

    async def clear(self) -> None:
        """Forget every call (another session is being opened)."""
        self._calls.clear()
        await self.query_one("#tool-list", VerticalScroll).remove_children()

    async def load(self, calls: list[tuple[Any, Any]]) -> None:
        """Show finished calls from a resumed session with one mount (newest `max_entries`)."""
        entries: list[ToolCallEntry] = []
        for started, finished in calls[-self.max_entries :]:
            first = started or finished
            entry = ToolCallEntry(first.call_id, first.server, first.name, started.arguments if started else {})
            if finished is not None:
                entry.finish(finished.ok, finished.result, finished.duration_ms)
            self._calls[first.call_id] = entry
            entries.append(entry)
        if entries:
            await self.query_one("#tool-list", VerticalScroll).mount_all(entries)
            await self._prune()

    async def _prune(self) -> None:
        excess = len(self._calls) - self.max_entries
        if excess > 0:
            old = list(self._calls)[:excess]
            await self.query_one("#tool-list", VerticalScroll).remove_children([self._calls.pop(i) for i in old])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "mcp-log":
            self.post_message(self.LogRequested())
        elif event.button.id == "mcp-restart":
            self.post_message(self.RestartRequested())
