"""Several MCP servers behind one tool list: routing, namespacing, errors as text, restarts.

Tool names are exposed as-is unless two servers declare the same name; only then are the clashing
ones exposed as `<server>__<tool>`. A call never raises for the model: a tool error, a protocol
error or a dead server all become an `ERROR: …` text. A dead server is restarted with a bounded
backoff and the message says so, so the model can simply call again and the turn goes on.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

from formspec_consult.mcp_client.config import ServerSpec
from formspec_consult.mcp_client.connection import ServerConnection, ServerDied

RESTART_BACKOFF = (0.2, 1.0, 3.0)  # seconds before each restart attempt of one outage
MAX_RESTARTS = 5  # per server and session: past this it stays down until /mcp restart


class ToolError(RuntimeError):
    """A tool call failed (tool error, protocol error, unknown tool or dead server)."""


@dataclass(frozen=True)
class ToolOutcome:
    """What one tool call produced, already as text for the model and the transcript."""

    server: str
    name: str
    ok: bool
    text: str
    duration_ms: float
    structured: Any = None


def _clean_error(text: str, name: str) -> str:
    """Drop the SDK's "Error executing tool X: " prefix: the tool name is already known."""
    prefix = f"Error executing tool {name}: "
    return text[len(prefix) :] if text.startswith(prefix) else text


def result_text(result: CallToolResult) -> str:
    """The text of a tool result: its text blocks joined, or its structured content as JSON."""
    parts = [getattr(block, "text", None) for block in result.content]
    texts = [part for part in parts if isinstance(part, str)]
    if texts:
        return "\n".join(texts)
    if result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    return ""


