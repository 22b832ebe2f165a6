"""Resume, long sessions, the sessions screen, layout keys, palette, help and MCP actions."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandList, CommandPalette
from textual.widgets import OptionList

from formspec_consult.store.agent_events import (
    AgentEvent,
    AssistantDelta,
    AssistantMessage,
    CompactionDone,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from formspec_consult.store.review_results import ToolResult
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.screens.sessions import SessionsScreen
from formspec_consult.tui.screens.text_screen import TextScreen
from formspec_consult.tui.widgets.assistant_block import AssistantBlock
from formspec_consult.tui.widgets.choice_bar import ChoiceBar
from formspec_consult.tui.widgets.conversation import ConversationView
from formspec_consult.tui.widgets.diff_pane import DiffPane
from formspec_consult.tui.widgets.status_bar import StatusBar
from formspec_consult.tui.widgets.tool_calls import ToolCallsPane
from tests.tui.conftest import SIZE, notices, text_screen, wait_until
from tests.tui.fakes import FakeEngine, factory_for
from tests.tui.test_conversation_flow import send

pytestmark = pytest.mark.anyio


def long_session(turns: int) -> list[AgentEvent]:
    """`turns` user/assistant pairs (2 × turns messages) with a tool call in each turn."""
    events: list[AgentEvent] = []
    for i in range(turns):
        events += [
            TurnStarted(turn=i + 1, user_text=f"question {i}"),
            ToolCallStarted(f"c{i}", "formspec-local", "list_skills", {}),
            ToolCallFinished(f"c{i}", "formspec-local", "list_skills", True, "[]", 3.0),
            AssistantDelta("ignored on resume"),
            AssistantMessage(f"answer {i}"),
            TurnFinished(reason="done"),
        ]
    return events


async def test_resume_shows_the_earlier_conversation_tool_calls_options_and_usage() -> None:
    past: list[AgentEvent] = [
        TurnStarted(turn=1, user_text="I run a barbershop"),
        ToolCallStarted("c1", "formspec-remote", "list_business_templates", {}),
        ToolCallFinished("c1", "formspec-remote", "list_business_templates", True, '{"templates": []}', 40.0),
        AssistantMessage("Which model?\nA) Walk-ins\nB) Bookings", options=("A) Walk-ins", "B) Bookings")),
        UsageUpdated(context_tokens=5000, threshold_tokens=90000, window_tokens=120000, reported=True, session_cost=0.01),
        CompactionDone(summary="## Goal\nshop", replaced_messages=4, tokens_before=5000, tokens_after=800),
    ]
    engine = FakeEngine(past=past)
    engine.last_options = ("A) Walk-ins", "B) Bookings")
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.query_one(StatusBar).info.state == "ready")
        roles = [getattr(b, "role", "assistant") for b in app.query_one(ConversationView).blocks]
        assert roles == ["user", "assistant", "compaction"]
        assert app.query_one(StatusBar).info.compactions == 1
        entry = app.query_one(ToolCallsPane).entry("c1")
        assert entry is not None and entry.status == "ok" and entry.tool_name == "list_business_templates"
        assert app.query_one(ChoiceBar).options == ("A) Walk-ins", "B) Bookings")
        await pilot.press("alt+b")
        await wait_until(pilot, lambda: engine.sent == ["B) Bookings"])


async def test_a_2000_message_session_opens_with_only_the_newest_blocks_mounted() -> None:
    engine = FakeEngine(past=long_session(1000))
    app = ConsultApp(factory_for(engine), max_blocks=120)
    async with app.run_test(size=SIZE) as pilot:
        # mounting 2000 messages' newest blocks takes a while on a loaded machine: a wider bound
        await wait_until(pilot, lambda: app.query_one(StatusBar).info.state == "ready", timeout=30)
        view = app.query_one(ConversationView)
        assert len(view.blocks) == 120 and view.pruned == 1880
        last = view.blocks[-1]
        assert isinstance(last, AssistantBlock) and last.text == "answer 999"
        assert "1,880 earlier messages not shown here" in str(view.query_one(".pruned-marker").render())
        tools = app.query_one(ToolCallsPane)
        assert len(tools.query(".tool-call")) == tools.max_entries
        assert view.scroll_y == view.max_scroll_y  # opened at the bottom


async def test_new_messages_past_the_limit_unmount_the_oldest_blocks() -> None:
    engine = FakeEngine([[AssistantMessage(f"reply {i}")] for i in range(4)])
    app = ConsultApp(factory_for(engine), max_blocks=5)
    async with app.run_test(size=SIZE) as pilot:
        for i in range(4):
            await send(pilot, f"m{i}")
            def answered(sent: int = i + 1) -> bool:
                return len(engine.sent) == sent and app.query_one(StatusBar).info.state == "ready"

            await wait_until(pilot, answered)
        view = app.query_one(ConversationView)
        assert len(view.blocks) == 5 and view.pruned == 3
        assert getattr(view.blocks[-1], "text", "") == "reply 3"


async def test_sessions_screen_lists_project_sessions_and_resumes_the_chosen_one(tmp_path: Path) -> None:
    for sid, first in [("s-old", "# Consultation s-old\n\n## You (turn 1)\n\nI sell flowers\n"), ("s-test", "hello\n")]:
        folder = tmp_path / ".formspec" / "consult" / sid
        folder.mkdir(parents=True)
        (folder / "transcript.md").write_text(first, encoding="utf-8")
    engine = FakeEngine([[ToolCallStarted("c1", "formspec", "list_skills", {}), AssistantMessage("hi")]], root=tmp_path)
    factory = factory_for(engine)
    app = ConsultApp(factory)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await wait_until(pilot, lambda: app.query_one(ToolCallsPane).entry("c1") is not None and app.query_one(StatusBar).info.state == "ready")
        await send(pilot, "/sessions")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        listing = app.screen.query_one(OptionList)
        ids = [listing.get_option_at_index(i).id for i in range(listing.option_count)]
        assert set(ids) == {"s-old", "s-test"}
        assert "I sell flowers" in str(listing.get_option_at_index(ids.index("s-old")).prompt)
        listing.focus()
        listing.highlighted = ids.index("s-old")
        await pilot.press("enter")
        await wait_until(pilot, lambda: factory.requested == [None, "s-old"])
        assert engine.closed
        await wait_until(pilot, lambda: app.engine is not None)
        assert app.query_one(ConversationView).blocks == [] and app.query_one(ToolCallsPane).entry("c1") is None


async def test_pane_keys_toggle_and_resize_and_the_theme_switches() -> None:
    app = ConsultApp(factory_for(FakeEngine()))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None)
        await pilot.press("f3")
        assert not app.query_one("#tools-pane").display and app.query_one("#side").display
        await pilot.press("f4")
        assert not app.query_one("#side").display
        await pilot.press("f4", "f3")
        width = app.query_one("#side").outer_size.width
        await pilot.press("f7")
        await pilot.pause()
        assert app.query_one("#side").outer_size.width > width
        await pilot.press("f6", "f6")  # the prompt has the focus and binds f6/f7 itself: the app's keys win
        await pilot.pause()
        assert app.query_one("#side").outer_size.width < width
        tools_height = app.query_one("#tools-pane").outer_size.height
        await pilot.press("f5")
        await pilot.pause()
        assert app.query_one("#tools-pane").outer_size.height < tools_height  # 2:3 → 1:4
        dark = app.current_theme.dark
        await pilot.press("f8")
        assert app.current_theme.dark is not dark
        assert app.query_one("#diff-pane", DiffPane).syntax_theme == ("ansi_dark" if not dark else "ansi_light")


async def test_the_command_palette_runs_slash_commands() -> None:
    engine = FakeEngine()
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None)
        await pilot.press("ctrl+p")
        await pilot.press(*"mcp restart")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        commands = app.screen.query_one(CommandList)
        await wait_until(pilot, lambda: commands.option_count > 0)
        assert "/mcp restart" in str(commands.get_option_at_index(0).prompt)
        await pilot.press("enter")
        await wait_until(pilot, lambda: engine.restarts == 1)
        assert "MCP servers restarted." in notices(app)


async def test_help_lists_commands_and_status_shows_engine_figures() -> None:
    app = ConsultApp(factory_for(FakeEngine()))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/help")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen))
        assert "/compact [focus]" in text_screen(app).text and "Esc" in text_screen(app).text
        await pilot.press("escape")
        await send(pilot, "/status")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen) and text_screen(app).title_text == "Status")
        assert "the history is compacted at 90.0k" in text_screen(app).text and "threshold_tokens" not in text_screen(app).text


async def test_the_mcp_log_button_opens_the_log_the_status_names_for_the_server_in_trouble(tmp_path: Path) -> None:
    engine = FakeEngine(root=tmp_path)
    engine.session_dir.mkdir(parents=True)
    (engine.session_dir / "mcp-local.log").write_text("server started\nlisting tools\n", encoding="utf-8")
    (engine.session_dir / "mcp-registry.log").write_text("registry: [Errno 111] refused\n", encoding="utf-8")
    (engine.session_dir / "zzz-newest.log").write_text("not a server log", encoding="utf-8")  # never globbed
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None)
        await pilot.click("#mcp-log")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen))
        assert "listing tools" in text_screen(app).text and text_screen(app).title_text.startswith("formspec-local server log")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, TextScreen))
        engine.mcp[1] = replace(engine.mcp[1], state="dead", error="exit 1")
        await pilot.click("#mcp-log")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen))
        assert text_screen(app).text == "registry: [Errno 111] refused\n"


async def test_quit_leaves_the_app_and_closes_the_engine() -> None:
    engine = FakeEngine()
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/quit")
        await wait_until(pilot, lambda: not app.is_running)
    assert engine.closed


async def test_model_switch_reopens_the_same_session_with_the_new_model() -> None:
    engine = FakeEngine([[AssistantMessage("first")]])
    factory = factory_for(engine)
    app = ConsultApp(factory)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/model")
        assert any(n.startswith("Model fake/model via scripted.") for n in notices(app))
        await send(pilot, "/model openai/gpt-4o-mini")
        await wait_until(pilot, lambda: factory.requested == [None, "s-test"] and app.engine is not None)
        await wait_until(pilot, lambda: app.query_one(StatusBar).info.model == "openai/gpt-4o-mini")


class DraftsHeld(FakeEngine):
    """A resumed engine whose first draft listing waits: the app is still showing the session."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        import asyncio

        self.listing = asyncio.Event()

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        if name == "list_drafts":
            await self.listing.wait()
        return await super().call_tool(name, arguments)


async def test_a_message_typed_while_the_resumed_session_is_shown_waits_for_it_and_comes_after_it() -> None:
    engine = DraftsHeld(turns=[[AssistantMessage("Noted.")]], past=long_session(3))
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None)  # open, its drafts not listed yet
        assert app.query_one(StatusBar).info.state != "ready"
        await send(pilot, "and one more thing")
        assert engine.sent == []  # not sent into a conversation that is not on screen yet
        engine.listing.set()
        await wait_until(pilot, lambda: app.query_one(StatusBar).info.state == "ready" and engine.sent != [])
        assert engine.sent == ["and one more thing"]
        await wait_until(pilot, lambda: "Noted." in [getattr(b, "text", "") for b in app.query_one(ConversationView).blocks])
        texts = [getattr(b, "text", "") for b in app.query_one(ConversationView).blocks]
        assert texts.index("answer 2") < texts.index("and one more thing") < texts.index("Noted.")
