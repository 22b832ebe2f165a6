"""One live connection to one MCP server, owned by its own task.

The SDK's `Client` is an async context manager whose task groups must be entered and exited in
the same task. The engine is opened in one task and turns run in others (the TUI's workers), so
each connection lives in a dedicated owner task; callers from any task just use the session.
A call that outlives its timeout, or a server that dies, raises :class:`ServerDied` so the
manager can restart it and tell the model.

HTTP servers: every response is watched (an httpx event hook) so that a 401/403 is named as an
authentication failure with where the token goes, and a lost session (404, or a 400 that says
the session is unknown, as many TypeScript servers answer after a restart) is re-initialised and
the call retried once, as the MCP spec asks of clients. A `notifications/tools/list_changed`
marks the tool list stale; :meth:`ServerConnection.relist` fetches it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import httpx2
import mcp_types
from mcp import Client
from mcp.client.session import IncomingMessage
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, CallToolResult, Implementation, Tool

from formspec_consult import __version__
from formspec_consult.errors import UserError
from formspec_consult.mcp_client.config import ServerSpec, safe_environment
from formspec_consult.mcp_client.sdk_log import route_sdk_log_to
from formspec_consult.mcp_client.status import ServerState, ServerStatus

State = ServerState
START_TIMEOUT = 30.0
MAX_TOOL_PAGES = 100  # a tools/list paginator that never ends cannot hang a start
CLIENT_INFO = Implementation(name="formspec-consult", version=__version__)
SESSION_ID_HEADER = "mcp-session-id"
NO_OAUTH = "OAuth sign-in is not supported: give the server a static token"


def describe(exc: BaseException) -> str:
    """A one-line reason from an exception, looking inside task-group exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    if status in (401, 403):
        return f"HTTP {status}: the server refused the credentials (check the Authorization header / token)"
    return f"HTTP {status}: {exc}" if status else f"{type(exc).__name__}: {exc}"


class ServerDied(UserError, RuntimeError):
    """The server stopped answering (exited, closed its pipe, or timed out)."""


class AuthenticationFailed(RuntimeError):
    """An HTTP server answered 401/403: the token is missing, wrong or expired (no restart helps)."""


class _HttpWatch:
    """What the HTTP responses of one connection said: auth refusals and lost sessions."""

    def __init__(self) -> None:
        self.auth_status: int | None = None  # the last 401/403
        self.session_lost = False  # a request carrying our session id was answered "unknown session"

    async def __call__(self, response: httpx2.Response) -> None:
        status = response.status_code
        if status in (401, 403):
            self.auth_status = status
        elif status in (400, 404) and SESSION_ID_HEADER in response.request.headers:
            # 404 is the spec's answer; servers built on the TypeScript SDK's examples (e.g.
            # server-everything) answer 400 "No valid session ID provided", with a JSON-RPC body
            # the SDK cannot read (no id). The error body is small: read it (httpx keeps it for the
            # transport) and look for the word.
            body = await response.aread()
            self.session_lost = status == 404 or b"session" in body.lower()

    def reset(self) -> None:
        self.auth_status, self.session_lost = None, False


