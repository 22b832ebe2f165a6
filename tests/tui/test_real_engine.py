"""The app over the real Engine: scripted provider, local MCP server in memory, a real project."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from formspec_consult.commands.launch import engine_factory_for
from formspec_consult.providers import ScriptedProvider
from formspec_consult.store.agent_events import AssistantMessage
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.widgets.assistant_block import AssistantBlock
from formspec_consult.tui.widgets.choice_bar import ChoiceBar
from formspec_consult.tui.widgets.conversation import ConversationView
from formspec_consult.tui.widgets.diff_pane import DiffPane
from formspec_consult.tui.widgets.status_bar import StatusBar
from formspec_consult.tui.widgets.tool_calls import ToolCallsPane
from tests.e2e.project import CUSTOMER, DRAFT_PATH
from tests.tui.conftest import SIZE, notices, opened, wait_until
from tests.tui.test_conversation_flow import send

pytestmark = pytest.mark.anyio

QUESTION = "How do customers book?\n\nA) Walk-ins only\nB) Bookings and walk-ins"


def real_app(project: Path, replies: list[Any], **options: Any) -> ConsultApp:
    factory = engine_factory_for(
        {"project": str(project), **options}, provider=ScriptedProvider(replies), in_memory_server=True, preload=()
    )
    return ConsultApp(factory)


def replies_of(app: ConsultApp) -> list[str]:
    return [b.text for b in app.query_one(ConversationView).blocks if isinstance(b, AssistantBlock)]


async def test_a_real_session_drafts_reviews_applies_and_undoes_a_spec_file(project: Path) -> None:
    propose = {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}}]}
    app = real_app(project, [QUESTION, propose, "Drafted the customer entity."])
    target = project / "spec" / DRAFT_PATH
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "I run a barbershop")
        choices = app.query_one(ChoiceBar)
        await wait_until(pilot, lambda: choices.options == ("A) Walk-ins only", "B) Bookings and walk-ins"), timeout=30)
        await pilot.press("alt+b")
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: [d.path for d in pane.drafts] == [DRAFT_PATH], timeout=30)
        assert app.query_one(ToolCallsPane).query("ToolCallEntry.ok")
        assert "+    - {name: phone, type: string}" in pane.drafts[0].diff
        await pilot.press("ctrl+r")  # enter the pane on purpose: its review keys act
        await pilot.press("a")
        await wait_until(pilot, lambda: target.exists() and [d.status for d in pane.drafts] == ["applied"], timeout=30)
        assert target.read_text(encoding="utf-8") == CUSTOMER
        await pilot.press("ctrl+r", "u")  # each review action hands the focus back to the prompt
        await wait_until(pilot, lambda: not target.exists(), timeout=30)  # the exact bytes: no file before
        await wait_until(pilot, lambda: [(d.status, d.state) for d in pane.drafts] == [("new", "undone")], timeout=30)
        assert any(n.startswith("Undone: modules/shop/master/customer/entity.yaml") for n in notices(app))
        assert app.query_one(StatusBar).info.model == "scripted"
        session = opened(app).session_id
        transcript = (opened(app).session_dir / "events.jsonl").read_text(encoding="utf-8")
        assert "Bookings and walk-ins" in transcript

    resumed = real_app(project, ["Welcome back."], resume=session)
    async with resumed.run_test(size=SIZE) as pilot:
        # "ready" is said once the resumed conversation, its tool calls and the drafts are all mounted
        await wait_until(pilot, lambda: resumed.query_one(StatusBar).info.state == "ready", timeout=60)
        assert replies_of(resumed)[0] == QUESTION and "Drafted the customer entity." in replies_of(resumed)
        assert resumed.query_one(ToolCallsPane).query("ToolCallEntry.ok")
        assert opened(resumed).session_id == session


async def test_diff_and_summary_leave_command_events_that_a_replay_reads_back_as_steps(project: Path) -> None:
    from formspec_consult.replay.recording import load

    app = real_app(project, ["Walk-ins or bookings?", "You run a barbershop; walk-ins queue on Saturdays."])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "I run a barbershop")
        await wait_until(pilot, lambda: replies_of(app) == ["Walk-ins or bookings?"], timeout=30)
        await send(pilot, "/diff")  # shown in the diff pane by the app itself, and logged
        await send(pilot, "/summary")  # run by the engine as a turn
        await wait_until(pilot, lambda: len(replies_of(app)) == 2 and app.turn_worker is not None
                         and not app.turn_worker.is_running, timeout=30)
        folder = opened(app).session_dir
    steps = load(folder).steps
    assert [(s.kind, s.text) for s in steps] == [("say", "I run a barbershop"), ("command", "/diff"), ("command", "/summary")]
    assert [e.text for e in steps[2].events if isinstance(e, AssistantMessage)] == [
        "You run a barbershop; walk-ins queue on Saturdays."]
