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

from formspec_consult.store.review import MAX_REASON


class ReasonScreen(ModalScreen[str | None]):
    """Dismissed with the reason ("" for none) on Enter, None on Esc (nothing rejected)."""

    BINDINGS = [Binding("escape", "keep", "Keep the draft")]

    def __init__(self, path: str, *, verb: str = "Reject", enter: str = "Enter rejects · Esc keeps the draft") -> None:
        super().__init__(id="reason")
        self.path = path
        self.verb = verb
        self.enter = enter

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog reason"):
            yield Static(Text.assemble((f"{self.verb} {self.path}?", "bold"),
                                       "  Why? (optional — the consultant is told)"))
            yield Input(placeholder="e.g. keep the phone number optional", max_length=MAX_REASON, id="reason-input")
            yield Static(Text(self.enter, style="dim"))

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_keep(self) -> None:
        self.dismiss(None)
