"""Finished conversation entries that are not streamed replies: user messages and notices.

Each is a single widget, since long sessions mount many of them.
"""

from __future__ import annotations

import re

from rich.markup import escape
from textual.widgets import Static

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
