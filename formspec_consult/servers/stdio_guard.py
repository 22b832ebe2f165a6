"""The local server over stdio, answering every request line, even one the SDK cannot read.

The SDK's stdio transport (MCP SDK 2.3) validates each line as a JSON-RPC message and, when that
fails, hands the server an exception without the request's id: the server logs it and the client
waits for an answer that never comes (a client's 15-second timeout, for a request with ``params``
sent as a list or a string holding a lone surrogate such as ``"\\ud800"``). We read stdin
ourselves, pass every line the SDK can read on unchanged, and answer the others at once with the
JSON-RPC error that says what was wrong: -32700 for a line that is not JSON, -32602 for
``params`` that is not an object, -32600 for any other malformed request.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import AsyncIterable, AsyncIterator
from io import TextIOWrapper
from typing import Any

import anyio
import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR
from pydantic import ValidationError

_log = logging.getLogger(__name__)


def refusal(line: str) -> types.JSONRPCError | None:
    """The error answer for a line the SDK would drop unanswered, or None to pass it on.

    Lines without a request id (notifications, responses, blank lines) are passed on: JSON-RPC
    answers only requests, and a line that is not JSON at all gets a parse error with a null id.
    """
    if not line.strip():
        return None
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except ValidationError as exc:
        problem = exc.errors()[0]["msg"] if exc.errors() else str(exc)
    try:
        data: Any = json.loads(line)
    except (ValueError, RecursionError):
        return _error(None, PARSE_ERROR, "Parse error: the line is not JSON. Send one JSON-RPC message per line.")
    if not isinstance(data, dict) or "method" not in data:
        return None if isinstance(data, dict) else _error(
            None, INVALID_REQUEST, "Invalid Request: a JSON-RPC message is a JSON object."
        )
    request_id = data.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None  # a notification (or an unusable id): nothing can be answered
    if "params" in data and data["params"] is not None and not isinstance(data["params"], dict):
        kind = "an array" if isinstance(data["params"], list) else f"a {type(data['params']).__name__}"
        return _error(request_id, INVALID_PARAMS,
                      f"Invalid params: MCP takes params as a JSON object of named parameters, not {kind}.")
    if _lone_surrogate(data):
        return _error(request_id, INVALID_REQUEST,
                      "Invalid Request: a string holds a lone UTF-16 surrogate (such as \\ud800), which is not "
                      "Unicode text. Send the character itself, or a complete surrogate pair.")
    return _error(request_id, INVALID_REQUEST, f"Invalid Request: not a valid JSON-RPC message ({problem}).")


def _lone_surrogate(data: Any) -> bool:
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _error(request_id: int | str | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


class _GuardedLines:
    """stdin as the SDK's transport reads it (``async for line``), minus the lines it would drop
    unanswered; those are answered on the transport's own write stream."""

    def __init__(self, source: AsyncIterable[str]) -> None:
        self.source = source
        self.write_stream: Any = None
        self.ready = anyio.Event()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self.source:
            answer = refusal(line)
            if answer is None:
                yield line
                continue
            _log.warning("answered a malformed request with JSON-RPC error %s: %s", answer.error.code,
                         answer.error.message)
            await self.ready.wait()
            await self.write_stream.send(SessionMessage(answer))


async def serve_stdio(server: MCPServer) -> None:
    """Run ``server`` on this process's stdin/stdout, as ``server.run("stdio")`` does, but answer
    malformed requests. fd 0 points at the null device while serving (as the SDK arranges), so a
    child process never reads the wire."""
    wire = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    with open(wire, "rb", closefd=True) as raw:  # noqa: ASYNC230 - wrapped for async reads below
        text = TextIOWrapper(raw, encoding="utf-8", errors="replace")  # as the SDK decodes stdin
        lines = _GuardedLines(anyio.wrap_file(text))
        async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
            lines.write_stream = write_stream
            lines.ready.set()
            lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async runs
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
