"""Options the consultant offered (`A) … B) …`) as buttons: click one, or press alt+letter.

One option per line, so every option stays visible however narrow the screen (a long one is
cut with an ellipsis; its full text is what is sent). Whatever the options tuple holds (an old
session, a replay), only lettered options A…F with distinct letters become buttons: nothing in a
reply can give a button an id Textual refuses.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.text import Text
from textual.containers import VerticalGroup
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Button

if TYPE_CHECKING:
    from textual.app import ComposeResult

_LABEL = re.compile(r"^\s*\(?([A-Za-z])[).:]\s*(.*)$")
LETTERS = "ABCDEF"  # alt+a … alt+f


def option_letter(option: str, index: int) -> str:
    """The letter of an option line ("B) Monthly" → "B"); falls back to its position."""
    match = _LABEL.match(option)
    return match.group(1).upper() if match else chr(ord("A") + index)


def shown_options(options: tuple[str, ...]) -> tuple[tuple[str, str, str], ...]:
    """(letter, label, option) for each option that can be a button: letters A…F, each once."""
    out: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for index, option in enumerate(options[: len(LETTERS)]):
        letter = option_letter(option, index)
        if letter not in LETTERS or letter in seen:
            continue
        seen.add(letter)
        match = _LABEL.match(option)
        out.append((letter, match.group(2) if match else option, option))
    return tuple(out)


class ChoiceBar(VerticalGroup):
    """Shows the options of the latest reply, one per line; hidden when there are none."""

    options: reactive[tuple[str, ...]] = reactive((), recompose=True)

    class Picked(Message):
        """The user picked an option (by click or key); `letter` is e.g. "B"."""

        def __init__(self, letter: str, option: str) -> None:
            super().__init__()
            self.letter = letter
            self.option = option

    def compose(self) -> ComposeResult:
        for letter, label, _ in shown_options(self.options):
            # A Text label: option wording such as "[optional]" must not be read as markup.
            yield Button(Text(f"{letter}) {label}", no_wrap=True, overflow="ellipsis"),
                         id=f"choice-{letter.lower()}", classes="choice", compact=True)

    def watch_options(self, options: tuple[str, ...]) -> None:
        self.display = bool(shown_options(options))

    def pick(self, letter: str) -> bool:
        """Pick the option with this letter; False when no such option is shown."""
        for shown, _, option in shown_options(self.options):
            if shown == letter.upper():
                self.post_message(self.Picked(shown, option))
                return True
        return False

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id and event.button.id.startswith("choice-"):
            self.pick(event.button.id.removeprefix("choice-"))
