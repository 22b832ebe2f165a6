"""Every piece of text the screen paints reads against its background (WCAG 2.x ratios): 4.5:1 for
text, 3:1 for badges and the footer's key hints, in the dark and the light theme.

The ratios are computed from the colours actually painted (after Textual's own filters), so a
theme colour, a Rich style or a CSS rule that makes text faint fails here.
"""

from __future__ import annotations

import pytest
from rich.segment import Segment
from textual.color import Color
from textual.pilot import Pilot

from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.contrast import BADGE_MIN, TEXT_MIN, ratio
from formspec_consult.tui.widgets.choice_bar import ChoiceBar
from tests.tui.conftest import wait_until
from tests.tui.fakes import factory_for
from tests.tui.scenes import barbershop_engine

pytestmark = pytest.mark.anyio

_NOT_TEXT = set("▏▕▔▁▎▊▌▐█▀▄▅▆▇▃▂╸╺━─│┃╇╋┏┓┗┛┌┐└┘▶▼◀▲")


def _is_text(text: str) -> bool:
    return any(not ch.isspace() and ch not in _NOT_TEXT and not 0x2500 <= ord(ch) <= 0x259F for ch in text)


def faint_text(app: ConsultApp) -> list[tuple[float, str, int]]:
    """(ratio, text, row) of every painted text segment below its minimum ratio."""
    strips = app.screen._compositor.render_strips()
    background = Color.parse(app.get_css_variables()["background"])
    faint = []
    for row, strip in enumerate(strips):
        segments: list[Segment] = list(strip)
        for line_filter in app._filters:
            segments = line_filter.apply(segments, background)
        footer = row == len(strips) - 1
        for segment in segments:
            style = segment.style
            if not _is_text(segment.text) or style is None:
                continue
            assert style.color is not None and style.bgcolor is not None, segment
            fg, bg = style.color.triplet, style.bgcolor.triplet
            assert fg is not None and bg is not None
            badge = segment.text.startswith("[") and segment.text.endswith("]")
            minimum = BADGE_MIN if footer or badge else TEXT_MIN
            value = ratio(Color(*fg), Color(*bg))
            if value < minimum:
                faint.append((round(value, 2), segment.text.strip()[:40], row))
    return faint


async def _discovery_turn_with_a_refused_draft(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, ConsultApp)
    await wait_until(pilot, lambda: app.engine is not None and len(app.diff_pane.drafts) == 2)
    app.send("I cut hair in Bandung")
    await wait_until(pilot, lambda: app.query_one(ChoiceBar).query("#choice-c"))
    app.diff_pane.select("modules/shop/master/barber/entity.yaml")
    await pilot.pause()
    await pilot.pause()


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
async def test_every_text_on_the_main_screen_reads_in_both_themes(theme: str, size: tuple[int, int]) -> None:
    app = ConsultApp(factory_for(barbershop_engine()), theme=theme)
    async with app.run_test(size=size) as pilot:
        await _discovery_turn_with_a_refused_draft(pilot)
        assert faint_text(app) == []
        if size == (80, 24):  # the diffs tab, with its badges and problems
            await pilot.press("f4")
            await pilot.pause()
            assert faint_text(app) == []


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("severity", ["information", "warning", "error"])
async def test_a_toast_reads_in_both_themes(theme: str, severity: str) -> None:
    app = ConsultApp(factory_for(barbershop_engine()), theme=theme)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await wait_until(pilot, lambda: app.engine is not None and len(app.diff_pane.drafts) == 2)
        app.notify("Review the draft in the diff pane. Space continues.", title="Diff review",
                   severity=severity, timeout=60)  # type: ignore[arg-type]
        await wait_until(pilot, lambda: app.screen.query("Toast"))
        await pilot.pause()
        assert faint_text(app) == []
