"""One live connection to one MCP server, owned by its own task.

The SDK's `Client` is an async context manager whose task groups must be entered and exited in
the same task. The engine is opened in one task and turns run in others (the TUI's workers), so
each connection lives in a dedicated owner task; callers from any task just use the session.
A call that outlives its timeout, or a server that dies, raises :class:`ServerDied` so the
manager can restart it and tell the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, Literal

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, CallToolResult, Tool

from formspec_consult.mcp_client.config import ServerSpec, safe_environment

State = Literal["stopped", "starting", "running", "dead"]
START_TIMEOUT = 30.0


def describe(exc: BaseException) -> str:
    """A one-line reason from an exception, looking inside task-group exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    if status in (401, 403):
        return f"HTTP {status}: the server refused the credentials (check the Authorization header / token)"
    return f"HTTP {status}: {exc}" if status else f"{type(exc).__name__}: {exc}"


class ServerDied(RuntimeError):
    """The server stopped answering (exited, closed its pipe, or timed out)."""


class ServerConnection:
    """A started MCP server: its tools, its state, and a `call` with a timeout."""

    def __init__(self, spec: ServerSpec) -> None:
        self.spec = spec
        self.state: State = "stopped"
        self.tools: list[Tool] = []
        self.last_error: str | None = None
        self.started_at: float | None = None
        self.generation = 0  # incremented at each start: a stale call must not kill a fresh server
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._ready = asyncio.Event()

    async def start(self) -> None:
        """Start the server and list its tools; raise ServerDied with the reason if it cannot start."""
        await self.stop()
        self.state, self.last_error = "starting", None
        self.generation += 1
        self._stop, self._ready = asyncio.Event(), asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._own(), name=f"mcp-{self.spec.name}")
        try:
            with anyio.fail_after(START_TIMEOUT):
                await self._ready.wait()
        except TimeoutError:
            await self.stop()
            self.state, self.last_error = "dead", f"did not start within {START_TIMEOUT:.0f}s"
        if self.state != "running":  # type: ignore[comparison-overlap]  # set by the _own task meanwhile
            raise ServerDied(
                f"MCP server '{self.spec.name}' could not start: {self.last_error}{self._log_hint()}"
            )

    async def call(
        self, name: str, arguments: dict[str, Any] | None, timeout: float | None = None
    ) -> CallToolResult:
        """Call a tool; MCP protocol errors propagate as MCPError, a dead or hung server as ServerDied."""
        client, generation = self._client, self.generation
        if self.state != "running" or client is None:
            raise ServerDied(
                f"MCP server '{self.spec.name}' is not running ({self.last_error or self.state})"
            )
        limit = timeout if timeout is not None else self.spec.timeout
        try:
            with anyio.fail_after(limit):
                return await client.call_tool(name, arguments or {})
        except TimeoutError as exc:
            self._mark_dead(f"no answer to '{name}' within {limit:g}s", generation)
            raise ServerDied(
                f"MCP server '{self.spec.name}' did not answer '{name}' within {limit:g}s"
            ) from exc
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED:
                raise
            self._mark_dead("connection closed", generation)
            raise ServerDied(f"MCP server '{self.spec.name}' closed the connection during '{name}'") from exc
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError) as exc:
            self._mark_dead(f"{type(exc).__name__}: {exc}", generation)
            raise ServerDied(f"MCP server '{self.spec.name}' stopped during '{name}'") from exc

    async def stop(self) -> None:
        """Stop the server and reap its process (the SDK terminates, then kills, the child)."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stop.set()
        if not task.done():
            with contextlib.suppress(TimeoutError):
                with anyio.fail_after(10):
                    await asyncio.shield(task)
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        self._client = None
        if self.state != "dead":
            self.state = "stopped"

    def status(self) -> dict[str, Any]:
        return {
            "name": self.spec.name,
            "transport": self.spec.transport,
            "state": self.state,
            "tools": len(self.tools),
            "error": self.last_error,
            "log": str(self.spec.errlog) if self.spec.errlog else None,
        }

    def _mark_dead(self, reason: str, generation: int | None = None) -> None:
        """Record the death, unless it concerns an earlier incarnation (a stale call after a restart)."""
        if generation is not None and generation != self.generation:
            return
        self.state, self.last_error, self._client = "dead", reason, None

    def _log_hint(self) -> str:
        return f" (see {self.spec.errlog})" if self.spec.errlog else ""

    async def _own(self) -> None:
        """The owner task: open the client, publish it, wait for stop, close it in this same task."""
        generation, ready, stop = self.generation, self._ready, self._stop  # this incarnation's own
        try:
            async with AsyncExitStack() as stack:
                client = await stack.enter_async_context(Client(self._transport(stack), mode="legacy"))
                listing = await client.list_tools()
                self.tools, self._client = list(listing.tools), client
                self.state, self.started_at = "running", time.monotonic()
                ready.set()
                await stop.wait()
        except Exception as exc:  # a server that fails to start or dies: recorded, never raised here
            if self.state != "dead" or self.last_error is None:
                hint = f" (check the URL {self.spec.url} and its headers/token)" if self.spec.url else ""
                self._mark_dead(describe(exc) + hint, generation)
        finally:
            if generation == self.generation:
                self._client = None
            ready.set()

    def _transport(self, stack: AsyncExitStack) -> Any:
        spec = self.spec
        if spec.in_process is not None:
            return spec.in_process
        if spec.url:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            http = create_mcp_http_client(headers=dict(spec.headers))
            stack.push_async_callback(http.aclose)  # runs after the client has closed
            return streamable_http_client(spec.url, http_client=http)
        assert spec.command is not None
        log_path = spec.errlog or Path(os.devnull)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        errlog = stack.enter_context(open(log_path, "a", encoding="utf-8"))  # noqa: SIM115 - closed by the stack
        params = StdioServerParameters(
            command=spec.command, args=list(spec.args), cwd=spec.cwd, env=safe_environment(spec.env)
        )
        return stdio_client(params, errlog=errlog)
