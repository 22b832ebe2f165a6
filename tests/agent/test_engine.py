"""The Engine through its public API: real local MCP server (in memory), scripted provider."""

from __future__ import annotations

import sys
from contextlib import aclosing
from pathlib import Path

import pytest
import yaml

from formspec_consult.agent.engine.engine import ToolError
from formspec_consult.mcp_client import MCPConfigError
from formspec_consult.store.agent_events import (
    AssistantMessage,
    DraftsChanged,
    Notice,
    ToolCallFinished,
    TurnFinished,
    TurnStarted,
)
from formspec_consult.store.events import EventLog
from formspec_consult.store.review_results import DraftList
from tests.agent.engines import open_engine, propose, run
from tests.e2e.project import CUSTOMER, DRAFT_PATH
from tests.helpers import trust_project

pytestmark = pytest.mark.anyio


async def test_the_model_receives_the_workspace_context_and_the_session_id(project: Path) -> None:
    engine, provider = await open_engine(project, ["Hello! What does your shop sell?"])
    try:
        await run(engine, "hi")
        system = provider.requests[0][0]
        assert system["role"] == "system"
        assert engine.session_id in system["content"]
        assert "Corner Shop" in system["content"]  # from read_workspace_manifest
        assert "entity-authoring" in system["content"]  # from list_skills
        assert "- shop " in system["content"]  # from list_installed_modules
        assert "barbershop" in system["content"]  # from the registry's list_business_templates
        started = [
            e for e in EventLog.read(engine.session_dir / "events.jsonl") if e["type"] == "session_started"
        ]
        assert started[0]["model"] == "scripted" and started[0]["session_id"] == engine.session_id
    finally:
        await engine.aclose()


async def test_a_proposed_draft_lands_in_the_session_and_can_be_diffed_applied_and_undone(
    project: Path,
) -> None:
    engine, _ = await open_engine(project, [propose(), "Drafted the customer entity."])
    target = project / "spec" / DRAFT_PATH
    try:
        events = await run(engine, "we keep a list of customers")
        assert DraftsChanged((DRAFT_PATH,)) in events
        assert (engine.session_dir / "draft").exists()
        diff = next(e for e in await run(engine, "/diff") if isinstance(e, Notice))
        assert "+    - {name: phone, type: string}" in diff.message and "(new, valid)" in diff.message
        applied = await run(engine, f"/apply {DRAFT_PATH}")
        assert target.read_text(encoding="utf-8") == CUSTOMER and applied[-1] == TurnFinished("done")
        await run(engine, "/undo")
        assert not target.exists()
        kinds = [e["type"] for e in EventLog.read(engine.session_dir / "events.jsonl")]
        assert "apply" in kinds and "undo" in kinds
        transcript = (engine.session_dir / "transcript.md").read_text(encoding="utf-8")
        assert f"# Consultation {engine.session_id}" in transcript and f"Applied {DRAFT_PATH}" in transcript
    finally:
        await engine.aclose()


async def test_a_bare_letter_after_options_is_sent_as_the_full_choice_and_logged(project: Path) -> None:
    engine, provider = await open_engine(project, ["How do people book?\nA) Walk-in\nB) By phone", "Noted."])
    try:
        await run(engine, "hi")
        assert engine.last_options == ("A) Walk-in", "B) By phone")
        await run(engine, "b")
        assert provider.requests[1][-1] == {"role": "user", "content": "[chosen: B) By phone]"}
        decisions = [e for e in EventLog.read(engine.session_dir / "events.jsonl") if e["type"] == "decision"]
        assert decisions[0]["option"] == "B) By phone"
    finally:
        await engine.aclose()


async def test_resuming_rebuilds_exactly_the_history_the_model_last_saw(project: Path) -> None:
    engine, first = await open_engine(project, [propose(), "Drafted.", "Anything else?"])
    await run(engine, "customers please")
    await run(engine, "thanks")
    session_id = engine.session_id
    await engine.aclose()
    resumed, second = await open_engine(project, ["Welcome back."], resume=session_id)
    try:
        before = engine.status()
        assert resumed.status().prompt_tokens == before.prompt_tokens > 0  # usage totals picked back up
        past = resumed.past_events()
        assert any(getattr(e, "name", None) == "propose_spec_file" for e in past)
        await run(resumed, "where were we?")
        seen_before = first.requests[-1] + [{"role": "assistant", "content": "Anything else?"}]
        assert second.requests[0][: len(seen_before)] == seen_before
        assert resumed.status().turn == 3
    finally:
        await resumed.aclose()


