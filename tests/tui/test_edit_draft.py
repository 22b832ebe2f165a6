"""Edit before accepting: `e` in the diffs pane opens the draft in $VISUAL/$EDITOR; the person's
saved version becomes the draft (validated again, logged as their edit, told to the consultant);
an unchanged save or an editor that fails changes nothing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from formspec_consult.store.events import EventLog
from formspec_consult.store.records import EditRecord
from formspec_consult.tui.widgets.diff_pane import DiffPane
from formspec_consult.tui.widgets.prompt_input import PromptInput
from tests.e2e.project import CUSTOMER, DRAFT_PATH, make_project
from tests.tui.conftest import SIZE, notices, wait_until
from tests.tui.test_conversation_flow import send
from tests.tui.test_reject_reason import PROPOSE, app_with

pytestmark = pytest.mark.anyio

EDITED = CUSTOMER.replace("{name: phone, type: string}", "{name: phone, type: string, required: true}")


def editor_script(tmp_path: Path, body: str) -> str:
    script = tmp_path / "editor.py"
    script.write_text("import sys\nfrom pathlib import Path\nfile = Path(sys.argv[1])\n" + body, encoding="utf-8")
    return f"{sys.executable} {script}"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    return make_project(tmp_path / "shop")


async def test_the_persons_edit_becomes_the_draft_is_logged_and_told_to_the_consultant(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VISUAL", editor_script(tmp_path, (
        "text = file.read_text()\n"
        "file.write_text(text.replace('{name: phone, type: string}', '{name: phone, type: string, required: true}'))\n")))
    app, provider = app_with(project, [PROPOSE, "Drafted the customer entity.", "Noted: phone required."])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "customers")
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: [d.path for d in pane.drafts] == [DRAFT_PATH], timeout=30)
        await pilot.press("ctrl+r", "e")
        await wait_until(pilot, lambda: "required: true}" in (pane.drafts[0].diff or ""), timeout=30)
        assert app.focused is app.query_one(PromptInput)
        assert any(n.startswith(f"Your edit of {DRAFT_PATH} is now the draft; it passes validation") for n in notices(app))
        engine = app.engine
        assert engine is not None
        edits = [r for r in EventLog.records(engine.session_dir / "events.jsonl") if isinstance(r, EditRecord)]
        assert len(edits) == 1 and edits[0].path == DRAFT_PATH and "+    - {name: phone, type: string, required: true}" in edits[0].diff
        await pilot.press("ctrl+r", "a")
        target = project / "spec" / DRAFT_PATH
        await wait_until(pilot, lambda: target.exists(), timeout=30)
        assert target.read_text(encoding="utf-8") == EDITED  # what the gate passed is what was applied
        await send(pilot, "done")
        await wait_until(pilot, lambda: len(provider.requests) == 3, timeout=30)
        sent = provider.requests[-1][-1]["content"]
        assert f"[The person edited the draft {DRAFT_PATH} themselves; their version is now the draft" in sent
        assert "+    - {name: phone, type: string, required: true}" in sent


@pytest.mark.parametrize(("body", "said"), [("pass\n", "saved unchanged; nothing was changed"),
                                            ("sys.exit(3)\n", "The editor exited with an error")])
async def test_an_unchanged_save_or_a_failed_editor_changes_nothing(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, said: str) -> None:
    monkeypatch.setenv("VISUAL", editor_script(tmp_path, body))
    app, _ = app_with(project, [PROPOSE, "Drafted the customer entity."])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "customers")
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: [d.path for d in pane.drafts] == [DRAFT_PATH], timeout=30)
        await pilot.press("ctrl+r", "e")
        await wait_until(pilot, lambda: any(said in n for n in notices(app)), timeout=30)
        engine = app.engine
        assert engine is not None
        assert not [r for r in EventLog.records(engine.session_dir / "events.jsonl") if isinstance(r, EditRecord)]
        draft = engine.session_dir / "draft" / DRAFT_PATH
        assert draft.read_text(encoding="utf-8") == CUSTOMER
