"""Helpers for the app's Pilot tests: bounded waits instead of pauses."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import pytest
from textual.app import App
from textual.pilot import Pilot

from formspec_consult.agent.engine.port import EngineLike
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.screens.text_screen import TextScreen

SIZE = (130, 40)

# pytest-textual-snapshot's fixture: snap_compare(app, terminal_size=..., run_before=...) -> bool
SnapCompare = Callable[..., bool]


async def wait_until(pilot: Pilot[None], predicate: Callable[[], object], *, timeout: float = 10.0) -> None:
    """Let the app process messages until `predicate()` is true; fail after `timeout` seconds."""
    with anyio.fail_after(timeout):
        while not predicate():
            await pilot.pause()


def text_screen(app: App[None]) -> TextScreen:
    """The text screen (/help, /status, a log) the app shows; any other screen fails the test."""
    screen = app.screen
    assert isinstance(screen, TextScreen), f"a text screen was expected, not {type(screen).__name__}"
    return screen


def consult_app(pilot: Pilot[None]) -> ConsultApp:
    """The app a pilot drives, as the ConsultApp it is."""
    app = pilot.app
    assert isinstance(app, ConsultApp)
    return app


def opened(app: ConsultApp) -> EngineLike:
    """The app's engine, which the test waited to be open."""
    engine = app.engine
    assert engine is not None, "the engine is not open yet"
    return engine


def notices(app: ConsultApp) -> list[str]:
    """Messages of the notifications raised so far."""
    return list(app.recent_notices)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def widget_text(widget: object) -> str:
    """The text a widget currently paints (its own content, as on screen)."""
    from textual.widget import Widget

    assert isinstance(widget, Widget)
    return "\n".join(strip.text for strip in widget.render_lines(widget.size.region))
