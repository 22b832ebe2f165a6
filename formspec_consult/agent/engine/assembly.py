"""Assembling a session from its opened parts: the tool offer, compressor, transcript and loop."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from formspec_consult.agent.compaction.compress import Compressor
from formspec_consult.agent.engine.context import START_CALLS, make_summariser
from formspec_consult.agent.engine.module_detail import DETAIL, InstalledModuleDetail
from formspec_consult.agent.engine.offer import ConsultantOffer, session_has_drafted
from formspec_consult.agent.engine.result_view import ModelView, logged_messages, named_skills
from formspec_consult.agent.engine.session import Session
from formspec_consult.agent.engine.setup import LOCAL, REGISTRY
from formspec_consult.agent.history.history import History
from formspec_consult.agent.loop.loop import AgentLoop
from formspec_consult.config import Settings
from formspec_consult.mcp_client.manager import MCPManager
from formspec_consult.providers.base import Provider
from formspec_consult.store.agent_events import AgentEvent
from formspec_consult.store.events import EventLog
from formspec_consult.store.layout import SUMMARY, TRANSCRIPT
from formspec_consult.store.records import EventRecord, SessionStartedRecord

if TYPE_CHECKING:
    from formspec_consult.agent.loop.permissions import Rule
    from formspec_consult.store.transcript import Transcript


def assemble(
    *,
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
    carried: frozenset[str] = frozenset(),
) -> Session:
    """The session's parts wired together; nothing is written to the log yet (see `lifecycle`)."""
    history = History.restore(events, log) if events else History(log)
    from formspec_consult.agent.verify_pass import VerifyingTools

    verifying = VerifyingTools(manager, settings.verify, provider, session_dir / SUMMARY, log=log.write)
    detailed = InstalledModuleDetail(  # get_module_detail knows the project's installed modules too
        verifying,
        is_detail=lambda exposed: manager.server_of(exposed) == REGISTRY and manager.real_name(exposed) == DETAIL,
        installed=lambda: manager.call_on(LOCAL, "list_installed_modules", {}),
    )
    viewed = ModelView(
        detailed,
        ours=lambda exposed: manager.server_of(exposed) in (LOCAL, REGISTRY),
        real_name=manager.real_name,
        skills_named=named_skills(logged_messages(events)),  # every view sent, compacted ones too
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
        session_id=session_id,
        session_dir=session_dir,
        project_root=project_root,
        settings=settings,
        provider=provider,
        manager=manager,
        log=log,
        history=history,
        compressor=compressor,
        loop=loop,
        window=window,
        transcript=transcript,
        resumed_events=events,
        start_problems=problems,
    )


def _open_transcript(session_dir: Path) -> Transcript:
    from formspec_consult.store.transcript import Transcript

    return Transcript(session_dir / TRANSCRIPT)


def carried_tools(context: dict[str, str] | None, events: list[EventRecord]) -> frozenset[str]:
    """The start-up context tools whose answer the system prompt holds: the new session's filled
    variables, or what the resumed one recorded (variable or tool names)."""
    if context is not None:
        held = {variable for variable, text in context.items() if text}
    else:
        started = next((e for e in events if isinstance(e, SessionStartedRecord)), None)
        held = set(started.context_tools) if started is not None else set()
    return frozenset(tool for tool, variable, _ in START_CALLS if variable in held or tool in held)


def session_secrets(provider: Provider, settings: Settings) -> tuple[str, ...]:
    """Values no file of the session may contain: the provider's key, the registry token."""
    from formspec_consult.providers.keys import url_secrets

    return tuple(s for s in (*provider.secret_values(), settings.registry_token,
                             *url_secrets(settings.registry_url), *url_secrets(settings.base_url)) if s)
