"""Opening a session: new or resumed, with its servers, history, compressor and loop."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, cast

from formspec_consult.agent.compaction.compress import Compressor
from formspec_consult.agent.engine.context import (
    START_CALLS,
    collect_context,
    make_summariser,
    render_system_prompt,
)
from formspec_consult.agent.engine.offer import ConsultantOffer, session_has_drafted
from formspec_consult.agent.engine.options import EngineOptions
from formspec_consult.agent.engine.result_view import ModelView, named_skills
from formspec_consult.agent.engine.setup import (
    LOCAL,
    REGISTRY,
    consult_dir,
    prefix_fit_error,
    reserved_output,
    resolve_project,
    usable_window,
)
from formspec_consult.agent.history.history import History
from formspec_consult.agent.language.lock import ReplyLanguage
from formspec_consult.agent.loop.loop import AgentLoop
from formspec_consult.config import Settings
from formspec_consult.mcp_client.config import parse_servers
from formspec_consult.mcp_client.manager import MCPManager
from formspec_consult.providers.base import Provider, output_reserve
from formspec_consult.providers.resolve import explicit_reserve
from formspec_consult.store.agent_events import AgentEvent
from formspec_consult.store.events import EventLog, EventLogError
from formspec_consult.store.layout import EVENTS, SUMMARY, TRANSCRIPT
from formspec_consult.store.locks import SessionWriter
from formspec_consult.store.records import (
    CompactionRecord,
    EventRecord,
    NoticeRecord,
    SessionResumedRecord,
    SessionStartedRecord,
    TurnFinishedRecord,
    TurnStartedRecord,
)

if TYPE_CHECKING:
    from formspec_consult.agent.loop.permissions import Rule
    from formspec_consult.store.transcript import Transcript

# Seconds a session waits, once everything it needs is ready, for the servers it does not need
# (the user's mcpServers) before it goes on without them; they join once up.
START_GRACE = 10.0
T = TypeVar("T")


@dataclass
class Session:
    """Everything an Engine drives; built by :meth:`Opening.finish`."""

    session_id: str
    session_dir: Path
    project_root: Path
    settings: Settings
    provider: Provider
    manager: MCPManager
    log: EventLog
    history: History
    compressor: Compressor
    loop: AgentLoop
    window: int
    transcript: Transcript
    resumed_events: list[EventRecord] = field(default_factory=list)
    start_problems: list[str] = field(default_factory=list)
    writer: SessionWriter | None = None  # this process's single-writer claim on the session
    language: ReplyLanguage = field(default_factory=ReplyLanguage)  # the reply language, once set

    async def aclose(self) -> None:
        try:
            await self.manager.aclose()
            for conn in self.manager.connections.values():  # in-process servers own database handles
                close = getattr(conn.spec.in_process, "close", None)
                if close is not None:
                    close()
        finally:
            self.log.close()
            if self.writer is not None:
                self.writer.release()


def _open_transcript(session_dir: Path) -> Transcript:
    from formspec_consult.store.transcript import Transcript

    return Transcript(session_dir / TRANSCRIPT)


def _existing_session(options: EngineOptions, project_root: Path) -> tuple[str, Path] | None:
    """(id, folder) for --resume ID or --continue (the latest); None for a new session. Writes nothing."""
    from formspec_consult.store.folder import SessionError, existing_session, latest_session

    folder = consult_dir(project_root)
    if options.resume:
        return options.resume, existing_session(folder, options.resume)
    if options.continue_latest:
        latest = latest_session(folder)
        if latest is None:
            raise SessionError(f"No session to continue in {folder}; start one without --continue.")
        return latest, existing_session(folder, latest)
    return None


@dataclass(frozen=True)
class _Recorded:
    """What a resumed session ran with (its latest session_started/session_resumed values)."""

    model: str | None = None
    base_url: str | None = None
    window: int | None = None
    allow_unvalidated: bool | None = None


def _recorded(events: list[EventRecord]) -> _Recorded:
    """The latest set value of each field (a later record that leaves one empty keeps the earlier)."""
    found = _Recorded()
    for event in events:
        if isinstance(event, (SessionStartedRecord, SessionResumedRecord)):
            found = _Recorded(
                event.model or found.model,
                event.base_url or found.base_url,
                event.window or found.window,
                event.allow_unvalidated or found.allow_unvalidated,
            )
    return found


async def begin_session(options: EngineOptions) -> Opening:
    """The first step of opening a session: everything but the model layer (see :class:`Opening`)."""
    project_root = resolve_project(options.project)
    existing = _existing_session(options, project_root)
    claims: list[SessionWriter] = []
    created: list[Path] = []  # what this start wrote, removed again if the start fails
    if options.fork:  # a new session holding the source's history; the source is only read
        if existing is None:
            raise ValueError("EngineOptions.fork needs resume or continue_latest: the session to fork")
        from formspec_consult.store.fork import fork_session

        fork_id, fork_dir, _ = fork_session(consult_dir(project_root), existing[0])
        existing = (fork_id, fork_dir)
        created.append(fork_dir)
    try:
        if existing is not None:  # one writer per session: a second client is refused, naming the holder
            claims.append(SessionWriter(existing[1]))
            claims[0].claim()
        return await _open(options, project_root, existing, claims, created)
    except BaseException:
        for claim in claims:
            claim.release()
        for path in reversed(created):
            shutil.rmtree(path, ignore_errors=True)
        raise


async def _open(
    options: EngineOptions,
    project_root: Path,
    existing: tuple[str, Path] | None,
    claims: list[SessionWriter],
    created: list[Path],
) -> Opening:
    """Begin the session with every independent start-up step side by side (see :func:`_begin`)."""
    from formspec_consult.config import load_settings

    resumed = existing is not None
    events = list(EventLog.records(existing[1] / EVENTS)) if existing else []
    flags = dict(options.flags)
    if resumed and not flags.get("model") and options.provider is None:
        recorded = _recorded(events)  # resume keeps the session's model (and endpoint)
        flags["model"] = recorded.model
        flags["base_url"] = flags.get("base_url") or recorded.base_url
        flags["context_window"] = flags.get("context_window") or recorded.window
        flags["allow_unvalidated"] = flags.get("allow_unvalidated") or recorded.allow_unvalidated
    settings = load_settings(project_root, flags)
    provider = options.provider
    if provider is None:
        from formspec_consult.providers import open_provider

        provider = open_provider(settings)  # instant: litellm is imported by the warm-up below
    if settings.mcp_servers:  # a bad MCP config fails before anything is written
        parse_servers({"mcpServers": settings.mcp_servers})
    if options.servers is None:
        raise ValueError("EngineOptions.servers is not set: the composition root wires the MCP servers "
                         "(formspec_consult.commands.wiring.server_specs)")
    # The provider's warm-up (the first litellm import takes seconds) and its capability check run
    # in a thread from here on, side by side with the MCP servers' start: the servers are
    # processes of their own, so they use the other cores meanwhile, and the event loop (a UI)
    # stays free.
    warming = _in_daemon_thread(lambda: _warm_and_check(provider, settings, checked=options.provider is not None))
    try:
        if existing is None:
            from formspec_consult.store.folder import ensure_session

            folder = consult_dir(project_root)
            if not folder.exists():
                created.append(folder)
            existing = ensure_session(folder, None)
            created.append(existing[1])
            claims.append(SessionWriter(existing[1]))
            claims[0].claim()
        session_id, session_dir = existing
        manager = MCPManager(options.servers(settings, project_root, session_id, in_memory=options.in_memory_server))
    except BaseException:
        await _settle(warming)
        raise
    opening = Opening(
        project_root, session_id, session_dir, settings, provider, manager, warming, events, claims, created
    )
    try:
        await _begin(opening)
    except BaseException:
        await opening.abandon()
        raise
    return opening


@dataclass
class Opening:
    """A session begun by :func:`begin_session`: its folder claimed, its MCP servers up (the user's
    own given their grace), a new session's context collected — all without the model layer, whose
    warm-up (litellm's import, the capability check) is still running in its thread.

    :meth:`finish` waits for the warm-up and assembles the :class:`Session`: the window, the event
    log (session_started or session_resumed is its first new record), the loop, the start-up fit
    check. Until then nothing is written to the session log, so a person can already read the
    earlier conversation and the drafts (read-only tools) while the model layer loads. A failed or
    abandoned start leaves nothing behind: what it created is removed, the servers are closed.
    """

    project_root: Path
    session_id: str
    session_dir: Path
    settings: Settings
    provider: Provider
    manager: MCPManager
    warming: asyncio.Future[None]
    events: list[EventRecord]
    claims: list[SessionWriter]
    created: list[Path]
    context: tuple[dict[str, str], list[str]] | None = None
    still_starting: list[str] = field(default_factory=list)
    _closed: bool = False

    async def finish(self) -> Session:
        """The whole session, once the model layer is ready; a refused model (ProviderError) or a
        prefix that does not fit the window raises, after the start is abandoned."""
        log: EventLog | None = None
        manager = self.manager
        try:
            await asyncio.shield(self.warming)
            window, usable = usable_window(self.settings, self.provider)
            still_starting = await manager.wait_started(self.still_starting, timeout=0)
            problems = [str(manager.start_failures[n]) for n in manager.connections if n in manager.start_failures]
            log = EventLog(self.session_dir / EVENTS)
            for secret in session_secrets(self.provider, self.settings):
                log.add_secret(secret)  # masked wherever it would be written
            session = _assemble(
                self.session_id,
                self.session_dir,
                self.project_root,
                self.settings,
                self.provider,
                manager,
                log,
                window,
                usable,
                self.events,
                problems,
                carried=_carried(self.context[0] if self.context is not None else None, self.events),
            )
            _follow_late_servers(session, still_starting)
            if self.events:
                _resume(session, self.events, self.context)
            else:
                assert self.context is not None
                _start(session, *self.context)
            _check_prefix_fits(session)
        except BaseException:
            if log is not None:
                log.close()
            await self.abandon()
            raise
        session.writer = self.claims[0]
        self._closed = True  # the session owns the servers and the claim from here on
        return session

    async def abandon(self) -> None:
        """Give up the start: stop the servers, release the claim, remove what it created."""
        if self._closed:
            return
        self._closed = True
        try:
            await _settle(self.warming)
            await self.manager.aclose()
        finally:
            for claim in self.claims:
                claim.release()
            for path in reversed(self.created):  # a start that failed (a refused model, …) leaves nothing
                shutil.rmtree(path, ignore_errors=True)


def _warm_and_check(provider: Provider, settings: Settings, *, checked: bool) -> None:
    """Import litellm and look the model up (the provider's `warm`), then check the capability bar
    (an injected provider is not checked). Runs in a worker thread."""
    provider.warm()
    if not checked:
        from formspec_consult.providers import check_capability

        check_capability(provider, allow_unvalidated=settings.allow_unvalidated)


def _in_daemon_thread(work: Callable[[], None]) -> asyncio.Future[None]:
    """Run `work` in a daemon thread of its own; its outcome as a future of the running loop.

    Not the loop's default executor (`asyncio.to_thread`): asyncio joins that executor's threads
    before `asyncio.run` returns, so a Ctrl-C during start-up waited for litellm's import to end
    (20 s on a loaded machine). A daemon thread ends with the process.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[None] = loop.create_future()
    future.add_done_callback(lambda f: None if f.cancelled() else f.exception())  # never "unretrieved"

    def settle(error: BaseException | None) -> None:
        if future.done():
            return
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)

    def run() -> None:
        error: BaseException | None = None
        try:
            work()
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, error)

    threading.Thread(target=run, name="provider-warm-up", daemon=True).start()
    return future


