"""Runs the slash commands typed in the input or picked in the palette.

Screens are imported when first opened: they pull in Markdown, which the first frame does not need.

`ui` commands act on the panes or call the local server; `engine` commands (`/summary`,
`/compact`) are sent as a turn, since the engine owns the history. A mistake (unknown command,
missing argument) is a notification that says what to type, and the input keeps the text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formspec_consult.tui.slash import SlashCall, help_text, parse
from formspec_consult.tui.widgets.diff_pane import DiffPane

if TYPE_CHECKING:
    from formspec_consult.tui.app import ConsultApp

LOG_TAIL_CHARS = 60_000


def find_logs(status: dict[str, Any], session_dir: Path | None, project_root: Path | None) -> list[Path]:
    """Candidate MCP/server logs, newest first: paths named in the status, then *.log files."""
    found: list[Path] = []
    mcp = status.get("mcp")
    servers = list(mcp.values()) if isinstance(mcp, dict) else mcp if isinstance(mcp, list) else []
    for value in [status.get("mcp_log"), *[(s or {}).get("log") for s in servers if isinstance(s, dict)]]:
        if value:
            found.append(Path(value))
    for folder in (session_dir, project_root / ".formspec" / "consult" if project_root else None):
        if folder is not None and folder.is_dir():
            found.extend(folder.glob("*.log"))
    existing = {p.resolve(): p for p in found if p.is_file()}
    return sorted(existing.values(), key=lambda p: p.stat().st_mtime, reverse=True)


class SlashRouter:
    """One per app; `handle()` returns True when the input can be cleared."""

    def __init__(self, app: ConsultApp) -> None:
        self.app = app

    def handle(self, text: str) -> bool:
        call = parse(text)
        if call is None:
            return False
        if call.spec is None:
            self.app.notify(f"Unknown command /{call.name} — /help lists the commands.", severity="error")
            return False
        if call.spec.handler == "engine":
            return self.app.send(text.strip())
        if call.name in {"help", "quit", "sessions"}:
            return getattr(self, f"_{call.name}")(call)
        if self.app.engine is None:
            self.app.notify("Still connecting — this command needs the session.", severity="warning")
            return False
        return getattr(self, f"_{call.name}")(call)

    def _help(self, call: SlashCall) -> bool:
        from formspec_consult.tui.screens.text_screen import TextScreen

        self.app.push_screen(TextScreen("Help", help_text()))
        return True

    def _quit(self, call: SlashCall) -> bool:
        self.app.exit()
        return True

    def _sessions(self, call: SlashCall) -> bool:
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

    def _review(self, action: str, path: str | None) -> None:
        self.app.run_worker(self.app.review.run(action, path), group="review", exit_on_error=False)

    def _diff(self, call: SlashCall) -> bool:
        pane = self.app.query_one(DiffPane)
        pane.display = True
        self.app.query_one("#side").display = True

        async def show() -> None:
            await self.app.review.refresh()
            if call.args and not pane.select(call.args):
                self.app.notify(f"No draft at {call.args}.", severity="warning")
            pane.query_one("#draft-list").focus()

        self.app.run_worker(show(), group="drafts", exclusive=True, exit_on_error=False)
        return True

    def _apply(self, call: SlashCall) -> bool:
        if call.args == "--all":
            self._review("accept_all", None)
            return True
        draft = self.app.query_one(DiffPane).selected
        path = call.args or (draft.path if draft else None)
        if not path:
            self.app.notify("No draft to apply — /diff lists the drafts, /apply <path> applies one.", severity="warning")
            return False
        self._review("accept", path)
        return True

    def _reject(self, call: SlashCall) -> bool:
        if not call.args:
            self.app.notify("Usage: /reject <path> — /diff lists the drafts.", severity="error")
            return False
        self._review("reject", call.args)
        return True

    def _undo(self, call: SlashCall) -> bool:
        self._review("undo", None)
        return True

    def _status(self, call: SlashCall) -> bool:
        assert self.app.engine is not None
        from formspec_consult.tui.screens.text_screen import TextScreen

        figures = self.app.engine.status()
        rows = "\n".join(f"| {key} | `{json.dumps(value, default=str)}` |" for key, value in figures.items())
        recent = "\n".join(f"- {line}" for line in list(self.app.recent_notices)[-10:]) or "- (none)"
        text = f"| field | value |\n|---|---|\n{rows}\n\n### Recent notifications\n\n{recent}\n"
        self.app.push_screen(TextScreen("Status", text))
        return True

    def _model(self, call: SlashCall) -> bool:
        engine = self.app.engine
        assert engine is not None
        if not call.args:
            self.app.notify(
                f"Model {engine.model} via {engine.provider_name}. `/model NAME` switches and keeps this session.",
                title="Model",
            )
            return True
        if self.app.turn_worker is not None and self.app.turn_worker.is_running:
            self.app.notify("Cancel the running turn (Esc) before switching the model.", severity="warning")
            return False
        # Same session, new model: the engine is reopened on the session's full history.
        self.app.notify(f"Switching to {call.args}; the conversation continues in this session.")
        self.app.run_worker(self.app.switch_session(engine.session_id, model=call.args), exit_on_error=False)
        return True

    def _mcp(self, call: SlashCall) -> bool:
        engine = self.app.engine
        assert engine is not None
        if call.args == "restart":

            async def restart() -> None:
                try:
                    await engine.restart_mcp()
                except Exception as exc:
                    self.app.notify(f"MCP restart failed: {exc}", severity="error")
                    return
                self.app.refresh_status()
                self.app.notify("MCP servers restarted.")

            self.app.run_worker(restart(), group="mcp", exclusive=True, exit_on_error=False)
            return True
        if call.args == "log":
            logs = find_logs(engine.status(), engine.session_dir, engine.project_root)
            if not logs:
                self.app.notify("No MCP server log found yet.", severity="warning")
                return True
            from formspec_consult.tui.screens.text_screen import TextScreen

            text = logs[0].read_text(encoding="utf-8", errors="replace")[-LOG_TAIL_CHARS:]
            self.app.push_screen(TextScreen(f"Log — {logs[0]}", text or "(empty)", markdown=False))
            return True
        self.app.notify("Usage: /mcp restart  or  /mcp log", severity="error")
        return False
