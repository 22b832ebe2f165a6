"""The keys /help lists, read from the bindings themselves — the app's, the screen's, the prompt's
and the diffs pane's — so the list cannot drift from what the keys do.

Each binding says its key and its description; the places it works are the groups below. Bindings
that only differ by letter (alt+a … alt+f) are listed once.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.binding import Binding, BindingType

from formspec_consult.i18n import _, pgettext
from formspec_consult.tui.localise import described

# How a few key names read to a person (Textual's names otherwise, e.g. "ctrl+r").
_SPELLED = {"escape": "Esc", "pageup": "PageUp", "pagedown": "PageDown", "tab": "Tab", "shift+tab": "shift+Tab",
            "enter": "Enter", "space": "Space", "plus": "+", "minus": "-", "equals_sign": "="}
# Internal or duplicate bindings a person never needs listed.
_LEFT_OUT = {"screen.copy_text", "help_quit", "app.focus_previous"}


def _spell(key: str) -> str:
    return " / ".join(_SPELLED.get(k.strip(), k.strip()) for k in key.split(","))


def _bindings(sources: Iterable[BindingType]) -> list[Binding]:
    return [b for b in sources if isinstance(b, Binding)]


def key_rows(groups: Iterable[tuple[str, Iterable[BindingType]]]) -> list[tuple[str, str, str]]:
    """(where, keys, what it does) for every binding of each (where, bindings) group."""
    rows: list[tuple[str, str, str]] = []
    for where, sources in groups:
        picks: list[Binding] = []
        for binding in _bindings(sources):
            if binding.action in _LEFT_OUT or not binding.description:
                continue
            if binding.action.startswith("pick("):  # alt+a … alt+f: one row
                picks.append(binding)
                continue
            rows.append((where, _spell(binding.key), described(binding.description)))
        if picks:
            rows.append((where, f"{_spell(picks[0].key)} … {_spell(picks[-1].key)}",
                         f"{described(picks[0].description)} … {described(picks[-1].description)}"))
    return rows


def keys_markdown(rows: Iterable[tuple[str, str, str]]) -> str:
    """The rows as a Markdown table (a "|" in a cell is escaped: it would end the cell)."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| " + " | ".join((_("where"), pgettext("keyboard", "key"), _("what it does"))) + " |", "|---|---|---|"]
    lines += [f"| {cell(where)} | `{cell(keys)}` | {cell(what)} |" for where, keys, what in rows]
    return "\n".join(lines)