async def _settle(task: asyncio.Future[T]) -> None:
    """Wait for a worker-thread task that cannot be cancelled, ignoring its outcome; not when the
    start itself is being cancelled (Ctrl-C): the thread then finishes, or dies with the process."""
    current = asyncio.current_task()
    if current is not None and current.cancelling():
        return
    with contextlib.suppress(BaseException):
        await asyncio.shield(task)


async def _drop(task: asyncio.Future[T]) -> None:
    """Cancel a task whose outcome no longer matters, and collect it."""
    task.cancel()
    with contextlib.suppress(BaseException):
        await task


async def _begin(opening: Opening) -> None:
    """Start the servers and collect the context, beside the warm-up.

    Every MCP server starts at once, each in its own task; a new session's context calls go to
    a server as soon as that one is up (side by side). The start waits for the local server and
    the servers the context needs; other servers (the user's `mcpServers`) get a grace of
    START_GRACE seconds beyond that, then go on starting in the background and are offered from
    the next request once up — a slow one never holds the session back. The warm-up is waited
    for by :meth:`Opening.finish` (and here only to say a refused model before a server problem).
    """
    manager = opening.manager
    manager.launch()
    # A resumed session reads the context again too: its system prompt is written afresh (the
    # person may have applied drafts since); a failure there keeps the prompt it had.
    context_task: asyncio.Task[tuple[dict[str, str], list[str]] | None] = asyncio.ensure_future(
        _context(manager) if not opening.events else _context_or_none(manager)
    )
    try:
        # A start failure is recorded, not raised: it is read below. A cancellation (Ctrl-C
        # during start-up) is not swallowed here: the start stops.
        await manager.wait_started([LOCAL])
        if LOCAL in manager.start_failures:
            await asyncio.shield(opening.warming)  # a refused model is said before a server problem
            raise manager.start_failures[LOCAL]
    except BaseException:
        await _drop(context_task)
        raise
    opening.context = await context_task
    opening.still_starting = await manager.wait_started(timeout=START_GRACE)


