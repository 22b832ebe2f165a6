"""Which tools the consultant is offered, as the model sees them in the request log: Discovery and
Proposal without what the system prompt carries, the Draft phase from the first draft on (the
draft tools join, the template tool retires), guarded tools only when the person's permissions
could let them run, never the session argument the engine binds; and the start refusal counts
the largest offer, so no request is bigger than what the window-fit check allowed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.agent.engine.offer import DRAFT_PHASE_TOOLS
from formspec_consult.agent.loop.permissions import GUARDED_TOOLS, PermissionRequest
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ProviderError, ScriptedProvider
from formspec_consult.servers.local import create_local_server
from formspec_consult.store.agent_events import ToolCallFinished
from formspec_consult.store.events import EventLog
from tests.e2e.project import CUSTOMER, DRAFT_PATH
from tests.helpers import group_of

pytestmark = pytest.mark.anyio
PROPOSE = {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}}]}
REPLIES = ["What do you sell?", PROPOSE, "Drafted the customer."]
CONTEXT_READS = {"read_workspace_manifest", "list_installed_modules", "list_skills", "list_business_templates"}
REVIEW_COVERED = {"diff_drafts", "validate_spec", "get_server_status", "stop_server"}


async def allow_once(_request: PermissionRequest) -> Any:
    return "allow_once"


async def consult(
    project: Path, replies: list[Any], *turns: str, someone_to_ask: bool = False, provider: ScriptedProvider | None = None,
    resume: str | None = None,
) -> tuple[Engine, list[Any]]:
    provider = provider or ScriptedProvider(replies)
    engine = await Engine.open(
        EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs, resume=resume)
    )
    if someone_to_ask:  # as the TUI does: a guarded call waits for the person's answer
        engine.set_approver(allow_once)
    events: list[Any] = []
    try:
        with anyio.fail_after(30):
            for text in turns:
                events += [event async for event in engine.run_turn(text)]
    finally:
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


async def test_with_someone_to_ask_the_draft_phase_adds_the_draft_tools_retires_the_template_tool_and_comes_once(
    project: Path,
) -> None:
    engine, _ = await consult(project, REPLIES, "hi", "customers", someone_to_ask=True)
    (first_at, discovery), (draft_at, drafting) = offers(engine)
    assert (first_at, draft_at) == (0, 2)  # turn 1, turn 2 before the draft: the same offer; then the new one
    assert {"propose_spec_file", "read_transcript", "get_business_template", "search_modules_registry",
            "list_kind_schemas", "read_skill"} <= set(discovery)
    assert not DRAFT_PHASE_TOOLS & set(discovery)
    assert set(drafting) == set(discovery) - {"get_business_template"} | DRAFT_PHASE_TOOLS
    for offer in (discovery, drafting):
        assert not (CONTEXT_READS | REVIEW_COVERED) & set(offer)  # the prompt carries them / the review covers them
        assert all("session" not in (parameters.get("properties") or {}) for parameters in offer.values())
        # the whole JSON Schema is for other clients: the model reads outlines and drills down by path
        assert set(offer["list_kind_schemas"]["properties"]) == {"kind", "path"}
    assert drafting["apply_draft"]["required"] == ["file"]
    assert "reason" not in drafting["reject_draft"]["properties"]  # the person's reason, told to the model
    assert "default" not in drafting["apply_draft"]["properties"]["force"]  # compacted: optional says enough


async def test_headless_with_nobody_to_ask_the_guarded_tools_are_not_offered_but_the_draft_list_is(
    project: Path,
) -> None:
    engine, _ = await consult(project, REPLIES, "hi", "customers")
    (_, discovery), (_, drafting) = offers(engine)
    assert set(drafting) == set(discovery) - {"get_business_template"} | {"list_drafts", "validate_project", "withdraw_draft"}
    assert not GUARDED_TOOLS & set(drafting)  # `ask` with no approver refuses every call: not offered


async def test_a_guarded_tool_is_offered_headless_when_allowed_and_never_when_denied(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORMSPEC_PERMISSIONS", json.dumps({"apply_draft": "allow", "undo_apply": "deny"}))
    engine, _ = await consult(project, REPLIES, "hi", "customers")
    drafting = offers(engine)[-1][1]
    assert "apply_draft" in drafting and "undo_apply" not in drafting
    engine, _ = await consult(project, REPLIES, "hi", "customers", someone_to_ask=True)
    drafting = offers(engine)[-1][1]
    assert {"apply_draft", "reject_draft", "restart_server"} <= set(drafting) and "undo_apply" not in drafting


async def test_a_resumed_session_is_offered_what_it_was_offered_before(project: Path) -> None:
    engine, _ = await consult(project, REPLIES, "hi", "customers", someone_to_ask=True)
    before = offers(engine)[-1][1]
    resumed, _ = await consult(project, ["Still here."], "and now?", someone_to_ask=True, resume=engine.session_id)
    assert offers(resumed)[-1][1] == before  # same carried context, same phase: the same prefix


async def test_a_tool_that_is_not_offered_still_runs_when_the_model_calls_it(project: Path) -> None:
    check = {"tool_calls": [{"name": "validate_spec", "arguments": {"yaml": CUSTOMER}}]}
    _, events = await consult(project, [check, "It is valid."], "is this valid?")
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(e.name, e.ok) for e in finished] == [("validate_spec", True)]


async def test_external_mcp_clients_still_list_every_tool_with_its_session_argument(project: Path) -> None:
    async with Client(create_local_server(project)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert {"validate_spec", "diff_drafts", "list_skills", "stop_server", *DRAFT_PHASE_TOOLS} <= set(tools)
    assert "session" in tools["propose_spec_file"].input_schema["properties"]


async def test_a_window_that_fits_discovery_but_not_the_draft_phase_is_refused_at_start_with_the_numbers(
    project: Path,
) -> None:
    """The fit check counts the largest offer (Draft phase, every tool the permissions could allow),
    so no Draft-phase request can be bigger than what it let through."""
    recording = ScriptedProvider(REPLIES)
    engine, _ = await consult(project, REPLIES, "hi", "customers", someone_to_ask=True, provider=recording)
    requests = [e for e in EventLog.read(engine.session_dir / "events.jsonl") if e["type"] == "request"]
    system = recording.requests[0][:1]
    discovery_tokens = recording.count_tokens(system, requests[0]["tools"]) - recording.count_tokens(system)
    draft_tokens = recording.count_tokens(system, requests[2]["tools"]) - recording.count_tokens(system)
    assert draft_tokens > discovery_tokens + 100
    reserve = 512
    # room for the conversation: 1,024 tokens past the Discovery prefix, fewer past the Draft one
    window = recording.count_tokens(system) + discovery_tokens + reserve + 1024 + (draft_tokens - discovery_tokens) // 2

    small = ScriptedProvider(["never sent"], context_window=window, max_output_tokens=reserve)
    with pytest.raises(ProviderError) as refused:
        await consult(project, [], "hi", provider=small)
    said = f"{refused.value} {refused.value.hint}"
    assert f"does not fit the {window:,}-token context window" in said
    assert f"the tool declarations ({draft_tokens:,})" in said  # the Draft-phase offer, not the first request's
    assert small.requests == []  # nothing was sent
    needed = int(group_of(r"--context-window (\d+)", said))
    bigger = ScriptedProvider(REPLIES, context_window=needed, max_output_tokens=reserve)
    await consult(project, [], "hi", "customers", someone_to_ask=True, provider=bigger)
    assert len(bigger.requests) == 3  # the advice works: the Draft phase runs in it
