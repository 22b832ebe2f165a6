"""The turn changeset: the files one consultant turn proposed, as one set the person reviews.

Each file is listed new or modified, with the lines it adds and removes and what it is now (under
review and whether the gate passes it, or applied, rejected); the highlighted file's diff is below
the list. `a` then Enter accepts the set (each valid draft applied on its own: one event and one
undo step each), `r` rejects it (the app asks why, optionally); Esc closes.

Typing can never act here: the screen opens after a review key, so a person typing on may reach
it. Accepting needs `a` and then Enter, and any other printable key closes the screen and goes,
with the keys after it, to the prompt. The screen only asks: the app's review runs the answer
(store.review_flow).
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from formspec_consult.i18n import N_, _, ngettext
from formspec_consult.store.review_results import ChangeRow, TurnChanges
from formspec_consult.store.review_text import (
    change_counts,
    change_gate,
    changes_heading,
    changes_summary,
    state_label,
)
from formspec_consult.tui.screens.diff_list import DiffListScreen
from formspec_consult.tui.widgets.diff_pane import PaneColours, diff_lines, pane_colours

# The screen's answers: accept the set, reject it, or close and type on (the keys in `typed`).
ACCEPT, REJECT, TYPE = "accept", "reject", "type"
_ACTION_KEYS = frozenset({"a", "r"})


def change_line(row: ChangeRow, widths: tuple[int, int, int], colours: PaneColours) -> Text:
    """One file of the changeset on one row: status badge, +/- counts, state and gate, path (the
    path last, so a narrow screen cuts its end, not the verdict)."""
    status_width, count_width, gate_width = widths
    line = Text(no_wrap=True, overflow="ellipsis")
    badge = row.status or row.state
    line.append(f"[{state_label(badge)}]", style=colours.badge(badge))
    line.append(" " * (status_width + 3 - len(state_label(badge))))
    counts = change_counts(row)
    added = counts.split(" ")[0]
    line.append(added, style=colours.added)
    line.append(" ")
    line.append(counts[len(added) + 1:], style=colours.removed)
    line.append(" " * (count_width - len(counts) + 2))
    gate = change_gate(row)
    line.append(gate.ljust(gate_width), style=colours.error if row.valid is False else colours.muted)
    line.append("  ")
    line.append(row.path)
    return line


class ChangesScreen(DiffListScreen[str | None]):
    """Dismissed with "accept" (after `a`, Enter), "reject" (`r`), "type" (a printable key: the
    keys typed are in `typed`, for the prompt) or None (Esc)."""

    DIFF_VIEW = "changes-diff"
    BINDINGS = [
        Binding("escape", "close", N_("Close")),
    ]

    def __init__(self, changes: TurnChanges) -> None:
        super().__init__(id="changes")
        self.changes = changes
        self.confirming = False  # `a` was pressed: Enter accepts, any other key goes back
        self.typed: list[events.Key] = []  # keys for the prompt, once the screen closes on typing
        self._leaving = False

    def compose(self) -> ComposeResult:
        rows = self.changes.files
        widths = (max((len(state_label(r.status or r.state)) for r in rows), default=3),
                  max((len(change_counts(r)) for r in rows), default=5),
                  max((len(change_gate(r)) for r in rows), default=10))
        colours = pane_colours(self.app.get_css_variables())
        with Vertical(classes="dialog changes"):
            yield Static(Text(changes_heading(self.changes), style="bold", no_wrap=True, overflow="ellipsis"),
                         id="changes-title")
            yield Static(Text(self._keys_hint(), style="dim", no_wrap=True, overflow="ellipsis"), id="changes-keys")
            yield OptionList(*[Option(change_line(row, widths, colours), id=row.path) for row in rows],
                             id="changes-list")
            with VerticalScroll(id="changes-diff"):
                yield Static(id="changes-diff-text")
            yield Static(Text(changes_summary(self.changes)), id="changes-summary")

    def _keys_hint(self) -> str:
        if self.changes.open:
            return _("a accept the turn's set · r reject it · ↑↓ a file's diff · Esc close")
        return _("↑↓ a file's diff · Esc close")

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        listing.focus()
        if self.changes.files:
            listing.highlighted = 0
            self._show(0)

    def _show(self, index: int | None) -> None:
        if index is None or not 0 <= index < len(self.changes.files):
            return
        row = self.changes.files[index]
        colours = pane_colours(self.app.get_css_variables())
        body: RenderableType
        if row.diff:
            body = diff_lines(row.diff, colours)
        elif row.state == "rejected":
            body = Text(_("Rejected: the draft was discarded, the project is untouched."))
        elif row.state == "withdrawn":
            body = Text(_("Withdrawn by the consultant: it is no longer a draft."))
        else:
            body = Text(_("(its diff is not kept)"))
        self.query_one("#changes-diff-text", Static).update(Group(Text(row.path, style="bold"), body))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show(event.option_index)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()  # Enter on a file selects nothing; Enter after `a` is handled in on_key

    async def on_key(self, event: events.Key) -> None:
        if self._leaving:  # closing on typing: every key typed meanwhile goes to the prompt too
            self.typed.append(event)
            event.stop()
            event.prevent_default()
            return
        if self.confirming:
            self.confirming = False
            event.stop()
            event.prevent_default()
            if event.key == "enter":
                self.dismiss(ACCEPT)
                return
            self._say(changes_summary(self.changes))
            if not event.is_printable:
                return
        elif event.key == "enter":
            return
        if not event.is_printable:
            return
        event.stop()
        event.prevent_default()
        if event.key in _ACTION_KEYS and self.changes.open:
            if event.key == "r":
                self.dismiss(REJECT)
                return
            valid = sum(1 for row in self.changes.open if row.valid)
            if not valid:
                self._say(_("No draft of this turn passes the gate: there is nothing to accept (r rejects them)."),
                          bold=True)
                return
            self.confirming = True
            self._say(ngettext("Accept {n} draft of turn {turn}? Enter accepts · any other key goes back",
                               "Accept {n} drafts of turn {turn}? Enter accepts · any other key goes back",
                               valid).format(n=valid, turn=self.changes.turn), bold=True)
            return
        self._leaving = True  # typing: close, and hand this key (and any after it) to the prompt
        self.typed.append(event)
        self.dismiss(TYPE)

    def _say(self, text: str, *, bold: bool = False) -> None:
        self.query_one("#changes-summary", Static).update(Text(text, style="bold" if bold else ""))

    def action_close(self) -> None:
        self.dismiss(None)
