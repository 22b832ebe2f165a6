"""A fake Anthropic Messages server on loopback that checks cache markers and simulates the cache.

It answers ``POST /v1/messages`` (streamed as Anthropic SSE events) from a queue of
:class:`~tests.fakes.openai_wire.FakeReply` objects (text and tool calls), and records every body.
Like Anthropic it refuses a request with more than four ``cache_control`` blocks (400), and it
keeps a prompt cache: the request is read as one sequence of blocks in Anthropic's order (tools,
system, messages); each marked block ends a prefix that is written to the cache, and the longest
marked prefix already written by an earlier request is reported as ``cache_read_input_tokens``.
Markers do not count in a prefix's identity, and only exact prefixes hit (stricter than
Anthropic, which also looks back up to 20 blocks before a marker). Tokens are counted with
the product's o200k counter: the figures are for ratios, not prices.

Use it from the real litellm provider with model ``anthropic/<name>`` and ``api_base=server.url``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from formspec_consult.providers.tokens import count_text
from tests.fakes.openai_wire import FakeReply, RecordedRequest

MAX_BREAKPOINTS = 4
CLOSE = {"connection": "close"}


@dataclass(frozen=True)
class CacheOutcome:
    """What the fake cache did with one request (also reported in the response's usage)."""

    markers: int
    total_tokens: int
    read_tokens: int
    written_tokens: int


def request_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request as one list of blocks in the order Anthropic caches them: tools, system, messages."""
    blocks: list[dict[str, Any]] = [dict(tool, _part="tool") for tool in body.get("tools") or []]
    system = body.get("system")
    if isinstance(system, str):
        blocks.append({"_part": "system", "type": "text", "text": system})
    else:
        blocks += [dict(block, _part="system") for block in system or []]
    for number, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        blocks += [dict(block, _part=f"{number}:{message.get('role')}") for block in content or []]
    return blocks


def _key(blocks: list[dict[str, Any]]) -> str:
    plain = [{k: v for k, v in block.items() if k != "cache_control"} for block in blocks]
    return hashlib.sha256(json.dumps(plain, sort_keys=True).encode()).hexdigest()


def _tokens(blocks: list[dict[str, Any]]) -> int:
    return sum(count_text(json.dumps({k: v for k, v in b.items() if k != "cache_control"})) for b in blocks)


class FakeAnthropicServer:
    """The server; start() runs uvicorn in a daemon thread on a random loopback port."""

    def __init__(self, replies: Iterable[FakeReply] = ()) -> None:
        self.replies: deque[FakeReply] = deque(replies)
        self.requests: list[RecordedRequest] = []
        self.outcomes: list[CacheOutcome] = []
        self._cache: set[str] = set()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    def queue(self, *replies: FakeReply | str) -> None:
        """Append replies (FakeReply or plain text)."""
        self.replies.extend(r if isinstance(r, FakeReply) else FakeReply(text=r) for r in replies)

    @property
    def url(self) -> str:
        """The base URL to give litellm as ``api_base``."""
        return f"http://127.0.0.1:{self.port}"

    def _account(self, body: dict[str, Any]) -> CacheOutcome | str:
        blocks = request_blocks(body)
        marked = [i for i, block in enumerate(blocks) if block.get("cache_control")]
        if len(marked) > MAX_BREAKPOINTS:
            return f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {len(marked)}."
        read = 0
        for index in marked:
            key = _key(blocks[: index + 1])
            if key in self._cache:
                read = max(read, _tokens(blocks[: index + 1]))
        written = max((_tokens(blocks[: i + 1]) for i in marked), default=0)
        self._cache.update(_key(blocks[: i + 1]) for i in marked)
        return CacheOutcome(len(marked), _tokens(blocks), read, max(0, written - read))

    async def _messages(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(RecordedRequest(request.url.path, dict(request.headers), body))
        outcome = self._account(body)
        if isinstance(outcome, str):
            return self._error(400, outcome)
        self.outcomes.append(outcome)
        if not self.replies:
            return self._error(500, "fake server: no scripted reply left")
        reply = self.replies.popleft()
        frames = _sse(reply, body.get("model", "claude-fake"), outcome, len(self.requests))
        if not body.get("stream"):
            return self._error(400, "fake server: only streamed requests are scripted")
        return StreamingResponse(_send(frames), media_type="text/event-stream", headers=CLOSE)

    @staticmethod
    def _error(status: int, message: str) -> Response:
        kind = "invalid_request_error" if status == 400 else "api_error"
        return JSONResponse({"type": "error", "error": {"type": kind, "message": message}},
                            status_code=status, headers=CLOSE)

    def start(self, timeout: float = 10.0) -> FakeAnthropicServer:
        """Start serving on 127.0.0.1 and wait (bounded) until it accepts requests."""
        app = Starlette(routes=[Route("/v1/messages", self._messages, methods=["POST"])])
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off", ws="none",
                                timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        server = self._server
        self._thread = threading.Thread(target=lambda: asyncio.run(server.serve()), name="fake-anthropic",
                                        daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("fake Anthropic server did not start")
            time.sleep(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        """Shut the server down."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> FakeAnthropicServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _event(kind: str, data: dict[str, Any]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()


def _sse(reply: FakeReply, model: str, outcome: CacheOutcome, number: int) -> list[bytes]:
    usage = {"input_tokens": outcome.total_tokens - outcome.read_tokens - outcome.written_tokens,
             "cache_read_input_tokens": outcome.read_tokens,
             "cache_creation_input_tokens": outcome.written_tokens, "output_tokens": 1}
    message: dict[str, Any] = {"id": f"msg_fake_{number}", "type": "message", "role": "assistant", "model": model,
               "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}
    frames = [_event("message_start", {"message": message})]
    index = 0
    if reply.text:
        frames.append(_event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}))
        frames.append(_event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": reply.text}}))
        frames.append(_event("content_block_stop", {"index": 0}))
        index = 1
    for offset, call in enumerate(reply.tool_calls):
        args = call.get("arguments", {})
        block = {"type": "tool_use", "id": call.get("id", f"toolu_{number}_{offset}"), "name": call["name"], "input": {}}
        frames.append(_event("content_block_start", {"index": index + offset, "content_block": block}))
        partial = args if isinstance(args, str) else json.dumps(args)
        frames.append(_event("content_block_delta", {"index": index + offset,
                                                     "delta": {"type": "input_json_delta", "partial_json": partial}}))
        frames.append(_event("content_block_stop", {"index": index + offset}))
    stop = "tool_use" if reply.tool_calls else "end_turn"
    frames.append(_event("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None},
                                           "usage": {"output_tokens": max(1, len(reply.text) // 4)}}))
    frames.append(_event("message_stop", {}))
    return frames


async def _send(frames: list[bytes]) -> AsyncIterator[bytes]:
    for frame in frames:
        yield frame
