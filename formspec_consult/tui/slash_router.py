"""Runs the slash commands typed in the input or picked in the palette.

Screens are imported when first opened: they pull in Markdown, which the first frame does not need.

A command line is read with the engine's own grammar (`parse_slash`), so the app, the engine and
headless runs accept the same commands with the same arguments. `ui` commands act on the panes or
call the local server; `engine` commands (`/summary`, `/compact`) are sent as a turn, since the
engine owns the history. A mistake (unknown command, missing or extra argument) is a notification
with the grammar's own message, which says what to type, and the input keeps the text.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from formspec_consult.agent.commands.format import describe_server
from formspec_consult.i18n import _
from formspec_consult.tui.layout import DIFFS
from formspec_consult.tui.slash import SlashCommand, SlashError, help_text, parse_slash
from formspec_consult.tui.widgets.diff_pane import DiffPane

if TYPE_CHECKING:
    from collections import deque
    from collections.abc import Coroutine

    from textual.worker import Worker

    from formspec_consult.agent.engine.port import EngineLike
    from formspec_consult.agent.engine.status import EngineStatus
    from formspec_consult.tui.review import DiffPaneReview


class RouterHost(Protocol):
    """What the router needs of the app (ConsultApp): it routes, the app does the work."""

    engine: EngineLike | None
    review: DiffPaneReview | None  # None until an engine is open
    turn_worker: Worker[None] | None
    recent_notices: deque[str]

    def send(self, text: str) -> bool: ...
    def refresh_status(self, state: str = "ready") -> None: ...
    def show_pane(self, pane_id: str, *, focus: bool = False) -> None: ...
    def keys_help(self) -> str: ...
    async def switch_session(self, session_id: str, *, model: str | None = None) -> None: ...
    def notify(self, *args: Any, **kwargs: Any) -> Any: ...
    def push_screen(self, *args: Any, **kwargs: Any) -> Any: ...
    def exit(self, *args: Any, **kwargs: Any) -> Any: ...
    def query_one(self, *args: Any, **kwargs: Any) -> Any: ...
    def run_worker(self, *args: Any, **kwargs: Any) -> Any: ...

LOG_TAIL_CHARS = 60_000


def server_logs(status: EngineStatus) -> list[tuple[str, Path | None, bool]]:
    """(server name, its log file or None, whether it is in trouble) for each MCP server of
    `Engine.status()`."""
    return [(server.name, Path(server.log) if server.log else None, server.in_trouble) for server in status.mcp]


def pick_log(status: EngineStatus, name: str | None = None) -> tuple[str, Path | None] | None:
    """The log to open: the named server's; else the first server in trouble; else the first one
    (the local server). None when there is no such server."""
    servers = server_logs(status)
    if name is not None:
        return next(((n, log) for n, log, _ in servers if n == name), None)
    chosen = next((s for s in servers if s[2]), servers[0] if servers else None)
    return (chosen[0], chosen[1]) if chosen else None


class SlashRouter:
    """One per app; `handle()` returns True when the input can be cleared."""

    def __init__(self, app: RouterHost) -> None:
        self.app = app

    def handle(self, text: str) -> bool:
        try:
            call = parse_slash(text)
        except SlashError as exc:
            self.app.notify(str(exc), severity="error")
            return False
        if call is None:
            return False
        if call.name == "rewind" and not call.args:  # pick the turn from a list, then run it
            return self._rewind(call)
        if call.spec.handler == "engine":
            return self.app.send(text.strip())
        if call.name in {"help", "quit", "sessions"}:
            return self._handler(call.name)(call)
        if self.app.engine is None:
            self.app.notify(_("Still connecting — this command needs the session."), severity="warning")
            return False
        return self._handler(call.name)(call)

    def _handler(self, name: str) -> Callable[[SlashCommand], bool]:
        """The method that runs a `ui` command: `_<name>` (the slash table names no other)."""
        handler: Callable[[SlashCommand], bool] = getattr(self, f"_{name}")
        return handler

    def _help(self, call: SlashCommand) -> bool:
        from formspec_consult.tui.screens.text_screen import TextScreen

        self.app.push_screen(TextScreen(_("Help"), help_text(self.app.keys_help())))
        return True

    def _quit(self, call: SlashCommand) -> bool:
        self.app.exit()
        return True

    def _sessions(self, call: SlashCommand) -> bool:
        from formspec_consult.tui.screens.sessions import SessionsScreen
        from formspec_consult.tui.session_list import list_sessions

        engine = self.app.engine
        root = engine.project_root if engine is not None else Path.cwd()
        current = engine.session_id if engine is not None else None

        async def chosen(session_id: str | None) -> None:
            if session_id and session_id != current:
                await self.app.switch_session(session_id)

        self.app.push_screen(SessionsScreen(list_sessions(root), current), chosen)
        return True

    def _rewind(self, call: SlashCommand) -> bool:
        engine = self.app.engine
        if engine is None:
            self.app.notify(_("Still connecting — /rewind needs the session."), severity="warning")
            return False
        if self.app.turn_worker is not None and self.app.turn_worker.is_running:
            self.app.notify(_("A turn is running; wait for it or press Esc before rewinding."), severity="warning")
            return False
        from formspec_consult.store.events import EventLog
        from formspec_consult.store.layout import EVENTS
        from formspec_consult.store.rewind import conversation_turns
        from formspec_consult.tui.screens.rewind import RewindScreen

        turns = conversation_turns(list(EventLog.records(engine.session_dir / EVENTS)))
        if not turns:
            self.app.notify(_("There are no turns to rewind to yet."), severity="warning")
            return True

        def chosen(command: str | None) -> None:
            if command:
                self.app.send(command)

        self.app.push_screen(RewindScreen(turns), chosen)
        return True

    def _compare(self, call: SlashCommand) -> bool:
        from formspec_consult.store.compare import compare_sessions
        from formspec_consult.tui.screens.text_screen import TextScreen

        engine = self.app.engine
        assert engine is not None
        try:
            text = compare_sessions(engine.session_dir.parent, engine.session_id, call.args[0] if call.args else None)
        except ValueError as exc:  # an unknown session, not a fork: the message says what to do
            self.app.notify(str(exc), severity="error")
            return False
        self.app.push_screen(TextScreen(_("Drafts side by side"), text))
        return True

    def _review(self, action: str, path: str | None) -> None:
        if self.app.review is None:
            self.app.notify(_("Not connected yet."), severity="warning")
            return
        self.app.run_worker(self.app.review.run(action, path), group="review", exit_on_error=False)

    def _diff(self, call: SlashCommand) -> bool:
        # Shows the diffs pane but leaves the focus in the prompt: text typed next must never
        # reach the pane's single-letter keys (ctrl+r moves the focus there on purpose).
        pane = self.app.query_one(DiffPane)
        self.app.show_pane(DIFFS.id)

        engine = self.app.engine
        if engine is not None:  # the session log keeps the command, so a replay shows it again
            try:
                engine.record_command(f"/diff {call.arg_text}".strip())
            except Exception as exc:
                self.app.notify(_("/diff was not logged: {exc}").format(exc=exc), severity="warning")

        async def show() -> None:
            if self.app.review is not None:
                await self.app.review.refresh()
            if call.args and not pane.select(call.args[0]):
                self.app.notify(_("No draft at {path}.").format(path=call.args[0]), severity="warning")

        self.app.run_worker(show(), group="drafts", exclusive=True, exit_on_error=False)
        return True

    def _apply(self, call: SlashCommand) -> bool:
        if call.args == ("--all",):
            self._review("accept_all", None)
            return True
        draft = self.app.query_one(DiffPane).selected
        path = call.args[0] if call.args else (draft.path if draft else None)
        if not path:
            self.app.notify(_("No draft to apply — /diff lists the drafts, /apply <path> applies one."), severity="warning")
            return False
        self._review("accept", path)
        return True

    def _reject(self, call: SlashCommand) -> bool:
        # the grammar requires a path; the words after it are the reason told to the consultant
        reason = " ".join(call.args[1:]) or None
        if self.app.review is None:
            self.app.notify(_("Not connected yet."), severity="warning")
            return True
        self.app.run_worker(self.app.review.reject_and_refresh(call.args[0], reason), group="review",
                            exit_on_error=False)
        return True

    def _changes(self, call: SlashCommand) -> bool:
        """`/changes [turn]` shows a turn's changeset; `/changes [turn] accept|reject [reason]` acts on it."""
        from formspec_consult.agent.commands.slash import changes_args

        review = self.app.review
        if review is None:
            self.app.notify(_("Not connected yet."), severity="warning")
            return False
        turn, action, reason = changes_args(call.args) or (None, None, None)
        work: Coroutine[Any, Any, object]
        if action == "accept":
            work = review.accept_turn(turn)
        elif action == "reject":
            work = review.reject_turn(turn, reason)
        else:
            work = review.changes(self.app, turn)  # type: ignore[arg-type]  # the host is the app
        self.app.run_worker(work, group="review", exit_on_error=False)
        return True

    def _undo(self, call: SlashCommand) -> bool:
        self._review("undo", None)
        return True

    def _status(self, call: SlashCommand) -> bool:
        assert self.app.engine is not None
        from formspec_consult.tui.screens.text_screen import TextScreen
        from formspec_consult.tui.status_text import status_text

        text = status_text(self.app.engine.status(), self.app.recent_notices)
        self.app.push_screen(TextScreen(_("Status"), text))
        return True

    def _model(self, call: SlashCommand) -> bool:
        engine = self.app.engine
        assert engine is not None
        if not call.args:
            self.app.notify(
                _("Model {model} via {provider_name}. `/model NAME` switches and keeps this session.").format(model=engine.model, provider_name=engine.provider_name),
                title=_("Model"),
            )
            return True
        if self.app.turn_worker is not None and self.app.turn_worker.is_running:
            self.app.notify(_("Cancel the running turn (Esc) before switching the model."), severity="warning")
            return False
        # Same session, new model: the engine is reopened on the session's full history.
        self.app.notify(_("Switching to {arg_text}; the conversation continues in this session.").format(arg_text=call.arg_text))
        self.app.run_worker(self.app.switch_session(engine.session_id, model=call.arg_text), exit_on_error=False)
        return True

    def _mcp(self, call: SlashCommand) -> bool:
        engine = self.app.engine
        assert engine is not None
        if not call.args:  # the servers' state, as the tool-calls pane shows it
            self.app.notify("\n".join(f"{server.name}: {describe_server(server)}" for server in engine.status().mcp) or _("No MCP servers."),
                            title=_("MCP servers"))
            return True
        if call.args[0] == "restart":
            server = call.args[1] if len(call.args) > 1 else None

            async def restart() -> None:
                try:
                    await engine.restart_mcp(server)
                except Exception as exc:
                    self.app.notify(_("MCP restart failed: {exc}").format(exc=exc), severity="error")
                    return
                self.app.refresh_status()
                self.app.notify(_("MCP server {server} restarted.").format(server=server) if server
                                else _("MCP servers restarted."))

            self.app.run_worker(restart(), group="mcp", exclusive=True, exit_on_error=False)
            return True
        return self._log(engine.status(), call.args[1] if len(call.args) > 1 else None)  # /mcp log [server]

    def _log(self, status: EngineStatus, name: str | None) -> bool:
        """Show the log of one MCP server (the one in trouble, unless `name` picks another)."""
        servers = server_logs(status)
        picked = pick_log(status, name)
        others = ", ".join(n for n, _, _ in servers if picked is None or n != picked[0])
        if picked is None:
            known = " " + _("Servers: {names}.").format(names=others) if others else ""
            said = _("No MCP server named {name}.").format(name=name) + known if name else _("No MCP servers.")
            self.app.notify(said, severity="warning")
            return name is None
        server, log = picked
        if log is None:
            self.app.notify(_("The {server} server keeps no log file (it runs inside the app).").format(server=server), severity="warning")
            return True
        if not log.is_file():
            self.app.notify(_("The {server} server has not written its log yet ({log}).").format(server=server, log=log), severity="warning")
            return True
        from formspec_consult.tui.screens.text_screen import TextScreen

        text = log.read_text(encoding="utf-8", errors="replace")[-LOG_TAIL_CHARS:]
        hint = " — " + _("other servers: /mcp log {name}").format(name=others.split(", ")[0]) if others else ""
        self.app.push_screen(TextScreen(_("{server} server log — {log}{hint}").format(server=server, log=log, hint=hint), text or _("(empty)"), markdown=False))
        return True
