"""After a resume the diffs pane lists every draft of the session with what became of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList

from formspec_consult.commands.launch import engine_factory_for
from formspec_consult.providers import ScriptedProvider
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.widgets.diff_pane import DiffPane
from tests.e2e.project import CUSTOMER, DRAFT_PATH
from tests.tui.conftest import SIZE, notices, opened, wait_until
from tests.tui.test_conversation_flow import send

pytestmark = pytest.mark.anyio


def app_for(project: Path, replies: list[object], **options: object) -> ConsultApp:
    return ConsultApp(engine_factory_for({"project": str(project), **options}, provider=ScriptedProvider(replies),
                                         in_memory_server=True, preload=()))


async def test_an_undone_draft_is_back_for_review_can_be_accepted_again_and_after_a_resume(project: Path) -> None:
    propose = {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}}]}
    app = app_for(project, [propose, "Drafted."])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None, timeout=60)
        await send(pilot, "draft the customers")
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: [d.path for d in pane.drafts] == [DRAFT_PATH], timeout=30)
        await pilot.press("ctrl+r")  # enter the pane on purpose: its review keys act
        await pilot.press("a")
        await wait_until(pilot, lambda: [d.status for d in pane.drafts] == ["applied"], timeout=30)
        target = project / "spec" / DRAFT_PATH
        assert target.read_text(encoding="utf-8") == CUSTOMER
        await pilot.press("ctrl+r", "u")  # each review action hands the focus back to the prompt
        await wait_until(pilot, lambda: [(d.status, d.state) for d in pane.drafts] == [("new", "undone")], timeout=30)
        assert not target.exists()
        assert any(n.startswith("Undone") and f"back for review; accept it again with /apply {DRAFT_PATH}" in n for n in notices(app))
        assert "[undone]" in str(app.query_one("#draft-list", OptionList).get_option_at_index(0).prompt)
        await pilot.press("ctrl+r", "a")  # accepted again: the same bytes land in the project
        await wait_until(pilot, lambda: [d.status for d in pane.drafts] == ["applied"], timeout=30)
        assert target.read_text(encoding="utf-8") == CUSTOMER
        await pilot.press("ctrl+r", "u")
        await wait_until(pilot, lambda: [d.state for d in pane.drafts] == ["undone"], timeout=30)
        session = opened(app).session_id

    resumed = app_for(project, ["Welcome back."], resume=session)
    async with resumed.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: resumed.engine is not None, timeout=60)
        pane = resumed.query_one(DiffPane)
        await wait_until(pilot, lambda: [(d.path, d.status, d.state) for d in pane.drafts]
                         == [(DRAFT_PATH, "new", "undone")], timeout=30)
        await pilot.press("ctrl+r")  # enter the pane on purpose: its review keys act
        await pilot.press("a")
        await wait_until(pilot, lambda: [d.status for d in pane.drafts] == ["applied"], timeout=30)
        assert (project / "spec" / DRAFT_PATH).read_text(encoding="utf-8") == CUSTOMER


async def test_after_a_resume_the_pane_lists_applied_and_rejected_drafts_with_their_state(project: Path) -> None:
    other = DRAFT_PATH.replace("customer", "supplier")
    propose = {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}},
                              {"name": "propose_spec_file",
                               "arguments": {"path": other, "content": CUSTOMER.replace("customer", "supplier")}}]}
    app = app_for(project, [propose, "Drafted."])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None, timeout=60)
        await send(pilot, "draft the customers and suppliers")
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: len(pane.drafts) == 2, timeout=30)
        await send(pilot, f"/apply {DRAFT_PATH}")
        await send(pilot, f"/reject {other}")
        await wait_until(pilot, lambda: sorted(d.status for d in pane.drafts) == ["applied", "rejected"], timeout=30)
        session = opened(app).session_id

    resumed = app_for(project, ["Welcome back."], resume=session)
    async with resumed.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: resumed.engine is not None, timeout=60)
        pane = resumed.query_one(DiffPane)
        await wait_until(pilot, lambda: sorted((d.path, d.status) for d in pane.drafts)
                         == sorted([(DRAFT_PATH, "applied"), (other, "rejected")]), timeout=30)