def _assemble(
    session_id: str,
    session_dir: Path,
    project_root: Path,
    settings: Settings,
    provider: Provider,
    manager: MCPManager,
    log: EventLog,
    window: int,
    usable: int,
    events: list[EventRecord],
    problems: list[str],
    *,
    carried: frozenset[str] = frozenset(),
) -> Session:
    history = History.restore(events, log) if events else History(log)
    from formspec_consult.agent.verify_pass import VerifyingTools

    verifying = VerifyingTools(
        manager, settings.verify, provider, session_dir / SUMMARY, log=log.write
    )
    viewed = ModelView(
        verifying,
        ours=lambda exposed: manager.server_of(exposed) in (LOCAL, REGISTRY),
        real_name=manager.real_name,
        skills_named=named_skills(history.messages),
    )
    tools = ConsultantOffer(
        viewed,
        server_of=manager.server_of,
        real_name=manager.real_name,
        ours=(LOCAL, REGISTRY),
        drafted=session_has_drafted(session_dir),
        refresh=manager.refresh,
    )
    tools.carried = carried
    compressor = Compressor(
        count_tokens=lambda messages: provider.count_tokens(messages, tools.tool_declarations()),
        usable_window=usable,
        threshold=settings.compaction_threshold,
        summarise=make_summariser(provider, log),
    )
    transcript = _open_transcript(session_dir)
    for secret in session_secrets(provider, settings):
        transcript.add_secret(secret)

    def record(event: AgentEvent) -> None:
        transcript.write(event)

    loop = AgentLoop(
        provider=provider,
        history=history,
        tools=tools,
        compressor=compressor,
        log=log,
        record=record,
        max_steps=settings.max_steps,
        tool_result_cap=settings.tool_result_cap,
    )
    loop.permissions.rules = cast("dict[str, Rule]", dict(settings.permissions))  # checked by config
    loop.permissions.identify = manager.identity  # the servers' own word decides what needs asking
    loop.permissions.own_servers = frozenset({LOCAL})
    loop.permissions.refresh = manager.refresh
    tools.permissions = loop.permissions  # a guarded tool nobody could allow is not offered
    return Session(
        session_id,
        session_dir,
        project_root,
        settings,
        provider,
        manager,
        log,
        history,
        compressor,
        loop,
        window,
        transcript,
        events,
        problems,
    )


