"""Rejecting a draft: the person may say why, and the consultant is told with the rejection.

Enter rejects (with the reason typed, or none), Esc keeps the draft: the dialog asks, the diffs
pane's `r` and the app's review decide nothing here (the answer goes back as the screen's result).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from formspec_consult.i18n import N_, _
from formspec_consult.store.review import MAX_REASON
from formspec_consult.tui.localise import LocalisedBindings


class ReasonScreen(LocalisedBindings, ModalScreen[str | None]):
    """Dismissed with the reason ("" for none) on Enter, None on Esc (nothing rejected)."""

    BINDINGS = [Binding("escape", "keep", N_("Keep the draft"))]

    def __init__(self, path: str, *, title: str | None = None, enter: str | None = None) -> None:
        super().__init__(id="reason")
        self.path = path
        self.title_text = title  # default: "Reject PATH?"
        self.enter = enter  # default: what Enter and Esc do when rejecting

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog reason"):
            yield Static(Text.assemble((self.title_text or _("Reject {path}?").format(path=self.path), "bold"),
                                       "  " + _("Why? (optional — the consultant is told)")))
            yield Input(placeholder=_("e.g. keep the phone number optional"), max_length=MAX_REASON, id="reason-input")
            yield Static(Text(self.enter or _("Enter rejects · Esc keeps the draft"), style="dim"))

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_keep(self) -> None:
        self.dismiss(None)
