"""A check of the model's final reply that may ask it once more (the reply language's lock).

The loop calls its `reply_check` with the text of a turn's final reply (one without tool calls).
A :class:`ReAsk` makes it log the check's record and the person's notice, show the notice, add
the check's message to the history as a user message, and request again — once per turn. When
the second reply fails the check too, the check's `gave_up` words are said and the reply stays.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from formspec_consult.store.records import EventRecord


@dataclass(frozen=True)
class ReAsk:
    """What a failed check says: to the person (`notice`), to the model (`message`), to the log
    (`record`, beside the notice); `gave_up` is said when the second reply fails as well."""

    notice: str
    message: str
    record: EventRecord
    gave_up: str


ReplyCheck = Callable[[str], Awaitable["ReAsk | None"]]
