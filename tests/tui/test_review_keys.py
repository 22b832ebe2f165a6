"""Review keys that can never eat typing: after a review action the focus is back on the prompt,
and a key that changes the project acts only in a pane entered on purpose (ctrl+r, a click)."""

from __future__ import annotations

import pytest
from textual import events
from textual.pilot import Pilot

from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.widgets.diff_pane import DiffPane
from formspec_consult.tui.widgets.prompt_input import PromptInput
from tests.tui.conftest import SIZE, consult_app, text_screen, wait_until
from tests.tui.fakes import FakeDraft, FakeEngine, factory_for
from tests.tui.test_panes_flow import drafts

pytestmark = pytest.mark.anyio

BOOKING = "modules/shop/entities/booking.yaml"


async def ready(pilot: Pilot[None]) -> DiffPane:
    app = consult_app(pilot)
    await wait_until(pilot, lambda: app.query(DiffPane) and len(app.query_one(DiffPane).drafts) == 3)
    return app.query_one(DiffPane)


def burst(app: ConsultApp, text: str) -> None:
    """Keys as a terminal sends a fast-typed or pasted sentence: all queued before the first is handled."""
    assert app._driver is not None
    for char in text:
        key = {" ": "space", "/": "slash"}.get(char, char)
        event = events.Key(key, char)
        event.set_sender(app)
        app._driver.send_message(event)


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_a_sentence_typed_at_once_after_accepting_goes_to_the_prompt_and_undoes_nothing(
        size: tuple[int, int]) -> None:
    engine = FakeEngine(drafts=drafts())
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=size) as pilot:
        pane = await ready(pilot)
        await pilot.press("ctrl+r")
        pane.select(BOOKING)
        burst(app, "a")
        burst(app, "sounds great, undo nothing")
        prompt = app.query_one(PromptInput)
        await wait_until(pilot, lambda: prompt.value == "sounds great, undo nothing")
        await wait_until(pilot, lambda: engine.applied == [BOOKING])
        assert ("undo_apply", {}) not in engine.tool_calls and ("reject_draft", {"file": BOOKING}) not in engine.tool_calls
        assert app.focused is prompt and not pane.armed


@pytest.mark.parametrize(("key", "tool"), [("A", "apply_draft")])
async def test_every_review_action_hands_the_focus_back_to_the_prompt(key: str, tool: str) -> None:
    engine = FakeEngine(drafts=drafts())
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        pane = await ready(pilot)
        await pilot.press("ctrl+r")
        pane.select(BOOKING)
        await pilot.press(key, "u", "r", "a")
        prompt = app.query_one(PromptInput)
        assert app.focused is prompt and prompt.value == "ura"
        await wait_until(pilot, lambda: any(name == tool for name, _ in engine.tool_calls))
        assert {name for name, _ in engine.tool_calls if name in {"undo_apply", "reject_draft", "apply_draft"}} == {tool}


async def test_review_keys_in_a_pane_reached_by_tab_are_typing_not_actions() -> None:
    engine = FakeEngine(drafts=drafts())
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        pane = await ready(pilot)
        pane.query_one("#draft-list").focus()  # as Tab would: not entered on purpose
        await pilot.pause()
        assert not pane.armed
        await pilot.press("a", "u")
        prompt = app.query_one(PromptInput)
        assert app.focused is prompt and prompt.value == "au"
        assert engine.applied == [] and not [c for c in engine.tool_calls if c[0] in {"apply_draft", "undo_apply"}]
        assert any("review keys act after ctrl+r" in n for n in app.recent_notices)


async def test_a_click_on_a_draft_arms_the_pane_and_other_letters_there_go_to_the_prompt() -> None:
    engine = FakeEngine(drafts=drafts())
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        pane = await ready(pilot)
        await pilot.click("#draft-list")
        assert pane.armed
        await pilot.press("p")  # switching views keeps the pane and its focus
        assert pane.view == "preview" and pane.armed and app.focused is not app.query_one(PromptInput)
        await pilot.press("h", "i")
        prompt = app.query_one(PromptInput)
        assert app.focused is prompt and prompt.value == "hi" and not pane.armed


