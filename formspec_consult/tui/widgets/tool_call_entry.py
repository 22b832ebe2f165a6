"""One tool call in the tool pane: server, name, arguments, status, duration, collapsed result."""

from __future__ import annotations

import json
from typing import Any

from rich.markup import escape
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Collapsible, Static

# Results can be huge (a whole schema); the pane shows a capped copy, the log keeps all of it.
RESULT_PREVIEW_CHARS = 4000


def format_arguments(arguments: dict[str, Any]) -> str:
    """Arguments as one compact line, long values shortened."""
    parts = []
    for key, value in arguments.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        text = text.replace("\n", "⏎")
        parts.append(f"{key}={text[:60] + '…' if len(text) > 60 else text}")
    return ", ".join(parts) or "(no arguments)"


class ToolCallEntry(Vertical):
    """A call that is running (`status="running"`) or finished (`ok` / `error`)."""

    status: reactive[str] = reactive("running")
    duration_ms: reactive[float | None] = reactive(None)

    def __init__(self, call_id: str, server: str, name: str, arguments: dict[str, Any]) -> None:
        super().__init__(classes="tool-call running")
        self.call_id = call_id
        self.server = server
        self.tool_name = name
        self.arguments = arguments
        self.result = ""
        self._header = Static(classes="tool-header")
        self._result = Static("", classes="tool-result", markup=False)
        self._collapsible = Collapsible(self._result, title="result", collapsed=True)
        self._collapsible.display = False

    def compose(self) -> ComposeResult:
        yield self._header
        yield Static(escape(format_arguments(self.arguments)), classes="tool-args")
        yield self._collapsible

    def on_mount(self) -> None:
        self._render_header()

    def _render_header(self) -> None:
        icon = {"running": "…", "ok": "✓", "error": "✗"}.get(self.status, "?")
        duration = f" {self.duration_ms / 1000:.2f}s" if self.duration_ms is not None else ""
        self._header.update(
            f"{icon} [b]{escape(self.tool_name)}[/b] [dim]{escape(self.server)}[/dim]"
            f" [i]{self.status}{duration}[/i]"
        )

    def watch_status(self, old: str, new: str) -> None:
        self.remove_class(old)
        self.add_class(new)
        if self.is_mounted:
            self._render_header()

    def finish(self, ok: bool, result: str, duration_ms: float) -> None:
        """Mark the call finished and keep its result, collapsed."""
        self.result = result
        self.duration_ms = duration_ms
        self.status = "ok" if ok else "error"
        shown = result if len(result) <= RESULT_PREVIEW_CHARS else result[:RESULT_PREVIEW_CHARS] + "\n… (truncated)"
        self._result.update(shown)
        self._collapsible.title = f"result ({len(result)} chars)"
        self._collapsible.display = True
        self._render_header()
