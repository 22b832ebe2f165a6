"""Which tools the consultant is offered: Discovery and Proposal without the Draft-phase tools,
everything from the first draft on, never the session argument the engine binds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.agent.engine.offer import DRAFT_PHASE_TOOLS
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ScriptedProvider
from formspec_consult.servers.local import create_local_server
from formspec_consult.store.agent_events import ToolCallFinished
from formspec_consult.store.events import EventLog
from tests.e2e.project import CUSTOMER, DRAFT_PATH, make_project

pytestmark = pytest.mark.anyio
PROPOSE = {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}}]}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    return make_project(tmp_path / "shop")


async def consult(project: Path, replies: list[Any], *turns: str) -> tuple[Engine, list[Any]]:
    engine = await Engine.open(
        EngineOptions(project=project, provider=ScriptedProvider(replies), in_memory_server=True, servers=server_specs)
    )
    events: list[Any] = []
    with anyio.fail_after(30):
        for text in turns:
            events += [event async for event in engine.run_turn(text)]
    await engine.aclose()
    return engine, events


def offers(engine: Engine) -> list[tuple[int, dict[str, dict[str, Any]]]]:
    """(request number, {tool: parameters}) each time the request log recorded a new offer."""
    requests = [e for e in EventLog.read(engine.session_dir / "events.jsonl") if e["type"] == "request"]
    return [
        (number, {t["function"]["name"]: t["function"]["parameters"] for t in request["tools"]})
        for number, request in enumerate(requests)
        if "tools" in request
    ]


async def test_the_draft_phase_tools_are_offered_from_the_first_draft_on_and_the_offer_changes_once(
    project: Path,
) -> None:
    engine, _ = await consult(project, ["What do you sell?", PROPOSE, "Drafted the customer."], "hi", "customers")
    (first_at, discovery), (draft_at, drafting) = offers(engine)
    assert (first_at, draft_at) == (0, 2)  # turn 1, turn 2 before the draft: the same offer; then the new one
    assert {"propose_spec_file", "read_transcript", "get_business_template", "search_modules_registry"} <= set(discovery)
    assert not DRAFT_PHASE_TOOLS & set(discovery)
    assert set(drafting) >= DRAFT_PHASE_TOOLS and set(discovery) < set(drafting)
    assert "validate_spec" in drafting and "read_workspace_manifest" in drafting
    for offer in (discovery, drafting):
        assert all("session" not in (parameters.get("properties") or {}) for parameters in offer.values())
    assert drafting["apply_draft"]["required"] == ["file"]


async def test_a_tool_that_is_not_offered_still_runs_when_the_model_calls_it(project: Path) -> None:
    check = {"tool_calls": [{"name": "validate_spec", "arguments": {"yaml": CUSTOMER}}]}
    _, events = await consult(project, [check, "It is valid."], "is this valid?")
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(e.name, e.ok) for e in finished] == [("validate_spec", True)]


async def test_external_mcp_clients_still_list_every_tool_with_its_session_argument(project: Path) -> None:
    async with Client(create_local_server(project)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert {"validate_spec", *DRAFT_PHASE_TOOLS} <= set(tools)
    assert "session" in tools["propose_spec_file"].input_schema["properties"]
