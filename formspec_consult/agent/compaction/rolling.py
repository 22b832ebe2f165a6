"""Asking the summariser safely: clip, chunk when the input is too big, reject junk.

A summary request must itself fit the model's window — the classic way compaction "bricks" a
session is a summary request that overflows. So the messages to condense are clipped per message
(the full text stays in the transcript) and, if they still do not fit, condensed in a few rolling
chunks: each request carries the summary so far plus the next chunk. Any failure returns None and
the caller falls back to the extractive summary.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from formspec_consult.agent.history.summary import summary_message

Message = dict[str, Any]
Summariser = Callable[[list[Message], str | None], Awaitable[str]]
Counter = Callable[[list[Message]], int]
CLIP_CHARS = 1500  # per message, in what the summariser reads
MAX_CHUNKS = 4
_log = logging.getLogger(__name__)

__all__ = ["rolling_summary", "usable_summary"]


def _clipped(messages: list[Message]) -> list[Message]:
    out = copy.deepcopy(messages)
    for message in out:
        content = message.get("content")
        if isinstance(content, str) and len(content) > CLIP_CHARS:
            message["content"] = content[:CLIP_CHARS] + f" … [{len(content) - CLIP_CHARS} chars clipped]"
    return out


def _chunks(messages: list[Message], room: int, count: Counter) -> list[list[Message]] | None:
    """Split into runs that each fit `room` tokens (estimated message by message)."""
    chunks: list[list[Message]] = [[]]
    used = 0
    base = count([])  # a counter may add a constant (tool declarations): count it once, not per message
    for message in messages:
        size = max(1, count([message]) - base)
        if size > room:
            return None
        if used + size > room and chunks[-1]:
            chunks.append([])
            used = 0
        chunks[-1].append(message)
        used += size
    return chunks


def usable_summary(text: object, budget_chars: int, count: Counter, source: list[Message]) -> bool:
    """A summary is junk when empty, trivially short, far over its budget or longer than its input."""
    if not isinstance(text, str) or len(text.strip()) < 40:
        return False
    if len(text) > budget_chars * 1.5:
        return False
    return count([{"role": "user", "content": text}]) < count(source)


async def rolling_summary(
    summarise: Summariser,
    messages: list[Message],
    *,
    focus: str | None,
    room: int,
    budget_chars: int,
    count: Counter,
) -> str | None:
    """The summariser's summary of `messages`, or None when it cannot give a usable one."""
    clipped = _clipped(messages)
    # Leave room in every chunk for the summary carried over from the previous one.
    # The summary request carries no tool declarations: leave the counter's constant part out.
    room += count([])
    chunks = [clipped] if count(clipped) <= room else _chunks(clipped, room - count([]) - budget_chars // 4, count)
    if chunks is None or len(chunks) > MAX_CHUNKS:
        _log.warning("the summary request would overflow the window; using the extractive summary")
        return None
    text: str | None = None
    for chunk in chunks:
        request = ([summary_message(text, replaced=0)] if text else []) + chunk
        try:
            reply = await summarise(request, focus)
        except Exception as exc:  # noqa: BLE001 - any summariser failure means "fall back"
            _log.warning("the summariser failed (%s); using the extractive summary", exc)
            return None
        if not usable_summary(reply, budget_chars, count, request):
            _log.warning("the summariser returned an unusable summary; using the extractive summary")
            return None
        text = str(reply).strip()
    return text
