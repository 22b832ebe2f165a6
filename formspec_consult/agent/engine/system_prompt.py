"""The system prompt a session's requests carry: the same text for every request of a phase.

A provider caches the prompt's prefix (the tool declarations, then the system prompt): a prompt
that changes mid-phase writes the whole prefix to the cache again. So the prompt is rendered once
per *phase* — the offer's tool names (the Draft phase's tools arrive with the first draft) and
whether the Iterate phase's rules apply — and the same text is returned for every later request of
that phase: today's date (Iterate) and the reply language stay as they were when it was rendered.

The reply language may be set after the first request (a later message is the first clear one, or
`/language`). The prompt is then not written again: the model is told in one line with the next
user message (:func:`language_note`), logged inside that message like the review line
(agent/engine/since.py), so the log still rebuilds what the model saw; the next phase's prompt
names the language itself. Before any request has carried the prompt, setting the language
renders it afresh instead (:meth:`PhasePrompt.refresh`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from formspec_consult.agent.engine.context import render_system_prompt

if TYPE_CHECKING:
    from formspec_consult.agent.engine.session import Session


class PhasePrompt:
    """The loop's `system_prompt` callable: the prompt for a request's declarations, fixed per phase."""

    def __init__(self, session: Session, context: dict[str, str],
                 names: Callable[[list[dict[str, Any]]], Collection[str]]) -> None:
        self._session, self._context, self._names = session, context, names
        self._key: tuple[frozenset[str], bool] | None = None
        self._text = ""
        self.language = ""  # the reply language the current text names ("" : none)
        self.requested = False  # a request has carried the current text
        self.told = ""  # the language a note told the model since the text was rendered

    def __call__(self, declarations: list[dict[str, Any]]) -> str:
        """The prompt for the request about to be sent (the loop calls this once per request)."""
        text = self.render(declarations)
        self.requested = True
        return text

    def render(self, declarations: list[dict[str, Any]]) -> str:
        """The phase's text: rendered again only when the phase changed (and then it names the
        reply language and date of now)."""
        session = self._session
        phase = session.phase.observe() if session.phase is not None else None
        key = (frozenset(self._names(declarations)), phase == "iterate")
        if key != self._key:
            self._key = key
            self._set(self._render(key[0], phase))
        return self._text

    def refresh(self, declarations: list[dict[str, Any]]) -> str:
        """The text rendered again for the language of now (only while no request carried it)."""
        self._key = None  # whatever was rendered, render once more
        return self.render(declarations)

    def _render(self, names: frozenset[str], phase: str | None) -> str:
        session = self._session
        self.language = session.language.model_name
        return render_system_prompt(session.session_id, self._context, names, phase, reply_language=self.language)

    def _set(self, text: str) -> None:
        if text != self._text:
            self._text, self.requested, self.told = text, False, ""


def language_note(session: Session) -> str:
    """One line for the next user message when the reply language changed after a request carried
    the prompt (which keeps naming the earlier one until the next phase); "" otherwise, and once."""
    prompt = session.loop.system_prompt
    current = session.language.model_name
    if not isinstance(prompt, PhasePrompt) or not current or not prompt.requested:
        return ""
    if current == (prompt.told or prompt.language):  # what the model was last told
        return ""
    prompt.told = current
    return (f"[This session's language is now {current}: write every reply in {current}, whatever language "
            "tool results, skills or files are in.]")
