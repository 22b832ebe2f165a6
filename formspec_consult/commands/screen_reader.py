"""Screen-reader mode: the consultation as plain, linear lines over the same Engine.

Turned on by `--screen-reader`, a non-empty `ACCESSIBLE` environment variable (the convention
other terminal tools follow) or the `screen_reader` setting. Instead of the Textual app — whose
panes, spinner, status bar and redraws a screen reader reads as noise or not at all — it prints
each thing once, as whole labelled lines, and reads the person's messages one line at a time,
like Claude Code's and Gemini CLI's screen-reader modes:

- every line starts with who speaks: `You:`, `Consultant:`, `Tool …:`, `Note:`, `Warning:`,
  `Error:`, `Permission required:`; nothing is overwritten, nothing spins, no colour is used;
- every change of state is said once in words: connecting, connected, working, done, cancelled,
  drafts changed, compacted, the reply language set;
- a reply's options end with how to choose one; Markdown tables are said row by row as
  sentences; diffs (/diff) as numbered lines; code blocks announced; a permission is a numbered
  choice answered with a number.

The Engine runs every turn and slash command, as in headless mode; this module only presents.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Awaitable, Callable, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, TextIO

from formspec_consult.commands.spoken_text import diff_text, looks_like_diff, options_text, reply_text
from formspec_consult.commands.terminal_text import terminal_safe
from formspec_consult.i18n import gettext as _
from formspec_consult.i18n import ngettext

if TYPE_CHECKING:
    from formspec_consult.agent.engine.engine import Engine, EngineOptions
    from formspec_consult.agent.loop.permissions import Decision, PermissionRequest
    from formspec_consult.store.agent_events import AgentEvent

ReadLine = Callable[[str], Awaitable[str | None]]  # prompt → the line typed (None at end of input)
_EXIT_BY_REASON = {"done": 0, "error": 1, "step_limit": 3, "cancelled": 130}
_SPACES = re.compile(r"(\S) {2,}(?=\S)")


def _column_gap(match: re.Match[str]) -> str:
    """An aligned column's gap said as ": ", unless the label ends with its own colon ("Model:")."""
    return match.group(1) + (" " if match.group(1) in ":;," else ": ")


def screen_reader_source(flag: bool, setting: bool, env: Mapping[str, str] | None = None) -> str | None:
    """Why the screen-reader mode is on ("--screen-reader", "ACCESSIBLE", "the screen_reader
    setting"), or None when it is off. `ACCESSIBLE` counts when set to anything but 0/false/no."""
    environ = os.environ if env is None else env
    if flag:
        return "--screen-reader"
    if environ.get("ACCESSIBLE", "").strip().lower() not in ("", "0", "false", "no", "off"):
        return "ACCESSIBLE"
    if setting:
        return _("the screen_reader setting")
    return None


async def _stdin_line(prompt: str) -> str | None:
    """Print the prompt and read one line from stdin in a thread (None at end of input)."""
    import anyio

    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = await anyio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
    return line.rstrip("\n") if line else None


