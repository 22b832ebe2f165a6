"""The session's reply language: set, recorded, told to the model, kept.

It is set by `--lang` when given, else from the owner's first message whose language is clear
(a greeting like "hi" is not), and switched with `/language <code>`; each change is a `language`
record in the event log (so a resume and a replay rebuild it) beside a notice the person reads.
The consultant prompt names it (`reply_language`). A final reply that is clearly in another
language is caught by :meth:`ReplyLanguage.check` and the model is asked once to answer again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from formspec_consult.agent.language.detect import Detection, detect, same_language
from formspec_consult.agent.loop.reask import ReAsk
from formspec_consult.i18n import gettext as _
from formspec_consult.i18n import language_code, language_name, locale_language
from formspec_consult.store.records import EventRecord, LanguageRecheckRecord, LanguageRecord

Source = Literal["detected", "flag", "command"]

# The owner's message sets the language only when it is this sure (Indonesian and Malay together).
SET_AT_LEAST = 0.9
# A reply is re-asked only when another language is this sure and the session's is below OWN_BELOW:
# an Indonesian reply full of English names ("draft Booking entity sudah ready") is left alone.
OTHER_AT_LEAST = 0.9
# Indonesian and Malay: a message of the family sets Malay only in a Malay locale or when langid
# gives Malay alone this much (Malaysian prose scores 0.97+; Indonesian owners' messages of the eval
# corpus at most 0.68, a short Indonesian one 0.52).
MALAY_FAMILY = frozenset({"id", "ms"})
CLEARLY_MALAY = 0.95
OWN_BELOW = 0.02
REPLY_MIN_LETTERS = 40


class LanguageError(ValueError):
    """A language code nobody knows; the message says what to type instead."""


def parse_language(text: str) -> str:
    """The ISO 639 code of `text` ("id", "id_ID", "id-ID", "ID" → "id"); LanguageError when unknown."""
    code = language_code(text)
    if code is None:
        raise LanguageError(
            _("Unknown language {name!r}: give its ISO 639 code, e.g. /language id (Indonesian), "
              "/language en (English), /language ja (Japanese).").format(name=text.strip())
        )
    return code


@dataclass
class ReplyLanguage:
    """The reply language of one session (None until it is set)."""

    code: str | None = None
    source: Source | None = None

    @property
    def model_name(self) -> str:
        """How the consultant prompt names it ("" while it is not set)."""
        return language_name(self.code, "en") if self.code else ""  # the model is addressed in English

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
        if source == "detected":
            said = _("Replies in {name}, the language of your first message. To change it: /language <code>, "
                     "e.g. /language {other}.").format(name=name, other="en" if code != "en" else "id")
        elif source == "flag":
            said = _("Replies in {name} (--lang {code}).").format(name=name, code=code)
        else:
            said = _("Replies in {name} from now on.").format(name=name)
        return LanguageRecord(language=code, source=source), said

    def first_message(self, text: str, environ: Mapping[str, str] | None = None) -> str | None:
        """The language of the owner's message when the session has none yet and it is clear.

        Indonesian and Malay are one family to langid, and it leans Malay on short Indonesian
        ("Saya punya usaha potong rambut." is 52% Malay, 39% Indonesian): a message of that family
        sets Indonesian — this product's first language — unless the owner's locale (`environ`,
        default ``os.environ``) is Malay or the message is Malay beyond doubt (CLEARLY_MALAY).
        """
        if self.code is not None or text.lstrip().startswith("[chosen:"):
            return None
        found = detect(text)
        if found is None or found.probability < SET_AT_LEAST:
            return None
        if found.language in MALAY_FAMILY:
            malay = locale_language(environ) == "ms" or dict(found.ranked).get("ms", 0.0) >= CLEARLY_MALAY
            return "ms" if malay else "id"
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
        to_model = language_name(self.code, "en"), language_name(found.language, "en")
        return ReAsk(
            notice=_("The consultant replied in {other}, not {name} (this session's language): asked once to "
                     "answer again in {name}. To switch to {other}: /language {code}.").format(
                         other=other, name=name, code=found.language),
            message=f"[Your last reply was in {to_model[1]}, but this session's language is {to_model[0]}. Write "
                    f"that reply again in {to_model[0]}; keep file paths, field names and option letters as they are.]",
            record=LanguageRecheckRecord(turn=turn, expected=self.code, found=found.language),
            gave_up=_("The consultant answered in {other} again; the reply stays as it is. To switch the session "
                      "to {other}: /language {code}.").format(other=other, code=found.language),
        )
