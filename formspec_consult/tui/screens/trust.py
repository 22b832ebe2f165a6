"""The folder-trust question: a project's settings ask for what only the person may allow (MCP
servers that run commands, a model endpoint, a key variable, write tools without asking). Asked
once, before anything of the project's settings runs; trusting records the folder with the
file's hash (`config.trust`), so a changed file asks again."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalGroup, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from formspec_consult.config.trust import TrustRequest


class TrustScreen(ModalScreen[bool]):
    """`t` trust this folder · `n` or Esc not now (those settings stay off this session)."""

    BINDINGS = [
        Binding("t", "decide(True)", "Trust this folder"),
        Binding("n", "decide(False)", "Not now"),
        Binding("escape", "decide(False)", "Not now"),
    ]

    def __init__(self, request: TrustRequest) -> None:
        super().__init__(id="trust")
        self.request = request

    def compose(self) -> ComposeResult:
        wants = "\n".join(f"  • {line}" for line in self.request.wants)
        body = Text.assemble(
            ("This project's settings ", "bold"),
            f"({', '.join(self.request.keys)}) ask to:\n{wants}\n\n",
            "Trust this folder only if you know where this project comes from. Not now: these settings "
            "stay off for this session and the rest of the file applies; `formspec-consult trust` trusts "
            "it later.",
        )
        with Vertical(classes="dialog permission trust"):
            yield Static(Text(f"Trust the project folder {self.request.folder}?", style="bold"))
            with VerticalScroll():
                yield Static(body, id="trust-wants")
            with HorizontalGroup(classes="permission-buttons"):
                yield Button("t  Trust this folder", id="trust-yes", compact=True)
                yield Button("n  Not now (Esc)", id="trust-no", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#trust-no", Button).focus()  # Enter gives the safe answer

    def action_decide(self, trusted: bool) -> None:
        self.dismiss(trusted)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "trust-yes")
