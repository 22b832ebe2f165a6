"""A session's life once assembled: its start or resume written to the log and transcript, the
window's fit checked, late servers followed."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypedDict

from formspec_consult.agent.engine.offer import ConsultantOffer
from formspec_consult.agent.engine.phase import (
    PhaseTracker,
    recorded_iterate,
    session_applied,
    session_pending,
)
from formspec_consult.agent.engine.session import Session
from formspec_consult.agent.engine.setup import LOCAL, REGISTRY, prefix_fit_error, reserved_output
from formspec_consult.agent.engine.system_prompt import PhasePrompt
from formspec_consult.i18n import _
from formspec_consult.providers.base import output_reserve
from formspec_consult.providers.resolve import explicit_reserve
from formspec_consult.store.agent_events import Notice
from formspec_consult.store.events import EventLogError
from formspec_consult.store.records import (
    CompactionRecord,
    EventRecord,
    NoticeRecord,
    PhaseRecord,
    SessionResumedRecord,
    SessionStartedRecord,
    TurnFinishedRecord,
    TurnStartedRecord,
)


def check_prefix_fits(session: Session) -> None:
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


def follow_late_servers(session: Session, names: list[str]) -> None:
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


def _prompt_for_offer(session: Session, context: dict[str, str]) -> PhasePrompt:
    """The system prompt for a request's declarations: the context, the offer's tool names and the
    phase (asked of the tracker once per request, after the offer is known), the same text for
    every request of a phase (agent/engine/system_prompt.py)."""
    manager = session.manager

    def names(declarations: list[dict[str, Any]]) -> set[str]:
        return {
            manager.real_name(exposed)
            for declaration in declarations
            if manager.server_of(exposed := str(declaration["function"]["name"])) in (LOCAL, REGISTRY)
        }

    return PhasePrompt(session, context, names)


def _track_phase(session: Session, *, iterating: bool) -> PhaseTracker:
    """The session's phase tracker: a change is logged (a `phase` event) and said at the next request."""
    loop, offer = session.loop, session.loop.tools

    def said(record: PhaseRecord, notice: Notice | None) -> None:
        session.log.write(record)
        if notice is not None:
            loop.notices.append(notice)

    return PhaseTracker(
        drafted=lambda: isinstance(offer, ConsultantOffer) and offer.draft_phase,
        turn=lambda: loop.turn,
        applied=session_applied(session.session_dir),
        pending=session_pending(session.session_dir),
        said=said,
        iterating=iterating,
    )


def _designed(project_root: Path) -> bool:
    """Whether the project already holds entities of its own (an applied design)."""
    from formspec_consult.spec.owner_docs import own_entities
    from formspec_consult.spec.project import Project

    try:
        return bool(own_entities(Project(project_root).documents()))
    except Exception:  # noqa: BLE001 - an unreadable project is Discovery's to find out
        return False


def start_new(session: Session, context: dict[str, str], problems: list[str]) -> None:
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
    session.phase = _track_phase(session, iterating=False)
    if _designed(session.project_root):
        session.phase.start_designed()
    session.loop.system_prompt = prompt = _prompt_for_offer(session, context)
    session.history.append({"role": "system", "content": prompt.render(session.loop.tools.tool_declarations())})


def resume(
    session: Session, events: list[EventRecord], context: tuple[dict[str, str], list[str]] | None = None
) -> None:
    """A resumed session: the exact history, turn numbering, usage; an interrupted turn is closed;
    the system prompt written again with the context read now (logged, so a rebuild has it)."""
    loop = session.loop
    session.language.restore(events)  # the reply language the log last recorded
    turns = [e.turn for e in events if isinstance(e, TurnStartedRecord)]
    finished = {e.turn for e in events if isinstance(e, TurnFinishedRecord)}
    loop.turn = max(turns, default=0)
    ends = [e for e in events if isinstance(e, TurnFinishedRecord)]
    if ends and ends[-1].reason == "step_limit":  # its next message says the last turn was cut short
        loop.stopped_at_budget = loop.max_steps
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
    session.phase = _track_phase(session, iterating=recorded_iterate(events))
    if context is not None:
        loop.system_prompt = prompt = _prompt_for_offer(session, context[0])
        session.history.set_system_prompt(prompt.render(loop.tools.tool_declarations()), "resumed")
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
        message = _("The resumed history had tool-call pairing defects; repaired: {repairs}").format(
            repairs="; ".join(repaired))
        session.log.write(NoticeRecord(level="warning", message=message))
