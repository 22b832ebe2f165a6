"""Our client against a real third-party server, @modelcontextprotocol/server-everything from
npm, over stdio, Streamable HTTP and the legacy SSE transport: every kind of content reaches the
model, names stay valid and unique, and a restarted HTTP server is re-initialised."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from formspec_consult.mcp_client import MCPManager, parse_servers
from tests.mcp_client.everything import EverythingHttp, entry

pytestmark = [pytest.mark.anyio, pytest.mark.server_everything, pytest.mark.slow]
VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
LONG = "everything_else_from_the_model_context_protocol_samples_x"  # prefixed names exceed 64


def stdio() -> dict[str, Any]:
    return {"command": "node", "args": [str(entry()), "stdio"]}


@pytest.fixture
async def started(tmp_path: Path) -> AsyncIterator[MCPManager]:
    specs = parse_servers(
        {"mcpServers": {"everything": stdio(), LONG: stdio()}}, errlog_dir=tmp_path
    )
    manager = MCPManager(specs)
    with anyio.fail_after(60):
        assert await manager.start() == []
    try:
        yield manager
    finally:
        await manager.aclose()


async def test_over_stdio_images_links_and_embedded_resources_reach_the_model(started: MCPManager) -> None:
    with anyio.fail_after(60):
        image = await started.call("get-tiny-image", {})
        links = await started.call("get-resource-links", {"count": 2})
        embedded = await started.call("get-resource-reference", {"resourceType": "Text", "resourceId": 2})
    assert image.ok and re.search(r"\[image 1: image/png, [\d.]+ kB\]", image.text)
    (part,) = image.parts
    assert part["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
    assert "<demo://resource/dynamic/blob/1>" in links.text and "Text Resource 2" in links.text
    assert "<demo://resource/dynamic/text/2>" in links.text
    assert "[resource demo://resource/dynamic/text/2 (text/plain)]" in embedded.text
    assert "This is a plaintext resource" in embedded.text


async def test_two_copies_get_valid_unique_names_and_each_call_reaches_its_own_copy(
    started: MCPManager,
) -> None:
    names = [d["function"]["name"] for d in started.tool_declarations()]
    assert all(VALID.match(name) for name in names) and len(names) == len(set(names))
    assert "get-tiny-image" in names and "echo" in names  # valid names pass unchanged
    copies = [n for n in names if started.server_of(n) == LONG]
    assert copies and all(len(n) <= 64 for n in copies)
    second_echo = next(n for n in copies if started.real_name(n) == "echo")
    with anyio.fail_after(60):
        outcome = await started.call(second_echo, {"message": "to the copy"})
    assert (outcome.ok, outcome.server, outcome.text) == (True, LONG, "Echo: to the copy")


async def test_over_streamable_http_a_restarted_server_is_reinitialised_and_the_call_retried() -> None:
    server = EverythingHttp("streamableHttp")
    await anyio.to_thread.run_sync(server.start)
    manager = MCPManager(
        parse_servers({"mcpServers": {"everything": {"url": f"http://127.0.0.1:{server.port}/mcp"}}})
    )
    try:
        with anyio.fail_after(90):
            assert await manager.start() == []
            image = await manager.call("get-tiny-image", {})
            assert image.ok and len(image.parts) == 1
            await anyio.to_thread.run_sync(server.restart)  # it forgets our session (answers 400)
            outcome = await manager.call("echo", {"message": "after the restart"})
        assert (outcome.ok, outcome.text) == (True, "Echo: after the restart")
        assert manager.status()[0].reinitialised == 1
    finally:
        await manager.aclose()
        server.stop()


async def test_type_sse_speaks_the_legacy_transport() -> None:
    server = EverythingHttp("sse")
    await anyio.to_thread.run_sync(server.start)
    manager = MCPManager(
        parse_servers(
            {"mcpServers": {"old": {"type": "sse", "url": f"http://127.0.0.1:{server.port}/sse"}}}
        )
    )
    try:
        with anyio.fail_after(60):
            assert await manager.start() == []
            outcome = await manager.call("echo", {"message": "over sse"})
        assert (outcome.ok, outcome.text) == (True, "Echo: over sse")
        assert manager.status()[0].transport == "sse"
    finally:
        await manager.aclose()
        server.stop()
