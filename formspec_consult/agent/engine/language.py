"""The reply language in a running session: set it (logged, told to the model), check replies.

See agent/language/lock.py for the rules; this module writes what they decide into the session:
the `language` record and the person's notice in the log, the system prompt written again (its
`system_prompt` record says `language`) while no request has carried it — else the model is told with
the next message and the prompt stays fixed for the phase (agent/engine/system_prompt.py) — and the
loop's reply check.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from formspec_consult.agent.engine.system_prompt import PhasePrompt
from formspec_consult.agent.language.lock import Source
from formspec_consult.agent.loop.reask import ReAsk
from formspec_consult.store.records import NoticeRecord

if TYPE_CHECKING:
    from formspec_consult.agent.engine.session import Session


def set_language(session: Session, code: str, source: Source) -> str | None:
    """Make `code` the session's reply language; what the person is told (logged too), or None
    when it already was. The model reads it in the system prompt from the next request on."""
    change = session.language.set(code, source)
    if change is None:
        return None
    record, said = change
    session.log.write(record)
    session.log.write(NoticeRecord(level="info", message=said))
    prompt = session.loop.system_prompt
    if isinstance(prompt, PhasePrompt) and not prompt.requested:
        # No request carried the prompt yet: it names the language itself. Once one has, the
        # prompt stays as it is for the phase (a provider's cache keeps it) and the model is told
        # with the next message (system_prompt.language_note).
        session.history.set_system_prompt(prompt.refresh(session.loop.tools.tool_declarations()), "language")
    return said


async def language_of_first_message(session: Session, text: str) -> str | None:
    """Set the language from the owner's message while none is set and this one is clear; what
    the person is told, or None. Detection runs in a thread (the model may still be loading)."""
    if session.language.code is not None:
        return None
    code = await asyncio.to_thread(session.language.first_message, text)
    return set_language(session, code, "detected") if code is not None else None


def check_replies(session: Session) -> None:
    """Have the loop check each final reply against the session's language (re-asked once)."""

    async def check(reply: str) -> ReAsk | None:
        if session.language.code is None:
            return None
        return await asyncio.to_thread(session.language.reask, reply, session.loop.turn)

    session.loop.reply_check = check
