"""The message input: plain text, slash commands (suggested as you type) and option letters."""

from __future__ import annotations

from textual.binding import Binding
from textual.suggester import SuggestFromList
from textual.widgets import Input

from formspec_consult.i18n import N_, _
from formspec_consult.tui.localise import LocalisedBindings
from formspec_consult.tui.slash import SLASH_COMMANDS


class PromptInput(LocalisedBindings, Input):
    """Enter sends; `/` starts a command and the rest of the name is suggested (→ accepts).
    PageUp/PageDown scroll the conversation without leaving the prompt."""

    BINDINGS = [
        Binding("pageup", "app.scroll_conversation(-1)", N_("Scroll up"), show=False),
        Binding("pagedown", "app.scroll_conversation(1)", N_("Scroll down"), show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            placeholder=_("Message the consultant — /help for commands, Esc cancels a running turn"),
            suggester=SuggestFromList([f"/{c.name}" for c in SLASH_COMMANDS], case_sensitive=False),
            id=id,
        )
