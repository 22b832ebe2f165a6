"""The rewind screen: pick a turn of the conversation to go back to the end of (`/rewind`)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from formspec_consult.i18n import N_, _
from formspec_consult.store.rewind import Turn


class RewindScreen(ModalScreen[str | None]):
    """Dismisses with the command to run (`/rewind N --mode`), or None (Esc)."""

    BINDINGS = [
        Binding("escape", "dismiss(None)", N_("Close")),
        Binding("f", "pick('files')", N_("Files only")),
        Binding("c", "pick('conversation')", N_("Conversation only")),
    ]

    def __init__(self, turns: list[Turn]) -> None:
        super().__init__()
        self.turns = turns

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(_("[b]Rewind to the end of a turn[/b]  [dim]Enter: files and conversation · f: files and "
                           "drafts only · c: conversation only · Esc closes[/dim]"))
            yield Static(_("[dim]Later applies are undone (exact bytes), later drafts withdrawn; the log keeps "
                           "everything.[/dim]"))
            options = [Option(Text(_("0  before the first turn"), style="dim"), id="0")]
            for turn in self.turns:
                line = Text()
                line.append(f"{turn.number:>3}  ", style="bold")
                line.append(turn.said[:100])
                options.append(Option(line, id=str(turn.number)))
            option_list = OptionList(*options, id="turn-list")
            option_list.highlighted = len(options) - 1 if len(options) > 1 else 0
            yield option_list

    def _chosen(self) -> str | None:
        option_list = self.query_one(OptionList)
        index = option_list.highlighted
        return option_list.get_option_at_index(index).id if index is not None else None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(f"/rewind {event.option.id}")

    def action_pick(self, mode: str) -> None:
        turn = self._chosen()
        if turn is not None:
            self.dismiss(f"/rewind {turn} --{mode}")