def _carried(context: dict[str, str] | None, events: list[EventRecord]) -> frozenset[str]:
    """The start-up context tools whose answer the system prompt holds: the new session's filled
    variables, or what the resumed one recorded (variable or tool names)."""
    if context is not None:
        held = {variable for variable, text in context.items() if text}
    else:
        started = next((e for e in events if isinstance(e, SessionStartedRecord)), None)
        held = set(started.context_tools) if started is not None else set()
    return frozenset(tool for tool, variable, _ in START_CALLS if variable in held or tool in held)


def _check_prefix_fits(session: Session) -> None:
    """Refuse to start when the fixed prompt and the answer's reserve leave no room to talk."""
    settings, provider = session.settings, session.provider

    def reserve_for(window: int) -> int:  # this window's reserve; a larger one's for the advice
        if window == session.window:
            return reserved_output(settings, provider, window)
        return output_reserve(window, explicit_reserve(settings))

    offer = session.loop.tools
    largest = offer.largest_declarations() if isinstance(offer, ConsultantOffer) else offer.tool_declarations()
    error = prefix_fit_error(provider, session.window, reserve_for, session.history.messages, largest)
    if error is not None:
        session.log.write(NoticeRecord(level="error", message=str(error)))
        raise error


class SessionMeta(TypedDict):
    """The fields session_started and session_resumed share: what the session runs with."""

    session_id: str
    model: str
    provider: str
    base_url: str | None
    project: str
    allow_unvalidated: bool
    verify: str | None
    window: int | None
    usable_window: int | None
    threshold_tokens: int | None


