"""HTTP servers as they behave in the wild: one restarted mid-session (it forgot our session and
answers 404), one that refuses the token (401), at start and mid-session; the client introduces
itself as formspec-consult."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest
from starlette.types import ASGIApp, Receive, Scope, Send

from formspec_consult import __version__
from formspec_consult.mcp_client import MCPManager, parse_servers
from tests.mcp_client.fake_server import build
from tests.mcp_client.loopback import LoopbackServer

pytestmark = pytest.mark.anyio
TOKEN = "peer-token"


class BearerGate:
    """Answers 401 unless the request carries `Bearer <token>`; `token` can change mid-session."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization") != f"Bearer {self.token}".encode():
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"www-authenticate", b"Bearer"), (b"content-type", b"text/plain")]})
                await send({"type": "http.response.body", "body": b"unauthorized"})
                return
        await self.app(scope, receive, send)


@pytest.fixture
def restartable() -> Iterator[LoopbackServer]:
    server = LoopbackServer(lambda: build("peer").streamable_http_app())
    server.start()
    try:
        yield server
    finally:
        server.stop()


def manager_for(url: str, **extra: object) -> MCPManager:
    return MCPManager(parse_servers({"mcpServers": {"peer": {"url": url, **extra}}}, {"PEER_TOKEN": TOKEN}))


async def test_a_server_restarted_mid_session_gets_a_new_session_and_the_call_is_retried_once(
    restartable: LoopbackServer,
) -> None:
    manager = manager_for(restartable.url)
    try:
        with anyio.fail_after(60):
            assert await manager.start() == []
            assert (await manager.call("echo", {"text": "before"})).text == "before"
            await anyio.to_thread.run_sync(restartable.restart)  # every session is forgotten: 404
            after = await manager.call("echo", {"text": "after"})
            again = await manager.call("echo", {"text": "and again"})
        assert (after.ok, after.text) == (True, "after")
        assert (again.ok, again.text) == (True, "and again")
        (status,) = manager.status()
        assert status.reinitialised == 1 and status.restarts == 0 and status.state == "running"
    finally:
        await manager.aclose()


async def test_the_client_introduces_itself_as_formspec_consult_with_its_version(
    restartable: LoopbackServer,
) -> None:
    manager = manager_for(restartable.url)
    try:
        with anyio.fail_after(60):
            await manager.start()
            outcome = await manager.call("whoami", {})
        assert outcome.text == f"formspec-consult {__version__}"
    finally:
        await manager.aclose()


async def test_a_refused_token_at_start_is_named_an_authentication_failure_with_where_the_token_goes() -> None:
    server = LoopbackServer(lambda: BearerGate(build("peer").streamable_http_app(), TOKEN))
    server.start()
    manager = manager_for(server.url, headers={"Authorization": "Bearer wrong-token"})
    try:
        with anyio.fail_after(60):
            (problem,) = await manager.start()
        assert "authentication failed (HTTP 401" in problem and server.url in problem
        assert "mcpServers.peer.headers" in problem and "OAuth sign-in is not supported" in problem
        assert "wrong-token" not in problem
    finally:
        await manager.aclose()
        server.stop()


async def test_a_token_refused_mid_session_is_an_authentication_error_for_the_model_not_a_restart() -> None:
    gates: list[BearerGate] = []

    def make_app() -> ASGIApp:
        gates.append(BearerGate(build("peer").streamable_http_app(), TOKEN))
        return gates[-1]

    server = LoopbackServer(make_app)
    server.start()
    manager = manager_for(server.url, headers={"Authorization": "Bearer ${PEER_TOKEN}"})
    try:
        with anyio.fail_after(60):
            assert await manager.start() == []
            gates[-1].token = "rotated"  # the server no longer accepts our token
            outcome = await manager.call("echo", {"text": "x"})
        assert not outcome.ok and "authentication failed (HTTP 401" in outcome.text
        assert "mcpServers.peer.headers" in outcome.text
        assert manager.status()[0].restarts == 0
    finally:
        await manager.aclose()
        server.stop()
