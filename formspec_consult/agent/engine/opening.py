"""Opening a session, the first step: the folder claimed, the MCP servers started, a new session's
context collected — beside the model layer's warm-up in a thread. :meth:`Opening.finish` waits for
the warm-up and hands the parts to `assembly` and `lifecycle`."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from formspec_consult.agent.engine.assembly import assemble, carried_tools, session_secrets
from formspec_consult.agent.engine.context import collect_context
from formspec_consult.agent.engine.lifecycle import check_prefix_fits, follow_late_servers, resume, start_new
from formspec_consult.agent.engine.options import EngineOptions
from formspec_consult.agent.engine.session import Session
from formspec_consult.agent.engine.setup import LOCAL, REGISTRY, consult_dir, resolve_project, usable_window
from formspec_consult.config import Settings
from formspec_consult.mcp_client.config import parse_servers
from formspec_consult.mcp_client.manager import MCPManager
from formspec_consult.providers.base import Provider
from formspec_consult.store.events import EventLog
from formspec_consult.store.layout import EVENTS
from formspec_consult.store.locks import SessionWriter
from formspec_consult.store.records import EventRecord, SessionResumedRecord, SessionStartedRecord

# Seconds a session waits, once everything it needs is ready, for the servers it does not need
# (the user's mcpServers) before it goes on without them; they join once up.
START_GRACE = 10.0
T = TypeVar("T")


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


@dataclass(frozen=True, kw_only=True)
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
                model=event.model or found.model,
                base_url=event.base_url or found.base_url,
                window=event.window or found.window,
                allow_unvalidated=event.allow_unvalidated or found.allow_unvalidated,
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
        project_root=project_root,
        session_id=session_id,
        session_dir=session_dir,
        settings=settings,
        provider=provider,
        manager=manager,
        warming=warming,
        events=events,
        claims=claims,
        created=created,
    )
    try:
        await _begin(opening)
    except BaseException:
        await opening.abandon()
        raise
    return opening


@dataclass(kw_only=True)
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
            session = assemble(
                session_id=self.session_id,
                session_dir=self.session_dir,
                project_root=self.project_root,
                settings=self.settings,
                provider=self.provider,
                manager=manager,
                log=log,
                window=window,
                usable=usable,
                events=self.events,
                problems=problems,
                carried=carried_tools(self.context[0] if self.context is not None else None, self.events),
            )
            follow_late_servers(session, still_starting)
            if self.events:
                resume(session, self.events, self.context)
            else:
                assert self.context is not None
                start_new(session, *self.context)
            check_prefix_fits(session)
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
