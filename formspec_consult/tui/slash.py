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

__all__ = ["SLASH_COMMANDS", "SlashCommand", "SlashError", "SlashSpec", "help_text", "is_command", "parse_slash"]


def help_text() -> str:
    """Markdown listing every command and the keys."""
    # A "|" inside a table cell ends the cell in Markdown, even in code: escape it.
    rows = "\n".join(f"| `{spec.usage.replace('|', chr(92) + '|')}` | {spec.help} |" for spec in SLASH_COMMANDS)
    return (
        "### Commands\n\n| command | what it does |\n|---|---|\n"
        f"{rows}\n\n"
        "### Keys\n\n"
        "| key | what it does |\n|---|---|\n"
        "| `Enter` | send (a lone letter answers an offered option) |\n"
        "| `alt+a` … `alt+f` | pick option A … F |\n"
        "| `Esc` | cancel the running turn |\n"
        "| `F2` / `F3` / `F4` | show or hide conversation / tool calls / diffs |\n"
        "| `F5` | shift the split between tool calls and diffs |\n"
        "| `F6` / `F7` | narrower / wider side column |\n"
        "| `F8` | light / dark theme |\n"
        "| `ctrl+p` | command palette |\n"
        "| in the diff pane: `a` `r` `u` `A` | accept, reject, undo, accept all |\n"
    )