async def test_continue_picks_the_latest_session(project: Path) -> None:
    engine, _ = await open_engine(project, ["one"])
    await run(engine, "hi")
    latest = engine.session_id
    await engine.aclose()
    again, _ = await open_engine(project, ["two"], continue_latest=True)
    try:
        assert again.session_id == latest
    finally:
        await again.aclose()


async def test_status_reports_model_context_threshold_and_servers(project: Path) -> None:
    engine, _ = await open_engine(project, ["ok"])
    try:
        await run(engine, "hi")
        status = engine.status()
        assert status.model == "scripted" and status.provider == "scripted"
        assert 0 < status.context_tokens < status.threshold_tokens < status.window_tokens
        assert status.reported is True and status.turn == 1
        assert status.mcp[0].name == "formspec" and status.mcp[0].state == "running"
        text = next(e for e in await run(engine, "/status") if isinstance(e, Notice)).message
        assert "Model:    scripted via scripted" in text
    finally:
        await engine.aclose()


async def test_an_unknown_slash_command_is_an_error_listing_the_commands(project: Path) -> None:
    engine, provider = await open_engine(project, [])
    try:
        events = await run(engine, "/frobnicate")
        assert isinstance(events[0], Notice) and "/diff" in events[0].message
        assert isinstance(events[-1], TurnFinished) and events[-1].reason == "error"
        assert provider.requests == []
    finally:
        await engine.aclose()


async def test_call_tool_raises_a_tool_error_with_the_servers_message_and_answers_a_typed_result(project: Path) -> None:
    engine, _ = await open_engine(project, [])
    try:
        with pytest.raises(ToolError, match="reject_draft"):
            await engine.call_tool("reject_draft", {"path": "modules/shop/none.yaml"})
        listing = DraftList.from_result(await engine.call_tool("list_drafts"))
        assert (listing.session, listing.drafts, listing.settled) == (engine.session_id, (), ())
    finally:
        await engine.aclose()


async def test_summary_writes_the_discovery_summary_without_changing_the_history(project: Path) -> None:
    replies = ["We sell coffee.", "# What we understood\nYou sell coffee.", "Next question."]
    engine, provider = await open_engine(project, replies)
    try:
        await run(engine, "we sell coffee")
        events = await run(engine, "/summary")
        assert any(isinstance(e, AssistantMessage) and "You sell coffee" in e.text for e in events)
        assert "we sell coffee" in provider.requests[1][-1]["content"]  # the summariser saw the conversation
        written = (engine.session_dir / "discovery-summary.md").read_text(encoding="utf-8")
        assert written.startswith("# What we understood")
        await run(engine, "and tea")
        assert [m["role"] for m in provider.requests[2]] == ["system", "user", "assistant", "user"]
    finally:
        await engine.aclose()


async def test_compact_command_forces_a_compaction(project: Path) -> None:
    long_reply = "We talked about prices at length. " * 60
    summary = (
        "## Goal\nA coffee shop.\n## Facts\n(none)\n## Decisions\n(none)\n## Open questions\n(none)\n"
        "## Drafts and files\n(none)\n## Next steps\n(none)"
    )
    engine, _ = await open_engine(project, [long_reply, long_reply, long_reply, summary])
    try:
        for text in ("one", "two", "three"):
            await run(engine, text)
        events = await run(engine, "/compact pricing")
        assert any(e.kind == "compaction_done" for e in events)
        assert engine.status().compactions == 1
    finally:
        await engine.aclose()


