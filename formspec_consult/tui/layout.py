"""Layout actions of the app: show/hide panes, resize the side column, switch the theme.

A mixin for ConsultApp, kept apart so the app module stays about the conversation itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App

    _Base = App[None]
else:
    _Base = object

SIDE_MIN, SIDE_MAX = 20, 75  # percent of the screen width for the tools + diffs column


class LayoutActions(_Base):
    """F2/F3/F4 toggle panes, F5 shifts the tools/diffs split, F6/F7 resize the side column,
    F8 switches light/dark."""

    side_width: int = 45
    SPLITS = ((2, 3), (1, 4), (1, 1), (3, 2), (4, 1))  # tools : diffs heights, F5 cycles
    split_index: int = 0

    def _side_panes_ready(self) -> bool:
        # The side panes are mounted just after the first frame: a key pressed sooner waits.
        return bool(self.query("#diff-pane"))

    def action_toggle_pane(self, pane_id: str) -> None:
        if not self._side_panes_ready():
            return
        pane = self.query_one(f"#{pane_id}")
        pane.display = not pane.display
        # An empty side column would still take its width: hide it with its last pane.
        side = self.query_one("#side")
        side.display = bool(self.query_one("#tools-pane").display or self.query_one("#diff-pane").display)

    def action_resize_side(self, delta: int) -> None:
        self.side_width = max(SIDE_MIN, min(SIDE_MAX, self.side_width + delta))
        self.query_one("#side").styles.width = f"{self.side_width}%"

    def action_cycle_split(self) -> None:
        if not self._side_panes_ready():
            return
        self.split_index = (self.split_index + 1) % len(self.SPLITS)
        tools, diffs = self.SPLITS[self.split_index]
        self.query_one("#tools-pane").styles.height = f"{tools}fr"
        self.query_one("#diff-pane").styles.height = f"{diffs}fr"

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"

    def watch_theme(self, theme: str) -> None:
        # Rich's diff highlighting has its own palette: follow the app's light/dark.
        for pane in self.query("#diff-pane"):  # App.is_mounted is a method (always truthy)
            pane.syntax_theme = "ansi_dark" if self.current_theme.dark else "ansi_light"  # type: ignore[attr-defined]
