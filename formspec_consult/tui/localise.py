"""Key descriptions in the person's language.

`BINDINGS` are class attributes, built once at import, before (and whatever) the language is
chosen: their descriptions are written as catalogue marks (``N_("Review drafts")``) and
translated per instance here, when a node is made. Textual keeps each node's bindings as a copy
of its class's merged map (``DOMNode._bindings``, Textual pinned in pyproject.toml), which is
what the footer and the key handling read.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual.binding import Binding
from textual.dom import DOMNode

from formspec_consult.i18n import N_, _

# Descriptions of Textual's own bindings that the footer or /help show.
TEXTUAL_WORDS = (N_("Quit"), N_("palette"), N_("Copy selected text"), N_("Focus Next"), N_("Focus Previous"))


def described(description: str) -> str:
    """A binding's description in the interface language ("Option A": the word, then the letter)."""
    head, space, tail = description.rpartition(" ")
    if space and len(tail) == 1 and tail.isupper():
        return f"{_(head)} {tail}"
    return _(description)


def localised(binding: Binding) -> Binding:
    return replace(binding, description=described(binding.description),
                   tooltip=_(binding.tooltip) if binding.tooltip else binding.tooltip)


def localise_bindings(node: DOMNode) -> None:
    """Translate the descriptions of `node`'s own copy of its bindings."""
    table = node._bindings.key_to_bindings
    for key, bindings in table.items():
        table[key] = [localised(binding) for binding in bindings]


class LocalisedBindings:
    """Mixin for a screen, widget or app with BINDINGS: its key descriptions in the person's language."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        assert isinstance(self, DOMNode)
        localise_bindings(self)