def _session_meta(session: Session) -> SessionMeta:
    return SessionMeta(
        session_id=session.session_id,
        model=session.provider.model,
        provider=session.provider.name,
        base_url=session.settings.base_url,
        project=str(session.project_root),
        allow_unvalidated=bool(session.settings.allow_unvalidated),
        verify=session.settings.verify,
        window=session.window,
        usable_window=session.compressor.usable_window,
        threshold_tokens=session.compressor.threshold_tokens,
    )


async def _context(manager: MCPManager) -> tuple[dict[str, str], list[str]]:
    """The start-up context calls, each sent as soon as its server is up (see collect_context)."""

    def server_of(tool: str) -> str:
        return REGISTRY if tool == "list_business_templates" else LOCAL

    async def call(tool: str, arguments: dict[str, Any]) -> Any:
        return await manager.call_on(server_of(tool), tool, arguments)

    async def available(tool: str) -> bool:
        server = server_of(tool)
        await manager.wait_started([server])
        conn = manager.connections.get(server)
        return conn is not None and conn.state == "running" and any(t.name == tool for t in conn.tools)

    return await collect_context(call, available)


async def _context_or_none(manager: MCPManager) -> tuple[dict[str, str], list[str]] | None:
    """The context of a resumed session, or None when it cannot be read (the old prompt stays)."""
    try:
        return await _context(manager)
    except Exception:  # noqa: BLE001 - a resumed session goes on with the prompt it had
        return None


def _follow_late_servers(session: Session, names: list[str]) -> None:
    """Servers still starting after the grace: a failure is logged when it comes and said at the
    next turn; a server that comes up is offered from the next request on."""
    if not names:
        return
    late = set(names)

    def started(name: str, problem: str | None) -> None:
        if name in late and problem is not None:
            session.start_problems.append(problem)
            with contextlib.suppress(EventLogError, OSError):  # the session may be closing meanwhile
                session.log.write(NoticeRecord(level="warning", message=problem))

    session.manager.on_started = started


