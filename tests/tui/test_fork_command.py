"""`/fork` in the app over the real Engine: the app goes on in the fork, which holds this session so far."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.store.fork import fork_point_of
from formspec_consult.store.manifest import DraftManifest
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.screens.text_screen import TextScreen
from formspec_consult.tui.widgets.conversation import ConversationView
from tests.e2e.project import CUSTOMER, DRAFT_PATH
from tests.tui.conftest import SIZE, opened, text_screen, wait_until
from tests.tui.test_conversation_flow import send
from tests.tui.test_real_engine import real_app, replies_of

pytestmark = pytest.mark.anyio


def notice_texts(app: ConsultApp) -> list[str]:
    blocks = app.query_one(ConversationView).blocks
    return [str(getattr(b, "text", "")) for b in blocks if str(getattr(b, "role", "")).startswith("notice-")]


async def test_slash_fork_switches_the_app_to_the_fork_which_holds_this_session_so_far(project: Path) -> None:  # noqa: F811
    propose = {"tool_calls": [{"name": "propose_spec_file",
                               "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}}]}
    app = real_app(project, [propose, "Drafted the customers.", "Option B, in the fork."])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "we keep customers")
        await wait_until(pilot, lambda: app.turn_worker is not None and not app.turn_worker.is_running, timeout=30)
        source = opened(app).session_id
        await send(pilot, "/fork")
        await wait_until(pilot, lambda: app.engine is not None and app.engine.session_id != source
                         and app.session_shown, timeout=60)
        fork_id = opened(app).session_id
        await wait_until(pilot, lambda: any(f"You are now in the fork {fork_id}" in t for t in notice_texts(app)))
        assert "Drafted the customers." in replies_of(app)  # the fork shows the conversation so far
        assert app.sub_title.endswith(f"session {fork_id}")
        await send(pilot, "try option B")
        await wait_until(pilot, lambda: "Option B, in the fork." in replies_of(app), timeout=30)
        await send(pilot, "/compare")  # the fork beside its source
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen))
        shown = text_screen(app).text
        assert f"A: {fork_id}, forked from {source} at turn 1" in shown and f"B: {source}" in shown
        assert "### shop/customer (A and B)" in shown and "| fields | name (string), phone (string) |" in shown
        await pilot.press("escape")
    point = fork_point_of(project / ".formspec" / "consult" / fork_id)
    assert point is not None and (point.source, point.turn) == (source, 1)
    assert DraftManifest(project / ".formspec" / "consult" / fork_id).load()[DRAFT_PATH].state == "pending"
    source_log = (project / ".formspec" / "consult" / source / "events.jsonl").read_text(encoding="utf-8")
    assert "try option B" not in source_log  # the new turn went to the fork only
