"""The footer names what ctrl+q and Esc do in each state of the app: ctrl+q always quits; Esc goes
back to the prompt from an armed diffs pane, cancels a running turn from the prompt, and at an idle
prompt does nothing, so the footer offers it for nothing."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from formspec_consult.store.agent_events import AssistantDelta, AssistantMessage
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.widgets.diff_pane import DiffPane
from formspec_consult.tui.widgets.prompt_input import PromptInput
from tests.tui.conftest import SIZE, wait_until
from tests.tui.fakes import FakeEngine, Hold, factory_for
from tests.tui.test_conversation_flow import send
from tests.tui.test_panes_flow import drafts

pytestmark = pytest.mark.anyio


def footer(app: ConsultApp) -> dict[str, str]:
    """The footer's hints: key -> what it says (the keys shown, as Textual's Footer lists them)."""
    return {key: str(active.binding.description) for key, active in app.screen.active_bindings.items()
            if active.binding.show and active.enabled}


async def idle_app(pilot: Pilot[None], app: ConsultApp) -> None:
    await wait_until(pilot, lambda: app.query(DiffPane) and len(app.query_one(DiffPane).drafts) == 3)


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_the_footer_names_what_esc_and_ctrl_q_do_in_each_state(size: tuple[int, int]) -> None:
    engine = FakeEngine([[AssistantDelta("Let me think"), Hold(), AssistantMessage("never shown")]], drafts=drafts())
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=size) as pilot:
        await idle_app(pilot, app)
        idle = footer(app)
        assert idle["ctrl+q"] == "Quit" and "escape" not in idle  # idle at the prompt: Esc does nothing

        await pilot.press("ctrl+r")  # review armed: Esc goes back to the prompt
        await wait_until(pilot, lambda: app.query_one(DiffPane).armed)
        await wait_until(pilot, lambda: footer(app).get("escape") == "Back to the prompt")
        assert footer(app)["ctrl+q"] == "Quit" and footer(app)["a"] == "Accept"
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.focused is app.query_one(PromptInput))
        await wait_until(pilot, lambda: "escape" not in footer(app))

        await send(pilot, "design it")  # a turn running: Esc cancels it
        await wait_until(pilot, lambda: engine.holding)
        await wait_until(pilot, lambda: footer(app).get("escape") == "Cancel turn")
        await pilot.press("ctrl+r")  # reviewing while the turn runs: Esc comes back first
        await wait_until(pilot, lambda: footer(app).get("escape") == "Back to the prompt")
        await pilot.press("escape")
        await wait_until(pilot, lambda: footer(app).get("escape") == "Cancel turn")
        assert not engine.cancelled
        await pilot.press("escape")
        await wait_until(pilot, lambda: engine.cancelled)
        await wait_until(pilot, lambda: "escape" not in footer(app))  # idle again
        assert footer(app)["ctrl+q"] == "Quit"
