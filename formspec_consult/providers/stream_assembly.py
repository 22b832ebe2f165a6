"""Assembling an OpenAI-style chunk stream into text, tool calls and usage.

Tool calls arrive in fragments keyed by `index`: the first fragment usually carries the id and
the name, later ones pieces of the JSON arguments. Usage arrives on the last chunk (with
``stream_options.include_usage``). Chunks may be litellm objects or plain dicts.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from formspec_consult.providers.base import ToolCall


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class ReportedUsage:
    """Usage as the provider reported it (absent fields stay None)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int = 0


class StreamAssembler:
    """Feed chunks in order; read `text`, `tool_calls()`, `finish_reason` and `usage` at the end."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._calls: dict[int, _PartialCall] = {}
        self.finish_reason: str | None = None
        self.usage: ReportedUsage | None = None
        self.chunks = 0

    @property
    def text(self) -> str:
        return "".join(self._text)

    def feed(self, chunk: Any) -> str:
        """Take one chunk; return the new text it carried ("" if none)."""
        self.chunks += 1
        self._take_usage(_get(chunk, "usage"))
        new_text = ""
        for choice in _get(chunk, "choices") or ():
            delta = _get(choice, "delta")
            content = _get(delta, "content")
            if content:
                new_text += content
            for fragment in _get(delta, "tool_calls") or ():
                self._take_fragment(fragment)
            if _get(choice, "finish_reason"):
                self.finish_reason = _get(choice, "finish_reason")
        if new_text:
            self._text.append(new_text)
        return new_text

    def _take_fragment(self, fragment: Any) -> None:
        index = _get(fragment, "index")
        if not isinstance(index, int):
            index = len(self._calls) if _get(fragment, "id") else max(self._calls, default=0)
        call = self._calls.setdefault(index, _PartialCall())
        if _get(fragment, "id"):
            call.id = str(_get(fragment, "id"))
        function = _get(fragment, "function")
        if _get(function, "name"):
            call.name = str(_get(function, "name"))
        if _get(function, "arguments"):
            call.arguments.append(str(_get(function, "arguments")))

    def _take_usage(self, usage: Any) -> None:
        if usage is None or _get(usage, "prompt_tokens") is None:
            return
        details = _get(usage, "prompt_tokens_details")
        cached = _get(details, "cached_tokens") or _get(usage, "cache_read_input_tokens") or 0
        self.usage = ReportedUsage(
            prompt_tokens=int(_get(usage, "prompt_tokens") or 0),
            completion_tokens=int(_get(usage, "completion_tokens") or 0),
            cached_tokens=int(cached),
        )

    @property
    def nameless_calls(self) -> int:
        """Tool calls that came with an id or arguments but no name (dropped by tool_calls())."""
        return sum(1 for c in self._calls.values() if not c.name and (c.id or "".join(c.arguments).strip()))

    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The complete tool calls, in index order; missing ids get unique generated ones."""
        calls = []
        for index in sorted(self._calls):
            partial = self._calls[index]
            if not partial.name:
                continue  # a fragment without a name is noise some servers send
            arguments = "".join(partial.arguments) or "{}"
            call_id = partial.id or f"call_{uuid.uuid4().hex[:16]}"  # ids must be unique across the history
            calls.append(ToolCall(id=call_id, name=partial.name, arguments=arguments))
        return tuple(calls)
