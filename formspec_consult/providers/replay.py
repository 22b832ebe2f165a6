"""The replay provider: plays back the assistant side of a recorded session.

It reads the event log written by ``sessions`` (``events.jsonl``): every
``{"type": "message", "message": {"role": "assistant", ...}}`` becomes one turn, in order, with
its text and tool calls (ids kept, so recorded tool results still pair with them).
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Iterable, Mapping
from pathlib import Path
from typing import Any

from formspec_consult.providers.base import Completion, ProviderError, StreamItem, TextDelta
from formspec_consult.providers.canned import (
    DEFAULT_WINDOW,
    CannedProvider,
    CannedTurn,
    chunk_text,
    tool_call_from,
)
from formspec_consult.providers.tokens import content_text
from formspec_consult.store.events import EventLogError, load_records
from formspec_consult.store.layout import EVENTS
from formspec_consult.store.records import EventRecord, MessageRecord, SideReplyRecord, record_from_json

EVENT_LOG = EVENTS
Events = Iterable[EventRecord | Mapping[str, Any]]  # records, or log lines' JSON objects


def _records(events: Events) -> list[EventRecord]:
    return [e if isinstance(e, EventRecord) else record_from_json(e) for e in events]


def assistant_turns(events: Events, where: str = "the session") -> list[CannedTurn]:
    """The assistant messages of an event stream, as canned turns."""
    turns: list[CannedTurn] = []
    for event in _records(events):
        message = event.message if isinstance(event, MessageRecord) else None
        if not isinstance(message, Mapping) or message.get("role") != "assistant":
            continue
        number = len(turns) + 1
        calls = tuple(
            tool_call_from(call, number, i, where)
            for i, call in enumerate(message.get("tool_calls") or ())
            if isinstance(call, Mapping)
        )
        turns.append(CannedTurn(text=content_text(message.get("content")), tool_calls=calls))
    return turns


def turn_starts(events: Events) -> list[tuple[str, int]]:
    """Where each recorded person's message starts its replies, in the order they were said: (its
    text, the index into `assistant_turns` of the first assistant message after it)."""
    starts: list[tuple[str, int]] = []
    replies = 0
    for event in _records(events):
        message = event.message if isinstance(event, MessageRecord) else None
        if not isinstance(message, Mapping):
            continue
        if message.get("role") == "assistant":
            replies += 1
        elif message.get("role") == "user":
            starts.append((content_text(message.get("content")), replies))
    return starts


class ReplayProvider(CannedProvider):
    """Replays recorded assistant messages, streamed in chunks like a live model.

    With `starts` (see :func:`turn_starts`), the n-th person's message of the replay starts from
    the replies recorded for it — the same text said later in the recording, else the n-th
    message said: a turn cancelled on the way (Esc in the demo) leaves the rest of its replies
    unplayed, and the next message is not answered with them."""

    name = "replay"

    def __init__(self, turns: list[CannedTurn], *, side_replies: Iterable[str] = (),
                 starts: Iterable[tuple[str, int]] = (), **kwargs: Any) -> None:
        super().__init__(turns, **kwargs)
        self.side_replies = deque(side_replies)
        self.starts = list(starts)
        self._said = 0  # the person's messages the replay has answered so far
        self._last_said: tuple[int, str] | None = None  # (history length, text): a retried request is not a new one

    def _align(self, messages: list[dict[str, Any]]) -> None:
        """At a person's message, go on from its recorded replies (only ever forward)."""
        if not messages or messages[-1].get("role") != "user" or not self.starts:
            return
        text = content_text(messages[-1].get("content"))
        if self._last_said == (len(messages), text):
            return
        self._last_said = (len(messages), text)
        ordinal, self._said = self._said, self._said + 1
        same = [start for said, start in self.starts if said == text and start >= self.position]
        if same:
            self.position = same[0]
        elif ordinal < len(self.starts):
            self.position = max(self.position, self.starts[ordinal][1])

    async def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamItem]:
        """Play the next recorded turn. Conversation requests always carry tools; a request
        without tools is a side request (a compaction summary, /summary), answered with the next
        recorded `side_reply`. A recording without one (older logs) fails the request without
        using up a turn, so the caller falls back (the compressor to its extractive summary)."""
        if tools:
            self._align(messages)
            async for item in super().stream(messages, tools):
                yield item
            return
        if not self.side_replies:
            raise ProviderError(
                "replay: this side request (no tools) is not part of the recording",
                hint="summaries are rebuilt offline during a replay",
            )
        text = self.side_replies.popleft()
        for piece in chunk_text(text):
            yield TextDelta(piece)
        yield Completion(text=text, usage=None, raw={"provider": self.name, "side_reply": True})

    @classmethod
    def from_events(
        cls, events: Events, *, model: str = "replay", context_window: int = DEFAULT_WINDOW,
        source: str = "the recorded session",
    ) -> ReplayProvider:
        """Build from the records of a log (or its lines' JSON objects, as read from ``events.jsonl``)."""
        records = _records(events)
        side = [str(e.text or "") for e in records if isinstance(e, SideReplyRecord)]
        return cls(
            assistant_turns(records, source), side_replies=side, starts=turn_starts(records), model=model,
            context_window=context_window, source=source
        )

    @classmethod
    def from_session_dir(cls, folder: Path | str, *, context_window: int | None = None) -> ReplayProvider:
        """Build from a session folder; a torn last line (crash mid-write) is skipped."""
        folder = Path(folder)
        log = folder / EVENT_LOG if folder.is_dir() else folder
        try:
            events = load_records(log)
        except FileNotFoundError:
            raise ProviderError(
                f"no recorded session at {folder}", hint="give a session folder that holds events.jsonl"
            ) from None
        except EventLogError as exc:
            raise ProviderError(str(exc), hint="pick another session, or restore events.jsonl from a backup") from None
        provider = cls.from_events(
            events, model=f"replay:{folder}", context_window=context_window or DEFAULT_WINDOW, source=str(log)
        )
        if not provider.turns:
            raise ProviderError(f"{log} holds no assistant messages", hint="pick a session that has a conversation")
        return provider
