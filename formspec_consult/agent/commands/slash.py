"""Slash commands typed in the conversation: the ONE table, its grammar and /help.

The engine (`Engine.run_turn`, also headless), the TUI (input, palette, suggestions, /help, the
replay player) and the recorder of command events all read this table and parse with
`parse_slash`, so a command line means the same everywhere. Parsing is pure. `handler` says who
runs a command in the terminal app: `engine` commands go to `Engine.run_turn`; `ui` ones the app
handles itself (review actions through the same review workflow, /model, /sessions, /help,
/quit). Headless, the engine runs every command (`agent/commands/run.py`), answering those that
need the app (/quit, switching /model) with a notice that says what to do instead.

A new command is a `SlashSpec` here (and its argument rule in `parse_slash` when it takes any),
its run in `agent/commands/run.py`, and, when the app handles it itself, a `_name` method of
`tui/slash_router.py`; the palette, the suggestions, both /help texts and the usage errors follow.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Literal

from formspec_consult.i18n import N_, _


@dataclass(frozen=True)
class SlashSpec:
    """One command: name, argument hint, help line, who runs it in the app, what the palette runs."""

    name: str
    usage: str  # marked N_(…) when it names arguments ("[path]"): shown with _()
    help: str  # marked N_(…): said in the person's language where it is shown
    handler: Literal["ui", "engine"] = "ui"
    palette: str | None = ""  # what the palette runs ("" → "/name"; None → prefill the input)

    @property
    def palette_line(self) -> str | None:
        """The command line the palette runs, or None when it needs an argument first."""
        return None if self.palette is None else (self.palette or f"/{self.name}")


SLASH_COMMANDS: tuple[SlashSpec, ...] = (
    SlashSpec("diff", N_("/diff [path]"), N_("Show the session's drafts and their diffs.")),
    SlashSpec("apply", N_("/apply [path|--all]"), N_("Apply the selected draft, the one at path, or every valid draft.")),
    SlashSpec("reject", N_("/reject <path> [reason]"), N_("Discard a draft; a reason, if given, goes to the consultant."),
              palette=None),
    SlashSpec("undo", "/undo", N_("Undo the last apply, restoring the exact bytes.")),
    SlashSpec("changes", N_("/changes [turn] [accept|reject [reason]]"),
              N_("The drafts one turn proposed (the latest by default) as one set; accept or reject them together.")),
    SlashSpec("summary", "/summary", N_("Write or show the discovery summary."), "engine"),
    SlashSpec("compact", N_("/compact [focus]"), N_("Compact the history now (optionally say what to keep)."), "engine"),
    SlashSpec("status", "/status", N_("Model, session, context and cost figures.")),
    SlashSpec("model", N_("/model [name]"), N_("Show the model, or switch to another one and keep the session.")),
    SlashSpec("mcp", N_("/mcp restart|log [server]"), N_("Restart the MCP servers, or show a server's log."), palette="/mcp restart"),
    SlashSpec("sessions", "/sessions", N_("Browse this project's sessions and resume one.")),
    SlashSpec("language", N_("/language [code]"), N_("Show the reply language, or switch it (e.g. /language id)."), "engine"),
    SlashSpec("fork", "/fork", N_("Copy this session into a new one (to try another way) and go on in the copy."), "engine"),
    SlashSpec("compare", N_("/compare [session]"),
              N_("Show this session's drafts beside another's (a fork's source when left out): entities, fields, states."),
              palette=None),
    SlashSpec("rewind", N_("/rewind [turn] [--files|--conversation|--both]"),
              N_("Go back to the end of a turn (picked from a list): later applies undone, drafts and conversation cut back."),
              "engine"),
    SlashSpec("help", "/help", N_("List commands and keys.")),
    SlashSpec("quit", "/quit", N_("Leave the app (the session stays on disk).")),
)
BY_NAME: dict[str, SlashSpec] = {spec.name: spec for spec in SLASH_COMMANDS}


class SlashError(ValueError):
    """An unknown or malformed slash command; the message lists what is available."""


@dataclass(frozen=True)
class SlashCommand:
    name: str
    args: tuple[str, ...] = ()

    @property
    def arg_text(self) -> str:
        return " ".join(self.args)

    @property
    def spec(self) -> SlashSpec:
        return BY_NAME[self.name]


def help_text() -> str:
    """Every command, one per line (the Markdown of the app's /help is built from the same table)."""
    width = max(len(_(spec.usage)) for spec in SLASH_COMMANDS)
    return "\n".join(f"{_(spec.usage):<{width}}  {_(spec.help)}" for spec in SLASH_COMMANDS)


def is_command(text: str) -> bool:
    """True for `/name …`; `//x` is the message "/x" and a lone "/" is text."""
    stripped = text.strip()
    return stripped.startswith("/") and not stripped.startswith("//") and stripped != "/"


def parse_slash(text: str) -> SlashCommand | None:
    """Parse `/name args…`; None when the text is not a command (`//x` sends `/x` as a message).

    Raises SlashError for an unknown command (listing the known ones) or bad arguments.
    """
    if not is_command(text):
        return None
    try:
        parts = shlex.split(text.strip()[1:])
    except ValueError as exc:
        raise SlashError(_("Could not read the command: {error}").format(error=exc)) from exc
    name, args = parts[0].lower(), tuple(parts[1:])
    if name not in BY_NAME:
        known = " ".join(f"/{spec.name}" for spec in SLASH_COMMANDS)
        raise SlashError(_("Unknown command /{name}. Commands: {known}").format(name=name, known=known))
    if name == "reject" and not args:
        raise SlashError(_("Usage: /reject <draft path> [reason] (see /diff for the paths)"))
    if name == "apply" and len(args) > 1:
        raise SlashError(_("Usage: /apply <draft path> or /apply --all"))
    if name == "changes" and changes_args(args) is None:
        raise SlashError(_("Usage: /changes [turn] [accept|reject [reason]] — e.g. /changes, /changes 2, "
                           "/changes accept, /changes reject not yet"))
    if name == "language" and len(args) > 1:
        raise SlashError(_("Usage: /language <code>, e.g. /language id (Indonesian) or /language en (English)"))
    if name == "fork" and args:
        raise SlashError(_("Usage: /fork (it takes no arguments: it forks this session as it is now)"))
    if name == "compare" and len(args) > 1:
        raise SlashError(_("Usage: /compare [session id] (without it: the session this fork came from)"))
    if name == "rewind" and not _rewind_args(args):
        raise SlashError(_(
            "Usage: /rewind [turn] [--files|--conversation|--both] — a turn number (0: before the first) and "
            "what to take back (both when left out); /rewind alone lists the turns."
        ))
    if name == "mcp" and not (args == () or (args[0] in ("restart", "log") and len(args) <= 2)):
        raise SlashError(_("Usage: /mcp, /mcp restart [server] or /mcp log [server]"))
    return SlashCommand(name, args)


REWIND_MODES = ("--both", "--files", "--conversation")


def _rewind_args(args: tuple[str, ...]) -> bool:
    """`/rewind`, `/rewind N`, `/rewind N --mode` (the mode may come first)."""
    turns = [a for a in args if a not in REWIND_MODES]
    modes = [a for a in args if a in REWIND_MODES]
    return len(turns) <= 1 and len(modes) <= 1 and all(a.isdigit() for a in turns) and not (modes and not turns)


def rewind_args(command: SlashCommand) -> tuple[int | None, str]:
    """(turn or None when only the list is asked for, mode) of a parsed `/rewind`."""
    turn = next((int(a) for a in command.args if a.isdigit()), None)
    mode = next((a[2:] for a in command.args if a in REWIND_MODES), "both")
    return turn, mode


def changes_args(args: tuple[str, ...]) -> tuple[int | None, str | None, str | None] | None:
    """`/changes [turn] [accept|reject [reason]]` read as (turn, "accept"|"reject"|None, reason);
    None when the words do not fit."""
    words = list(args)
    turn = None
    if words and words[0].isdigit():
        turn = int(words.pop(0))
        if turn < 1:
            return None
    if not words:
        return turn, None, None
    action = words.pop(0).lower()
    if action not in ("accept", "reject") or (action == "accept" and words):
        return None
    return turn, action, " ".join(words) or None
