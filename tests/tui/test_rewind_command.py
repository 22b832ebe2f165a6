"""`/rewind` in the app over the real Engine: a list of turns to pick from; the conversation on
screen, the drafts pane and the project go back to the end of the picked turn."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.screens.rewind import RewindScreen
from formspec_consult.tui.widgets.conversation import ConversationView
from formspec_consult.tui.widgets.diff_pane import DiffPane
from tests.e2e.project import CUSTOMER, DRAFT_PATH
from tests.tui.conftest import SIZE, opened, wait_until
from tests.tui.test_conversation_flow import send
from tests.tui.test_real_engine import real_app, replies_of

pytestmark = pytest.mark.anyio


def user_texts(app: ConsultApp) -> list[str]:
    blocks = app.query_one(ConversationView).blocks
    return [str(getattr(b, "text", "")) for b in blocks if getattr(b, "role", "") == "user"]


async def idle(pilot: Pilot[None], app: ConsultApp) -> None:
    await wait_until(pilot, lambda: app.turn_worker is not None and not app.turn_worker.is_running, timeout=30)


async def test_slash_rewind_lists_the_turns_and_going_back_undoes_the_later_apply_and_drafts(project: Path) -> None:  # noqa: F811
    propose = {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}}]}
    app = real_app(project, ["What do you sell?", propose, "Drafted the customers.", "Coffee it is."])
    target = project / "spec" / DRAFT_PATH
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await idle(pilot, app)
        await send(pilot, "we keep customers")
        await idle(pilot, app)
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: [d.path for d in pane.drafts if not d.settled] == [DRAFT_PATH], timeout=30)
        await send(pilot, f"/apply {DRAFT_PATH}")
        await wait_until(pilot, lambda: target.exists(), timeout=30)
        await send(pilot, "/rewind")
        await wait_until(pilot, lambda: isinstance(app.screen, RewindScreen))
        turns = app.screen.query_one(OptionList)
        shown = [str(turns.get_option_at_index(i).prompt) for i in range(turns.option_count)]
        assert shown[0].startswith("0  before the first turn")
        assert shown[1:] == ["  1  hello", "  2  we keep customers"]
        assert turns.highlighted == 2  # the latest turn first under the cursor
        await pilot.press("up", "enter")  # turn 1, files and conversation
        await wait_until(pilot, lambda: not target.exists(), timeout=30)
        await wait_until(pilot, lambda: user_texts(app) == ["hello"], timeout=30)
        assert replies_of(app) == ["What do you sell?"]
        notices = [str(getattr(b, "text", "")) for b in app.query_one(ConversationView).blocks]
        assert any(t.startswith("Rewound the conversation and the files to the end of turn 1") for t in notices)
        await wait_until(pilot, lambda: not [d for d in pane.drafts if not d.settled], timeout=30)
        await send(pilot, "we sell coffee")
        await wait_until(pilot, lambda: "Coffee it is." in replies_of(app), timeout=30)
        assert user_texts(app) == ["hello", "we sell coffee"]


async def test_the_rewind_list_closes_with_escape_and_nothing_changes(project: Path) -> None:  # noqa: F811
    app = real_app(project, ["What do you sell?"])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await idle(pilot, app)
        log = project / ".formspec" / "consult" / opened(app).session_id / "events.jsonl"
        before = log.read_bytes()
        await send(pilot, "/rewind")
        await wait_until(pilot, lambda: isinstance(app.screen, RewindScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, RewindScreen))
        await pilot.pause()
        assert log.read_bytes() == before and user_texts(app) == ["hello"]
