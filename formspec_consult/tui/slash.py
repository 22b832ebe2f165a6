"""Slash commands in the app: the engine's one table and grammar (`agent.commands.slash`), and
/help as Markdown with the keys.

The app reads a command line exactly as the engine and headless runs do (`parse_slash`: the same
names, quoting and argument rules, the same error messages). Commands marked `ui` are handled by
the app itself (review actions go through the review workflow, like the diff pane's keys);
`engine` ones are sent to `Engine.run_turn`, which owns compaction and summaries.
"""

from __future__ import annotations

from formspec_consult.agent.commands.slash import (
    SLASH_COMMANDS,
    SlashCommand,
    SlashError,
    SlashSpec,
    is_command,
    parse_slash,
)
from formspec_consult.i18n import _

__all__ = ["SLASH_COMMANDS", "SlashCommand", "SlashError", "SlashSpec", "help_text", "is_command", "parse_slash"]


def help_text(keys: str = "") -> str:
    """Markdown: the keys first (`keys`, a table read from the app's bindings, see tui/key_list.py),
    then every command, one a line with what it does — a list, not a table: a table's columns are
    as wide as its longest usage (/rewind's), which left what a command does a narrow column of
    two or three words a line at 80 columns."""
    rows = "\n".join(f"- `{_(spec.usage)}` — {_(spec.help)}" for spec in SLASH_COMMANDS)
    head = "### " + _("Keys") + f"\n\n{keys}\n\n" if keys else ""
    return head + "### " + _("Commands") + f"\n\n{rows}\n"
