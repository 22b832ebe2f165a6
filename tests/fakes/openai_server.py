"""A fake OpenAI-compatible chat server on loopback, to drive the *real* litellm provider.

It answers ``POST /v1/chat/completions`` (streamed as SSE, or as one JSON body) from a queue of
scripted :class:`FakeReply` objects — text, tool calls streamed in argument fragments, usage —
and records every request body it receives. A reply can instead be an HTTP error (429 with
``Retry-After``, 500, 401…) or stall until the server stops, to test retries and timeouts.

In tests use the ``fake_openai`` fixture (tests/fakes/fixtures.py). Standalone, for the TUI
smoke test: ``python -m tests.fakes.openai_server --script FILE --port N`` (a YAML/JSON list of
replies in the scripted-provider format, plus the FakeReply fields).
"""

from __future__ import annotations

import argparse
import asyncio
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Iterable, Mapping
from pathlib import Path
from typing import Any

import uvicorn
import yaml
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.fakes.openai_wire import (
    FAKE_MODEL,
    FakeReply,
    RecordedRequest,
    error_body,
    sse_frames,
    usage_for,
    whole_response,
)

__all__ = ["FAKE_MODEL", "FakeOpenAIServer", "FakeReply", "RecordedRequest", "load_script", "main"]

# No keep-alive: a client cached by litellm across tests (each with its own event loop) must not
# hold a connection that outlives its loop and is then reported as an unclosed transport.
CLOSE = {"connection": "close"}


class FakeOpenAIServer:
    """The server; start() runs uvicorn in a daemon thread on a random loopback port."""

    def __init__(self, replies: Iterable[FakeReply] = ()) -> None:
        self.replies: deque[FakeReply] = deque(replies)
        self.requests: list[RecordedRequest] = []
        self._received = threading.Condition()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._release: asyncio.Event | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0
        self._counter = 0

    # -- scripting -------------------------------------------------------------------------
    def queue(self, *replies: FakeReply | Mapping[str, Any] | str) -> None:
        """Append replies to the queue (FakeReply, a mapping of its fields, or plain text)."""
        for reply in replies:
            self.replies.append(reply if isinstance(reply, FakeReply) else FakeReply.from_mapping(reply))

    @property
    def url(self) -> str:
        """The base URL to give litellm as ``api_base``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Block until at least `count` requests arrived (bounded), then return them all."""
        with self._received:
            if not self._received.wait_for(lambda: len(self.requests) >= count, timeout):
                raise TimeoutError(f"fake server got {len(self.requests)} request(s), expected {count}")
            return list(self.requests)

    def release_stalls(self) -> None:
        """Let every stalled reply finish (with an error body)."""
        if self._loop is not None and self._release is not None:
            self._loop.call_soon_threadsafe(self._release.set)

    # -- HTTP ------------------------------------------------------------------------------
    def app(self) -> Starlette:
        """The ASGI app (exposed so it can also be mounted elsewhere)."""
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
            ]
        )

    async def _models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": FAKE_MODEL, "object": "model", "owned_by": "fake"}]})

    async def _chat(self, request: Request) -> Response:
        body = await request.json()
        with self._received:
            self.requests.append(RecordedRequest(request.url.path, dict(request.headers), body))
            self._received.notify_all()
        if not self.replies:
            return self._error(500, "fake server: no scripted reply left")
        reply = self.replies.popleft()
        if reply.stall:
            await self._stall()
            return self._error(503, "fake server: stalled reply released")
        if reply.status != 200:
            headers = {"Retry-After": reply.retry_after} if reply.retry_after is not None else {}
            return self._error(reply.status, reply.error, headers)
        self._counter += 1
        ident = f"chatcmpl-fake-{self._counter}"
        usage, model = usage_for(reply, body), body.get("model", FAKE_MODEL)
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            frames = sse_frames(reply, ident, model, usage if include_usage else None)
            return StreamingResponse(self._sse(frames, reply.stall_after_chunks, done=not (reply.cut_short or reply.stream_error)),
                                     media_type="text/event-stream", headers=CLOSE)
        return JSONResponse(whole_response(reply, ident, model, usage), headers=CLOSE)

    async def _stall(self) -> None:
        assert self._release is not None
        await self._release.wait()

    @staticmethod
    def _error(status: int, message: str, headers: Mapping[str, str] | None = None) -> Response:
        return JSONResponse(error_body(status, message), status_code=status, headers={**CLOSE, **(headers or {})})

    async def _sse(self, frames: list[bytes], stall_after: int | None, done: bool = True) -> AsyncIterator[bytes]:
        for number, data in enumerate(frames):
            if stall_after is not None and number == stall_after:
                await self._stall()
                return
            yield data
            await asyncio.sleep(0)  # let each frame go out on its own, like a real stream
        if done:
            yield b"data: [DONE]\n\n"

    # -- lifecycle -------------------------------------------------------------------------
    def start(self, port: int = 0, timeout: float = 10.0) -> FakeOpenAIServer:
        """Start serving on 127.0.0.1 (port 0 = a free one) and wait until it accepts requests."""
        config = uvicorn.Config(self.app(), host="127.0.0.1", port=port, log_level="warning",
                                lifespan="off", ws="none", timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name="fake-openai", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("fake OpenAI server did not start")
            time.sleep(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    def _run(self) -> None:
        async def serve() -> None:
            self._loop = asyncio.get_running_loop()
            self._release = asyncio.Event()
            assert self._server is not None
            await self._server.serve()

        asyncio.run(serve())

    def stop(self) -> None:
        """Release stalled replies and shut the server down."""
        self.release_stalls()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)

    def cli_args(self) -> list[str]:
        """The formspec-consult flags that point it at this server (a 32k window, no model check)."""
        return ["--model", FAKE_MODEL, "--base-url", self.url, "--context-window", "32000", "--allow-unvalidated"]

    def __enter__(self) -> FakeOpenAIServer:
        return self.start() if self._server is None else self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def load_script(path: Path) -> list[FakeReply]:
    """Read a YAML/JSON list of replies (or a mapping with `turns`)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if isinstance(data, Mapping):
        data = data.get("turns", [])
    if not isinstance(data, list):
        raise SystemExit(f"{path}: expected a list of replies")
    return [FakeReply.from_mapping(item) for item in data]


def main(argv: list[str] | None = None) -> None:
    """Serve a script in the foreground until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", type=Path, required=True, help="YAML/JSON list of replies")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0 = any free port)")
    args = parser.parse_args(argv)
    server = FakeOpenAIServer(load_script(args.script)).start(args.port)
    print(f"fake OpenAI server on {server.url} (model: openai/{FAKE_MODEL})", flush=True)
    try:
        while server._thread is not None and server._thread.is_alive():
            server._thread.join(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
