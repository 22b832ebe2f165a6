"""WCAG contrast of colour pairs, and theme colours made readable on a given background.

The app takes its colours from the Textual theme; a theme colour that is too faint on the
background it is drawn on (4.5:1 for text, 3:1 for badges and key hints) is darkened or
lightened until it reads. Pure functions, so the test can check every pair the screen paints.
"""

from __future__ import annotations

from textual.color import Color

TEXT_MIN, BADGE_MIN = 4.5, 3.0


def _channel(value: int) -> float:
    v = value / 255
    return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4


def luminance(colour: Color) -> float:
    """Relative luminance (WCAG 2.x)."""
    return 0.2126 * _channel(colour.r) + 0.7152 * _channel(colour.g) + 0.0722 * _channel(colour.b)


def ratio(a: Color, b: Color) -> float:
    """Contrast ratio between two opaque colours, 1…21."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def readable(colour: Color, background: Color, minimum: float = TEXT_MIN) -> Color:
    """`colour` (blended onto `background` if translucent), moved towards black or white, whichever
    side of the background it is on, until it reaches `minimum` contrast."""
    colour = background.blend(colour.with_alpha(1.0), colour.a) if colour.a < 1 else colour
    if ratio(colour, background) >= minimum:
        return colour
    target = Color(0, 0, 0) if luminance(background) > 0.18 else Color(255, 255, 255)
    for step in range(1, 21):
        candidate = colour.blend(target, step / 20)
        if ratio(candidate, background) >= minimum:
            return candidate
    return target


def ink_on(background: Color) -> Color:
    """Black or white, whichever reads better on `background` (for badges drawn as blocks)."""
    black, white = Color(0, 0, 0), Color(255, 255, 255)
    return black if ratio(black, background) >= ratio(white, background) else white
