"""A reply can hold any list: it never crashes the app, and its session always reopens and replays."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button

from formspec_consult.commands.launch import engine_factory_for
from formspec_consult.providers import ScriptedProvider
from formspec_consult.replay.recorded_engine import RecordedEngine
from formspec_consult.replay.recording import load
from formspec_consult.store.agent_events import AssistantMessage
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.replay.player import PlayerApp
from formspec_consult.tui.widgets.assistant_block import AssistantBlock
from formspec_consult.tui.widgets.choice_bar import ChoiceBar
from formspec_consult.tui.widgets.conversation import ConversationView
from tests.tui.conftest import SIZE, opened, wait_until
from tests.tui.fakes import FakeEngine, factory_for
from tests.tui.test_conversation_flow import send

pytestmark = pytest.mark.anyio

LONG_LIST = "Here is everything a barbershop app can track:\n\n" + "\n".join(
    f"{n}. feature number {n}" for n in range(1, 31)
)
LETTERED = "Modules:\n" + "\n".join(f"{chr(ord('A') + i)}) module {i}" for i in range(27))


def real_app(project: Path, replies: list[str], **options: object) -> ConsultApp:
    factory = engine_factory_for({"project": str(project), **options}, provider=ScriptedProvider(replies),
                                 in_memory_server=True, preload=())
    return ConsultApp(factory)


def replies_of(app: ConsultApp) -> list[str]:
    return [b.text for b in app.query_one(ConversationView).blocks if isinstance(b, AssistantBlock)]


async def test_a_reply_with_a_thirty_item_list_shows_as_text_and_the_session_reopens_and_replays(project: Path) -> None:
    app = real_app(project, [LONG_LIST, LETTERED])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None, timeout=60)  # a real engine: slower to open
        await send(pilot, "What can it do?")
        await wait_until(pilot, lambda: replies_of(app) == [LONG_LIST], timeout=30)
        await send(pilot, "And modules?")
        await wait_until(pilot, lambda: len(replies_of(app)) == 2 and not app.turn_worker.is_running, timeout=30)  # type: ignore[union-attr]
        assert app.query_one(ChoiceBar).options == () and not app.query(".choice")
        session, folder = opened(app).session_id, opened(app).session_dir
    assert app.return_code in (None, 0)

    resumed = real_app(project, ["Welcome back."], resume=session)
    async with resumed.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(replies_of(resumed)) == 2, timeout=60)
        assert not resumed.query(".choice")

    recording = load(folder)
    engine = RecordedEngine(recording, speed=0)

    async def factory(resume: str | None, *, model: str | None = None) -> RecordedEngine:
        return engine

    player = PlayerApp(factory, recording.steps, speed=0)
    async with player.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: player.done and len(replies_of(player)) == 2, timeout=30)
        assert not player.query(".choice")


async def test_whatever_options_an_old_log_holds_only_lettered_ones_a_to_f_become_buttons() -> None:
    odd = tuple(f"{n}) item {n}" for n in range(1, 28)) + ("[) bracket", "A) first", "B) second")
    engine = FakeEngine([[AssistantMessage("pick", options=odd)],
                         [AssistantMessage("pick", options=("A) one", "A) again", "B) two"))]])
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hi")
        choices = app.query_one(ChoiceBar)
        await wait_until(pilot, lambda: choices.options == odd)
        await pilot.pause()
        assert all(button.id in {f"choice-{c}" for c in "abcdef"} for button in choices.query(".choice"))
        await send(pilot, "again")
        await wait_until(pilot, lambda: choices.options[:1] == ("A) one",) and choices.query("#choice-b"))
        assert [str(b.label) for b in choices.query(".choice").results(Button)] == ["A) one", "B) two"]


async def test_every_option_stays_on_screen_at_100_by_30() -> None:
    options = ("A) Walk-ins only, served in the order they arrive at the shop",
               "B) Bookings and walk-ins, with the bookings taking priority at their time",
               "C) Bookings only, with a deposit for Saturday slots")
    engine = FakeEngine([[AssistantMessage("How do customers come in?\n\n" + "\n".join(options), options=options)]])
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        choices = app.query_one(ChoiceBar)
        await wait_until(pilot, lambda: choices.query("#choice-c"))
        await pilot.pause()
        screen = app.screen.region
        for button in choices.query(".choice"):
            assert screen.contains_region(button.region) and button.region.width > 10
