"""Finished conversation entries that are not streamed replies: user messages and notices.

Each is a single widget, since long sessions mount many of them.
"""

from __future__ import annotations

import re

from rich.markup import escape
from textual.widgets import Static

from formspec_consult.i18n import N_, _

_LABELS = {"user": N_("You"), "notice-warning": N_("Warning"), "notice-error": N_("Error")}
_CHOSEN = re.compile(r"^\[chosen: (.*)\]$", re.S)  # how the engine records a picked option


class MessageBlock(Static):
    """`role` is a CSS class (`user`, `notice-info`, `notice-warning`, `notice-error`) so the
    stylesheet, not the code, decides how each kind looks."""

    def __init__(self, role: str, text: str) -> None:
        label = _(_LABELS[role]) if role in _LABELS else None
        chosen = _CHOSEN.match(text) if role == "user" else None
        if chosen:
            label, shown = _("You picked"), chosen.group(1)
        else:
            shown = text
        markup = f"[b]{label}[/b]\n{escape(shown)}" if label else escape(shown)
        super().__init__(markup, classes=f"block {role}")
        self.role = role
        self.text = text