class ServerConnection:
    """A started MCP server: its tools, its state, and a `call` with a timeout."""

    def __init__(self, spec: ServerSpec) -> None:
        self.spec = spec
        self.state: State = "stopped"
        self.tools: list[Tool] = []
        self.last_error: str | None = None
        self.generation = 0  # incremented at each start: a stale call must not kill a fresh server
        self.tools_stale = False  # the server said its tool list changed; relist() before offering it
        self.reinitialised = 0  # sessions re-created after the server lost one (HTTP)
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._ready = asyncio.Event()
        self._http = _HttpWatch()
        self._reinit_lock = asyncio.Lock()

    async def start(self) -> None:
        """Start the server and list its tools; raise ServerDied with the reason if it cannot start."""
        await self.stop()
        self.state, self.last_error = "starting", None
        self.generation += 1
        self._http = _HttpWatch()
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
        """Call a tool; MCP protocol errors propagate as MCPError, a dead or hung server as ServerDied,
        a refused token as AuthenticationFailed. A lost HTTP session is re-created and the call
        retried once."""
        generation = self.generation
        try:
            return await self._call_once(name, arguments, timeout)
        except MCPError as exc:
            if not self._session_lost(exc):
                raise
        await self._reinitialise(generation, name)
        return await self._call_once(name, arguments, timeout)

    async def relist(self) -> bool:
        """Fetch the tool list again (after `notifications/tools/list_changed`); True when it changed."""
        client = self._client
        self.tools_stale = False
        if self.state != "running" or client is None:
            return False
        try:
            with anyio.fail_after(self.spec.timeout):
                tools = await _list_all_tools(client)
        except Exception:  # noqa: BLE001 - a failed re-list keeps the old tools; the next call tells
            self.tools_stale = True
            return False
        changed = [t.model_dump() for t in tools] != [t.model_dump() for t in self.tools]
        self.tools = tools
        return changed

    async def _call_once(
        self, name: str, arguments: dict[str, Any] | None, timeout: float | None
    ) -> CallToolResult:
        client, generation = self._client, self.generation
        if self.state != "running" or client is None:
            raise ServerDied(
                f"MCP server '{self.spec.name}' is not running ({self.last_error or self.state})"
            )
        limit = timeout if timeout is not None else self.spec.timeout
        self._http.reset()
        try:
            with anyio.fail_after(limit):
                return await client.call_tool(name, arguments or {})
        except TimeoutError as exc:
            self._mark_dead(f"no answer to '{name}' within {limit:g}s", generation)
            raise ServerDied(
                f"MCP server '{self.spec.name}' did not answer '{name}' within {limit:g}s"
            ) from exc
        except MCPError as exc:
            if self._http.auth_status is not None:
                raise AuthenticationFailed(self._auth_message(self._http.auth_status)) from exc
            if exc.code != CONNECTION_CLOSED:
                raise
            self._mark_dead("connection closed", generation)
            raise ServerDied(f"MCP server '{self.spec.name}' closed the connection during '{name}'") from exc
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError) as exc:
            self._mark_dead(f"{type(exc).__name__}: {exc}", generation)
            raise ServerDied(f"MCP server '{self.spec.name}' stopped during '{name}'") from exc

    def _session_lost(self, exc: MCPError) -> bool:
        """An HTTP server no longer knows our session: 404 (the spec), or a 400 naming the session."""
        return bool(self.spec.url) and self._http.session_lost

    async def _reinitialise(self, generation: int, name: str) -> None:
        """Start a new session (initialize, list tools); calls that lost it together share one."""
        async with self._reinit_lock:
            if self.generation != generation and self.state == "running":
                return  # another call already re-created the session
            try:
                await self.start()
            except ServerDied as exc:
                raise ServerDied(
                    f"MCP server '{self.spec.name}' lost the session during '{name}' and could not "
                    f"start a new one: {self.last_error}"
                ) from exc
            self.reinitialised += 1

    def _auth_message(self, status: int) -> str:
        hint = self.spec.auth_hint or "check the token this server is given"
        return (
            f"MCP server '{self.spec.name}' refused the credentials: authentication failed "
            f"(HTTP {status} from {self.spec.url}); {hint}. {NO_OAUTH}"
        )

    async def stop(self) -> None:
        """Stop the server and reap its process (the SDK terminates, then kills, the child)."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stop.set()
        if not task.done() and self.state == "starting":  # not up yet: nothing to close gracefully
            task.cancel()
            with contextlib.suppress(BaseException):  # its clean-up ends and reaps the process
                await task
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

    def status(self, restarts: int = 0) -> ServerStatus:
        return ServerStatus(
            name=self.spec.name,
            transport=self.spec.transport,
            state=self.state,
            tools=len(self.tools),
            error=self.last_error,
            reinitialised=self.reinitialised,
            log=str(self.spec.errlog) if self.spec.errlog else None,
            restarts=restarts,
        )

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
                client = await stack.enter_async_context(
                    Client(
                        self._transport(stack),
                        mode="legacy",
                        client_info=CLIENT_INFO,
                        message_handler=self._on_message,
                    )
                )
                self.tools_stale = False
                self.tools, self._client = await _list_all_tools(client), client
                self.state = "running"
                ready.set()
                await stop.wait()
        except Exception as exc:  # a server that fails to start or dies: recorded, never raised here
            if self.state != "dead" or self.last_error is None:
                if self._http.auth_status is not None and generation == self.generation:
                    self._mark_dead(self._auth_message(self._http.auth_status), generation)
                else:
                    hint = f" (check the URL {_shown(self.spec.url)} and its headers/token)" if self.spec.url else ""
                    self._mark_dead(describe(exc) + hint, generation)
        finally:
            if generation == self.generation:
                self._client = None
            ready.set()

    async def _on_message(self, message: IncomingMessage) -> None:
        """Server notifications: a changed tool list is fetched again before the next request."""
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self.tools_stale = True
        await anyio.lowlevel.checkpoint()

    def _http_client(
        self,
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        """The SDK's HTTP client with our response watch (also the SSE transport's client factory)."""
        from mcp.shared._httpx_utils import create_mcp_http_client

        http = create_mcp_http_client(headers=headers, timeout=timeout, auth=auth)
        http.event_hooks["response"].append(self._http)
        return http

    def _transport(self, stack: AsyncExitStack) -> Any:
        spec = self.spec
        if spec.in_process is not None:
            return spec.in_process
        if spec.url and spec.sse:
            from mcp.client.sse import sse_client

            return sse_client(spec.url, headers=dict(spec.headers), httpx_client_factory=self._http_client)
        if spec.url:
            from mcp.client.streamable_http import streamable_http_client

            http = self._http_client(headers=dict(spec.headers))
            stack.push_async_callback(http.aclose)  # runs after the client has closed
            return streamable_http_client(spec.url, http_client=http)
        assert spec.command is not None
        log_path = spec.errlog or Path(os.devnull)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        errlog = stack.enter_context(open(log_path, "a", encoding="utf-8"))  # noqa: SIM115 - closed by the stack
        route_sdk_log_to(errlog)  # a line the SDK cannot parse lands in this server's log, not on screen
        params = StdioServerParameters(
            command=spec.command, args=list(spec.args), cwd=spec.cwd, env=safe_environment(spec.env)
        )
        return stdio_client(params, errlog=errlog)


async def _list_all_tools(client: Client) -> list[Tool]:
    """Every page of tools/list (a server may paginate)."""
    tools: list[Tool] = []
    cursor: str | None = None
    for _page in range(MAX_TOOL_PAGES):
        listing = await client.list_tools(cursor=cursor, cache_mode="refresh")
        tools.extend(listing.tools)
        cursor = listing.next_cursor
        if not cursor:
            break
    return tools


def _shown(url: str) -> str:
    """``url`` fit to print: a password and every query value masked (a token often rides there)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@") if parts.password else parts.netloc
    query = "&".join(f"{pair.split('=', 1)[0]}=***" if "=" in pair else pair for pair in parts.query.split("&")) \
        if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
