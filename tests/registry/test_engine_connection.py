"""The client side: the engine's MCP manager talking to a real registry over loopback HTTP with a
bearer token, and what the model sees when the registry goes away (an error, never a hang)."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import pytest

from formspec_consult.mcp_client.config import ServerSpec
from formspec_consult.mcp_client.manager import MCPManager
from tests.registry.conftest import RunningRegistry

pytestmark = pytest.mark.anyio
TOKEN = "engine-token"


async def test_the_engine_uses_a_configured_registry_and_survives_its_loss(
    seeded_url: str, start_registry: Callable[..., RunningRegistry]
) -> None:
    registry = start_registry(seeded_url, token=TOKEN)
    spec = ServerSpec(
        name="registry", url=registry.url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10
    )
    manager = MCPManager([spec], backoff=(0.0,), max_restarts=1)
    try:
        with anyio.fail_after(30):
            assert await manager.start(required=["registry"]) == []
            names = {d["function"]["name"] for d in manager.tool_declarations()}
            assert names == {"list_business_templates", "get_business_template", "search_modules_registry", "get_module_detail"}
            found = await manager.call("search_modules_registry", {"query": "pembayaran online", "limit": 1})
            assert found.ok and found.structured["results"][0]["name"] == "payment-gateway"

        registry.stop()  # the registry disappears mid-session

        with anyio.fail_after(60):
            lost = await manager.call("search_modules_registry", {"query": "kasir"})
        assert not lost.ok and lost.text.startswith("ERROR")
    finally:
        with anyio.fail_after(30):
            await manager.aclose()


async def test_a_wrong_token_is_reported_as_a_startup_problem_not_a_hang(
    seeded_url: str, start_registry: Callable[..., RunningRegistry]
) -> None:
    registry = start_registry(seeded_url, token=TOKEN)
    spec = ServerSpec(name="registry", url=registry.url, headers={"Authorization": "Bearer nope"}, timeout=10)
    manager = MCPManager([spec], backoff=(0.0,), max_restarts=1)
    try:
        with anyio.fail_after(30):
            problems = await manager.start()
        assert len(problems) == 1 and "registry" in problems[0], problems
    finally:
        with anyio.fail_after(30):
            await manager.aclose()
