"""Esc in `make demo`: the viewer cancels the playing turn (the footer says Esc cancels it), a
second Esc does nothing more, and the demo goes on — the next message answered with its own
recorded replies, not with what was left of the cancelled turn."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from formspec_consult.commands.launch import engine_factory_for
from formspec_consult.providers import ReplayProvider
from formspec_consult.providers.base import StreamItem
from formspec_consult.replay.recording import load
from formspec_consult.replay.sources import EXAMPLE_SESSION, bundled_sessions, isolated_registry
from formspec_consult.resources import package_path
from formspec_consult.store.events import EventLog
from formspec_consult.store.records import TurnFinishedRecord
from formspec_consult.tui.replay import player
from formspec_consult.tui.replay.player import PlayerApp
from formspec_consult.tui.widgets.assistant_block import AssistantBlock
from tests.tui.conftest import wait_until
from tests.tui.test_footer_hints import footer

pytestmark = pytest.mark.anyio


async def test_esc_cancels_the_playing_turn_and_the_demo_goes_on_with_the_next_turns_own_replies(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(player, "reading_seconds", lambda step: 0.0)
    monkeypatch.setattr(player, "INTRO_S", 0.0)
    project = tmp_path / "barbershop"
    shutil.copytree(package_path("examples", "barbershop"), project)
    isolated_registry(tmp_path)
    recording = load(bundled_sessions() / EXAMPLE_SESSION)
    provider = ReplayProvider.from_events(recording.raw, source="the example session")
    played = provider.stream
    gate, calls = asyncio.Event(), []

    async def held(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
                   ) -> AsyncIterator[StreamItem]:
        calls.append(messages[-1].get("role"))
        if len(calls) == 2:  # the first turn's second reply: it waits, the viewer presses Esc
            await gate.wait()
        async for item in played(messages, tools):
            yield item

    provider.stream = held  # type: ignore[method-assign]
    factory = engine_factory_for({"project": str(project)}, provider=provider, in_memory_server=True)
    app = PlayerApp(factory, recording.steps, autoplay=True, speed=1.0, review_hold=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: len(calls) == 2, timeout=60)
        assert footer(app).get("escape") == "Cancel turn"
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app._turn_running(), timeout=30)
        await pilot.press("escape")  # again: nothing is running, nothing happens
        assert "escape" not in footer(app)
        gate.set()
        await wait_until(pilot, lambda: app.next_step >= 3 and not app._turn_running(), timeout=60)
        replies = [block.text for block in app.query(AssistantBlock)]
        assert any(text.startswith("Numbered tickets it is.") for text in replies)  # "B" got its own answer
        assert not any(text.startswith("Thanks — a barbershop") for text in replies)  # not the cancelled turn's
        engine = app.engine
        assert engine is not None
        ends = [r.reason for r in EventLog.records(engine.session_dir / "events.jsonl")
                if isinstance(r, TurnFinishedRecord)]
        assert ends[:3] == ["cancelled", "done", "done"]
