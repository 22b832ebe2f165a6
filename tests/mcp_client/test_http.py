"""Streamable HTTP servers: the bearer header from the config reaches the server; a wrong token
is a clear start-up problem, not a hang."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from formspec_consult.commands.wiring import registry_server_spec
from formspec_consult.config import Settings
from formspec_consult.mcp_client import MCPManager, parse_servers
from formspec_consult.servers.registry import create_registry_server
from formspec_consult.servers.registry_http import HttpLimits, bind_socket, http_server

pytestmark = pytest.mark.anyio
TOKEN = "registry-test-token"


@pytest.fixture
def registry_url(tmp_path: Path) -> Iterator[str]:
    server = create_registry_server(f"sqlite:///{tmp_path / 'registry.db'}", token=TOKEN)
    sock = bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    web = http_server(
        server, host="127.0.0.1", port=port, limits=HttpLimits(rate_per_second=1000, burst=1000)
    )
    thread = threading.Thread(target=web.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        web.should_exit = True
        thread.join(timeout=15)
        sock.close()
        server.close()


async def test_an_http_server_with_a_bearer_header_from_the_config_serves_its_tools(
    registry_url: str,
) -> None:
    specs = parse_servers(
        {"mcpServers": {"reg": {"url": registry_url, "headers": {"Authorization": "Bearer ${REG_TOKEN}"}}}},
        {"REG_TOKEN": TOKEN},
    )
    manager = MCPManager(specs)
    with anyio.fail_after(60):
        assert await manager.start(required=["reg"]) == []
        templates = await manager.call_on("reg", "list_business_templates", {})
    try:
        assert templates["count"] > 0
        outcome = await manager.call("search_modules_registry", {"query": "payment"})
        assert outcome.ok and outcome.server == "reg"
    finally:
        await manager.aclose()


async def test_a_wrong_token_is_reported_as_a_server_that_could_not_start(registry_url: str) -> None:
    specs = parse_servers(
        {"mcpServers": {"reg": {"url": registry_url, "headers": {"Authorization": "Bearer nope"}}}}, {}
    )
    manager = MCPManager(specs)
    try:
        with anyio.fail_after(60):
            problems = await manager.start()
        assert len(problems) == 1 and "'reg' could not start" in problems[0]
        assert "authentication failed (HTTP 401" in problems[0] and "mcpServers.reg.headers" in problems[0]
        assert registry_url in problems[0] and "nope" not in problems[0]  # the token is never echoed
        assert manager.tool_declarations() == []
    finally:
        await manager.aclose()


async def test_a_refused_registry_token_says_how_to_set_the_registry_token(registry_url: str, tmp_path: Path) -> None:
    settings = Settings(registry_url=registry_url, registry_token="stale")
    spec = registry_server_spec(settings, tmp_path, timeout=30.0)
    assert spec is not None
    manager = MCPManager([spec])
    try:
        with anyio.fail_after(60):
            (problem,) = await manager.start()
        assert "authentication failed (HTTP 401" in problem
        assert f"formspec-consult registry token set {registry_url}" in problem and "stale" not in problem
    finally:
        await manager.aclose()
