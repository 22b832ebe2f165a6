"""The approval prompt: the model asks to run a write tool (apply a draft, undo, reject, stop a
server); the person allows it once, allows it for this session, or denies it — with the draft's
diff on screen when there is one."""

from __future__ import annotations

from typing import Any

import yaml
from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalGroup, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from formspec_consult.agent.loop.permissions import Decision, PermissionRequest
from formspec_consult.i18n import N_, _
from formspec_consult.tui.localise import LocalisedBindings

# The screen's answers by the name a key or button gives (a binding's argument, a button's id).
_DECISIONS: dict[str, Decision] = {"allow_once": "allow_once", "allow_session": "allow_session", "deny": "deny"}


class PermissionScreen(LocalisedBindings, ModalScreen[Decision]):
    """`o` allow once · `s` allow for this session · `d` or Esc deny."""

    BINDINGS = [
        Binding("o", "decide('allow_once')", N_("Allow once")),
        Binding("s", "decide('allow_session')", N_("Allow for this session")),
        Binding("d", "decide('deny')", N_("Deny")),
        Binding("escape", "decide('deny')", N_("Deny")),
    ]

    def __init__(self, request: PermissionRequest, details: RenderableType | None = None) -> None:
        super().__init__(id="permission")
        self.request = request
        self.details = details

    def compose(self) -> ComposeResult:
        arguments: dict[str, Any] = self.request.arguments
        shown = yaml.safe_dump(arguments, sort_keys=False, allow_unicode=True).strip() if arguments else _("(none)")
        body: list[RenderableType] = [
            Text(self.request.summary, style="bold"),
            Text("\n" + _("Tool {tool}, with:").format(tool=self.request.name) + f"\n{shown}\n"),
        ]
        if self.details is not None:
            body.append(self.details)
        with Vertical(classes="dialog permission"):
            yield Static(Text(_("Permission needed — the consultant asks to change your project"), style="bold"))
            with VerticalScroll():
                yield Static(Group(*body))
            with HorizontalGroup(classes="permission-buttons"):
                yield Button(_("o  Allow once"), id="allow_once", variant="primary", compact=True)
                yield Button(_("s  Allow for this session"), id="allow_session", compact=True)
                yield Button(_("d  Deny (Esc)"), id="deny", variant="error", compact=True)

    def on_mount(self) -> None:
        self.query_one("#deny", Button).focus()  # the safe answer is the one Enter gives

    def action_decide(self, decision: str) -> None:
        self.dismiss(_DECISIONS[decision])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        decision = _DECISIONS.get(event.button.id or "")
        if decision is not None:
            self.dismiss(decision)
