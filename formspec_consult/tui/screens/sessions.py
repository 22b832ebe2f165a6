"""The sessions screen: pick an earlier session of this project to resume it."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from formspec_consult.i18n import N_, _, format_when
from formspec_consult.tui.localise import LocalisedBindings
from formspec_consult.tui.session_list import SessionSummary


class SessionsScreen(LocalisedBindings, ModalScreen[str | None]):
    """Dismisses with the chosen session id, or None (Esc)."""

    BINDINGS = [Binding("escape", "dismiss(None)", N_("Close"))]

    def __init__(self, sessions: list[SessionSummary], current: str | None = None) -> None:
        super().__init__()
        self.sessions = sessions
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(_("[b]Sessions[/b]  [dim]Enter resumes · Esc closes[/dim]"))
            if not self.sessions:
                yield Static(_("No earlier sessions in this project."))
            options = []
            for summary in self.sessions:
                line = Text()
                line.append(summary.session_id, style="bold")
                if summary.session_id == self.current:
                    line.append(" " + _("(current)"), style="italic")
                line.append(f"  {format_when(summary.modified)}  ", style="dim")
                line.append(summary.title)
                options.append(Option(line, id=summary.session_id))
            yield OptionList(*options, id="session-list")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)
