"""Snapshots of the main screens (pytest-textual-snapshot; Textual is pinned exactly).

Update them after an intended visual change with `pytest tests/tui/test_snapshots.py --snapshot-update`
and look at the SVGs under `__snapshots__/` before committing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from textual.pilot import Pilot

from formspec_consult.store.blocks import split_blocks
from formspec_consult.store.review_results import BlockRow, DraftBlocks
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.widgets.diff_pane import DiffPane
from formspec_consult.tui.widgets.prompt_input import PromptInput
from formspec_consult.tui.widgets.status_bar import StatusBar
from tests.tui.conftest import SnapCompare, wait_until
from tests.tui.fakes import FakeEngine, factory_for
from tests.tui.scenes import barbershop_engine

SIZE = (120, 36)


async def settle(pilot: Pilot[None]) -> None:
    """Let pending work finish, then repaint everything once: partial repaints that raced with
    the last updates split identical cells into different SVG segments."""
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()
    pilot.app.screen.refresh(repaint=True, layout=True)
    await pilot.pause()


def after_first_turn() -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, ConsultApp)
        prompt = app.query_one(PromptInput)
        prompt.cursor_blink = False
        await wait_until(pilot, lambda: app.engine is not None and len(app.query_one(DiffPane).drafts) == 2)
        app.send("I cut hair in Bandung, three chairs")
        await wait_until(pilot, lambda: app.query_one(StatusBar).info.state == "ready" and app.query("#choice-c"))
        await settle(pilot)

    return run_before


def test_main_screen_after_a_discovery_turn_dark(snap_compare: SnapCompare) -> None:
    app = ConsultApp(factory_for(barbershop_engine()))
    assert snap_compare(app, terminal_size=SIZE, run_before=after_first_turn())


def test_main_screen_after_a_discovery_turn_light(snap_compare: SnapCompare) -> None:
    app = ConsultApp(factory_for(barbershop_engine()), theme="textual-light")
    assert snap_compare(app, terminal_size=SIZE, run_before=after_first_turn())


def test_review_of_an_invalid_draft_shows_its_problems(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await after_first_turn()(pilot)
        pane = pilot.app.query_one(DiffPane)
        await pilot.press("ctrl+r")  # enter the pane on purpose: its review keys act
        pane.select("modules/shop/master/barber/entity.yaml")
        await settle(pilot)

    app = ConsultApp(factory_for(barbershop_engine()))
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_first_frame_while_connecting(snap_compare: SnapCompare) -> None:
    async def never(resume: str | None) -> object:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def run_before(pilot: Pilot[None]) -> None:
        pilot.app.query_one(PromptInput).cursor_blink = False
        await pilot.pause()

    assert snap_compare(ConsultApp(never), terminal_size=SIZE, run_before=run_before)  # type: ignore[arg-type]


def test_help_screen(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, ConsultApp)
        app.query_one(PromptInput).cursor_blink = False
        await wait_until(pilot, lambda: app.engine is not None)
        app.router.handle("/help")
        await wait_until(pilot, lambda: app.screen.id != "_default")
        await pilot.pause()

    assert snap_compare(ConsultApp(factory_for(barbershop_engine())), terminal_size=SIZE, run_before=run_before)


def test_resumed_session_with_an_expanded_compaction_summary(snap_compare: SnapCompare) -> None:
    from formspec_consult.store.agent_events import AgentEvent, AssistantMessage, CompactionDone, TurnStarted
    from formspec_consult.tui.widgets.compaction_block import CompactionBlock
    from tests.tui.fakes import FakeEngine

    summary = (
        "## Goal\nA queue for Saturday walk-ins at a barbershop.\n\n## Decisions\n"
        "- B) Numbered tickets, called by number when a chair is free\n\n## Open questions\n- Deposits?"
    )
    past: list[AgentEvent] = [
        TurnStarted(turn=1, user_text="I run a barbershop in Bandung"),
        AssistantMessage("How do walk-ins get served?"),
        CompactionDone(summary=summary, replaced_messages=24, tokens_before=81000, tokens_after=6200),
        TurnStarted(turn=13, user_text="What about deposits?"),
        AssistantMessage("Deposits can be kept on late cancellations."),
    ]

    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, ConsultApp)
        app.query_one(PromptInput).cursor_blink = False
        await wait_until(pilot, lambda: app.query(CompactionBlock))
        block = app.query_one(CompactionBlock)
        block.collapsed = False
        await wait_until(pilot, lambda: block.query("Markdown"))
        await settle(pilot)

    engine = FakeEngine(past=past, session_id="20261130-0900-demo", model="openai/gpt-4o")
    assert snap_compare(ConsultApp(factory_for(engine)), terminal_size=SIZE, run_before=run_before)


def test_small_screen_shows_one_pane_with_tabs(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await after_first_turn()(pilot)

    app = ConsultApp(factory_for(barbershop_engine()))
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_small_screen_diffs_tab(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await after_first_turn()(pilot)
        await pilot.press("f4")
        await settle(pilot)

    app = ConsultApp(factory_for(barbershop_engine()))
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def _preview(view_presses: int, path: str = "modules/booking/transaction/appointment/entity.yaml",
             drafts: int = 3) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, ConsultApp)
        app.query_one(PromptInput).cursor_blink = False
        await wait_until(pilot, lambda: app.engine is not None and len(app.query_one(DiffPane).drafts) == drafts)
        await pilot.press("f3", "ctrl+r")  # tools hidden: the diffs pane takes the side column
        app.query_one(DiffPane).select(path)
        for _ in range(view_presses):
            await pilot.press("p")
        await settle(pilot)

    return run_before


def test_preview_of_an_entity_draft_shows_fields_and_lifecycle(snap_compare: SnapCompare) -> None:
    from tests.tui.scenes import appointment_engine

    app = ConsultApp(factory_for(appointment_engine()))
    assert snap_compare(app, terminal_size=(160, 45), run_before=_preview(1))


def test_the_lifecycle_main_path_runs_to_the_successful_end_whatever_order_the_transitions_are_in(snap_compare: SnapCompare) -> None:
    from tests.tui.scenes import RENTAL_PATH, rental_engine

    app = ConsultApp(factory_for(rental_engine()))
    assert snap_compare(app, terminal_size=(160, 45), run_before=_preview(1, RENTAL_PATH, drafts=1))


def test_session_overview_lists_the_proposed_entities_and_relations(snap_compare: SnapCompare) -> None:
    from tests.tui.scenes import appointment_engine

    app = ConsultApp(factory_for(appointment_engine()))
    assert snap_compare(app, terminal_size=(160, 45), run_before=_preview(2))


BOOKING = "modules/shop/transaction/booking/entity.yaml"
BOOKING_BEFORE = """apiVersion: formspec.dev/v1
kind: Entity
metadata: {name: booking, module: shop}
spec:
  version: v1
  characteristic: transaction
  fields:
    - {name: customer, type: relation, relation: {type: belongs_to, resource: customer}}
    - {name: time, type: datetime}
