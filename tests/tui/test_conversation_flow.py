"""Sending messages, streamed replies, options, cancelling, and failures that must not quit."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from textual.pilot import Pilot
from textual.widgets import Button

from formspec_consult.providers.base import ProviderError
from formspec_consult.store.agent_events import (
    AgentEvent,
    AssistantDelta,
    AssistantMessage,
    Notice,
    TurnFinished,
)
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.widgets.assistant_block import AssistantBlock
from formspec_consult.tui.widgets.choice_bar import ChoiceBar
from formspec_consult.tui.widgets.conversation import ConversationView
from formspec_consult.tui.widgets.prompt_input import PromptInput
from formspec_consult.tui.widgets.status_bar import StatusBar
from tests.tui.conftest import SIZE, consult_app, notices, wait_until
from tests.tui.fakes import FakeEngine, Hold, factory_for

pytestmark = pytest.mark.anyio

OPTIONS = ("A) Walk-ins only", "B) Bookings and walk-ins", "C) Bookings only [deposit required]")


def reply_texts(app: ConsultApp) -> list[str]:
    return [b.text for b in app.query_one(ConversationView).blocks if isinstance(b, AssistantBlock)]


async def send(pilot: Pilot[None], text: str) -> None:
    app = consult_app(pilot)
    # Opening a real engine (imports, the in-process servers, the session's context) is slower than
    # a UI step; on a loaded machine it took more than 10 s, so its bound is wider.
    await wait_until(pilot, lambda: app.engine is not None, timeout=60)
    app.query_one(PromptInput).focus()
    await pilot.press(*text)
    await pilot.press("enter")


async def test_first_frame_paints_connecting_with_input_focused_before_the_engine_opens() -> None:
    gate = asyncio.Event()
    engine = FakeEngine()

    async def slow_factory(resume: str | None, *, model: str | None = None) -> FakeEngine:
        await gate.wait()
        return engine

    app = ConsultApp(slow_factory)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.query_one(StatusBar).info.state == "connecting…"
        assert isinstance(app.focused, PromptInput)
        await pilot.press(*"hello", "enter")
        await wait_until(pilot, lambda: any("Queued until the consultant is connected: hello" in getattr(b, "text", "")
                                            for b in app.query_one(ConversationView).blocks))
        assert app.query_one(PromptInput).value == "" and engine.sent == []
        gate.set()
        await wait_until(pilot, lambda: engine.sent == ["hello"])  # sent as soon as the engine is ready
        assert app.query_one(StatusBar).info.model == "fake/model"


async def test_sending_a_message_streams_the_reply_into_one_block() -> None:
    engine = FakeEngine([[AssistantDelta("Tell me "), AssistantDelta("about **your shop**."),
                          AssistantMessage("Tell me about **your shop**.")]])
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "I run a barbershop")
        await wait_until(pilot, lambda: app.query_one(StatusBar).info.state == "ready" and reply_texts(app))
        assert engine.sent == ["I run a barbershop"]
        blocks = app.query_one(ConversationView).blocks
        assert [type(b).__name__ for b in blocks] == ["MessageBlock", "AssistantBlock"]
        assert reply_texts(app) == ["Tell me about **your shop**."]
        assert app.query_one(PromptInput).value == ""


@pytest.mark.parametrize("how", ["alt-key", "typed-letter", "click"])
async def test_picking_an_option_sends_the_engine_resolved_choice(how: str) -> None:
    engine = FakeEngine([
        [AssistantMessage("How do customers come in?\n\n" + "\n".join(OPTIONS), options=OPTIONS)],
        [AssistantMessage("Noted.")],
    ])
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hi")
        choices = app.query_one(ChoiceBar)
        await wait_until(pilot, lambda: choices.options == OPTIONS and choices.query("#choice-b"))
        assert "[deposit required]" in str(choices.query_one("#choice-c", Button).label)  # not read as markup
        if how == "alt-key":
            await pilot.press("alt+b")
        elif how == "typed-letter":
            await pilot.press("b", "enter")
        else:  # a click that lands on another widget fails here, not as a timeout below
            assert await pilot.click("#choice-b"), "the click did not land on option B"
        await wait_until(pilot, lambda: len(engine.sent) == 2)
        assert engine.sent[1] == "B) Bookings and walk-ins"
        await wait_until(pilot, lambda: not choices.options)  # a new turn clears old options


async def test_a_short_option_is_as_wide_as_its_text_and_starts_where_the_others_start() -> None:
    short = ("A) Walk-ins only", "B) Both", "C) No")
    engine = FakeEngine([[AssistantMessage("Which?\n\n" + "\n".join(short), options=short)]])
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hi")
        choices = app.query_one(ChoiceBar)
        await wait_until(pilot, lambda: choices.options == short and choices.query("#choice-c"))
        await pilot.pause()
        button = choices.query_one("#choice-c", Button)
        # Textual's default Button is at least 16 cells and centres its label: "C) No" sat indented.
        assert button.size.width < 16
        assert button.styles.content_align_horizontal == "left"


async def test_a_key_for_an_option_not_on_offer_says_so() -> None:
    app = ConsultApp(factory_for(FakeEngine()))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None)
        await pilot.press("alt+c")
        assert "No option C is on offer." in notices(app)


async def test_alt_b_and_alt_f_move_the_prompt_by_words_while_no_option_is_on_offer() -> None:
    # Some terminals send ESC b / ESC f for Option+Left / Option+Right: with nothing to pick they still move.
    app = ConsultApp(factory_for(FakeEngine()))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None)
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.press(*"book a chair")
        await pilot.press("alt+b")
        await wait_until(pilot, lambda: prompt.cursor_position == len("book a "))
        await pilot.press("alt+b")
        await wait_until(pilot, lambda: prompt.cursor_position == len("book "))
        await pilot.press("alt+f")  # to the end of the word, as the multi-line prompt (a TextArea) moves
        await wait_until(pilot, lambda: prompt.cursor_position == len("book a"))
        assert not any("on offer" in n for n in notices(app)) and prompt.value == "book a chair"


async def test_escape_cancels_a_running_turn_and_keeps_the_partial_reply() -> None:
    engine = FakeEngine([[AssistantDelta("Let me think"), Hold(), AssistantMessage("never shown")]])
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "design it")
        await wait_until(pilot, lambda: engine.holding)
        await pilot.press("escape")
        await wait_until(pilot, lambda: engine.cancelled and app.query_one(StatusBar).info.state == "ready")
        assert reply_texts(app) == ["Let me think\n\n*(cancelled)*"]
        assert "Turn cancelled." in notices(app)
        await send(pilot, "again")  # the app takes the next turn normally
        await wait_until(pilot, lambda: len(engine.sent) == 2)


async def test_a_second_message_while_a_turn_runs_is_refused_and_kept_in_the_input() -> None:
    engine = FakeEngine([[Hold(), AssistantMessage("done")]])
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first")
        await wait_until(pilot, lambda: engine.holding)
        await pilot.press(*"second", "enter")
        assert app.query_one(PromptInput).value == "second"
        assert "A turn is running; wait for it or press Esc to cancel it." in notices(app)
        engine.release()
        await wait_until(pilot, lambda: reply_texts(app) == ["done"])


async def test_an_engine_that_cannot_open_shows_the_hint_and_offers_the_demo_without_quitting() -> None:
    error = ProviderError("No model configured", hint="set FORMSPEC_MODEL or pass --model")
    app = ConsultApp(factory_for(FakeEngine(), fail=error))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.query_one(StatusBar).info.state == "not started")
        text = str(getattr(app.query_one(ConversationView).blocks[0], "text", ""))
        assert "set FORMSPEC_MODEL or pass --model" in text
        assert "formspec-consult demo" in text
        assert app.is_running


async def test_an_error_raised_mid_turn_becomes_a_notification_and_the_app_keeps_running() -> None:
    class Exploding(FakeEngine):
        async def run_turn(self, text: str) -> AsyncIterator[AgentEvent]:
            async for event in super().run_turn(text):
                yield event
                raise ConnectionError("model endpoint went away")

    app = ConsultApp(factory_for(Exploding()))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hi")
        await wait_until(pilot, lambda: any("model endpoint went away" in n for n in notices(app)))
        assert app.is_running and app.query_one(StatusBar).info.state == "ready"


async def test_engine_notices_and_failed_turns_are_shown() -> None:
    engine = FakeEngine([[Notice("warning", "registry unreachable, using cached templates"),
                          TurnFinished(reason="error", error="provider said 500")]])
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hi")
        await wait_until(pilot, lambda: "provider said 500" in notices(app))
        assert "registry unreachable, using cached templates" in notices(app)
        await wait_until(pilot, lambda: len(app.query_one(ConversationView).blocks) == 3)
        blocks = app.query_one(ConversationView).blocks
        assert [getattr(b, "role", "") for b in blocks] == ["user", "notice-warning", "notice-error"]
        assert getattr(blocks[-1], "text", "") == "provider said 500"  # the cause stays in the conversation


async def test_a_cancel_while_the_app_is_between_two_events_closes_the_engine_turn_before_the_turn_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine = FakeEngine([[AssistantDelta("one"), AssistantDelta("two")]])
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None)
        busy = asyncio.Event()
        closed_when_ended: list[bool] = []
        presenter = app.presenter
        assert presenter is not None
        show, end_turn = presenter.show, presenter.end_turn

        async def slow_show(event: AgentEvent) -> None:
            if isinstance(event, AssistantDelta):
                busy.set()
                await asyncio.Event().wait()  # the app is busy with one event; the engine waits at a yield
            await show(event)

        async def noting_end_turn(reason: str, error: str | None = None) -> None:
            closed_when_ended.append(engine.closed_between_events)
            await end_turn(reason, error)

        monkeypatch.setattr(presenter, "show", slow_show)
        monkeypatch.setattr(presenter, "end_turn", noting_end_turn)
        await send(pilot, "hello")
        await wait_until(pilot, busy.is_set)
        await pilot.press("escape")
        await wait_until(pilot, lambda: bool(closed_when_ended))
        # aclosing: the engine's generator was closed (its cleanup ran) before the app settled the turn.
        assert closed_when_ended == [True]
