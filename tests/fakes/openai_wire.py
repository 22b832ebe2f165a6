"""What the fake OpenAI server says: scripted replies and the chat-completions wire format.

Bodies follow OpenAI's chat completions API: one ``chat.completion`` JSON body, or a stream of
``chat.completion.chunk`` SSE frames in which tool calls arrive as fragments keyed by `index`
(the id and name first, then pieces of the JSON arguments) and usage comes last.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

FAKE_MODEL = "fake"


@dataclass
class FakeReply:
    """One scripted answer. `tool_calls` items are ``{"name", "arguments": dict|str, "id"?}``."""

    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, int] | None = None  # prompt_tokens, completion_tokens, cached_tokens
    status: int = 200  # anything else returns an OpenAI-style error body
    error: str = "scripted error"
    retry_after: str | None = None  # the Retry-After header of an error reply
    stall: bool = False  # hang before answering, until release_stalls() or stop()
    stall_after_chunks: int | None = None  # stream this many chunks, then hang
    chunk_size: int = 6  # characters per text chunk and per argument fragment
    cut_short: bool = False  # close the stream after the content: no finish_reason, usage or [DONE]
    # Fail partway, as llama.cpp's and vLLM's servers do: after the content (status 200 already
    # sent) one `data: {"error": {...}}` frame with this message, then the stream closes.
    stream_error: str | None = None

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any] | str) -> FakeReply:
        """Build from a script entry; scripted-provider keys such as `expect` are ignored."""
        if isinstance(raw, str):
            return cls(text=raw)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in known})

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.tool_calls else "stop"


@dataclass
class RecordedRequest:
    """A request the server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] if text else []


def _arguments(call: Mapping[str, Any]) -> str:
    args = call.get("arguments", {})
    return args if isinstance(args, str) else json.dumps(args)


def error_body(status: int, message: str) -> dict[str, Any]:
    """An OpenAI-style error payload."""
    kind = {401: "invalid_request_error", 404: "not_found_error", 429: "rate_limit_error"}.get(status, "server_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": str(status)}}


def usage_for(reply: FakeReply, body: Mapping[str, Any]) -> dict[str, Any]:
    """The reply's usage, or a rough one derived from the request and the reply text."""
    given = dict(reply.usage or {})
    prompt = given.get("prompt_tokens", max(1, len(json.dumps(body.get("messages", []))) // 4))
    completion = given.get("completion_tokens", max(1, len(reply.text) // 4))
    usage: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion,
                             "total_tokens": prompt + completion}
    if "cached_tokens" in given:
        usage["prompt_tokens_details"] = {"cached_tokens": given["cached_tokens"]}
    return usage


def whole_response(reply: FakeReply, ident: str, model: str, usage: dict[str, Any]) -> dict[str, Any]:
    """A non-streamed ``chat.completion`` body."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": call.get("id", f"call_{i}"), "type": "function",
             "function": {"name": call["name"], "arguments": _arguments(call)}}
            for i, call in enumerate(reply.tool_calls)
        ]
    choice = {"index": 0, "message": message, "finish_reason": reply.finish_reason}
    return {"id": ident, "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [choice], "usage": usage}


def sse_frames(reply: FakeReply, ident: str, model: str, usage: dict[str, Any] | None) -> list[bytes]:
    """The SSE frames of a streamed reply, without the final ``[DONE]``."""

    def frame(choices: list[dict[str, Any]], **extra: Any) -> bytes:
        chunk = {"id": ident, "object": "chat.completion.chunk", "created": int(time.time()),
                 "model": model, "choices": choices, **extra}
        return f"data: {json.dumps(chunk)}\n\n".encode()

    def delta(content: dict[str, Any], finish: str | None = None) -> bytes:
        return frame([{"index": 0, "delta": content, "finish_reason": finish}])

    frames = [delta({"role": "assistant", "content": ""})]
    frames += [delta({"content": piece}) for piece in _pieces(reply.text, reply.chunk_size)]
    for index, call in enumerate(reply.tool_calls):
        head = {"index": index, "id": call.get("id", f"call_{index}"), "type": "function",
                "function": {"name": call["name"], "arguments": ""}}
        frames.append(delta({"tool_calls": [head]}))
        for fragment in _pieces(_arguments(call), reply.chunk_size):
            frames.append(delta({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}))
    if reply.stream_error is not None:
        return [*frames, f"data: {json.dumps(error_body(500, reply.stream_error))}\n\n".encode()]
    if reply.cut_short:
        return frames
    frames.append(delta({}, reply.finish_reason))
    if usage is not None:
        frames.append(frame([], usage=usage))
    return frames
