"""After a resume the diffs pane lists every draft of the session with what became of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList

from formspec_consult.commands.launch import engine_factory_for
from formspec_consult.providers import ScriptedProvider
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.widgets.diff_pane import DiffPane
from tests.e2e.project import CUSTOMER, DRAFT_PATH, make_project
from tests.tui.conftest import SIZE, notices, wait_until
from tests.tui.test_conversation_flow import send

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    return make_project(tmp_path / "shop")


def app_for(project: Path, replies: list[object], **options: object) -> ConsultApp:
    return ConsultApp(engine_factory_for({"project": str(project), **options}, provider=ScriptedProvider(replies),
                                         in_memory_server=True, preload=()))


async def test_an_applied_then_undone_draft_is_listed_as_undone_after_a_resume(project: Path) -> None:
    propose = {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}}]}
    app = app_for(project, [propose, "Drafted."])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None, timeout=60)
        await send(pilot, "draft the customers")
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: [d.path for d in pane.drafts] == [DRAFT_PATH], timeout=30)
        pane.query_one(OptionList).focus()
        await pilot.press("a")
        await wait_until(pilot, lambda: [d.status for d in pane.drafts] == ["applied"], timeout=30)
        await pilot.press("u")
        await wait_until(pilot, lambda: [d.status for d in pane.drafts] == ["undone"], timeout=30)
        assert any(n.startswith("Undone") for n in notices(app))
        session = app.engine.session_id  # type: ignore[union-attr]

    resumed = app_for(project, ["Welcome back."], resume=session)
    async with resumed.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: resumed.engine is not None, timeout=60)
        pane = resumed.query_one(DiffPane)
        await wait_until(pilot, lambda: [(d.path, d.status) for d in pane.drafts] == [(DRAFT_PATH, "undone")],
                         timeout=30)
