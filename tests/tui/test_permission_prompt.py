"""A write tool the model calls waits for the person: allow once, allow for the session, or deny."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from formspec_consult.commands.launch import engine_factory_for
from formspec_consult.providers import ScriptedProvider
from formspec_consult.store.events import EventLog
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.screens.permission import PermissionScreen
from formspec_consult.tui.widgets.conversation import ConversationView
from formspec_consult.tui.widgets.tool_call_entry import ToolCallEntry
from formspec_consult.tui.widgets.tool_calls import ToolCallsPane
from tests.e2e.project import CUSTOMER, DRAFT_PATH
from tests.tui.conftest import SIZE, opened, wait_until, widget_text
from tests.tui.test_conversation_flow import send

pytestmark = pytest.mark.anyio


def _calls(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def app_for(project: Path, replies: list[Any]) -> ConsultApp:
    return ConsultApp(engine_factory_for({"project": str(project)}, provider=ScriptedProvider(replies),
                                         in_memory_server=True, preload=()))


def texts(app: ConsultApp) -> list[str]:
    return [getattr(b, "text", "") for b in app.query_one(ConversationView).blocks]


@pytest.mark.parametrize(("key", "applied"), [("d", False), ("o", True)])
async def test_the_model_asking_to_apply_shows_the_diff_and_waits_for_the_person(
        project: Path, key: str, applied: bool) -> None:
    replies = [_calls("propose_spec_file", {"path": DRAFT_PATH, "content": CUSTOMER}),
               _calls("apply_draft", {"file": DRAFT_PATH}), "Over to you."]
    app = app_for(project, replies)
    target = project / "spec" / DRAFT_PATH
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None, timeout=60)  # a real engine: slower to open
        await send(pilot, "draft the customers")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionScreen), timeout=30)
        shown = widget_text(app.screen.query_one("VerticalScroll Static"))
        assert "wants to apply the draft" in shown and "+    - {name: phone, type: string}" in shown
        assert not target.exists()  # nothing runs while the person decides
        await pilot.press(key)
        await wait_until(pilot, lambda: "Over to you." in texts(app), timeout=30)
        assert target.exists() is applied
        entry = next(e for e in app.query_one(ToolCallsPane).query(ToolCallEntry) if e.tool_name == "apply_draft")
        assert entry.status == ("ok" if applied else "error")
        said = "You allowed the consultant to apply the draft" if applied else "You declined"
        assert any(t.startswith(said) for t in texts(app))
        assert app.engine is not None
        offered = [[t["function"]["name"] for t in e["tools"]] for e in EventLog.read(app.engine.session_dir / "events.jsonl")
                   if e["type"] == "request" and "tools" in e]
        assert "apply_draft" not in offered[0] and "apply_draft" in offered[-1]  # someone to ask: offered once drafted


async def test_allow_for_the_session_stops_asking_for_that_tool(project: Path) -> None:
    replies = [_calls("propose_spec_file", {"path": DRAFT_PATH, "content": CUSTOMER}),
               _calls("apply_draft", {"file": DRAFT_PATH}), _calls("undo_apply", {}), "Applied and undone.",
               _calls("apply_draft", {"file": DRAFT_PATH}), "Applied again."]
    app = app_for(project, replies)
    target = project / "spec" / DRAFT_PATH
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None, timeout=60)  # a real engine: slower to open
        await send(pilot, "draft it")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionScreen), timeout=30)
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionScreen)
                         and app.screen.request.name == "undo_apply", timeout=30)  # another tool: asked
        await pilot.press("o")
        await wait_until(pilot, lambda: "Applied and undone." in texts(app), timeout=30)
        assert not target.exists()
        await send(pilot, "apply it again")
        await wait_until(pilot, lambda: "Applied again." in texts(app), timeout=30)
        assert not isinstance(app.screen, PermissionScreen)  # not asked again
        log = (opened(app).session_dir / "events.jsonl").read_text(encoding="utf-8")
        results = [json.loads(line) for line in log.splitlines()]
        applies = [e["result"] for e in results if e.get("type") == "tool_result" and e.get("name") == "apply_draft"]
        assert len(applies) == 2 and not any("permission denied" in r for r in applies)


async def test_the_model_asking_to_install_a_registry_module_waits_for_the_person_and_installs_on_yes(
        project: Path) -> None:
    replies = [_calls("install_module", {"name": "rental-calendar"}), "Installed."]
    app = app_for(project, replies)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None, timeout=60)  # a real engine: slower to open
        await send(pilot, "we rent tents; use the rental module")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionScreen), timeout=30)
        shown = widget_text(app.screen.query_one("VerticalScroll Static"))
        assert "wants to install the registry module rental-calendar" in shown
        assert not (project / "vendors").exists()  # nothing runs while the person decides
        await pilot.press("o")
        await wait_until(pilot, lambda: "Installed." in texts(app), timeout=30)
    assert (project / "vendors" / "rental-calendar" / "module.yaml").is_file()
    assert "rental-calendar" in (project / "formspec.lock").read_text(encoding="utf-8")
