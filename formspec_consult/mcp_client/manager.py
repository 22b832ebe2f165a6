"""Several MCP servers behind one tool list: routing, namespacing, errors as text, restarts.

Tool names are exposed as-is when they suit every provider (`^[a-zA-Z0-9_-]{1,64}$`) and no
earlier server declared the same name. Otherwise they are mapped (see :func:`exposed_name`):
clashing ones become `<server>__<tool>`, other characters become `_`, and a name that would
exceed 64 characters is cut and given a short hash of the real name, so it stays unique and
stable; calls are routed back to the server's real name. A name once given keeps its meaning for
the session, also when a server's tool list changes.

A call never raises for the model: a tool error, a protocol error, a refused token or a dead
server all become an `ERROR: …` text. A dead server is restarted with a bounded backoff and the
message says so, so the model can simply call again and the turn goes on.

Non-text content is passed on (:func:`render_result`): the text of embedded resources, the URI
and name of resource links, images as OpenAI `image_url` parts next to a placeholder that names
them (the agent loop attaches the parts only for models that take images).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

from formspec_consult.errors import UserError
from formspec_consult.mcp_client.config import ServerSpec
from formspec_consult.mcp_client.connection import AuthenticationFailed, ServerConnection, ServerDied
from formspec_consult.mcp_client.schema import compact_schema
from formspec_consult.mcp_client.status import ServerStatus

RESTART_BACKOFF = (0.2, 1.0, 3.0)  # seconds before each restart attempt of one outage
MAX_RESTARTS = 5  # per server and session: past this it stays down until /mcp restart
MAX_NAME = 64  # the providers' limit on a function name
_INVALID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


@dataclass(frozen=True)
class ToolIdentity:
    """Whose tool an exposed name is, and what its server says the tool does (MCP annotations).

    However its exposed name was cut or hashed, a tool keeps its server and its own name here.
    `read_only` is true only when the server declares readOnlyHint; `destructive` follows
    destructiveHint with MCP's default (true) when the server says nothing.
    """

    server: str
    name: str
    read_only: bool
    destructive: bool


class ToolError(UserError, RuntimeError):
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
    parts: tuple[dict[str, Any], ...] = ()  # OpenAI content parts (images) beyond `text`
    # What the model is sent instead of `text`, when a client layer wrote it a leaner view of the
    # result (agent/engine/result_view.py); `text` stays the whole answer for the log and the UI.
    for_model: str | None = None


def _clean_error(text: str, name: str) -> str:
    """Drop the SDK's "Error executing tool X: " prefix: the tool name is already known."""
    prefix = f"Error executing tool {name}: "
    cleaned = text.removeprefix(prefix).strip()
    if not cleaned or cleaned == prefix.removesuffix(": "):  # the SDK hides a server's crash
        return (f"the tool {name} failed inside its server, which gave no reason (an internal error "
                "of that server, not of the arguments). Do not retry it the same way; tell the person "
                "(/mcp log shows that server's log).")
    return cleaned


def result_text(result: CallToolResult) -> str:
    """The text of a tool result for the model: every block rendered (see render_result)."""
    return render_result(result)[0]


def render_result(result: CallToolResult) -> tuple[str, tuple[dict[str, Any], ...]]:
    """(text, image parts) of a tool result.

    Text blocks as they are; an embedded text resource as its text under a line naming its URI;
    a resource link as its name and URI; an image as a placeholder naming it plus an OpenAI
    `image_url` part (a data URL); audio and binary resources as placeholders naming them.
    Without any block, the structured content as JSON.
    """
    texts: list[str] = []
    parts: list[dict[str, Any]] = []
    for block in result.content:
        if isinstance(block, mcp_types.TextContent):
            texts.append(block.text)
        elif isinstance(block, mcp_types.ImageContent):
            parts.append(_image_part(block.mime_type, block.data))
            texts.append(f"[image {len(parts)}: {block.mime_type}, {_size(block.data)}]")
        elif isinstance(block, mcp_types.AudioContent):
            texts.append(f"[audio: {block.mime_type}, {_size(block.data)}; audio is not passed to the model]")
        elif isinstance(block, mcp_types.ResourceLink):
            texts.append(_link_text(block))
        elif isinstance(block, mcp_types.EmbeddedResource):
            texts.append(_embedded_text(block.resource, parts))
        else:  # a content type newer than this client
            kind = getattr(block, "type", type(block).__name__)
            texts.append(f"[{kind} content: not supported by this client]")
    if not result.content and result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False), ()
    return "\n".join(texts), tuple(parts)


def _image_part(mime_type: str, data: str) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{mime_type};base64,{data}"}}


def _size(data: str) -> str:
    """The decoded size of base64 `data`, for a placeholder."""
    try:
        size = len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        size = len(data) * 3 // 4
    return f"{size} bytes" if size < 1024 else f"{size / 1024:.1f} kB"


def _link_text(link: mcp_types.ResourceLink) -> str:
    name = link.title or link.name
    details = ", ".join(
        part for part in (link.mime_type, f"{link.size} bytes" if link.size is not None else None) if part
    )
    text = f"[resource link: {name} <{link.uri}>{f' ({details})' if details else ''}"
    return text + (f" — {link.description}]" if link.description else "]")


