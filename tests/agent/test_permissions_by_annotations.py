"""Whether a model call waits for the person is the server's own word (MCP tool annotations), for
third-party servers and our own alike; the name list is only a floor, and a tool keeps its
server's identity however its exposed name was cut or hashed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.agent.loop.permissions import PermissionRequest
from formspec_consult.commands.wiring import server_specs
from formspec_consult.config import Settings
from formspec_consult.mcp_client.config import ServerSpec
from formspec_consult.mcp_client.manager import exposed_name
from formspec_consult.providers import ScriptedProvider
from formspec_consult.servers.local import create_local_server
from formspec_consult.store.agent_events import ToolCallFinished
from tests.e2e.project import CUSTOMER, DRAFT_PATH

pytestmark = pytest.mark.anyio

COPY = "formspec_local_copy_listed_again_under_a_long_name_by_the_project"  # 65 characters


def crm_server(written: list[str]) -> MCPServer:
    """A third-party-style server: one read-only tool, one write tool no name list knows."""
    server = MCPServer("crm")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def find_customer(name: str) -> str:
        """Look a customer up."""
        return f"found {name}"

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    def create_customer(name: str) -> str:
        """Add a customer to the CRM."""
        written.append(name)
        return f"created {name}"

    return server


def call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": tool, "arguments": arguments}]}


async def open_with(project: Path, replies: list[Any], extra: Any, **flags: Any) -> Engine:
    def servers(settings: Settings, project_root: Path, session_id: str, *, in_memory: bool) -> list[ServerSpec]:
        return [*server_specs(settings, project_root, session_id, in_memory=True), *extra(project_root, session_id)]

    options = EngineOptions(project=project, provider=ScriptedProvider(replies), in_memory_server=True,
                            servers=servers, flags=flags)
    return await Engine.open(options)


async def finished(engine: Engine, text: str = "go") -> list[ToolCallFinished]:
    with anyio.fail_after(60):
        return [e async for e in engine.run_turn(text) if isinstance(e, ToolCallFinished)]


async def test_a_third_party_write_tool_no_name_list_knows_is_asked_for(project: Path) -> None:
    written: list[str] = []
    asked: list[PermissionRequest] = []

    async def approver(request: PermissionRequest) -> Any:
        asked.append(request)
        return "deny"

    replies = [call("find_customer", name="Ann"), call("create_customer", name="Ann"), "Done."]
    engine = await open_with(project, replies, lambda root, sid: [ServerSpec(name="crm", in_process=crm_server(written))])
    engine.set_approver(approver)
    try:
        found, created = await finished(engine)
        assert found.ok and found.result == "found Ann"  # read-only: runs without a word
        assert not created.ok and "permission denied" in created.result and written == []
        (request,) = asked
        assert request.name == "create_customer" and request.server == "crm"
        assert "create_customer of the MCP server 'crm'" in request.summary
    finally:
        await engine.aclose()


async def test_headless_a_third_party_write_tool_runs_only_when_the_persons_rules_allow_it(project: Path) -> None:
    written: list[str] = []
    replies = [call("create_customer", name="Bo"), "Done."]
    engine = await open_with(project, replies, lambda root, sid: [ServerSpec(name="crm", in_process=crm_server(written))],
                             permissions={"crm__create_customer": "allow"})
    try:
        (created,) = await finished(engine)
        assert created.ok and written == ["Bo"]
    finally:
        await engine.aclose()


async def test_a_second_copy_of_our_server_under_a_long_name_gets_no_unguarded_apply(project: Path) -> None:
    def copy(root: Path, session_id: str) -> list[ServerSpec]:
        return [ServerSpec(name=COPY, in_process=create_local_server(root, session_id))]

    hashed = exposed_name(f"{COPY}__apply_draft", f"{COPY}/apply_draft", set())
    assert hashed != "apply_draft" and len(hashed) <= 64
    replies = [call("propose_spec_file", path=DRAFT_PATH, content=CUSTOMER), call(hashed, file=DRAFT_PATH), "Done."]
    # The person allowed the local server's apply_draft: that word is not the copy's.
    engine = await open_with(project, replies, copy, permissions={"apply_draft": "allow"})
    try:
        proposed, applied = await finished(engine)
        assert proposed.ok
        assert applied.name == hashed and not applied.ok and "permission denied" in applied.result
        assert not (project / "spec" / DRAFT_PATH).exists()
    finally:
        await engine.aclose()


async def test_a_tool_no_server_offers_is_called_unknown_not_asked_about(project: Path) -> None:
    asked: list[PermissionRequest] = []

    async def approver(request: PermissionRequest) -> Any:
        asked.append(request)
        return "allow_once"

    engine = await open_with(project, [call("publish_everything"), "Sorry."], lambda root, sid: [])
    engine.set_approver(approver)
    try:
        (outcome,) = await finished(engine)
        assert not outcome.ok and "unknown tool 'publish_everything'" in outcome.result and asked == []
    finally:
        await engine.aclose()


async def test_the_persons_own_review_tools_never_run_for_the_model_whatever_the_rules(project: Path) -> None:
    """edit_draft and apply_draft_blocks are the person's: not offered to the model, and refused
    when it calls them anyway, even with every write tool (and these by name) allowed."""
    asked: list[PermissionRequest] = []

    async def approver(request: PermissionRequest) -> Any:
        asked.append(request)
        return "allow_session"

    replies = [call("propose_spec_file", path=DRAFT_PATH, content=CUSTOMER),
               call("edit_draft", path=DRAFT_PATH, content=CUSTOMER.replace("Customer", "Client")),
               call("apply_draft_blocks", file=DRAFT_PATH, blocks=["1"]), "Done."]
    engine = await open_with(project, replies, lambda root, sid: [],
                             permissions={"default": "allow", "edit_draft": "allow", "apply_draft_blocks": "allow"})
    engine.set_approver(approver)
    try:
        proposed, edited, applied = await finished(engine)
        assert proposed.ok
        for outcome in (edited, applied):
            assert not outcome.ok and "permission denied" in outcome.result, outcome.result
        assert asked == [] and not (project / "spec" / DRAFT_PATH).exists()
        drafts = await engine.call_tool("list_drafts")
        assert "Client" not in json.dumps(dict(drafts.data))  # the edit did not happen either
    finally:
        await engine.aclose()
