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
from formspec_consult.i18n import N_, _
from formspec_consult.tui.localise import LocalisedBindings


class TrustScreen(LocalisedBindings, ModalScreen[bool]):
    """`t` trust this folder · `n` or Esc not now (those settings stay off this session)."""

    BINDINGS = [
        Binding("t", "decide(True)", N_("Trust this folder")),
        Binding("n", "decide(False)", N_("Not now")),
        Binding("escape", "decide(False)", N_("Not now")),
    ]

    def __init__(self, request: TrustRequest) -> None:
        super().__init__(id="trust")
        self.request = request

    def compose(self) -> ComposeResult:
        wants = "\n".join(f"  • {line}" for line in self.request.wants)
        body = Text.assemble(
            (_("This project's settings ({keys}) ask to:").format(keys=", ".join(self.request.keys)), "bold"),
            f"\n{wants}\n\n",
            _("Trust this folder only if you know where this project comes from. Not now: these settings "
              "stay off for this session and the rest of the file applies; `formspec-consult trust` trusts "
              "it later."),
        )
        with Vertical(classes="dialog permission trust"):
            yield Static(Text(_("Trust the project folder {folder}?").format(folder=self.request.folder), style="bold"))
            with VerticalScroll():
                yield Static(body, id="trust-wants")
            with HorizontalGroup(classes="permission-buttons"):
                yield Button(_("t  Trust this folder"), id="trust-yes", compact=True)
                yield Button(_("n  Not now (Esc)"), id="trust-no", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#trust-no", Button).focus()  # Enter gives the safe answer

    def action_decide(self, trusted: bool) -> None:
        self.dismiss(trusted)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "trust-yes")