async def test_esc_leaves_the_pane_disarmed_so_a_later_tab_back_cannot_undo() -> None:
    engine = FakeEngine(drafts=drafts())
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        pane = await ready(pilot)
        await pilot.press("ctrl+r")
        assert pane.armed and pane.has_class("-armed")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not pane.armed)
        pane.query_one("#draft-list").focus()
        await pilot.pause()
        await pilot.press("u")
        assert app.query_one(PromptInput).value == "u" and ("undo_apply", {}) not in engine.tool_calls


async def test_pagedown_from_where_ctrl_r_lands_scrolls_the_diff_not_the_list() -> None:
    long_diff = "--- a/x.yaml\n+++ b/x.yaml\n@@ -0,0 +1,200 @@\n" + "".join(f"+line {n}\n" for n in range(200))
    engine = FakeEngine(drafts=[FakeDraft("modules/shop/entities/long.yaml", "new", True, [], long_diff),
                                *drafts()])
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.query(DiffPane) and len(app.query_one(DiffPane).drafts) == 4)
        pane = app.query_one(DiffPane)
        await pilot.press("ctrl+r")
        pane.select("modules/shop/entities/long.yaml")
        await pilot.pause()
        selected = pane.selected
        scroll = pane.query_one("#diff-scroll")
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: scroll.scroll_y > 0)
        assert pane.selected == selected  # the list kept its draft
        await pilot.press("pageup")
        await wait_until(pilot, lambda: scroll.scroll_y == 0)


async def test_at_80x24_a_draft_arriving_marks_the_diffs_tab_until_it_is_shown() -> None:
    from textual.widgets import Tab

    from formspec_consult.store.agent_events import AssistantMessage, DraftsChanged
    from tests.tui.test_conversation_flow import send

    engine = FakeEngine([[DraftsChanged(("modules/shop/app.yaml",)), AssistantMessage("Drafted.")]])
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.session_shown)  # the session's drafts (none) are listed
        tab = app.query_one("#tab-diff-pane", Tab)
        assert str(tab.label) == "F4 Diffs"
        engine.drafts = {d.path: d for d in drafts()}
        await send(pilot, "draft the app")
        await wait_until(pilot, lambda: str(tab.label) == "F4 Diffs ● 3 new")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: str(tab.label) == "F4 Diffs")


async def test_help_lists_the_keys_from_the_bindings_first() -> None:
    from formspec_consult.tui.screens.text_screen import TextScreen
    from tests.tui.test_conversation_flow import send

    app = ConsultApp(factory_for(FakeEngine()))
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, "/help")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen))
        text = text_screen(app).text
    assert text.index("### Keys") < text.index("### Commands")  # the keys are above the fold
    for key, what in [("ctrl+r", "Review drafts"), ("Esc", "back to the prompt"), ("ctrl+q", "Quit"),
                      ("Tab", "Focus Next"), ("PageUp", "Scroll up"), ("PageDown", "Scroll diff down"),
                      ("p", "Diff/preview"), ("a", "Accept"), ("u", "Undo"), ("alt+a … alt+f", "Option A … Option F"),
                      ("ctrl+p", "Command palette")]:
        assert any(f"`{key}`" in line and what in line for line in text.splitlines()), (key, what)


async def test_at_80x24_a_toast_while_reviewing_leaves_the_diffs_header_and_badges_visible() -> None:
    engine = FakeEngine(drafts=drafts())
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        pane = await ready(pilot)
        await pilot.press("ctrl+r")
        app.notify("Something happened somewhere.", timeout=60)
        await wait_until(pilot, lambda: app.screen.query("Toast"))
        await pilot.pause()
        toast = app.screen.query_one("Toast").region
        header = pane.query_one(".pane-header").region
        badges = pane.query_one("#draft-list").region
        assert not toast.overlaps(header) and not toast.overlaps(badges)
        assert toast.bottom <= 24 - 2  # above the status bar and the footer
