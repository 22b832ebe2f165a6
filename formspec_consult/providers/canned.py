"""A provider that plays back prepared assistant turns: the base of scripted and replay.

Each turn is streamed as several :class:`TextDelta` chunks then one :class:`Completion`, so the
agent loop and the UI see exactly what a real streaming model would give them.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from formspec_consult.providers.base import (
    Completion,
    Provider,
    ProviderError,
    StreamItem,
    TextDelta,
    ToolCall,
    Usage,
    output_reserve,
)
from formspec_consult.providers.tokens import content_text, count_text

DEFAULT_WINDOW = 128_000
_CHUNK = re.compile(r"\S+\s*|\s+")


@dataclass(frozen=True)
class CannedTurn:
    """One prepared assistant reply."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    expect: str | None = None  # a substring the last user/tool message must contain
    usage: Mapping[str, Any] | None = None  # overrides the counted usage
    error: Mapping[str, Any] | None = None  # raise ProviderError(message, hint, retryable) instead
    extra: Mapping[str, Any] = field(default_factory=dict)


def chunk_text(text: str, words_per_chunk: int = 3) -> list[str]:
    """Split text into small streaming chunks (a few words each) that join back exactly."""
    pieces = _CHUNK.findall(text)
    return ["".join(pieces[i : i + words_per_chunk]) for i in range(0, len(pieces), words_per_chunk)]


def last_incoming_text(messages: list[dict[str, Any]]) -> str:
    """The content of the last user or tool message (what `expect` is checked against)."""
    for message in reversed(messages):
        if message.get("role") in {"user", "tool"}:
            return content_text(message.get("content"))
    return ""


class CannedProvider(Provider):
    """Plays back `turns` in order; raises a clear ProviderError when they run out."""

    name = "canned"

    def __init__(
        self,
        turns: list[CannedTurn],
        *,
        model: str = "canned",
        context_window: int = DEFAULT_WINDOW,
        max_output_tokens: int | None = None,
        source: str = "the script",
        images: bool = False,
    ) -> None:
        self.turns = list(turns)
        self.model = model
        self._context_window = context_window
        self._max_output_tokens = max_output_tokens
        self._images = images
        self.source = source
        self.position = 0  # index of the next turn to play
        self.requests: list[list[dict[str, Any]]] = []  # every message list received, for tests

    @property
    def context_window(self) -> int:
        return self._context_window

    @property
    def max_output_tokens(self) -> int:
        """As given, else the default reserve in proportion to the window (see `output_reserve`)."""
        return output_reserve(self._context_window, self._max_output_tokens)

    @property
    def offline(self) -> bool:
        return True

    @property
    def supports_images(self) -> bool:
        """As the script says (``images: true``): plays a model that takes images in tool results."""
        return self._images

    @property
    def remaining(self) -> int:
        """How many turns are left."""
        return len(self.turns) - self.position

    def _next_turn(self, messages: list[dict[str, Any]]) -> CannedTurn:
        if self.position >= len(self.turns):
            raise ProviderError(
                f"{self.name} model ran out of replies after {len(self.turns)} turn(s)",
                hint=f"add more turns to {self.source}",
            )
        turn = self.turns[self.position]
        if turn.expect is not None:
            got = last_incoming_text(messages)
            if turn.expect not in got:
                excerpt = got if len(got) <= 200 else got[:200] + "…"
                raise ProviderError(
                    f"{self.name} turn {self.position + 1} expected the last user/tool message to contain "
                    f"{turn.expect!r}, got {excerpt!r}",
                    hint=f"the conversation diverged from {self.source}; update its 'expect'",
                )
        self.position += 1
        return turn

    async def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamItem]:
        """Stream the next turn: a few TextDelta chunks, then the Completion with usage."""
        self.requests.append([dict(m) for m in messages])
        turn = self._next_turn(messages)
        if turn.error is not None:
            raise ProviderError(
                str(turn.error.get("message", "scripted provider error")),
                hint=str(turn.error.get("hint", "")),
                retryable=bool(turn.error.get("retryable", False)),
            )
        for piece in chunk_text(turn.text):
            yield TextDelta(piece)
        completion_tokens = count_text(turn.text) + sum(
            count_text(c.name) + count_text(c.arguments) for c in turn.tool_calls
        )
        usage = Usage(
            prompt_tokens=self.count_tokens(messages, tools),
            completion_tokens=completion_tokens,
            cost=0.0,
        )
        if turn.usage:
            usage = Usage(**{**usage.__dict__, **dict(turn.usage)})
        yield Completion(
            text=turn.text,
            tool_calls=turn.tool_calls,
            usage=usage,
            finish_reason="tool_calls" if turn.tool_calls else "stop",
            raw={"provider": self.name, "turn": self.position},
        )


def tool_call_from(raw: Mapping[str, Any], turn_no: int, index: int, where: str) -> ToolCall:
    """Build a ToolCall from `{name, arguments, id?}` or the OpenAI `{id, function: {...}}` shape."""
    function = _function if isinstance(_function := raw.get("function"), Mapping) else raw
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise ProviderError(f"{where}: turn {turn_no} tool call {index + 1} has no 'name'", hint="add a tool name")
    arguments = function.get("arguments", {})
    if isinstance(arguments, str):
        text = arguments
    elif isinstance(arguments, Mapping):
        text = json.dumps(arguments, ensure_ascii=False)
    else:
        raise ProviderError(
            f"{where}: turn {turn_no} tool call '{name}' has arguments that are not a mapping",
            hint="write arguments as a mapping of parameter to value",
        )
    call_id = str(raw.get("id") or f"call_{turn_no}_{index + 1}")
    return ToolCall(id=call_id, name=name, arguments=text)
