"""The compaction summary message: written and read back here, nowhere else.

Compaction replaces earlier turns with one user message: a bracketed header saying what it is,
a blank line, then the summary text. The loop, the extractive fallback, the log converter (resume)
and the UI all read the text through :func:`summary_text`.
"""

from __future__ import annotations

from typing import Any

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
