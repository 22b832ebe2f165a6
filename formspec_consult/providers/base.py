"""The provider contract shared by the real (litellm) and offline (scripted, replay) providers.

Messages are OpenAI chat-format dicts (what litellm takes): ``{"role": "system"|"user"|
"assistant"|"tool", "content": ..., "tool_calls": [...], "tool_call_id": ...}``. Tools are
OpenAI function declarations ``{"type": "function", "function": {name, description, parameters}}``.
This module imports nothing heavy: litellm is imported lazily inside the litellm provider only.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from formspec_consult.errors import UserError
from formspec_consult.i18n import _
from formspec_consult.providers.tokens import count_messages


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
        return _("{reason} — retrying in {seconds} s (attempt {attempt})").format(
            reason=self.reason, seconds=f"{self.delay:.0f}", attempt=self.attempt + 1)


StreamItem = TextDelta | Retrying | Completion
INCOMPLETE = "incomplete"  # finish_reason of a reply whose stream ended early; its text is kept


class ProviderError(UserError):
    """A provider failure, with a one-line hint saying what the user can do about it."""

    def __init__(self, message: str, *, hint: str = "", retryable: bool = False) -> None:
        super().__init__(message, hint=hint)
        self.retryable = retryable


class Provider(ABC):
    """What the agent loop needs from a model, with a default for every capability.

    Every provider (litellm, scripted, replay, a test's fake) subclasses this, so a call site reads
    a capability as a plain attribute — ``provider.supports_images`` — and never probes with
    ``getattr``. A subclass overrides only what differs from the defaults below; the defaults are
    the conservative answer (no images, no cache markers, nothing to warm, no secrets).
    """

    name: str = "provider"  # e.g. "scripted", "replay", "litellm"
    model: str = ""  # the model id as configured

    @property
    @abstractmethod
    def context_window(self) -> int:
        """Input tokens the model accepts."""

    @property
    @abstractmethod
    def max_output_tokens(self) -> int:
        """Tokens reserved for the answer (the ``max_tokens`` of each request)."""

    @abstractmethod
    def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamItem]:
        """Stream one response: zero or more TextDelta (or Retrying), then exactly one Completion."""

    # -- capabilities, with their defaults ---------------------------------------------------
    @property
    def offline(self) -> bool:
        """True for providers that play prepared replies (no network, no capability bar)."""
        return False

    @property
    def supports_images(self) -> bool:
        """Whether tool results may carry image parts (others read only the text placeholder)."""
        return False

    @property
    def supports_cache_control(self) -> bool:
        """Whether requests carry Anthropic-style explicit ``cache_control`` breakpoints."""
        return False

    @property
    def supports_tool_calling(self) -> bool | None:
        """Whether the model calls tools; None when it cannot be known (an unknown model)."""
        return True

    @property
    def known_model(self) -> bool:
        """False when the model catalogue (litellm's) does not know the model."""
        return True

    @property
    def allow_unvalidated(self) -> bool:
        """The person allowed a model below the capability bar (``--allow-unvalidated``)."""
        return False

    def count_tokens(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
        """Count the prompt tokens of a request, offline (default: the o200k counter)."""
        return count_messages(messages, tools)

    def warm(self) -> None:  # noqa: B027 - a capability with a default, not an abstract step
        """Load what the first request needs (may block for seconds: call it off the event loop).
        Nothing to load by default."""

    def secret_values(self) -> tuple[str, ...]:
        """Strings no log or transcript may contain (an API key); none by default."""
        return ()


DEFAULT_RESERVED_OUTPUT = 4096  # Settings.reserved_output's default
MIN_RESERVED_OUTPUT = 512
RESERVE_SHARE = 4  # by default at most a quarter of the window is kept for the answer


def output_reserve(window: int, configured: int | None = None, model_limit: int | None = None) -> int:
    """Tokens to keep free for the answer in a `window`-token context.

    An explicitly configured `reserved_output` is honoured as given. The default (4,096) is
    capped at a quarter of the window, but never below 512: a 32k window keeps 4,096, a 16k
    window 4,096, an 8,192-token window 2,048, a 4,096-token window 1,024. Either way the reserve
    never exceeds the model's own output limit (`model_limit`) when one is known.
    """
    if configured is not None:
        reserve = configured
    else:
        reserve = min(DEFAULT_RESERVED_OUTPUT, max(MIN_RESERVED_OUTPUT, window // RESERVE_SHARE))
    return min(reserve, model_limit) if model_limit else reserve
