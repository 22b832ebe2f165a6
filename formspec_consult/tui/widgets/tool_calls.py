"""The tool-calls pane: MCP server state, a button to open the server log, and every call."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from textual.app import ComposeResult
from textual.containers import HorizontalGroup, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Button, Static

from formspec_consult.tui.widgets.tool_call_entry import ToolCallEntry


def describe_mcp(state: Any) -> str:
    """One line of server state from `status()["mcp"]`: a list of server dicts, a dict, or text."""
    if not state:
        return "MCP: not connected"
    if isinstance(state, list):
        parts = []
        for server in state:
            if isinstance(server, dict):
                line = f"{server.get('name', '?')}: {server.get('state', '?')}"
                if server.get("tools"):
                    line += f" ({server['tools']} tools)"
                if server.get("restarts"):
                    line += f", {server['restarts']} restart(s)"
                if server.get("error") and server.get("state") != "ready":
                    line += f" — {server['error']}"
                parts.append(line)
        return "MCP  " + " · ".join(parts)
    if isinstance(state, dict):
        parts = []
        for name, value in state.items():
            if isinstance(value, dict):
                value = value.get("state") or value.get("status") or ", ".join(f"{k}={v}" for k, v in value.items())
            parts.append(f"{name}: {value}")
        return "MCP  " + " · ".join(parts)
    return f"MCP  {state}"


class ToolCallsPane(Vertical):
    """Calls in order, newest at the bottom; only the newest `max_entries` stay mounted."""

    mcp_state: reactive[Any] = reactive(None)

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
            yield Static("Tool calls", classes="pane-title")
            yield Button("log", id="mcp-log", compact=True)
            yield Button("restart", id="mcp-restart", compact=True)
        yield Static(describe_mcp(None), id="mcp-state")
        yield VerticalScroll(id="tool-list")

    def on_mount(self) -> None:
        self.query_one("#tool-list", VerticalScroll).anchor()

    def watch_mcp_state(self, state: Any) -> None:
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