def _prompt_for_offer(session: Session, context: dict[str, str]) -> Callable[[list[dict[str, Any]]], str]:
    """The system prompt for a request's declarations: the context, and the offer's tool names."""
    manager = session.manager

    def prompt(declarations: list[dict[str, Any]]) -> str:
        names = {
            manager.real_name(exposed)
            for declaration in declarations
            if manager.server_of(exposed := str(declaration["function"]["name"])) in (LOCAL, REGISTRY)
        }
        return render_system_prompt(session.session_id, context, names, reply_language=session.language.model_name)

    return prompt


def _start(session: Session, context: dict[str, str], problems: list[str]) -> None:
    """A new session: the system prompt from the collected context, session_started."""
    session.start_problems.extend(problems)
    created = datetime.now(UTC).isoformat(timespec="seconds")
    session.log.write(
        SessionStartedRecord(
            created=created,
            context_tools=[name for name, value in context.items() if value],
            **_session_meta(session),
        )
    )
    session.transcript.write_heading(
        f"Consultation {session.session_id}",
        model=session.provider.model,
        provider=session.provider.name,
        project=str(session.project_root),
        started=created,
    )
    for problem in session.start_problems:
        session.log.write(NoticeRecord(level="warning", message=problem))
    session.loop.system_prompt = prompt = _prompt_for_offer(session, context)
    session.history.append({"role": "system", "content": prompt(session.loop.tools.tool_declarations())})


def _resume(
    session: Session, events: list[EventRecord], context: tuple[dict[str, str], list[str]] | None = None
) -> None:
    """A resumed session: the exact history, turn numbering, usage; an interrupted turn is closed;
    the system prompt written again with the context read now (logged, so a rebuild has it)."""
    loop = session.loop
    session.language.restore(events)
    turns = [e.turn for e in events if isinstance(e, TurnStartedRecord)]
    finished = {e.turn for e in events if isinstance(e, TurnFinishedRecord)}
    loop.turn = max(turns, default=0)
    session.compressor.compactions = sum(1 for e in events if isinstance(e, CompactionRecord))
    loop.usage.restore(events)
    session.log.write(SessionResumedRecord(**_session_meta(session)))
    session.transcript.write_heading(
        f"Resumed {session.session_id}",
        model=session.provider.model,
        provider=session.provider.name,
        at=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    for problem in session.start_problems:
        session.log.write(NoticeRecord(level="warning", message=problem))
    if context is not None:
        loop.system_prompt = prompt = _prompt_for_offer(session, context[0])
        session.history.set_system_prompt(prompt(loop.tools.tool_declarations()), "resumed")
    if turns and loop.turn not in finished:
        repaired = session.history.repair_pairing()
        session.log.write(
            TurnFinishedRecord(turn=loop.turn, reason="cancelled", error="interrupted", repaired=repaired)
        )
        session.transcript.write_note(
            f"Turn {loop.turn} was interrupted (the program stopped); it was closed on resume."
        )
    elif session.history.pairing_issues():  # e.g. a reply with one tool-call id twice: fix it now,
        repaired = session.history.repair_pairing()  # not after the first request fails
        message = "The resumed history had tool-call pairing defects; repaired: " + "; ".join(repaired)
        session.log.write(NoticeRecord(level="warning", message=message))


def session_secrets(provider: Provider, settings: Settings) -> tuple[str, ...]:
    """Values no file of the session may contain: the provider's key, the registry token."""
    from formspec_consult.providers.keys import url_secrets

    return tuple(s for s in (*provider.secret_values(), settings.registry_token,
                             *url_secrets(settings.registry_url), *url_secrets(settings.base_url)) if s)
