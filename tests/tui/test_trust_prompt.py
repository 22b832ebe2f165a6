"""A project whose settings need the folder's trust is asked about once, before anything of them
runs: the question shows the command in full; `n` keeps them off (said once in the conversation),
`t` records the trust and the engine honours them."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from formspec_consult.commands.launch import engine_factory_for, pending_trust
from formspec_consult.config.trust import trusted_folders
from formspec_consult.providers import ScriptedProvider
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.screens.trust import TrustScreen
from formspec_consult.tui.widgets.conversation import ConversationView
from tests.e2e.project import make_project
from tests.tui.conftest import SIZE, wait_until, widget_text

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    project = make_project(tmp_path / "cloned")
    (project / ".formspec").mkdir()
    settings = {"mcpServers": {"helper": {"command": "sh", "args": ["-c", f"touch {tmp_path / 'marker'}"]}}}
    (project / ".formspec" / "consult.yaml").write_text(yaml.safe_dump(settings), encoding="utf-8")
    return project


def app_for(project: Path) -> ConsultApp:
    options = {"project": str(project)}
    factory = engine_factory_for(options, provider=ScriptedProvider(["Hello."]), in_memory_server=True, preload=())
    return ConsultApp(factory, trust_request=pending_trust(options))


def texts(app: ConsultApp) -> list[str]:
    return [getattr(b, "text", "") for b in app.query_one(ConversationView).blocks]


@pytest.mark.parametrize("key", ["n", "escape"])
async def test_not_now_keeps_the_projects_server_from_running_and_says_so_once(
        project: Path, tmp_path: Path, key: str) -> None:
    marker = tmp_path / "marker"
    app = app_for(project)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustScreen), timeout=30)
        shown = " ".join(widget_text(app.screen.query_one("#trust-wants")).split())  # as read, unwrapped
        assert f"`sh -c 'touch {marker}'`" in shown and "MCP server 'helper'" in shown
        assert app.engine is None and not marker.exists()  # nothing opens while the person decides
        await pilot.press(key)
        await wait_until(pilot, lambda: app.engine is not None and app.session_shown, timeout=60)
        said = [t for t in texts(app) if "Ignored until you trust this folder" in t]
        assert len(said) == 1 and "mcpServers" in said[0] and "formspec-consult trust" in said[0]
        engine = app.engine
        assert engine is not None
        assert engine.status().server("helper") is None
    assert not marker.exists() and trusted_folders() == {}


async def test_trusting_records_the_folder_and_the_engine_starts_its_server(project: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    app = app_for(project)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustScreen), timeout=30)
        await pilot.press("t")
        await wait_until(pilot, lambda: app.engine is not None, timeout=60)
        await wait_until(pilot, marker.exists, timeout=30)
        assert not any("Ignored until you trust" in t for t in texts(app))
    assert list(trusted_folders()) == [str(project.resolve())]
    assert pending_trust({"project": str(project)}) is None  # asked once: not again for this file
