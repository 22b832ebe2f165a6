"""Simulated owners: who answers the consultant in an eval case.

- :class:`ScriptedOwner` (``--offline``): deterministic rules over the case's facts — pick the
  offered option that best matches a fact, agree to draft, confirm a summary, else tell the next
  fact — and stop once a turn ended with drafts that pass the gate.
- :class:`ModelOwner`: a second model (any litellm model, the same BYOK resolution as the
  consultant) given the persona and the facts (prompts/eval-owner.prompt.yaml), answering only from them; it says ``DONE`` when
  the consultant reports the drafts are ready.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from formspec_consult.eval.corpus import Case
from formspec_consult.prompting.prompts import load_prompt
from formspec_consult.providers.base import Completion, Provider

DONE = "DONE"
_WORD = re.compile(r"[a-z0-9]+")
_PHRASES = {
    "en": {"yes": "Yes, that's right.", "draft": "Yes, please draft it.",
           "more": "That's all I know. Please go ahead and draft it."},
    "id": {"yes": "Ya, betul.", "draft": "Ya, silakan buat drafnya.",
           "more": "Itu saja yang saya tahu. Silakan langsung dibuatkan drafnya."},
}
_ASKS_TO_DRAFT = re.compile(r"\b(shall i|should i|may i|can i|boleh saya|saya buatkan|mau saya)\b.*\b(draft|draf|write|buat)",
                            re.IGNORECASE | re.DOTALL)
_ASKS_TO_CONFIRM = re.compile(r"\b(is that right|is this right|correct\?|confirm|sudah benar|sudah sesuai|betul\?|benar\?)",
                              re.IGNORECASE)


@dataclass(frozen=True)
class ConsultantTurn:
    """What the owner sees of one consultant turn."""

    text: str
    options: tuple[str, ...] = ()
    drafts_passed: int = 0  # propose_spec_file calls in this turn that passed the gate


class Owner(Protocol):
    async def reply(self, turn: ConsultantTurn) -> str | None:
        """The owner's next message, or None when the conversation is over."""
        ...


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


@dataclass
class ScriptedOwner:
    """Deterministic: the same consultant turns always get the same answers."""

    case: Case
    told: int = 0

    async def reply(self, turn: ConsultantTurn) -> str | None:
        phrases = _PHRASES[self.case.language]
        if turn.drafts_passed and not turn.options:
            return None
        if turn.options:
            facts = [_words(f) for f in self.case.owner_facts]
            best = max(turn.options, key=lambda o: max((len(_words(o) & f) for f in facts), default=0))
            return best.split(")", 1)[0].strip()  # the letter; the engine records the full option
        if _ASKS_TO_DRAFT.search(turn.text):
            return phrases["draft"]
        if _ASKS_TO_CONFIRM.search(turn.text):
            return phrases["yes"]
        if self.told < len(self.case.owner_facts):
            self.told += 1
            return self.case.owner_facts[self.told - 1]
        return phrases["more"]


@dataclass
class ModelOwner:
    """An owner played by a model; `provider` is created once for the run."""

    case: Case
    provider: Provider
    messages: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __post_init__(self) -> None:
        language = {"en": "English", "id": "Indonesian (Bahasa Indonesia)"}[self.case.language]
        facts = "\n".join(f"- {f}" for f in self.case.owner_facts)
        prompt = load_prompt("eval-owner")
        system = prompt.render_system(language=language, opening=self.case.opening, persona=self.case.persona,
                                      facts=facts)
        # The owner's own first message is the case's opening line.
        # Some providers want a user message first: the consultant's greeting stands in for it.
        self.messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": "(The consultant greets you and asks about your business.)"},
            {"role": "assistant", "content": self.case.opening},
        ]

    async def reply(self, turn: ConsultantTurn) -> str | None:
        self.messages.append({"role": "user", "content": turn.text or "(the consultant said nothing)"})
        completion: Completion | None = None
        async for item in self.provider.stream(self.messages, None):
            if isinstance(item, Completion):
                completion = item
        text = completion.text.strip() if completion is not None else ""
        if completion is not None and completion.usage is not None:
            self.prompt_tokens += completion.usage.prompt_tokens
            self.completion_tokens += completion.usage.completion_tokens
        self.messages.append({"role": "assistant", "content": text})
        if not text or text.strip().rstrip(".").upper() == DONE:
            return None
        return text