def configure_extra_server(project: Path) -> None:
    fake = Path(__file__).parents[1] / "mcp_client" / "fake_server.py"
    config = {
        "mcpServers": {
            "extra": {
                "command": sys.executable,
                "args": [str(fake), "extra"],
                "env": {"PYTHONPATH": str(Path(__file__).parents[2])},
            }
        }
    }
    (project / ".formspec").mkdir(exist_ok=True)
    (project / ".formspec" / "consult.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    trust_project(project)


@pytest.mark.slow
async def test_a_configured_server_killed_mid_call_is_a_tool_error_the_turn_survives(project: Path) -> None:
    configure_extra_server(project)
    replies = [
        {"tool_calls": [{"name": "die", "arguments": {}}]},
        {"tool_calls": [{"name": "echo", "arguments": {"text": "still here"}}]},
        "All good.",
    ]
    engine, _provider = await open_engine(project, replies)
    try:
        events = await run(engine, "go")
        finished = [e for e in events if isinstance(e, ToolCallFinished)]
        assert [e.ok for e in finished] == [False, True] and finished[1].result == "still here"
        assert "was restarted" in finished[0].result
        assert events[-1] == TurnFinished("done")
        extra = engine.status().server("extra")
        assert extra is not None and extra.state == "running" and extra.restarts == 1
    finally:
        await engine.aclose()


async def test_a_missing_variable_in_the_mcp_config_is_named_and_no_session_is_created(project: Path) -> None:
    (project / ".formspec").mkdir(exist_ok=True)
    (project / ".formspec" / "consult.yaml").write_text(
        "mcpServers:\n  files:\n    command: srv\n    env: {TOKEN: '${FILES_TOKEN}'}\n", encoding="utf-8"
    )
    trust_project(project)
    with pytest.raises(MCPConfigError, match="FILES_TOKEN is not set"):
        await open_engine(project, [])
    assert not (project / ".formspec" / "consult").exists()


async def test_closing_a_turn_between_events_repairs_the_history_at_once(project: Path) -> None:
    engine, provider = await open_engine(project, [propose(), "after the cancel"])
    try:
        async with aclosing(engine.run_turn("draft it")) as events:
            async for event in events:
                if event.kind == "tool_call_started":
                    break  # the consumer goes away before the tool result
        await run(engine, "go on")
        # The model's next request is valid: every tool call it made has exactly one result.
        request = provider.requests[-1]
        calls = [c["id"] for m in request if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        results = [m["tool_call_id"] for m in request if m["role"] == "tool"]
        assert calls and sorted(calls) == sorted(results)
        finished = [
            e for e in EventLog.read(engine.session_dir / "events.jsonl") if e["type"] == "turn_finished"
        ]
        assert [e["reason"] for e in finished] == ["cancelled", "done"]
    finally:
        await engine.aclose()


async def test_a_configured_server_that_cannot_start_is_reported_once_and_the_session_goes_on(
    project: Path, tmp_path: Path
) -> None:
    (project / ".formspec").mkdir(exist_ok=True)
    (project / ".formspec" / "consult.yaml").write_text(
        yaml.safe_dump({"mcpServers": {"ghost": {"command": str(tmp_path / "no-such-server")}}}),
        encoding="utf-8",
    )
    trust_project(project)
    engine, _ = await open_engine(project, ["first", "second"])
    try:
        first = await run(engine, "hi")
        assert isinstance(first[0], Notice) and first[0].level == "warning" and "'ghost'" in first[0].message
        assert first[-1] == TurnFinished("done")
        second = await run(engine, "again")
        assert not any(isinstance(e, Notice) for e in second)
    finally:
        await engine.aclose()


async def test_past_events_replay_a_compacted_session_as_the_ui_saw_it(project: Path) -> None:
    long_reply = "We talked about prices at length. " * 60
    summary = (
        "## Goal\nA coffee shop.\n## Facts\n(none)\n## Decisions\n(none)\n## Open questions\n(none)\n"
        "## Drafts and files\n(none)\n## Next steps\n(none)"
    )
    engine, _ = await open_engine(project, [long_reply, long_reply, long_reply, summary])
    for text in ("one", "two", "three"):
        await run(engine, text)
    live = [e for e in await run(engine, "/compact") if e.kind == "compaction_done"]
    await engine.aclose()
    resumed, _ = await open_engine(project, [], resume=engine.session_id)
    try:
        past = resumed.past_events()
        assert [e for e in past if e.kind == "compaction_done"] == live
        assert [e.user_text for e in past if isinstance(e, TurnStarted)] == ["one", "two", "three"]
    finally:
        await resumed.aclose()


async def test_tool_rounds_on_the_local_server_cap_big_results_and_return_refusals_as_errors(
    project: Path,
) -> None:
    (project / ".formspec").mkdir(exist_ok=True)
    (project / ".formspec" / "consult.yaml").write_text(
        "tool_result_cap: 500\nmax_steps: 10\n", encoding="utf-8"
    )
    vendor_write = {"path": "vendors/pay/entity.yaml", "content": CUSTOMER}
    replies = [
        {"tool_calls": [{"name": "list_kind_schemas", "arguments": {"kind": "Entity"}}]},
        {"tool_calls": [{"name": "propose_spec_file", "arguments": vendor_write}]},
        "The schema is long; vendors are read-only.",
    ]
    engine, provider = await open_engine(project, replies)
    try:
        events = await run(engine, "what does an entity look like?")
        schema, refusal = [e for e in events if isinstance(e, ToolCallFinished)]
        assert schema.ok and len(schema.result) > 500
        assert not refusal.ok and refusal.result.startswith("ERROR: ") and "vendors" in refusal.result
        sent = [m["content"] for m in provider.requests[2] if m["role"] == "tool"]
        assert len(sent[0]) < len(schema.result) and "500 of" in sent[0]
        assert sent[1].split("\n\n[Step budget")[0] == refusal.result  # a drafting round: the budget told once
        assert events[-1] == TurnFinished("done")
    finally:
        await engine.aclose()