class SpokenOutput:
    """Agent events as labelled lines, each said once (see the module)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def say(self, text: str) -> None:
        for line in terminal_safe(text.rstrip("\n")).splitlines() or [""]:
            self.stream.write(_SPACES.sub(_column_gap, line) if "  " in line.strip() else line)
            self.stream.write("\n")
        self.stream.flush()

    def event(self, event: AgentEvent) -> None:
        from formspec_consult.store import agent_events as ev
        from formspec_consult.store.tool_status import tool_status

        if isinstance(event, ev.TurnStarted):
            self.say(_("The consultant is working."))
        elif isinstance(event, ev.AssistantMessage):
            if event.text.strip():
                self.say(_("Consultant: {reply}").format(reply=reply_text(event.text.strip())))
            if event.options:
                self.say(options_text(event.options))
        elif isinstance(event, ev.ToolCallFinished):
            said = {"ok": _("Tool {name}: done."), "refused": _("Tool {name}: refused by the validation gate."),
                    "failed": _("Tool {name}: failed.")}
            self.say(said[tool_status(event.ok, event.result)].format(name=event.name))
        elif isinstance(event, ev.Notice):
            label = {"info": _("Note: {text}"), "warning": _("Warning: {text}"), "error": _("Error: {text}")}
            text = diff_text(event.message) if looks_like_diff(event.message) else event.message
            self.say(label[event.level].format(text=text))
        elif isinstance(event, ev.DraftsChanged):
            paths = ", ".join(event.paths) or _("the session's drafts")
            self.say(_("Drafts changed: {paths}. Type /diff to hear the changes, /apply to accept.").format(paths=paths))
        elif isinstance(event, ev.CompactionDone):
            self.say(_("The conversation was compacted: {n} earlier messages summarised.").format(
                n=event.replaced_messages))
        elif isinstance(event, ev.TurnFinished):
            if event.reason == "done":
                self.say(_("Done. Your turn."))
            elif event.reason == "cancelled":
                self.say(_("The turn was cancelled."))
            elif event.reason == "error":
                self.say(_("The turn failed: {why}.").format(why=event.error) if event.error else _("The turn failed."))


async def ask_permission(request: PermissionRequest, out: SpokenOutput, read_line: ReadLine) -> Decision:
    """A permission as a numbered choice, answered with a number; anything else declines."""
    out.say(_("Permission required: {what}").format(what=request.summary))
    out.say(_("1. Allow it once.\n2. Allow it for the rest of this session.\n3. Decline."))
    answer = (await read_line(_("Type 1, 2 or 3 and press Enter: ")) or "").strip()
    choices: dict[str, Decision] = {"1": "allow_once", "2": "allow_session"}
    decision: Decision = choices.get(answer, "deny")
    out.say({"allow_once": _("Allowed once."), "allow_session": _("Allowed for this session.")}.get(
        decision, _("Declined.")))
    return decision


async def run_screen_reader(
    options: EngineOptions, via: str, *, read_line: ReadLine = _stdin_line, stream: TextIO | None = None
) -> int:
    """The screen-reader front end: open the engine, then read a message, say the turn, repeat,
    until /quit or the end of input. The exit code is headless mode's for the last turn."""
    from formspec_consult.agent.engine.engine import Engine

    out = SpokenOutput(stream or sys.stdout)
    out.say(_("Screen reader mode is on (via {via}). Connecting to the consultant.").format(via=via))
    try:
        engine = await Engine.open(options)
    except Exception as exc:  # noqa: BLE001 - said in words, the exit code says it failed
        out.say(_("Error: the consultation could not start: {why}").format(why=exc))
        return 2
    code = 0
    try:
        engine.set_approver(lambda request: ask_permission(request, out, read_line))
        _connected(engine, out)
        while True:
            text = await read_line(_("You: "))
            if text is None or text.strip().lower() in ("/quit", "/exit"):
                break
            if not text.strip():
                continue
            code = await _turn(engine, text, out)
    finally:
        session = engine.session_id
        await engine.aclose()
        out.say(_("Session {id} is saved. Resume it with: formspec-consult --screen-reader --continue").format(
            id=session))
    return code


def _connected(engine: Engine, out: SpokenOutput) -> None:
    earlier = sum(1 for e in engine.past_events() if e.kind == "turn_started")
    said = _("Connected: session {id}, model {model}.").format(id=engine.session_id, model=engine.model)
    if earlier:
        said += " " + ngettext("It has {n} earlier turn.", "It has {n} earlier turns.", earlier).format(n=earlier)
    out.say(said + " " + _("Type your message and press Enter; /help lists the commands, /quit leaves."))


async def _turn(engine: Engine, text: str, out: SpokenOutput) -> int:
    from formspec_consult.store.agent_events import TurnFinished

    code = 0
    async with aclosing(engine.run_turn(text)) as events:
        async for event in events:
            out.event(event)
            if isinstance(event, TurnFinished):
                code = _EXIT_BY_REASON.get(event.reason, 1)
    return code
