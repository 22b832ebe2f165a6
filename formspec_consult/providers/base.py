"""The provider contract shared by the real (litellm) and offline (scripted, replay) providers.

Messages are OpenAI chat-format dicts (what litellm takes): ``{"role": "system"|"user"|
"assistant"|"tool", "content": ..., "tool_calls": [...], "tool_call_id": ...}``. Tools are
OpenAI function declarations ``{"type": "function", "function": {name, description, parameters}}``.
This module imports nothing heavy: litellm is imported lazily inside the litellm provider only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class ToolCall:
    """One tool call requested by the model; `arguments` is the raw JSON text the model sent."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    cost: float | None = None
    reported: bool = True  # False when estimated locally because the provider reported nothing


@dataclass(frozen=True)
class TextDelta:
    """A streamed piece of the assistant's text."""

    text: str


@dataclass(frozen=True)
class Completion:
    """The end of one model response: always the last item a provider's stream yields."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    finish_reason: str = "stop"
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Retrying:
    """The request failed and will be sent again after `delay` seconds (before any text was shown)."""

    attempt: int  # the try that failed (1 = the first)
    delay: float
    reason: str  # the error, one line

    def message(self) -> str:
        return f"{self.reason} — retrying in {self.delay:.0f} s (attempt {self.attempt + 1})"


StreamItem = TextDelta | Retrying | Completion
INCOMPLETE = "incomplete"  # finish_reason of a reply whose stream ended early; its text is kept


class ProviderError(Exception):
    """A provider failure, with a one-line hint saying what the user can do about it."""

    def __init__(self, message: str, *, hint: str = "", retryable: bool = False) -> None:
        super().__init__(message)
        self.hint = hint
        self.retryable = retryable

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base} — {self.hint}" if self.hint else base


@runtime_checkable
class Provider(Protocol):
    """What the agent loop needs from a model."""

    name: str  # e.g. "scripted", "replay", "litellm"
    model: str  # the model id as configured

    @property
    def context_window(self) -> int:
        """Input tokens the model accepts."""
        ...

    @property
    def max_output_tokens(self) -> int:
        """Tokens reserved for the answer."""
        ...

    def count_tokens(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
        """Count the prompt tokens of a request, offline."""
        ...

    def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamItem]:
        """Stream one response: zero or more TextDelta, then exactly one Completion."""
        ...