def _embedded_text(
    resource: mcp_types.TextResourceContents | mcp_types.BlobResourceContents, parts: list[dict[str, Any]]
) -> str:
    mime = resource.mime_type or "unknown type"
    if isinstance(resource, mcp_types.TextResourceContents):
        return f"[resource {resource.uri} ({mime})]\n{resource.text}"
    if resource.mime_type and resource.mime_type.startswith("image/"):
        parts.append(_image_part(resource.mime_type, resource.blob))
        return f"[image {len(parts)}: resource {resource.uri} ({mime}, {_size(resource.blob)})]"
    return f"[resource {resource.uri}: {mime}, {_size(resource.blob)} of binary data, not shown]"


def exposed_name(wanted: str, key: str, taken: set[str] | dict[str, Any]) -> str:
    """A valid (`^[a-zA-Z0-9_-]{1,64}$`), unused name for the tool `key` (`server/tool`), from `wanted`.

    Invalid characters become `_`; a name that is too long or already taken is cut and given a
    hash of `key`, so the same tool always maps to the same name.
    """
    cleaned = _INVALID_CHARS.sub("_", wanted) or "tool"
    if len(cleaned) <= MAX_NAME and cleaned not in taken:
        return cleaned
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
    for width in range(8, len(digest) + 1):  # widen the hash in the (absurd) case it is taken
        candidate = f"{cleaned[: MAX_NAME - width - 1]}_{digest[:width]}"
        if candidate not in taken:
            return candidate
    raise RuntimeError(f"no free tool name for {key}")  # pragma: no cover - 2^256 names taken


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
        self._generations: dict[str, int] = {}
        self._recovering: dict[str, anyio.Lock] = {}
        self._starting: dict[str, asyncio.Task[None]] = {}  # the first start of each server (launch)
        self.start_failures: dict[str, ServerDied] = {}
        # Told when a launched server is up (problem None) or failed to start (the reason).
        self.on_started: Callable[[str, str | None], None] | None = None

    def launch(self, names: Sequence[str] | None = None) -> None:
        """Begin starting these servers (default: all not yet begun), side by side, without waiting.

        Each start runs in its own task; :meth:`wait_started` waits for some of them. A server's
        tools are offered (routed) as soon as it is up, so one that is slow to start does not hold
        the others back: it joins from the next request on.
        """
        loop = asyncio.get_running_loop()
        for name in names if names is not None else list(self.connections):
            if name in self.connections and name not in self._starting:
                self._starting[name] = loop.create_task(self._start_one(name), name=f"start-{name}")

    async def _start_one(self, name: str) -> None:
        try:
            await self.connections[name].start()
        except ServerDied as exc:
            self.start_failures[name] = exc
        self._reroute()
        if self.on_started is not None:
            failure = self.start_failures.get(name)
            self.on_started(name, None if failure is None else str(failure))

    async def wait_started(self, names: Sequence[str] | None = None, timeout: float | None = None) -> list[str]:
        """Wait until these servers (default: all launched) have started or failed; return the names
        still starting when `timeout` ran out (they go on starting in the background)."""
        tasks = [self._starting[n] for n in (names if names is not None else list(self._starting)) if n in self._starting]
        pending = [task for task in tasks if not task.done()]
        if pending:
            await asyncio.wait([asyncio.shield(t) for t in pending], timeout=timeout)
        return [name for name, task in self._starting.items() if task in tasks and not task.done()]

    async def start(self, required: Sequence[str] = ()) -> list[str]:
        """Start every server at once and wait for all; a required one that fails raises, others
        are returned as problems."""
        self.launch()
        await self.wait_started()
        for name in required:
            if name in self.start_failures:
                raise self.start_failures[name]
        return [str(self.start_failures[name]) for name in self.connections if name in self.start_failures]

    def tool_declarations(self) -> list[dict[str, Any]]:
        """OpenAI function declarations for every running server's tools (stable order), their
        input schemas compacted for the model (:func:`~formspec_consult.mcp_client.schema.compact_schema`)."""
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
                        "parameters": compact_schema(tool.input_schema) or {"type": "object", "properties": {}},
                    },
                }
            )
        return declarations

    def server_of(self, exposed: str) -> str:
        return self._routes.get(exposed, ("?", exposed))[0]

    def read_only(self, server: str, name: str) -> bool:
        """Whether the server declares its tool `name` read-only (MCP's readOnlyHint annotation);
        False for a tool it does not list or does not annotate."""
        conn = self.connections.get(server)
        tool = next((t for t in conn.tools if t.name == name), None) if conn is not None else None
        return bool(tool is not None and tool.annotations is not None and tool.annotations.read_only_hint)

    def identity(self, exposed: str) -> ToolIdentity | None:
        """The server, real name and annotations of an exposed tool; None when no server offers it."""
        route = self._routes.get(exposed)
        if route is None:
            return None
        server, name = route
        tool = next((t for t in self.connections[server].tools if t.name == name), None)
        if tool is None:
            return None
        hints = tool.annotations
        read_only = bool(hints is not None and hints.read_only_hint)
        destructive = hints is None or hints.destructive_hint is None or bool(hints.destructive_hint)
        return ToolIdentity(server, name, read_only, destructive)

    def real_name(self, exposed: str) -> str:
        """The server's own name of an exposed tool (the name itself when unknown)."""
        return self._routes.get(exposed, ("?", exposed))[1]

    async def refresh(self) -> bool:
        """Re-list the tools of servers that said their list changed; True when the offer changed.

        The agent loop awaits this before each model request, so a tool a server adds is offered
        from the next request on.
        """
        changed = False
        for conn in self.connections.values():
            if conn.tools_stale:
                changed = await conn.relist() or changed
        if changed:
            self._reroute()
        return changed

    async def call(self, exposed: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        """Call a tool by its exposed name; never raises for tool-level failures."""
        started = time.perf_counter()
        route = self._routes.get(exposed)
        if route is None and await self.refresh():
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
        except AuthenticationFailed as exc:
            return self._outcome(server, exposed, False, f"ERROR: {exc}. Tell the user.", started)
        except MCPError as exc:
            return self._outcome(server, exposed, False, f"ERROR: {exc}", started)
        finally:
            self._reroute_if_relisted()
        text, parts = render_result(result)
        if result.is_error:
            return self._outcome(server, exposed, False, f"ERROR: {_clean_error(text, name)}", started)
        return self._outcome(server, exposed, True, text, started, result.structured_content, parts)

    async def call_on(self, server: str, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """Call one server's tool directly (the client's own calls); raise ToolError on failure.

        Returns the structured result, or the JSON-decoded text, or the raw text.
        """
        try:
            result = await self.connections[server].call(name, arguments)
        except ServerDied as exc:
            note = await self._recover(server)
            raise ToolError(f"{exc}. {note}") from exc
        except AuthenticationFailed as exc:
            raise ToolError(str(exc)) from exc
        except MCPError as exc:
            raise ToolError(f"{name}: {exc}") from exc
        finally:
            self._reroute_if_relisted()
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
            self.start_failures.pop(conn_name, None)
            try:
                await self.connections[conn_name].start()
            except ServerDied as exc:
                problems.append(str(exc))
        self._reroute()
        return problems

    def status(self) -> tuple[ServerStatus, ...]:
        return tuple(conn.status(self.restarts[name]) for name, conn in self.connections.items())

    async def aclose(self) -> None:
        """Stop every server side by side (a server still starting is abandoned at once); then an
        in-process server releases what it holds (its spec's `on_close`)."""
        for task in self._starting.values():
            task.cancel()
        try:
            with anyio.CancelScope(shield=True):
                async with anyio.create_task_group() as group:
                    for conn in self.connections.values():
                        group.start_soon(conn.stop)
        finally:
            for conn in self.connections.values():
                if conn.spec.on_close is not None:
                    conn.spec.on_close()

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
        self,
        server: str,
        exposed: str,
        ok: bool,
        text: str,
        started: float,
        structured: Any = None,
        parts: tuple[dict[str, Any], ...] = (),
    ) -> ToolOutcome:
        elapsed = (time.perf_counter() - started) * 1000
        return ToolOutcome(server, exposed, ok, text, elapsed, structured, parts)

    def _reroute_if_relisted(self) -> None:
        """A call that re-created a lost session re-listed that server's tools: route them."""
        generations = {name: conn.generation for name, conn in self.connections.items()}
        if generations != self._generations:
            self._reroute()

    def _reroute(self) -> None:
        """Map every running server's tools to exposed names (see the module docstring).

        Names given before are kept while their tool exists, so a list change or a restart never
        renames a tool the model already knows. New tools are named in server order: local first,
        then the registry, then the user's extras, so a third-party server can never take the names
        the prompts refer to (propose_spec_file, …). On a clash the earlier server keeps the plain
        name and later ones are exposed as `<server>__<tool>`.
        """
        present = [(name, tool.name) for name, conn in self.connections.items() for tool in conn.tools]
        alive = set(present)
        # Servers start side by side, but names are given in server order: while a server is
        # still starting, the ones after it get no new names yet (it may claim a name first).
        settled: set[str] = set()
        for name, conn in self.connections.items():
            if conn.state == "starting":
                break
            settled.add(name)
        routes: dict[str, tuple[str, str]] = {
            exposed: route for exposed, route in self._routes.items() if route in alive
        }
        named = set(routes.values())
        for server, tool in present:
            if (server, tool) in named or server not in settled:
                continue
            key = f"{server}/{tool}"
            wanted = tool if _INVALID_CHARS.sub("_", tool) not in routes else f"{server}__{tool}"
            routes[exposed_name(wanted, key, routes)] = (server, tool)
            named.add((server, tool))
        order = {route: index for index, route in enumerate(present)}
        self._routes = dict(sorted(routes.items(), key=lambda item: order[item[1]]))
        self._generations = {name: conn.generation for name, conn in self.connections.items()}
