"""The Engine: one consultation session — provider, MCP servers, history, loop — behind a small API.

The TUI and the headless mode use only this. `Engine.open` resolves the project, settings and
provider, starts the local MCP server (the `mcp-serve` stdio command external clients run), the
registry and any extra servers, and creates or resumes the session. `run_turn` runs one user turn
(slash commands included) as an async generator of AgentEvents.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncGenerator
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formspec_consult.agent.commands.slash import SlashError, parse_slash
from formspec_consult.agent.engine.options import EngineOptions, ServerSpecs
from formspec_consult.agent.engine.since import review_since
from formspec_consult.agent.engine.status import EngineStatus
from formspec_consult.agent.engine.system_prompt import language_note
from formspec_consult.agent.loop.options import pick_option
from formspec_consult.agent.loop.permissions import Approver
from formspec_consult.i18n import _
from formspec_consult.mcp_client.manager import ToolError
from formspec_consult.providers.base import ProviderError
from formspec_consult.store.agent_events import (
    AgentEvent,
    AssistantMessage,
    Notice,
    TurnFinished,
    TurnStarted,
)
from formspec_consult.store.layout import EVENTS, MCP_SERVER_LOG, consult_dir
from formspec_consult.store.records import DecisionRecord, NoticeRecord
from formspec_consult.store.review_results import ToolResult

if TYPE_CHECKING:
    from formspec_consult.agent.commands.slash import SlashCommand
    from formspec_consult.agent.engine.opening import Opening
    from formspec_consult.agent.engine.session import Session

__all__ = ["Engine", "EngineOptions", "ProviderError", "ServerSpecs", "ToolError"]


class Engine:
    """A running consultation session. Create it with :meth:`open`; close it with :meth:`aclose`."""

    read_only = False  # a live session: review actions run

    session_id: str
    session_dir: Path
    project_root: Path
    model: str
    provider_name: str

    def __init__(self, opening: Opening, *, reply_language: str | None = None) -> None:
        # the first step agent.engine.opening.begin_session took; the model layer joins in a task
        self._opening = opening
        self._reply_language = reply_language  # --lang: the session's reply language, said at the first turn
        self._said: list[str] = []  # what the session start decided, said at the first turn
        self._s: Session | None = None
        self.session_id = opening.session_id
        self.session_dir = opening.session_dir
        self.project_root = opening.project_root
        self.model = opening.provider.model
        self.provider_name = opening.provider.name
        self._approver: Approver | None = None
        self._commands: list[SlashCommand] = []  # slash commands the app ran before the log was open
        # A resumed session answers the options its last reply offered, as the TUI does:
        # `-p a --continue` sends `[chosen: A) …]`, not the bare letter.
        replies = [e for e in self.past_events() if isinstance(e, (AssistantMessage, TurnStarted))]
        self._early_options = (
            tuple(replies[-1].options) if replies and isinstance(replies[-1], AssistantMessage) else ()
        )
        self._joined: asyncio.Task[Session] = asyncio.ensure_future(self._join())
        self._joined.add_done_callback(lambda t: None if t.cancelled() else t.exception())  # never "unretrieved"

    @classmethod
    async def open(cls, options: EngineOptions, *, wait_for_model: bool = True) -> Engine:
        """Open (or resume) a session; ProviderError, ProjectError and MCP start failures propagate.

        With `wait_for_model=False` it returns as soon as the servers are up and the context is
        collected, while the model layer (litellm's import, the capability check, the window and
        the fit check) still loads: the earlier conversation, the drafts and their diffs can be
        shown meanwhile; a turn, a review action and a restart wait for it; :meth:`model_ready`
        says when it is there, or raises why the session cannot run (then it is already closed).
        """
        from formspec_consult.agent.engine.opening import begin_session
        from formspec_consult.agent.language.detect import warm

        warm()  # the language model loads in a thread beside the servers' start
        engine = cls(await begin_session(options), reply_language=options.reply_language)
        if wait_for_model:
            try:
                await engine.model_ready()
            except BaseException:
                await engine.aclose()
                raise
        return engine

    async def _join(self) -> Session:
        session = await self._opening.finish()
        session.loop.permissions.approver = self._approver
        if session.resumed_events and not session.loop.last_options:
            session.loop.last_options = self._early_options
        from formspec_consult.agent.engine.language import check_replies, set_language

        check_replies(session)
        if self._reply_language:
            said = set_language(session, self._reply_language, "flag")
            if said:
                self._said.append(said)
        self._s = session
        if self._commands:
            from formspec_consult.agent.commands.run import log_command

            for command in self._commands:
                log_command(session, command)
            self._commands.clear()
        return session

    async def model_ready(self) -> None:
        """Wait until the model layer has joined (at once when it has); raise why it cannot."""
        await asyncio.shield(self._joined)

    async def _session(self) -> Session:
        return self._s if self._s is not None else await asyncio.shield(self._joined)

    @property
    def last_options(self) -> tuple[str, ...]:
        """The options (`B) text`) the last assistant reply offered; () when it offered none."""
        return tuple(self._s.loop.last_options) if self._s is not None else self._early_options

    def past_events(self) -> list[AgentEvent]:
        """The conversation as the log rebuilds it, tool calls included, as AgentEvents: a resumed
        session's earlier one while the model layer loads; once the session runs, the log read
        again (after a `/rewind`, the conversation cut back)."""
        from formspec_consult.agent.engine.replay import events_from_log
        from formspec_consult.store.events import EventLog

        if self._s is None:
            return events_from_log(self._opening.events)
        return events_from_log(EventLog.records(self._s.log.path))

    def resolve_choice(self, text: str) -> str:
        """A bare `B` after options becomes `[chosen: B) full text]` (logged as a decision). While
        the model layer loads the text is kept as it is: the turn resolves it once it runs."""
        option = pick_option(text, self.last_options)
        if option is None or self._s is None:
            return text
        self._s.log.write(DecisionRecord(turn=self._s.loop.turn + 1, answer=text.strip(), option=option))
        return f"[chosen: {option}]"

    async def run_turn(self, text: str) -> AsyncGenerator[AgentEvent, None]:
        """Run one user turn, or a slash command; the last event is always a TurnFinished.

        Cancelling the consuming task cancels the turn and leaves a valid history. Consume it with
        ``contextlib.aclosing`` so that cleanup also runs at once when the consumer itself is
        cancelled between two events (otherwise it runs when the generator is finalised).
        """
        try:
            session = await self._session()  # a message sent while the model layer loads waits for it
        except Exception as exc:  # noqa: BLE001 - the start failed: every turn says why
            yield Notice("error", _("The consultation could not start: {error}").format(error=exc))
            yield TurnFinished("error", error=str(exc))
            return
        while session.start_problems:  # servers that failed to start: said once, at the first turn
            yield Notice("warning", session.start_problems.pop(0))
        while self._said:
            yield Notice("info", self._said.pop(0))
        try:
            command = parse_slash(text)
        except SlashError as exc:
            yield Notice("error", str(exc))
            yield TurnFinished("error", error=str(exc))
            return
        if command is not None:
            from formspec_consult.agent.commands.run import run_slash

            async with aclosing(run_slash(self, session, command)) as events:
                async for event in events:
                    yield event
            return
        # aclosing: closing this generator closes the loop's at once (its cleanup repairs the history).
        from formspec_consult.agent.engine.language import language_of_first_message

        said = await language_of_first_message(session, text)
        if said:
            yield Notice("info", said)
        note = review_since(self.session_dir / EVENTS)  # applies, rejects, undos since the last reply
        told = language_note(session)  # a language set after the phase's prompt was sent
        note = "\n".join(part for part in (told, note) if part)
        async with aclosing(session.loop.run_turn(self.resolve_choice(text), note)) as events:
            async for event in events:
                yield event

    def set_approver(self, approver: Approver | None) -> None:
        """Who answers when the model calls a write tool (`permissions.Approver`); the TUI sets
        one, headless runs have none, so such calls are refused unless the settings allow them."""
        self._approver = approver
        if self._s is not None:
            self._s.loop.permissions.approver = approver

    def record_command(self, text: str) -> None:
        """Log a slash command the UI ran itself (the app shows `/diff` in its diff pane instead of
        sending it as a turn), so the session log — and a replay of it — holds it at this point.
        Text that is not a slash command is ignored; a malformed one raises SlashError."""
        from formspec_consult.agent.commands.run import log_command

        command = parse_slash(text)
        if command is None:
            return
        if self._s is None:  # the log opens with the model layer: written then, before any turn
            self._commands.append(command)
        else:
            log_command(self._s, command)

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        """Call a local MCP tool (diff, apply, …) as the client; raises ToolError on failure.

        The answer is the tool's structured result as a ToolResult; the review workflow reads it
        into its record (store.review_results). The server records applies, undos and rejects in
        the session itself (whoever calls), so while the model layer loads only a read-only tool
        (list_drafts, diff_drafts, …) runs at once; any other waits until the session log is open."""
        from formspec_consult.agent.engine.setup import LOCAL

        manager = self._opening.manager
        if self._s is None and not manager.read_only(LOCAL, name):
            await self._session()
        return ToolResult.of(name, await manager.call_on(LOCAL, name, arguments or {}))

    async def restart_mcp(self, server: str | None = None) -> None:
        """Restart the MCP servers (or one); problems are logged and shown by status()."""
        session = await self._session()
        for problem in await session.manager.restart(server):
            session.log.write(NoticeRecord(level="warning", message=problem))

    def status(self) -> EngineStatus:
        """Model, provider, session, context use (reported or estimated), cost, turn, MCP servers;
        while the model layer loads, only what is known without it (`model_loading`)."""
        known = EngineStatus(
            model=self.model,
            provider=self.provider_name,
            session=self.session_id,
            session_dir=str(self.session_dir),
            project=str(self.project_root),
            mcp=self._opening.manager.status(),
            mcp_log=str(consult_dir(self.project_root) / MCP_SERVER_LOG),
            model_loading=self._s is None,
        )
        if self._s is None:
            return known
        loop, compressor = self._s.loop, self._s.compressor
        return dataclasses.replace(
            known,
            context_tokens=loop.usage.context_tokens or loop.count(),
            threshold_tokens=compressor.threshold_tokens,
            window_tokens=compressor.usable_window,
            reported=loop.usage.reported,
            cost=loop.usage.cost,
            prompt_tokens=loop.usage.prompt_tokens,
            completion_tokens=loop.usage.completion_tokens,
            cached_tokens=loop.usage.cached_tokens,
            compactions=compressor.compactions,
            turn=loop.turn,
            phase=self._s.phase.current if self._s.phase is not None else "",
        )

    async def aclose(self) -> None:
        """Stop the MCP servers (reaping their processes) and close the session files; a start
        still loading the model layer is given up (a new session's folder is removed)."""
        if not self._joined.done():
            self._joined.cancel()
        with contextlib.suppress(BaseException):
            await self._joined
        if self._s is not None:
            await self._s.aclose()
        else:
            await self._opening.abandon()
