"""The session's reply language: set, recorded, told to the model, kept.

It is set by `--lang` when given, else from the owner's first message whose language is clear
(a greeting like "hi" is not), and switched with `/language <code>`; each change is a `language`
record in the event log (so a resume and a replay rebuild it) beside a notice the person reads.
The consultant prompt names it (`reply_language`). A final reply that is clearly in another
language is caught by :meth:`ReplyLanguage.check` and the model is asked once to answer again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from formspec_consult.agent.language.detect import Detection, detect, same_language
from formspec_consult.agent.loop.reask import ReAsk
from formspec_consult.store.records import EventRecord, LanguageRecheckRecord, LanguageRecord

Source = Literal["detected", "flag", "command"]

# The owner's message sets the language only when it is this sure (Indonesian and Malay together).
SET_AT_LEAST = 0.9
# A reply is re-asked only when another language is this sure and the session's is below OWN_BELOW:
# an Indonesian reply full of English names ("draft Booking entity sudah ready") is left alone.
OTHER_AT_LEAST = 0.9
OWN_BELOW = 0.02
REPLY_MIN_LETTERS = 40


class LanguageError(ValueError):
    """A language code nobody knows; the message says what to type instead."""


def language_name(code: str, locale: str = "en") -> str:
    """The name of the language `code` in `locale` ("id" → "Indonesian"); the code when unknown."""
    from babel import Locale, UnknownLocaleError

    try:
        name = Locale.parse(code).get_display_name(locale)
    except (UnknownLocaleError, ValueError, TypeError):
        return code
    return name or code


def parse_language(text: str) -> str:
    """The ISO 639 code of `text` ("id", "id_ID", "id-ID", "ID" → "id"); LanguageError when unknown."""
    from babel import Locale, UnknownLocaleError

    raw = text.strip().replace("-", "_")
    try:
        return str(Locale.parse(raw.split("_")[0].lower()).language)
    except (UnknownLocaleError, ValueError, TypeError):
        raise LanguageError(
            f"Unknown language {text.strip()!r}: give its ISO 639 code, e.g. /language id (Indonesian), "
            "/language en (English), /language ja (Japanese)."
        ) from None


@dataclass
class ReplyLanguage:
    """The reply language of one session (None until it is set)."""

    code: str | None = None
    source: Source | None = None

    @property
    def model_name(self) -> str:
        """How the consultant prompt names it ("" while it is not set)."""
        return language_name(self.code) if self.code else ""

    def restore(self, events: Iterable[EventRecord]) -> None:
        """The language the session's log last recorded (a resume, a fork)."""
        for event in events:
            if isinstance(event, LanguageRecord) and event.language:
                self.code = event.language
                self.source = "command" if event.source == "command" else "flag" if event.source == "flag" else "detected"

    def set(self, code: str, source: Source) -> tuple[LanguageRecord, str] | None:
        """Set the language; its record and what the person is told, or None when it is already so."""
        if self.code == code:
            return None
        self.code, self.source = code, source
        name = language_name(code)
        said = {
            "detected": f"Replies in {name}, the language of your first message. "
                        f"To change it: /language <code>, e.g. /language {'en' if code != 'en' else 'id'}.",
            "flag": f"Replies in {name} (--lang {code}).",
            "command": f"Replies in {name} from now on.",
        }[source]
        return LanguageRecord(language=code, source=source), said

    def first_message(self, text: str) -> str | None:
        """The language of the owner's message when the session has none yet and it is clear."""
        if self.code is not None or text.lstrip().startswith("[chosen:"):
            return None
        found = detect(text)
        if found is None or found.probability < SET_AT_LEAST:
            return None
        return found.language

    def mismatch(self, reply: str) -> Detection | None:
        """The detection of a reply clearly in another language than the session's; else None."""
        if self.code is None:
            return None
        found = detect(reply, min_letters=REPLY_MIN_LETTERS)
        if found is None or same_language(self.code, found.language):
            return None
        if found.probability < OTHER_AT_LEAST or found.probability_of(self.code) >= OWN_BELOW:
            return None
        return found

    def reask(self, reply: str, turn: int) -> ReAsk | None:
        """What to say and ask when `reply` is clearly not in the session's language."""
        found = self.mismatch(reply)
        if found is None or self.code is None:
            return None
        name, other = language_name(self.code), language_name(found.language)
        return ReAsk(
            notice=f"The consultant replied in {other}, not {name} (this session's language): "
                   f"asked once to answer again in {name}. To switch to {other}: /language {found.language}.",
            message=f"[Your last reply was in {other}, but this session's language is {name}. Write that "
                    f"reply again in {name}; keep file paths, field names and option letters as they are.]",
            record=LanguageRecheckRecord(turn=turn, expected=self.code, found=found.language),
            gave_up=f"The consultant answered in {other} again; the reply stays as it is. "
                    f"To switch the session to {other}: /language {found.language}.",
        )
