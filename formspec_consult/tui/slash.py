"""Slash commands of the app: the table the input, the palette and /help share.

Commands marked `ui` are handled by the app itself (review actions go through the local MCP
server, like the diff pane's keys); `engine` ones are sent to `Engine.run_turn`, which owns
compaction and summaries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class SlashSpec:
    """One command: name, argument hint, help line, and who runs it."""

    name: str
    usage: str
    help: str
    handler: Literal["ui", "engine"] = "ui"
    palette: str | None = ""  # what the palette runs ("" → "/name"; None → prefill the input)

    @property
    def palette_line(self) -> str | None:
        """The command line the palette runs, or None when it needs an argument first."""
        return None if self.palette is None else (self.palette or f"/{self.name}")


SLASH_COMMANDS: tuple[SlashSpec, ...] = (
    SlashSpec("diff", "/diff [path]", "Show the session's drafts and their diffs."),
    SlashSpec("apply", "/apply [path|--all]", "Apply the selected draft, the one at path, or every valid draft."),
    SlashSpec("reject", "/reject <path>", "Discard a draft.", palette=None),
    SlashSpec("undo", "/undo", "Undo the last apply, restoring the exact bytes."),
    SlashSpec("summary", "/summary", "Write or show the discovery summary.", "engine"),
    SlashSpec("compact", "/compact [focus]", "Compact the history now (optionally say what to keep).", "engine"),
    SlashSpec("status", "/status", "Model, session, context and cost figures."),
    SlashSpec("model", "/model [name]", "Show the model, or switch to another one and keep the session."),
    SlashSpec("mcp", "/mcp restart|log [server]", "Restart the MCP servers, or show a server's log.", palette="/mcp restart"),
    SlashSpec("sessions", "/sessions", "Browse this project's sessions and resume one."),
    SlashSpec("help", "/help", "List commands and keys."),
    SlashSpec("quit", "/quit", "Leave the app (the session stays on disk)."),
)

_BY_NAME = {spec.name: spec for spec in SLASH_COMMANDS}


@dataclass(frozen=True)
class SlashCall:
    """A parsed command line: the spec (None when unknown), the name typed and its arguments."""

    spec: SlashSpec | None
    name: str
    args: str


def parse(text: str) -> SlashCall | None:
    """Parse `/name args…`; None when the text is not a command (`//x` sends "/x" literally)."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//") or stripped == "/":
        return None
    name, _, args = stripped[1:].partition(" ")
    name = name.lower()
    return SlashCall(_BY_NAME.get(name), name, args.strip())


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
