"""The compaction summary message: written and read back here, nowhere else.

Compaction replaces earlier turns with one user message: a bracketed header saying what it is,
a blank line, then the summary text. The extractive fallback reads an earlier summary through
:func:`summary_text`; the live compaction and the log converter (resume, replay) both say what a
``compaction`` record did through :func:`compaction_done`.
"""

from __future__ import annotations

from typing import Any

from formspec_consult.store.agent_events import CompactionDone
from formspec_consult.store.records import CompactionRecord

Message = dict[str, Any]

SUMMARY_PREFIX = "[Summary of the earlier conversation"
_HEADER_END = "]\n\n"


def summary_message(text: str, *, replaced: int) -> Message:
    """The message that stands for the replaced turns in the model-visible history."""
    return {
        "role": "user",
        "content": (
            f"{SUMMARY_PREFIX} — {replaced} earlier messages were condensed to save context; the full "
            "record stays in the session transcript (use read_transcript for any detail). This is "
            "context, not a new request." + _HEADER_END + text
        ),
    }


def is_summary(message: Message) -> bool:
    """True for a message written by compaction to stand for earlier turns."""
    content = message.get("content")
    return message.get("role") == "user" and isinstance(content, str) and content.startswith(SUMMARY_PREFIX)


def summary_text(content: object) -> str:
    """The summary itself, without the header (content that is no summary is returned whole)."""
    body = str(content or "")
    if body.startswith(SUMMARY_PREFIX) and _HEADER_END in body:
        return body.split(_HEADER_END, 1)[1]
    return body


def compaction_done(record: CompactionRecord) -> CompactionDone:
    """What a compaction did, as shown to the person (live, and again on resume or replay)."""
    summary = record.summary_message
    if isinstance(summary, dict):
        return CompactionDone(summary_text(summary.get("content")), record.end - record.start,
                              record.tokens_before, record.tokens_after, record.method)
    return CompactionDone(
        f"Pruned {len(record.pruned)} old tool output(s); the full outputs stay in the transcript.",
        len(record.pruned), record.tokens_before, record.tokens_after, record.method,
    )
