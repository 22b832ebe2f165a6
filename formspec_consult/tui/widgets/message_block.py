"""Static blocks of the conversation: the user's messages, notices and compaction summaries."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Collapsible, Markdown, Static


class MessageBlock(Vertical):
    """One finished entry of the conversation that is not a streamed reply.

    `role` is a CSS class (`user`, `notice-info`, `notice-warning`, `notice-error`, `compaction`,
    `pruned`) so the stylesheet, not the code, decides how each kind looks.
    """

    def __init__(self, role: str, text: str, *, title: str | None = None, collapsed: bool = True) -> None:
        super().__init__(classes=f"block {role}")
        self.role = role
        self.text = text
        self._title = title
        self._collapsed = collapsed

    def compose(self) -> ComposeResult:
        if self.role == "compaction":
            # The summary replaces old turns in the model's context: keep it readable on demand.
            with Collapsible(title=self._title or "History compacted", collapsed=self._collapsed):
                yield Markdown(self.text, classes="summary")
        elif self.role == "user":
            yield Static("[b]You[/b]", classes="who")
            yield Static(escape(self.text), classes="user-text")
        else:
            yield Static(escape(self.text), classes="notice-text")
