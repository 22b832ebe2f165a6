"""Finished conversation entries that are not streamed replies: user messages and notices.

Each is a single widget (long sessions mount many); a compaction is a Collapsible holding the
summary, so it stays readable on demand.
"""

from __future__ import annotations

import re

from rich.markup import escape
from textual.widgets import Collapsible, Static

_LABELS = {"user": "You", "notice-warning": "Warning", "notice-error": "Error"}
_CHOSEN = re.compile(r"^\[chosen: (.*)\]$", re.S)  # how the engine records a picked option


class MessageBlock(Static):
    """`role` is a CSS class (`user`, `notice-info`, `notice-warning`, `notice-error`) so the
    stylesheet, not the code, decides how each kind looks."""

    def __init__(self, role: str, text: str) -> None:
        label = _LABELS.get(role)
        chosen = _CHOSEN.match(text) if role == "user" else None
        if chosen:
            label, shown = "You picked", chosen.group(1)
        else:
            shown = text
        markup = f"[b]{label}[/b]\n{escape(shown)}" if label else escape(shown)
        super().__init__(markup, classes=f"block {role}")
        self.role = role
        self.text = text


class CompactionBlock(Collapsible):
    """A compaction notice; expanding it shows the structured summary that replaced old turns."""

    def __init__(self, summary: str, title: str) -> None:
        super().__init__(title=title, collapsed=True, classes="block compaction")
        self.role = "compaction"
        self.text = summary

    def on_collapsible_expanded(self, event: Collapsible.Expanded) -> None:
        # Build the Markdown only when first opened: most summaries are never expanded.
        from textual.widgets import Markdown  # markdown-it loads on first use, not at start-up

        if event.collapsible is self and not self.query(Markdown):
            self.query_one(Collapsible.Contents).mount(Markdown(self.text, classes="summary"))
