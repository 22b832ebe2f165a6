"""A replay answers side requests (/summary, compaction summaries) with what was recorded."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ReplayProvider, ScriptedProvider
from formspec_consult.providers.base import Provider
from formspec_consult.store.agent_events import AgentEvent, AssistantMessage, TurnFinished
from tests.e2e.project import make_project

pytestmark = pytest.mark.anyio

SUMMARY = "# What we understood\nYou sell coffee and want loyalty stamps."


async def run_session(project: Path, provider: Provider) -> tuple[list[AgentEvent], Path]:
    engine = await Engine.open(EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs))
    seen: list[AgentEvent] = []
    try:
        for text in ("we sell coffee", "/summary"):
            with anyio.fail_after(30):
                seen += [event async for event in engine.run_turn(text)]
        return seen, engine.session_dir
    finally:
        await engine.aclose()


async def test_replaying_a_session_that_used_summary_gives_back_the_recorded_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    _, recorded = await run_session(make_project(tmp_path / "one"), ScriptedProvider(["Coffee, lovely.", SUMMARY]))

    replayed, session = await run_session(make_project(tmp_path / "two"), ReplayProvider.from_session_dir(recorded))

    messages = [e.text for e in replayed if isinstance(e, AssistantMessage)]
    assert messages == ["Coffee, lovely.", SUMMARY]
    assert all(e.reason == "done" for e in replayed if isinstance(e, TurnFinished))
    assert (session / "discovery-summary.md").read_text(encoding="utf-8").startswith("# What we understood")


async def test_an_older_recording_without_side_replies_refuses_a_side_request_clearly() -> None:
    from formspec_consult.providers import ProviderError

    provider = ReplayProvider.from_events([{"type": "message", "message": {"role": "assistant", "content": "hi"}}])
    with pytest.raises(ProviderError, match="not part of the recording"):
        _ = [item async for item in provider.stream([{"role": "user", "content": "summarise"}], None)]
    assert provider.turns and provider.position == 0  # the conversation turn was not used up
