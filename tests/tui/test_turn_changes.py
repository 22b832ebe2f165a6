"""The turn changeset in the app: after a turn that proposed several drafts, `c` in the diffs pane
(after ctrl+r) or `/changes` shows them as one set — each file new or modified, its +/- counts and
what the gate says — and `a` then Enter accepts the set (each valid draft applied on its own, one
apply event and one undo step each), `r` rejects it with an optional reason. Typing never acts."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from formspec_consult.store.events import EventLog
from formspec_consult.store.records import ApplyRecord, RejectRecord, UndoRecord
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.screens.changes import ChangesScreen
from formspec_consult.tui.screens.reason import ReasonScreen
from formspec_consult.tui.widgets.diff_pane import DiffPane
from formspec_consult.tui.widgets.prompt_input import PromptInput
from tests.e2e.project import CUSTOMER, DRAFT_PATH, MODULE, make_project
from tests.tui.conftest import SIZE, wait_until
from tests.tui.test_conversation_flow import send
from tests.tui.test_reject_reason import app_with

pytestmark = pytest.mark.anyio

SUPPLIER_PATH = "modules/shop/master/supplier/entity.yaml"
MODULE_PATH = "modules/shop/module.yaml"
# One turn, three drafts: two new entities the gate passes, and a module change it refuses.
PROPOSE_THREE = {"tool_calls": [
    {"name": "propose_spec_file", "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}},
    {"name": "propose_spec_file", "arguments": {"path": SUPPLIER_PATH, "content": CUSTOMER.replace("customer", "supplier")}},
    {"name": "propose_spec_file", "arguments": {"path": MODULE_PATH, "content": MODULE + "  title: Shop\n"}},
]}
VALID = [DRAFT_PATH, SUPPLIER_PATH]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    return make_project(tmp_path / "shop")


def review_events(app: ConsultApp) -> list[tuple[str, str]]:
    engine = app.engine
    assert engine is not None
    return [(r.type, r.path) for r in EventLog.records(engine.session_dir / "events.jsonl")
            if isinstance(r, (ApplyRecord, RejectRecord, UndoRecord))]


async def open_changes(pilot: Pilot[None], app: ConsultApp, how: str) -> ChangesScreen:
    await send(pilot, "customers and suppliers")
    pane = app.query_one(DiffPane)
    await wait_until(pilot, lambda: len([d for d in pane.drafts if not d.settled]) == 3, timeout=30)
    if how == "key":
        await pilot.press("ctrl+r", "c")
    else:
        await send(pilot, "/changes")
    await wait_until(pilot, lambda: isinstance(app.screen, ChangesScreen), timeout=30)
    screen = app.screen
    assert isinstance(screen, ChangesScreen)
    return screen


@pytest.mark.parametrize(("size", "how"), [(SIZE, "key"), ((80, 24), "command")])
async def test_accepting_the_turn_applies_each_valid_draft_on_its_own(project: Path, size: tuple[int, int],
                                                                     how: str) -> None:
    app, _ = app_with(project, [PROPOSE_THREE, "Drafted customers and suppliers, and titled the module."])
    async with app.run_test(size=size) as pilot:
        screen = await open_changes(pilot, app, how)
        rows = {row.path: row for row in screen.changes.files}
        assert list(rows) == [*VALID, MODULE_PATH]
        assert [(r.status, r.added, r.removed, r.valid) for r in rows.values()] == [
            ("new", 10, 0, True), ("new", 10, 0, True), ("modified", 1, 0, False)]
        await pilot.press("a")
        assert isinstance(app.screen, ChangesScreen) and not review_events(app)  # `a` alone asks first
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(review_events(app)) == 2, timeout=30)
        assert review_events(app) == [("apply", DRAFT_PATH), ("apply", SUPPLIER_PATH)]  # one event per apply
        for path in VALID:
            assert (project / "spec" / path).read_text(encoding="utf-8") == CUSTOMER.replace(
                "customer", "supplier" if "supplier" in path else "customer")
        assert "title" not in (project / "spec" / MODULE_PATH).read_text(encoding="utf-8")  # refused: left
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: {d.path: d.status for d in pane.drafts} == {
            DRAFT_PATH: "applied", SUPPLIER_PATH: "applied", MODULE_PATH: "modified"}, timeout=30)
        assert app.focused is app.query_one(PromptInput)
        await send(pilot, "/undo")  # one undo takes back one apply: the last one
        await wait_until(pilot, lambda: not (project / "spec" / SUPPLIER_PATH).exists(), timeout=30)
        assert (project / "spec" / DRAFT_PATH).exists()


async def test_rejecting_the_turn_rejects_each_draft_with_the_reason(project: Path) -> None:
    app, provider = app_with(project, [PROPOSE_THREE, "Drafted customers and suppliers.", "Understood."])
    async with app.run_test(size=SIZE) as pilot:
        await open_changes(pilot, app, "key")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReasonScreen))
        await pilot.press(*"start with bookings", "enter")
        await wait_until(pilot, lambda: len(review_events(app)) == 3, timeout=30)
        assert review_events(app) == [("reject", DRAFT_PATH), ("reject", SUPPLIER_PATH), ("reject", MODULE_PATH)]
        assert not (project / "spec" / DRAFT_PATH).exists()
        engine = app.engine
        assert engine is not None
        reasons = {r.reason for r in EventLog.records(engine.session_dir / "events.jsonl") if isinstance(r, RejectRecord)}
        assert reasons == {"start with bookings"}
        await send(pilot, "ok")
        await wait_until(pilot, lambda: len(provider.requests) == 3, timeout=30)
        assert "start with bookings" in provider.requests[-1][-1]["content"]


async def test_typing_after_c_goes_to_the_prompt_and_changes_nothing(project: Path) -> None:
    app, _ = app_with(project, [PROPOSE_THREE, "Drafted customers and suppliers."])
    async with app.run_test(size=SIZE) as pilot:
        await open_changes(pilot, app, "key")
        await pilot.press(*"great, accept")  # a person typing on: g closes the list, the rest is typing
        await wait_until(pilot, lambda: not isinstance(app.screen, ChangesScreen))
        await pilot.pause()
        prompt = app.query_one(PromptInput)
        await wait_until(pilot, lambda: prompt.value == "great, accept")
        assert review_events(app) == []
        assert not (project / "spec" / DRAFT_PATH).exists()


async def test_a_then_another_key_goes_back_and_esc_closes_without_a_change(project: Path) -> None:
    app, _ = app_with(project, [PROPOSE_THREE, "Drafted customers and suppliers."])
    async with app.run_test(size=SIZE) as pilot:
        await open_changes(pilot, app, "key")
        await pilot.press("a", "down", "enter", "escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ChangesScreen))
        assert review_events(app) == []
        assert not (project / "spec" / DRAFT_PATH).exists()


async def test_pagedown_and_pageup_scroll_the_highlighted_files_diff(project: Path) -> None:
    app, _ = app_with(project, [PROPOSE_THREE, "Drafted customers and suppliers, and titled the module."])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_changes(pilot, app, "command")
        diff = screen.query_one("#changes-diff", VerticalScroll)
        await wait_until(pilot, lambda: diff.max_scroll_y > 0, timeout=30)  # a 10-line diff in a small view
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: diff.scroll_y > 0, timeout=10)
        await pilot.press("pageup")
        await wait_until(pilot, lambda: diff.scroll_y == 0, timeout=10)
        assert isinstance(app.screen, ChangesScreen) and not review_events(app)  # scrolling decides nothing
