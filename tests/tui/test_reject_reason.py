"""Reject with a reason: `r` in the diffs pane asks why (optional); the reason reaches the
consultant with the rejection and the session's log; Esc keeps the draft."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.commands.launch import engine_factory_for
from formspec_consult.providers import ScriptedProvider
from formspec_consult.store.events import EventLog
from formspec_consult.store.records import RejectRecord
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.screens.reason import ReasonScreen
from formspec_consult.tui.widgets.diff_pane import DiffPane
from formspec_consult.tui.widgets.prompt_input import PromptInput
from tests.e2e.project import CUSTOMER, DRAFT_PATH
from tests.tui.conftest import SIZE, wait_until
from tests.tui.test_conversation_flow import send
from tests.tui.test_real_engine import real_app


def app_with(project: Path, replies: list[object]) -> tuple[ConsultApp, ScriptedProvider]:
    provider = ScriptedProvider(replies)
    factory = engine_factory_for({"project": str(project)}, provider=provider, in_memory_server=True, preload=())
    return ConsultApp(factory), provider

pytestmark = pytest.mark.anyio

PROPOSE = {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}}]}


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_r_asks_why_and_the_reason_reaches_the_consultant_and_the_log(project: Path, size: tuple[int, int]) -> None:
    app, provider = app_with(project, [PROPOSE, "Drafted the customer entity.", "Understood: no phone."])
    async with app.run_test(size=size) as pilot:
        await send(pilot, "customers")
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: [d.path for d in pane.drafts] == [DRAFT_PATH], timeout=30)
        await pilot.press("ctrl+r", "r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReasonScreen))
        await pilot.press(*"no phone yet", "enter")
        await wait_until(pilot, lambda: [d.status for d in pane.drafts] == ["rejected"], timeout=30)
        assert app.focused is app.query_one(PromptInput)  # typing goes on at the prompt
        engine = app.engine
        assert engine is not None
        rejects = [r for r in EventLog.records(engine.session_dir / "events.jsonl") if isinstance(r, RejectRecord)]
        assert [(r.path, r.reason) for r in rejects] == [(DRAFT_PATH, "no phone yet")]
        await send(pilot, "ok")
        await wait_until(pilot, lambda: len(provider.requests) == 3, timeout=30)
        sent = provider.requests[-1][-1]["content"]
        assert sent.startswith(f'[Since your last reply the person rejected 1 draft ({DRAFT_PATH}, saying "no phone yet").]')


async def test_esc_in_the_reason_dialog_keeps_the_draft(project: Path) -> None:
    app = real_app(project, [PROPOSE, "Drafted the customer entity."])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "customers")
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: [d.path for d in pane.drafts] == [DRAFT_PATH], timeout=30)
        await pilot.press("ctrl+r", "r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReasonScreen))
        await pilot.press(*"hmm", "escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ReasonScreen))
        await pilot.pause()
        assert [(d.path, d.status) for d in pane.drafts] == [(DRAFT_PATH, "new")]
        engine = app.engine
        assert engine is not None
        assert not [r for r in EventLog.records(engine.session_dir / "events.jsonl") if isinstance(r, RejectRecord)]


async def test_the_reject_command_takes_the_rest_of_the_line_as_the_reason(project: Path) -> None:
    app = real_app(project, [PROPOSE, "Drafted the customer entity."])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "customers")
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: [d.path for d in pane.drafts] == [DRAFT_PATH], timeout=30)
        await send(pilot, f"/reject {DRAFT_PATH} customers have no phone")
        await wait_until(pilot, lambda: [d.status for d in pane.drafts] == ["rejected"], timeout=30)
        engine = app.engine
        assert engine is not None
        rejects = [r for r in EventLog.records(engine.session_dir / "events.jsonl") if isinstance(r, RejectRecord)]
        assert [r.reason for r in rejects] == ["customers have no phone"]
