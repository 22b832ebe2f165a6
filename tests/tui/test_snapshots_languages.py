"""The main screens in each interface language, at 80x24 and 160x45 (pytest-textual-snapshot).

The consultation after its first turn, the review of a refused draft, the preview of an Entity
draft, and /help, in English and in Indonesian: every label, key hint, state, heading and toast
of the app comes from the catalogues (the consultant's own words are the scripted model's). The
language is the process's (i18n.use_language), chosen before the app is built, as the command
line does. Update with `--snapshot-update` and look at the SVGs before committing.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from textual.pilot import Pilot

from formspec_consult import i18n
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.widgets.diff_pane import DiffPane
from formspec_consult.tui.widgets.prompt_input import PromptInput
from tests.tui.conftest import SnapCompare, wait_until
from tests.tui.fakes import factory_for
from tests.tui.scenes import appointment_engine, barbershop_engine
from tests.tui.test_snapshots import _preview, after_first_turn, settle

LANGUAGES = ["en", "id"]
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 45), id="160x45")]


@pytest.fixture(params=LANGUAGES)
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    i18n.use_language(request.param)
    try:
        yield request.param
    finally:
        i18n.use_language("en")


@pytest.mark.parametrize("size", SIZES)
def test_main_screen_after_a_discovery_turn(snap_compare: SnapCompare, language: str, size: tuple[int, int]) -> None:
    app = ConsultApp(factory_for(barbershop_engine()))
    assert snap_compare(app, terminal_size=size, run_before=after_first_turn())


@pytest.mark.parametrize("size", SIZES)
def test_review_of_a_refused_draft(snap_compare: SnapCompare, language: str, size: tuple[int, int]) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await after_first_turn()(pilot)
        if pilot.app.size.width < 100:
            await pilot.press("f4")  # one pane at a time: the Diffs tab
        await pilot.press("ctrl+r")
        pilot.app.query_one(DiffPane).select("modules/shop/master/barber/entity.yaml")
        await settle(pilot)

    app = ConsultApp(factory_for(barbershop_engine()))
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_preview_of_an_entity_draft(snap_compare: SnapCompare, language: str, size: tuple[int, int]) -> None:
    app = ConsultApp(factory_for(appointment_engine()))
    assert snap_compare(app, terminal_size=size, run_before=_preview(1))


@pytest.mark.parametrize("size", SIZES)
def test_help_screen(snap_compare: SnapCompare, language: str, size: tuple[int, int]) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, ConsultApp)
        app.query_one(PromptInput).cursor_blink = False
        await wait_until(pilot, lambda: app.engine is not None)
        app.router.handle("/help")
        await wait_until(pilot, lambda: app.screen.id != "_default")
        await pilot.pause()

    assert snap_compare(ConsultApp(factory_for(barbershop_engine())), terminal_size=size, run_before=run_before)


def test_the_indonesian_screen_really_is_in_indonesian() -> None:
    """The snapshots above are compared with themselves; this says what the Indonesian ones hold."""
    import asyncio

    from formspec_consult.tui.widgets.status_bar import StatusBar

    async def run() -> tuple[str, str, str]:
        app = ConsultApp(factory_for(barbershop_engine()))
        async with app.run_test(size=(160, 45)) as pilot:
            await after_first_turn()(pilot)
            shown = app.screen.active_bindings.values()
            footer = " ".join(active.binding.description for active in shown if active.binding.show)
            return str(app.query_one(StatusBar).render()), footer, str(app.query_one(PromptInput).placeholder)

    i18n.use_language("id")
    try:
        status, footer, placeholder = asyncio.run(run())
    finally:
        i18n.use_language("en")
    assert "siap" in status and "pemadatan" in status
    assert "Tinjau draf" in footer and "Review drafts" not in footer
    assert placeholder.startswith("Tulis pesan untuk konsultan")
