"""Partial review in the app: `b` in the diffs pane lists the draft's blocks; the person drops some,
says why (optional), and only the kept blocks reach the project — the gate checking them as a draft
of their own — while the dropped ones go back to the consultant as a rejection."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.store.events import EventLog
from formspec_consult.tui.screens.blocks import BlocksScreen
from formspec_consult.tui.screens.reason import ReasonScreen
from formspec_consult.tui.widgets.diff_pane import DiffPane
from tests.e2e.project import DRAFT_PATH, make_project
from tests.tui.conftest import SIZE, wait_until
from tests.tui.test_conversation_flow import send
from tests.tui.test_reject_reason import PROPOSE, app_with

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    return make_project(tmp_path / "shop")


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_the_kept_blocks_are_applied_and_the_dropped_ones_go_back_with_the_reason(
        project: Path, size: tuple[int, int]) -> None:
    app, provider = app_with(project, [PROPOSE, "Drafted the customer entity.", "Understood."])
    target = project / "spec" / DRAFT_PATH
    async with app.run_test(size=size) as pilot:
        await send(pilot, "customers")
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: [d.path for d in pane.drafts] == [DRAFT_PATH], timeout=30)
        await pilot.press("ctrl+r", "b")
        await wait_until(pilot, lambda: isinstance(app.screen, BlocksScreen), timeout=30)
        screen = app.screen
        assert isinstance(screen, BlocksScreen)
        ids = [b.id for b in screen.blocks.blocks]
        assert ids[-2:] == ["spec.fields[name]", "spec.fields[phone]"]
        await pilot.press("end", "space", "a")  # drop the phone field, apply the rest
        await wait_until(pilot, lambda: isinstance(app.screen, ReasonScreen))
        await pilot.press(*"no phones", "enter")
        await wait_until(pilot, lambda: target.exists(), timeout=30)
        text = target.read_text(encoding="utf-8")
        assert "{name: name, type: string, required: true}" in text and "phone" not in text
        await wait_until(pilot, lambda: [d.status for d in pane.drafts] == ["applied"], timeout=30)
        assert "phone" not in pane.drafts[0].diff and "{name: name, type: string" in pane.drafts[0].diff  # what applied
        engine = app.engine
        assert engine is not None
        kinds = [r.type for r in EventLog.records(engine.session_dir / "events.jsonl") if r.type in {"apply", "partial"}]
        assert kinds == ["apply", "partial"]
        await send(pilot, "ok")
        await wait_until(pilot, lambda: len(provider.requests) == 3, timeout=30)
        sent = provider.requests[-1][-1]["content"]
        assert (f"[The person accepted part of the draft {DRAFT_PATH}: {', '.join(ids[:-1])} were applied; "
                f'they rejected spec.fields[phone]. Their reason: "no phones".') in sent


async def test_esc_in_the_blocks_list_changes_nothing(project: Path) -> None:
    app, _ = app_with(project, [PROPOSE, "Drafted the customer entity."])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "customers")
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: [d.path for d in pane.drafts] == [DRAFT_PATH], timeout=30)
        await pilot.press("ctrl+r", "b")
        await wait_until(pilot, lambda: isinstance(app.screen, BlocksScreen), timeout=30)
        await pilot.press("space", "escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, BlocksScreen))
        assert not (project / "spec" / DRAFT_PATH).exists()
        assert [(d.path, d.status) for d in pane.drafts] == [(DRAFT_PATH, "new")]
