"""A provider's secrets (the API key) never reach the session folder, even when they show up in text."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ScriptedProvider
from tests.e2e.project import make_project

pytestmark = pytest.mark.anyio

SECRET = "sk-live-0123456789abcdef"


class KeyedProvider(ScriptedProvider):
    """A scripted provider that, like the litellm one, holds an API key."""

    warmed = False

    def secret_values(self) -> tuple[str, ...]:
        return (SECRET,)

    def warm(self) -> None:
        KeyedProvider.warmed = True


async def test_the_api_key_is_masked_in_the_event_log_and_transcript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    project = make_project(tmp_path / "shop")
    provider = KeyedProvider([f"Never paste keys like {SECRET} into a chat."])
    engine = await Engine.open(EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs))
    try:
        with anyio.fail_after(30):
            _ = [event async for event in engine.run_turn(f"my key is {SECRET}")]
        session_dir = engine.session_dir
    finally:
        await engine.aclose()
    assert KeyedProvider.warmed, "the provider was not warmed before its window was read"
    written = "".join(p.read_text(encoding="utf-8") for p in session_dir.rglob("*") if p.is_file())
    assert "my key is" in written  # the turn was recorded…
    assert SECRET not in written  # …without the key
