"""Helpers for the app's Pilot tests: bounded waits instead of pauses."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import pytest
from textual.pilot import Pilot

from formspec_consult.tui.app import ConsultApp

SIZE = (130, 40)


async def wait_until(pilot: Pilot, predicate: Callable[[], object], *, timeout: float = 10.0) -> None:
    """Let the app process messages until `predicate()` is true; fail after `timeout` seconds."""
    with anyio.fail_after(timeout):
        while not predicate():
            await pilot.pause()


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
