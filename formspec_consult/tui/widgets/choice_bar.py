"""Options the consultant offered (`A) … B) …`) as buttons: click one, or press alt+letter."""

from __future__ import annotations

import re

from rich.text import Text
from textual.containers import HorizontalGroup
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Button

_LABEL = re.compile(r"^\s*\(?([A-Za-z])[).:]\s*(.*)$")


def option_letter(option: str, index: int) -> str:
    """The letter of an option line ("B) Monthly" → "B"); falls back to its position."""
    match = _LABEL.match(option)
    return match.group(1).upper() if match else chr(ord("A") + index)


class ChoiceBar(HorizontalGroup):
    """Shows the options of the latest reply; hidden when there are none."""

    options: reactive[tuple[str, ...]] = reactive((), recompose=True)

    class Picked(Message):
        """The user picked an option (by click or key); `letter` is e.g. "B"."""

        def __init__(self, letter: str, option: str) -> None:
            super().__init__()
            self.letter = letter
            self.option = option

    def compose(self):
        for index, option in enumerate(self.options):
            letter = option_letter(option, index)
            text = _LABEL.match(option)
            label = text.group(2) if text else option
            # A Text label: option wording such as "[optional]" must not be read as markup.
            yield Button(Text(f"{letter}) {label}"), id=f"choice-{letter.lower()}", classes="choice", compact=True)

    def watch_options(self, options: tuple[str, ...]) -> None:
        self.display = bool(options)

    def pick(self, letter: str) -> bool:
        """Pick the option with this letter; False when no such option is shown."""
        for index, option in enumerate(self.options):
            if option_letter(option, index) == letter.upper():
                self.post_message(self.Picked(letter.upper(), option))
                return True
        return False

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id and event.button.id.startswith("choice-"):
            self.pick(event.button.id.removeprefix("choice-"))
