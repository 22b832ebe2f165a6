"""Layout of the app: show/hide panes, resize the side column, switch the theme, small screens.

A mixin for ConsultApp, kept apart so the app module stays about the conversation itself.

Wide screens show the three panes side by side. Below `COMPACT_WIDTH` columns or
`COMPACT_HEIGHT` rows the app shows one pane at a time, with a row of tabs on top (click one, or
F2 chat · F3 tools · F4 diffs) so the way to the other panes stays visible.
"""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class Pane:
    """One pane of the app: its widget id, the key that shows it, its name, what gets the focus
    when it is entered, and whether it lives in the side column. A new pane is a row of `PANES`
    and its widget mounted in `ConsultApp` (compose, or `_after_first_frame` for a side pane):
    its key binding, tab and show/hide follow from the row."""

    id: str
    key: str
    name: str  # translatable (N_): shown through _()
    focus: str  # the widget id focused when the pane is entered (ctrl+r, its key on a small screen)
    side: bool  # in the side column (beside the conversation on a wide screen)

    @property
    def tab_id(self) -> str:
        return f"tab-{self.id}"

    tab: str  # the tab's label on a small screen, translatable (N_): shown through _()


CHAT = Pane(id="conversation-pane", key="f2", name=N_("Chat"), tab=N_("F2 Chat"), focus="prompt", side=False)
TOOLS = Pane(id="tools-pane", key="f3", name=N_("Tools"), tab=N_("F3 Tools"), focus="tool-list", side=True)
DIFFS = Pane(id="diff-pane", key="f4", name=N_("Diffs"), tab=N_("F4 Diffs"), focus="draft-list", side=True)
PANES = (CHAT, TOOLS, DIFFS)
SIDE = "side"  # the column holding the side panes
_BY_ID = {pane.id: pane for pane in PANES}


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
    active_pane: str = CHAT.id  # the pane shown on a small screen

    def _side_panes_ready(self) -> bool:
        # The side panes are mounted just after the first frame: a key pressed sooner waits.
        return all(self.query(f"#{pane.id}") for pane in PANES if pane.side)

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
            for widget_id, shown in (("#pane-tabs", self.compact), (f"#{SIDE}", not self.compact)):
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
            for pane in PANES:
                self.query_one(f"#{pane.id}").display = True
            self.query_one(f"#{SIDE}").display = True
            self._fit_side()

    def mark_new_drafts(self, count: int) -> None:
        """On a small screen, drafts arrived while another pane is shown: the Diffs tab says so
        (until the pane is shown). A wide screen shows the diffs pane beside the chat already."""
        if count and self.compact and self.active_pane != DIFFS.id:
            self._unseen_drafts += count
            self._label_diffs_tab()

    _unseen_drafts: int = 0

    def _label_diffs_tab(self) -> None:
        from textual.widgets import Tab

        for tab in self.query(f"#{DIFFS.tab_id}"):
            unseen = self._unseen_drafts
            tab_label = _(DIFFS.tab) + (" ● " + _("{n} new").format(n=unseen) if unseen else "")
            if isinstance(tab, Tab) and str(tab.label) != tab_label:
                tab.label = tab_label

    def _show_only(self, pane_id: str) -> None:
        if pane_id == DIFFS.id and self._unseen_drafts:
            self._unseen_drafts = 0
            self._label_diffs_tab()
        self.active_pane = pane_id
        # Reviewing on a small screen: toasts go to the bottom, off the Diffs header and badges.
        self.screen.set_class(pane_id == DIFFS.id, "-reviewing")
        for other in PANES:
            self.query_one(f"#{other.id}").display = other.id == pane_id
        self.query_one(f"#{SIDE}").display = _BY_ID[pane_id].side
        self._fit_side()
        tabs = self.query("#pane-tabs")
        if tabs:
            from textual.widgets import Tabs

            bar = tabs.first(Tabs)
            if bar.active != _BY_ID[pane_id].tab_id:
                bar.active = _BY_ID[pane_id].tab_id

    def _fit_side(self) -> None:
        """The side column takes the whole width when it is alone on screen."""
        side = self.query_one(f"#{SIDE}")
        alone = self.compact or not self.query_one(f"#{CHAT.id}").display
        side.styles.width = "1fr" if alone else f"{self.side_width}%"

    def on_tabs_tab_activated(self, event: object) -> None:
        tab = getattr(event, "tab", None)
        pane_id = (getattr(tab, "id", None) or "").removeprefix("tab-")
        if self.compact and pane_id in _BY_ID and pane_id != self.active_pane:
            self.show_pane(pane_id)

    def show_pane(self, pane_id: str, *, focus: bool = False) -> None:
        """Make `pane_id` visible (on a small screen: switch to it); focus it when asked."""
        if not self._side_panes_ready():
            return
        if self.compact:
            self._show_only(pane_id)
        else:
            self.query_one(f"#{pane_id}").display = True
            if _BY_ID[pane_id].side:
                self.query_one(f"#{SIDE}").display = True
            self._fit_side()
        if focus:
            if pane_id == DIFFS.id:  # entered on purpose: its review keys act (tui/review_keys.py)
                from formspec_consult.tui.widgets.diff_pane import DiffPane

                self.query_one(f"#{DIFFS.id}", DiffPane).armed = True
            # Now, not after a refresh (Widget.focus): a key typed right after ctrl+r lands there.
            self.screen.set_focus(self.query_one(f"#{_BY_ID[pane_id].focus}"))

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
        side = self.query_one(f"#{SIDE}")
        side.display = any(self.query_one(f"#{p.id}").display for p in PANES if p.side)
        if not side.display and not self.query_one(f"#{CHAT.id}").display:
            self.query_one(f"#{CHAT.id}").display = True  # never a blank screen
        self._fit_side()

    def action_resize_side(self, delta: int) -> None:
        self.side_width = max(SIDE_MIN, min(SIDE_MAX, self.side_width + delta))
        self._fit_side()

    def action_cycle_split(self) -> None:
        if not self._side_panes_ready():
            return
        self.split_index = (self.split_index + 1) % len(self.SPLITS)
        tools, diffs = self.SPLITS[self.split_index]
        self.query_one(f"#{TOOLS.id}").styles.height = f"{tools}fr"
        self.query_one(f"#{DIFFS.id}").styles.height = f"{diffs}fr"

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"

    def watch_theme(self, theme: str) -> None:
        # Rich's diff highlighting has its own palette: follow the app's light/dark.
        panes = self.query(f"#{DIFFS.id}")  # App.is_mounted is a method (always truthy)
        if not panes:  # before the first frame: the pane (and its module) comes just after it
            return
        from formspec_consult.tui.widgets.diff_pane import DiffPane

        for pane in panes.results(DiffPane):
            pane.syntax_theme = "ansi_dark" if self.current_theme.dark else "ansi_light"
