"""Layout of the app: show/hide panes, resize the side column, switch the theme, small screens.

A mixin for ConsultApp, kept apart so the app module stays about the conversation itself.

Wide screens show the three panes side by side. Below `COMPACT_WIDTH` columns or
`COMPACT_HEIGHT` rows the app shows one pane at a time, with a row of tabs on top (click one, or
F2 chat · F3 tools · F4 diffs) so the way to the other panes stays visible.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events

from formspec_consult.i18n import N_, _

if TYPE_CHECKING:
    from textual.app import App

    _Base = App[None]
else:
    _Base = object

SIDE_MIN, SIDE_MAX = 20, 75  # percent of the screen width for the tools + diffs column
COMPACT_WIDTH, COMPACT_HEIGHT = 100, 26
PANES = ("conversation-pane", "tools-pane", "diff-pane")
TAB_LABELS = {"conversation-pane": N_("F2 Chat"), "tools-pane": N_("F3 Tools"), "diff-pane": N_("F4 Diffs")}


def is_compact(width: int, height: int) -> bool:
    """True when the screen is too small for the panes side by side."""
    return width < COMPACT_WIDTH or height < COMPACT_HEIGHT


class LayoutActions(_Base):
    """F2/F3/F4 toggle panes (switch to them on a small screen), F5 shifts the tools/diffs
    split, F6/F7 resize the side column, F8 switches light/dark."""

    side_width: int = 45
    SPLITS = ((2, 3), (1, 4), (1, 1), (3, 2), (4, 1))  # tools : diffs heights, F5 cycles
    split_index: int = 0
    compact: bool = False
    active_pane: str = "conversation-pane"  # the pane shown on a small screen

    def _side_panes_ready(self) -> bool:
        # The side panes are mounted just after the first frame: a key pressed sooner waits.
        return bool(self.query("#diff-pane"))

    # -- small screens ----------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self.apply_size(event.size.width, event.size.height)

    def apply_size(self, width: int, height: int) -> None:
        """Switch between side-by-side panes and one pane at a time for this screen size."""
        compact = is_compact(width, height)
        if compact == self.compact and self._layout_applied:
            return
        self.compact = compact
        self._apply_layout()

    _layout_applied: bool = False

    def _apply_layout(self) -> None:
        if not self._side_panes_ready():
            # The first frame, before the side panes exist: a small screen already shows one
            # pane at a time with its tabs, as every frame after it (not the wide layout's empty
            # side column beside a cut-off prompt). The rest is applied once they are mounted.
            self.screen.set_class(self.compact, "-compact")
            for widget_id, shown in (("#pane-tabs", self.compact), ("#side", not self.compact)):
                found = self.query(widget_id)
                if found:
                    found.first().display = shown
            return
        self._layout_applied = True
        self.screen.set_class(self.compact, "-compact")
        tabs = self.query("#pane-tabs")
        if tabs:
            tabs.first().display = self.compact
        if self.compact:
            self._show_only(self.active_pane)
        else:
            for pane_id in PANES:
                self.query_one(f"#{pane_id}").display = True
            self.query_one("#side").display = True
            self._fit_side()

    def mark_new_drafts(self, count: int) -> None:
        """On a small screen, drafts arrived while another pane is shown: the Diffs tab says so
        (until the pane is shown). A wide screen shows the diffs pane beside the chat already."""
        if count and self.compact and self.active_pane != "diff-pane":
            self._unseen_drafts += count
            self._label_diffs_tab()

    _unseen_drafts: int = 0

    def _label_diffs_tab(self) -> None:
        from textual.widgets import Tab

        for tab in self.query("#tab-diff-pane"):
            unseen = self._unseen_drafts
            tab_label = _(TAB_LABELS["diff-pane"]) + (" ● " + _("{n} new").format(n=unseen) if unseen else "")
            if isinstance(tab, Tab) and str(tab.label) != tab_label:
                tab.label = tab_label

    def _show_only(self, pane_id: str) -> None:
        if pane_id == "diff-pane" and self._unseen_drafts:
            self._unseen_drafts = 0
            self._label_diffs_tab()
        self.active_pane = pane_id
        # Reviewing on a small screen: toasts go to the bottom, off the Diffs header and badges.
        self.screen.set_class(pane_id == "diff-pane", "-reviewing")
        for other in PANES:
            self.query_one(f"#{other}").display = other == pane_id
        self.query_one("#side").display = pane_id != "conversation-pane"
        self._fit_side()
        tabs = self.query("#pane-tabs")
        if tabs:
            from textual.widgets import Tabs

            bar = tabs.first(Tabs)
            if bar.active != f"tab-{pane_id}":
                bar.active = f"tab-{pane_id}"

    def _fit_side(self) -> None:
        """The side column takes the whole width when it is alone on screen."""
        side = self.query_one("#side")
        alone = self.compact or not self.query_one("#conversation-pane").display
        side.styles.width = "1fr" if alone else f"{self.side_width}%"

    def on_tabs_tab_activated(self, event: object) -> None:
        tab = getattr(event, "tab", None)
        pane_id = (getattr(tab, "id", None) or "").removeprefix("tab-")
        if self.compact and pane_id in PANES and pane_id != self.active_pane:
            self.show_pane(pane_id)

    def show_pane(self, pane_id: str, *, focus: bool = False) -> None:
        """Make `pane_id` visible (on a small screen: switch to it); focus it when asked."""
        if not self._side_panes_ready():
            return
        if self.compact:
            self._show_only(pane_id)
        else:
            self.query_one(f"#{pane_id}").display = True
            if pane_id != "conversation-pane":
                self.query_one("#side").display = True
            self._fit_side()
        if focus:
            target = {"conversation-pane": "#prompt", "tools-pane": "#tool-list", "diff-pane": "#draft-list"}[pane_id]
            if pane_id == "diff-pane":  # entered on purpose: its review keys act (tui/review_keys.py)
                self.query_one("#diff-pane").armed = True  # type: ignore[attr-defined]
            # Now, not after a refresh (Widget.focus): a key typed right after ctrl+r lands there.
            self.screen.set_focus(self.query_one(target))

    # -- keys ---------------------------------------------------------------------------------

    def action_toggle_pane(self, pane_id: str) -> None:
        if not self._side_panes_ready():
            return
        if self.compact:
            self.show_pane(pane_id, focus=True)
            return
        pane = self.query_one(f"#{pane_id}")
        pane.display = not pane.display
        # An empty side column would still take its width: hide it with its last pane.
        side = self.query_one("#side")
        side.display = bool(self.query_one("#tools-pane").display or self.query_one("#diff-pane").display)
        if not side.display and not self.query_one("#conversation-pane").display:
            self.query_one("#conversation-pane").display = True  # never a blank screen
        self._fit_side()

    def action_resize_side(self, delta: int) -> None:
        self.side_width = max(SIDE_MIN, min(SIDE_MAX, self.side_width + delta))
        self._fit_side()

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