class MCPManager:
    """Starts, routes to and restarts a set of MCP servers."""

    def __init__(
        self,
        specs: Sequence[ServerSpec],
        *,
        backoff: Sequence[float] = RESTART_BACKOFF,
        max_restarts: int = MAX_RESTARTS,
    ) -> None:
        self.connections = {spec.name: ServerConnection(spec) for spec in specs}
        self.backoff = tuple(backoff)
        self.max_restarts = max_restarts
        self.restarts: dict[str, int] = dict.fromkeys(self.connections, 0)
        self._routes: dict[str, tuple[str, str]] = {}
        self._recovering: dict[str, anyio.Lock] = {}

    async def start(self, required: Sequence[str] = ()) -> list[str]:
        """Start every server at once; a required one that fails raises, others are returned as problems."""
        failures: dict[str, ServerDied] = {}

        async def start_one(name: str, conn: ServerConnection) -> None:
            try:
                await conn.start()
            except ServerDied as exc:
                failures[name] = exc

        async with anyio.create_task_group() as group:  # servers start in parallel: startup is import-bound
            for name, conn in self.connections.items():
                group.start_soon(start_one, name, conn)
        for name in required:
            if name in failures:
                raise failures[name]
        self._reroute()
        return [str(failures[name]) for name in self.connections if name in failures]

    def tool_declarations(self) -> list[dict[str, Any]]:
        """OpenAI function declarations for every running server's tools (stable order)."""
        self._reroute()
        declarations = []
        for exposed, (server, tool_name) in self._routes.items():
            tool = next(t for t in self.connections[server].tools if t.name == tool_name)
            declarations.append(
                {
                    "type": "function",
                    "function": {
                        "name": exposed,
                        "description": tool.description or "",
                        "parameters": tool.input_schema or {"type": "object", "properties": {}},
                    },
                }
            )
        return declarations

    def server_of(self, exposed: str) -> str:
        return self._routes.get(exposed, ("?", exposed))[0]

    def has_tool(self, exposed: str) -> bool:
        return exposed in self._routes

    async def call(self, exposed: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        """Call a tool by its exposed name; never raises for tool-level failures."""
        started = time.perf_counter()
        route = self._routes.get(exposed)
        if route is None:
            known = ", ".join(sorted(self._routes)) or "none"
            return ToolOutcome(
                "?", exposed, False, f"ERROR: unknown tool '{exposed}'. Available tools: {known}", 0.0
            )
        server, name = route
        try:
            result = await self.connections[server].call(name, arguments)
        except ServerDied as exc:
            note = await self._recover(server)
            return self._outcome(server, exposed, False, f"ERROR: {exc}. {note}", started)
        except MCPError as exc:
            return self._outcome(server, exposed, False, f"ERROR: {exc}", started)
        text = result_text(result)
        if result.is_error:
            return self._outcome(server, exposed, False, f"ERROR: {_clean_error(text, name)}", started)
        return self._outcome(server, exposed, True, text, started, result.structured_content)

    async def call_on(self, server: str, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """Call one server's tool directly (the client's own calls); raise ToolError on failure.

        Returns the structured result, or the JSON-decoded text, or the raw text.
        """
        try:
            result = await self.connections[server].call(name, arguments)
        except ServerDied as exc:
            note = await self._recover(server)
            raise ToolError(f"{exc}. {note}") from exc
        except MCPError as exc:
            raise ToolError(f"{name}: {exc}") from exc
        text = result_text(result)
        if result.is_error:
            raise ToolError(f"{name}: {_clean_error(text, name)}")
        if isinstance(result.structured_content, dict) and set(result.structured_content) != {"result"}:
            return result.structured_content
        try:
            return json.loads(text)
        except ValueError:
            return text

    async def restart(self, name: str | None = None) -> list[str]:
        """Restart one server (or all); resets the restart budget. Returns problems."""
        problems = []
        for conn_name in [name] if name else list(self.connections):
            self.restarts[conn_name] = 0
            try:
                await self.connections[conn_name].start()
            except ServerDied as exc:
                problems.append(str(exc))
        self._reroute()
        return problems

    def status(self) -> list[dict[str, Any]]:
        return [conn.status() | {"restarts": self.restarts[name]} for name, conn in self.connections.items()]

    async def aclose(self) -> None:
        for conn in self.connections.values():
            with anyio.CancelScope(shield=True):
                await conn.stop()

    async def _recover(self, server: str) -> str:
        """Restart a dead server with backoff; return the sentence that tells the model.

        Two calls that find the server dead at once (a turn and the UI) share one restart.
        """
        conn = self.connections[server]
        lock = self._recovering.setdefault(server, anyio.Lock())
        async with lock:
            if conn.state == "running":  # another caller restarted it meanwhile
                return f"The server '{server}' was restarted; call the tool again if you still need it."
            return await self._restart_with_backoff(server, conn)

    async def _restart_with_backoff(self, server: str, conn: ServerConnection) -> str:
        for delay in self.backoff:
            if self.restarts[server] >= self.max_restarts:
                return (
                    f"The server '{server}' was restarted {self.max_restarts} times this session and stays "
                    "down; tell the user (they can run /mcp restart)."
                )
            self.restarts[server] += 1
            await anyio.sleep(delay)
            try:
                await conn.start()
            except ServerDied:
                continue
            self._reroute()
            return f"The server '{server}' was restarted; call the tool again if you still need it."
        return f"The server '{server}' could not be restarted ({conn.last_error}); tell the user."

    def _outcome(
        self, server: str, exposed: str, ok: bool, text: str, started: float, structured: Any = None
    ) -> ToolOutcome:
        return ToolOutcome(server, exposed, ok, text, (time.perf_counter() - started) * 1000, structured)

    def _reroute(self) -> None:
        """Expose tool names plainly; on a clash the earlier server keeps the plain name and the later
        ones are exposed as `<server>__<tool>`.

        Servers are listed local first, then the registry, then the user's extras, so a third-party
        server can never rename the tools the prompts refer to (propose_spec_file, …).
        """
        routes: dict[str, tuple[str, str]] = {}
        for name, conn in self.connections.items():
            for tool in conn.tools:
                exposed = tool.name if tool.name not in routes else f"{name}__{tool.name}"
                routes.setdefault(exposed, (name, tool.name))
        self._routes = routes
