"""Serve an ASGI app (an MCP server over Streamable HTTP) on a loopback port from a thread, and
restart it on the same port: a restarted server has forgotten every session."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable

import uvicorn
from starlette.types import ASGIApp

from formspec_consult.servers.registry_http import bind_socket


class LoopbackServer:
    """`start()` serves `make_app()` on 127.0.0.1 (a free port the first time, the same one after)."""

    def __init__(self, make_app: Callable[[], ASGIApp]) -> None:
        self.make_app = make_app
        self.port = 0
        self._web: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> str:
        sock = bind_socket("127.0.0.1", self.port)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.make_app(), log_level="warning", lifespan="on", access_log=False)
        web = uvicorn.Server(config)
        thread = threading.Thread(target=web.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        self._web, self._thread, self._sock = web, thread, sock
        for _ in range(500):  # bounded: until uvicorn says it serves
            if web.started or not thread.is_alive():
                break
            threading.Event().wait(0.01)
        if not web.started:
            raise RuntimeError("the loopback server did not start")
        return self.url

    def stop(self) -> None:
        web, thread, sock = self._web, self._thread, self._sock
        self._web = self._thread = self._sock = None
        if web is not None and thread is not None:
            web.should_exit = True
            thread.join(timeout=15)
        if sock is not None:
            sock.close()

    def restart(self) -> str:
        self.stop()
        return self.start()
