"""The local server is the only writer of review events: an apply or undo made by any MCP client
— here a raw SDK client over stdio, as Claude Code or Cursor would connect — is in the session's
event log and transcript, and a TUI resuming that session shows it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from formspec_consult.commands.launch import engine_factory_for
from formspec_consult.providers import ScriptedProvider
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.widgets.conversation import ConversationView
from formspec_consult.tui.widgets.diff_pane import DiffPane
from formspec_consult.tui.widgets.status_bar import StatusBar
from tests.e2e.project import CUSTOMER, DRAFT_PATH, make_project
from tests.servers.conftest import call
from tests.tui.conftest import SIZE, wait_until

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
CLI = Path(sys.executable).parent / "formspec-consult"
SESSION = "20261201-110000-raw0"


def _events(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()]


async def _review_through_mcp_serve(project: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "PYTHONPATH", "FORMSPEC_REGISTRY_DB"}}
    params = StdioServerParameters(
        command=str(CLI), args=["mcp-serve", "--project", str(project), "--session", SESSION], env=env
    )
    with anyio.fail_after(90):
        async with Client(stdio_client(params)) as client:
            proposed = await call(client, "propose_spec_file", {"path": DRAFT_PATH, "content": CUSTOMER})
            assert proposed["validation"]["ok"] is True
            applied = await call(client, "apply_draft", {"file": DRAFT_PATH})
            assert applied["applied"] == DRAFT_PATH
            undone = await call(client, "undo_apply", {})
            assert undone["undone"] == DRAFT_PATH


async def test_an_apply_and_undo_by_a_raw_mcp_client_are_in_the_log_the_transcript_and_a_resumed_tui(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    project = make_project(tmp_path / "shop")
    await _review_through_mcp_serve(project)

    folder = project / ".formspec" / "consult" / SESSION
    review = [(e["type"], e.get("path")) for e in _events(folder) if e["type"] in {"apply", "undo", "reject"}]
    assert review == [("apply", DRAFT_PATH), ("undo", DRAFT_PATH)]
    transcript = (folder / "transcript.md").read_text(encoding="utf-8")
    assert f"Applied {DRAFT_PATH}" in transcript and f"Undid the apply of {DRAFT_PATH}" in transcript
    assert not (project / "spec" / DRAFT_PATH).exists()  # the undo restored "no file" exactly

    factory = engine_factory_for(
        {"project": str(project), "resume": SESSION},
        provider=ScriptedProvider(["Welcome back."]),
        in_memory_server=True,
        preload=(),
    )
    app = ConsultApp(factory)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.query_one(StatusBar).info.state == "ready", timeout=30)
        shown = [getattr(block, "text", "") for block in app.query_one(ConversationView).blocks]
        assert any(text.startswith(f"Applied {DRAFT_PATH}") for text in shown), shown
        assert any(text.startswith(f"Undid the apply of {DRAFT_PATH}") for text in shown), shown


async def test_a_client_configured_as_the_readme_says_reviews_into_the_session_a_tui_continues(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `.mcp.json` of the README: `mcp-serve --project .`, no --session (the project's current
    # external session, created by the first write); then `formspec-consult --continue`.
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    project = make_project(tmp_path / "shop")
    env = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "PYTHONPATH", "FORMSPEC_REGISTRY_DB"}}
    params = StdioServerParameters(command=str(CLI), args=["mcp-serve", "--project", "."], env=env, cwd=str(project))
    with anyio.fail_after(90):
        async with Client(stdio_client(params)) as client:
            await call(client, "propose_spec_file", {"path": DRAFT_PATH, "content": CUSTOMER})
            await call(client, "apply_draft", {"file": DRAFT_PATH})
            await call(client, "undo_apply", {})
    consult = project / ".formspec" / "consult"
    session = (consult / "external-session").read_text(encoding="utf-8").strip()
    review = [(e["type"], e.get("path")) for e in _events(consult / session) if e["type"] in {"apply", "undo"}]
    assert review == [("apply", DRAFT_PATH), ("undo", DRAFT_PATH)]
    transcript = (consult / session / "transcript.md").read_text(encoding="utf-8")
    assert f"Applied {DRAFT_PATH}" in transcript and f"Undid the apply of {DRAFT_PATH}" in transcript

    factory = engine_factory_for(
        {"project": str(project), "continue_": True},
        provider=ScriptedProvider(["Welcome back."]),
        in_memory_server=True,
        preload=(),
    )
    app = ConsultApp(factory)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.query_one(StatusBar).info.state == "ready", timeout=30)
        assert app.engine is not None and app.engine.session_id == session
        shown = [getattr(block, "text", "") for block in app.query_one(ConversationView).blocks]
        assert any(text.startswith(f"Applied {DRAFT_PATH}") for text in shown), shown
        assert any(text.startswith(f"Undid the apply of {DRAFT_PATH}") for text in shown), shown
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: [(d.path, d.state) for d in pane.drafts] == [(DRAFT_PATH, "undone")])


async def test_the_engine_does_not_log_a_review_action_a_second_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from formspec_consult.agent.engine.engine import Engine, EngineOptions
    from formspec_consult.commands.wiring import server_specs

    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    project = make_project(tmp_path / "shop")
    engine = await Engine.open(EngineOptions(project=project, provider=ScriptedProvider(["Noted."]), in_memory_server=True, servers=server_specs))
    try:
        await engine.call_tool("propose_spec_file", {"path": DRAFT_PATH, "content": CUSTOMER})
        async for _event in engine.run_turn(f"/apply {DRAFT_PATH}"):
            pass
        async for _event in engine.run_turn("/undo"):
            pass
        async for _event in engine.run_turn("Thanks"):  # the engine appends after the server did
            pass
    finally:
        await engine.aclose()
    kinds = [e["type"] for e in _events(engine.session_dir) if e["type"] in {"apply", "undo"}]
    assert kinds == ["apply", "undo"]
    seqs = [e["seq"] for e in _events(engine.session_dir)]
    assert len(seqs) == len(set(seqs)), "two writers of one log must never reuse a seq"


async def test_a_raw_mcp_client_can_accept_an_undone_draft_again_with_its_exact_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    project = make_project(tmp_path / "shop")
    await _review_through_mcp_serve(project)  # propose, apply, undo
    env = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "PYTHONPATH", "FORMSPEC_REGISTRY_DB"}}
    params = StdioServerParameters(
        command=str(CLI), args=["mcp-serve", "--project", str(project), "--session", SESSION], env=env
    )
    with anyio.fail_after(90):
        async with Client(stdio_client(params)) as client:  # a later conversation, a new server process
            listed = await call(client, "list_drafts", {})
            assert [(d["path"], d["state"], d["valid"]) for d in listed["drafts"]] == [(DRAFT_PATH, "undone", True)]
            assert listed["settled"] == []
            again = await call(client, "apply_draft", {"file": DRAFT_PATH})
            assert again["applied"] == DRAFT_PATH
            assert (project / "spec" / DRAFT_PATH).read_bytes() == CUSTOMER.encode()
            after = await call(client, "list_drafts", {})
            assert after["drafts"] == [] and [(s["path"], s["state"]) for s in after["settled"]] == [(DRAFT_PATH, "applied")]
    folder = project / ".formspec" / "consult" / SESSION
    review = [(e["type"], e.get("path")) for e in _events(folder) if e["type"] in {"apply", "undo", "reject"}]
    assert review == [("apply", DRAFT_PATH), ("undo", DRAFT_PATH), ("apply", DRAFT_PATH)]
