"""A modal that shows Markdown or plain text: help, status, a server log."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

from formspec_consult.i18n import N_, _
from formspec_consult.tui.localise import LocalisedBindings


class TextScreen(LocalisedBindings, ModalScreen[None]):
    """Esc or q closes it. `markdown=False` shows the text verbatim (logs)."""

    BINDINGS = [Binding("escape", "dismiss", N_("Close")), Binding("q", "dismiss", N_("Close"))]

    def __init__(self, title: str, text: str, *, markdown: bool = True) -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(_("[b]{title}[/b]  [dim]Esc closes[/dim]").format(title=escape(self.title_text)))  # titles hold paths
            with VerticalScroll():
                yield Markdown(self.text) if self.markdown else Static(self.text, markup=False)

    def on_mount(self) -> None:
        if not self.markdown:
            self.query_one(VerticalScroll).scroll_end(animate=False)
