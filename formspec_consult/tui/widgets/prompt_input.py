"""The message input: plain text, slash commands (suggested as you type) and option letters.

A TextArea, not an Input, so that what the person writes keeps its lines: a multi-line paste
arrives as one bracketed paste (Textual turns on the terminal's bracketed-paste mode), is
inserted whole with its newlines — terminals and tmux send pasted line ends as CR, which is
read as a newline, never as Enter — and does not send anything; only an Enter typed on its own
sends. ctrl+j adds a line by hand; ctrl+g opens the text in $VISUAL/$EDITOR (tui/editor.py).

Input methods (Chinese, Japanese, Korean): the terminal composes, and sends the app only the
committed text, so no half-composed word can be sent; a commit of several characters at once
("早上好") arrives as several key presses, each inserted. Wide and combined characters are
measured in cells by the TextArea, and the terminal cursor follows the text cursor
(`App.cursor_position`), where the terminal draws the composition and its candidate window.
"""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from formspec_consult.i18n import N_, _
from formspec_consult.tui.localise import LocalisedBindings
from formspec_consult.tui.slash import SLASH_COMMANDS


class PromptInput(LocalisedBindings, TextArea):
    """Enter sends; `/` starts a command and the rest of the name is suggested (→ accepts).
    PageUp/PageDown scroll the conversation without leaving the prompt."""

    BINDINGS = [
        Binding("pageup", "app.scroll_conversation(-1)", N_("Scroll up"), show=False),
        Binding("pagedown", "app.scroll_conversation(1)", N_("Scroll down"), show=False),
        Binding("ctrl+j", "newline", N_("New line in the message"), show=False),
        Binding("ctrl+g", "edit_in_editor", N_("Write the message in $VISUAL / $EDITOR"), show=False),
    ]

    class Submitted(Message):
        """Enter was pressed: `value` is the whole text (lines included)."""

        def __init__(self, input: PromptInput, value: str) -> None:
            super().__init__()
            self.input = input
            self.value = value

        @property
        def control(self) -> PromptInput:
            return self.input

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            id=id,
            placeholder=_("Message the consultant — /help for commands, Esc cancels a running turn"),
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
        )
        self._commands = [f"/{c.name}" for c in SLASH_COMMANDS]

    # -- the Input-like surface the app and its tests use --------------------------------------

    @property
    def value(self) -> str:
        """The text of the message."""
        return self.text

    @value.setter
    def value(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    @property
    def cursor_position(self) -> int:
        """The cursor as an index into `value`."""
        row, column = self.cursor_location
        lines = self.text.split("\n")
        return sum(len(line) + 1 for line in lines[:row]) + column

    # -- keys ----------------------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":  # Enter sends; a pasted line end never comes this way
            event.stop()
            event.prevent_default()
            self.post_message(self.Submitted(self, self.text))
            return
        await super()._on_key(event)

    async def _on_paste(self, event: events.Paste) -> None:
        """A paste keeps its lines: CR and CRLF (how terminals send pasted line ends) become newlines."""
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")
        if text != event.text:
            event.stop()
            event.prevent_default()
            if not self.read_only:
                self.replace(text, *self.selection)
            return
        await super()._on_paste(event)

    def action_newline(self) -> None:
        self.insert("\n")

    def action_edit_in_editor(self) -> None:
        """ctrl+g: write the message in $VISUAL / $EDITOR (see tui/editor.py)."""
        from formspec_consult.tui.editor import edit_in_editor

        edit_in_editor(self)

    def update_suggestion(self) -> None:
        """The rest of a slash command's name, while one is being typed (→ accepts it)."""
        text = self.text
        self.suggestion = ""
        if text.startswith("/") and "\n" not in text and " " not in text and self.cursor_at_end_of_text:
            match = next((c for c in self._commands if c.startswith(text.lower()) and c != text.lower()), None)
            if match is not None:
                self.suggestion = match[len(text):]
