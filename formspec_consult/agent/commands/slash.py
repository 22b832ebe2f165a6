"""Slash commands typed in the conversation: parsing and the list shown by /help.

Parsing is pure; the engine executes the commands that act on the session (/diff /apply /reject
/undo /summary /compact /status /mcp) and the UI handles the rest (/model /sessions /help /quit).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

COMMANDS: dict[str, str] = {
    "diff": "Show the session's drafts as diffs against the project.",
    "apply": "Apply a draft: /apply <path>, or /apply --all for every valid draft.",
    "reject": "Discard a draft: /reject <path>.",
    "undo": "Undo the last apply, restoring the exact previous bytes.",
    "summary": "Write discovery-summary.md for the owner to confirm.",
    "compact": "Compress the conversation now: /compact [what to focus on].",
    "status": "Model, context use, cost, session and MCP servers.",
    "model": "Show or switch the model: /model [name].",
    "mcp": "MCP servers: /mcp (status) or /mcp restart.",
    "sessions": "List this project's sessions.",
    "help": "List the commands.",
    "quit": "Leave (the session is saved; resume with --continue).",
}
ENGINE_COMMANDS = frozenset({"diff", "apply", "reject", "undo", "summary", "compact", "status", "mcp"})


class SlashError(ValueError):
    """An unknown or malformed slash command; the message lists what is available."""


@dataclass(frozen=True)
class SlashCommand:
    name: str
    args: tuple[str, ...] = ()

    @property
    def arg_text(self) -> str:
        return " ".join(self.args)


def help_text() -> str:
    return "\n".join(f"/{name:<9} {text}" for name, text in COMMANDS.items())


def parse_slash(text: str) -> SlashCommand | None:
    """Parse `/name args…`; None when the text is not a command (`//x` sends `/x` as a message).

    Raises SlashError for an unknown command (listing the known ones) or bad arguments.
    """
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//") or stripped == "/":
        return None
    try:
        parts = shlex.split(stripped[1:])
    except ValueError as exc:
        raise SlashError(f"Could not read the command: {exc}") from exc
    name, args = parts[0].lower(), tuple(parts[1:])
    if name not in COMMANDS:
        known = " ".join(f"/{c}" for c in COMMANDS)
        raise SlashError(f"Unknown command /{name}. Commands: {known}")
    if name == "reject" and len(args) != 1:
        raise SlashError("Usage: /reject <draft path> (see /diff for the paths)")
    if name == "apply" and len(args) > 1:
        raise SlashError("Usage: /apply <draft path> or /apply --all")
    if name == "mcp" and args not in ((), ("restart",)) and not (len(args) == 2 and args[0] == "restart"):
        raise SlashError("Usage: /mcp or /mcp restart [server]")
    return SlashCommand(name, args)
