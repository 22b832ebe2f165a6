"""Both of our servers, as a third-party MCP client sees them: honest capabilities in either
handshake, tool titles and hints, output schemas, and JSON-RPC -32602 for bad prompt requests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

from formspec_consult.servers.local import create_local_server
from formspec_consult.servers.registry import create_registry_server
from tests.helpers import first_text

pytestmark = pytest.mark.anyio
INVALID_PARAMS = -32602
MODES = ["legacy", "auto"]  # the 2025-11-25 initialize handshake; 2026-07-28 discovery


@pytest.fixture(params=["local", "registry"])
def make_server(request: pytest.FixtureRequest, project: Path, tmp_path: Path) -> Callable[[], MCPServer]:
    if request.param == "local":
        return lambda: create_local_server(project, "20261201-100000-citz")
    return lambda: create_registry_server(f"sqlite:///{tmp_path / 'registry.db'}")


@pytest.mark.parametrize("mode", MODES)
async def test_neither_server_advertises_list_changed_or_resource_subscriptions(
    make_server: Callable[[], MCPServer], mode: str
) -> None:
    async with Client(make_server(), mode=mode) as client:
        caps = client.server_capabilities
    assert caps.tools is not None and not caps.tools.list_changed
    assert caps.prompts is None or not caps.prompts.list_changed
    assert caps.resources is None or not (caps.resources.list_changed or caps.resources.subscribe)


@pytest.mark.parametrize("mode", MODES)
async def test_an_unknown_prompt_is_an_invalid_params_error_naming_the_known_ones(
    make_server: Callable[[], MCPServer], mode: str
) -> None:
    async with Client(make_server(), mode=mode) as client:
        known = [p.name for p in (await client.list_prompts()).prompts]
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("no-such-prompt", {})
    assert caught.value.code == INVALID_PARAMS
    assert "no-such-prompt" in caught.value.message
    assert all(name in caught.value.message for name in known)


@pytest.mark.parametrize("mode", MODES)
async def test_a_missing_prompt_argument_is_an_invalid_params_error_naming_it(project: Path, mode: str) -> None:
    async with Client(create_local_server(project, "20261201-100000-citz"), mode=mode) as client:
        prompts = (await client.list_prompts()).prompts
        prompt = next(p for p in prompts if any(a.required for a in p.arguments or []))
        required = [a.name for a in prompt.arguments or [] if a.required]
        with pytest.raises(MCPError) as caught:
            await client.get_prompt(prompt.name, {})
    assert caught.value.code == INVALID_PARAMS
    assert all(name in caught.value.message for name in required)


async def test_a_prompt_with_its_arguments_still_renders(project: Path) -> None:
    async with Client(create_local_server(project, "20261201-100000-citz")) as client:
        prompt = next(p for p in (await client.list_prompts()).prompts if p.arguments)
        args = {a.name: "a barbershop in Bandung" for a in prompt.arguments or []}
        result = await client.get_prompt(prompt.name, args)
    assert result.messages and "a barbershop in Bandung" in result.messages[0].content.text  # type: ignore[union-attr]


async def test_every_tool_of_both_servers_has_a_title_and_read_only_tools_are_idempotent(
    make_server: Callable[[], MCPServer],
) -> None:
    async with Client(make_server()) as client:
        tools = (await client.list_tools()).tools
    for tool in tools:
        assert tool.title and tool.title != tool.name, tool.name
        hints = tool.annotations
        assert hints is not None and hints.open_world_hint is False, tool.name
        if hints.read_only_hint:
            assert hints.idempotent_hint is True and hints.destructive_hint is False, tool.name
        else:
            assert hints.destructive_hint is not None and hints.idempotent_hint is not None, tool.name


async def test_write_tools_are_destructive_exactly_where_they_lose_or_overwrite_something(
    client: Client,
) -> None:
    tools = {t.name: t.annotations for t in (await client.list_tools()).tools}
    destructive = {name for name, hints in tools.items() if hints and hints.destructive_hint}
    assert destructive == {"apply_draft", "apply_draft_blocks", "undo_apply", "reject_draft"}  # a part applied is an apply
    assert tools["propose_spec_file"].idempotent_hint is True  # type: ignore[union-attr]
    assert tools["undo_apply"].idempotent_hint is False  # type: ignore[union-attr]


async def test_read_skill_and_list_kind_schemas_declare_output_schemas_with_properties(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert all(tool.output_schema for tool in tools.values()), "every local tool has an output schema"
    kinds = tools["list_kind_schemas"].output_schema or {}
    assert {"kinds", "kind", "schema", "source"} <= set(kinds["properties"])
    assert kinds["properties"]["kinds"]["items"]["type"] == "string"
    skill = tools["read_skill"].output_schema or {}
    assert skill["properties"]["result"]["type"] == "string"
    result = await client.call_tool("read_skill", {"name": "barbershop-pricing"})
    text = first_text(result)
    assert text.startswith("---\nname: barbershop-pricing"), "the model still reads raw Markdown"
    assert result.structured_content == {"result": text}