"""
BOOKING_AFTER = BOOKING_BEFORE.replace(
    "    - {name: time, type: datetime}\n",
    "    - {name: starts_at, type: datetime, required: true}\n"
    "    - {name: barber, type: relation, relation: {type: belongs_to, resource: barber}}\n",
).replace("  characteristic: transaction\n", "  characteristic: transaction\n  display_field: starts_at\n")


def booking_blocks() -> DraftBlocks:
    """The booking draft's change, cut by the real splitter (store.blocks)."""
    rows = tuple(BlockRow(id=b.id, change=b.change, diff=b.diff()) for b in split_blocks(BOOKING_BEFORE, BOOKING_AFTER))
    return DraftBlocks(path=BOOKING, blocks=rows)


def partial_review() -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        from formspec_consult.tui.screens.blocks import BlocksScreen

        await after_first_turn()(pilot)
        pane = pilot.app.query_one(DiffPane)
        await pilot.press("ctrl+r")
        pane.select(BOOKING)
        await pilot.press("b")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, BlocksScreen))
        await pilot.press("down", "space", "down")  # drop the second block, look at the third
        await settle(pilot)

    return run_before


def test_partial_review_at_80x24(snap_compare: SnapCompare) -> None:
    engine = barbershop_engine()
    engine.blocks[BOOKING] = booking_blocks()
    assert snap_compare(ConsultApp(factory_for(engine)), terminal_size=(80, 24), run_before=partial_review())


def test_partial_review_at_160x45(snap_compare: SnapCompare) -> None:
    engine = barbershop_engine()
    engine.blocks[BOOKING] = booking_blocks()
    assert snap_compare(ConsultApp(factory_for(engine)), terminal_size=(160, 45), run_before=partial_review())


def changeset_engine() -> FakeEngine:
    """The barbershop session whose latest turn proposed four files: a change and a new entity the
    gate passes, a new entity it refuses, and one the person has applied already."""
    from formspec_consult.store.review_results import SettledRow
    from tests.tui.fakes import FakeDraft
    from tests.tui.scenes import APPOINTMENT, new_file_diff

    engine = barbershop_engine()
    appointment = "modules/booking/transaction/appointment/entity.yaml"
    customer = "modules/shop/master/customer/entity.yaml"
    engine.drafts[appointment] = FakeDraft(appointment, "new", True, [], new_file_diff(appointment, APPOINTMENT))
    engine.undo_stack.append(FakeDraft(customer, "new", True, [], new_file_diff(customer, BOOKING_BEFORE)))
    engine.settled[customer] = SettledRow(path=customer, file=f"spec/{customer}", state="applied", at=None)
    engine.turn_paths = [BOOKING, appointment, "modules/shop/master/barber/entity.yaml", customer]
    return engine


def turn_changes() -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        from formspec_consult.tui.screens.changes import ChangesScreen

        app = pilot.app
        assert isinstance(app, ConsultApp)
        app.query_one(PromptInput).cursor_blink = False
        await wait_until(pilot, lambda: app.engine is not None and len(app.query_one(DiffPane).drafts) == 4)
        app.send("I cut hair in Bandung, three chairs")
        await wait_until(pilot, lambda: app.query_one(StatusBar).info.state == "ready" and app.query("#choice-c"))
        await pilot.press("ctrl+r", "c")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ChangesScreen))
        await settle(pilot)

    return run_before


def test_turn_changeset_at_80x24(snap_compare: SnapCompare) -> None:
    assert snap_compare(ConsultApp(factory_for(changeset_engine())), terminal_size=(80, 24), run_before=turn_changes())


def test_turn_changeset_at_160x45(snap_compare: SnapCompare) -> None:
    assert snap_compare(ConsultApp(factory_for(changeset_engine())), terminal_size=(160, 45), run_before=turn_changes())
