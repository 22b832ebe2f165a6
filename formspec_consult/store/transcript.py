"""The human-readable record of a session: `<session>/transcript.md`, written as it happens.

Append-only and flushed on every write; never rewritten, not even by compaction (which appears as
an entry with its summary). Tool outputs are excerpted here; the full text is in `events.jsonl`.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from formspec_consult.store.agent_events import (
    AgentEvent,
    AssistantMessage,
    CompactionDone,
    DraftsChanged,
    Notice,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
)

__all__ = ["RESULT_EXCERPT_CHARS", "Transcript"]

RESULT_EXCERPT_CHARS = 1200
_log = logging.getLogger(__name__)


def _fence(text: str, info: str = "") -> str:
    """A code fence longer than any backtick run inside `text`, so it cannot be broken out of."""
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text}\n{ticks}\n"


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.strip().splitlines()) + "\n"


class Transcript:
    """Appends Markdown for each agent event to `path` (parents created)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.touch(exist_ok=True)
        self._secrets: list[str] = []

    def add_secret(self, value: str) -> None:
        """Register a secret value (the API key) to mask wherever it would be written."""
        if value and len(value) >= 6 and value not in self._secrets:
            self._secrets.append(value)

    def _append(self, text: str) -> None:
        for secret in self._secrets:
            text = text.replace(secret, "[redacted]")
        data = (text if text.endswith("\n") else text + "\n").encode("utf-8")
        try:
            # never through a link: the transcript is written only into the session's own file
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
            try:
                start = os.fstat(fd).st_size
                try:
                    written = 0
                    while written < len(data):
                        written += os.write(fd, data[written:])
                    os.fsync(fd)
                except OSError:
                    os.ftruncate(fd, start)  # all or nothing, like the event log
                    raise
            finally:
                os.close(fd)
        except OSError as exc:  # disk full: the event log reports it; the transcript must not end the turn
            _log.warning("could not write %s: %s", self.path, exc.strerror or exc)

    def write_heading(self, title: str, **details: str | None) -> None:
        """A section heading (session start or resume) with `details` as a short list."""
        lines = [f"\n# {title}\n"]
        lines += [f"- **{key.replace('_', ' ')}:** {value}" for key, value in details.items() if value is not None]
        self._append("\n".join(lines) + "\n")

    def write_note(self, text: str) -> None:
        """A free-form italic note (apply/undo/reject, resume markers)."""
        self._append(f"\n_{text.strip()}_\n")

    def write(self, event: AgentEvent) -> None:
        """Append the Markdown for one agent event (streaming deltas and usage are skipped)."""
        text = self._render(event)
        if text:
            self._append(text)

    def _render(self, event: AgentEvent) -> str:  # noqa: PLR0911 - one branch per event type
        if isinstance(event, TurnStarted):
            return f"\n## You (turn {event.turn})\n\n{event.user_text.strip()}\n"
        if isinstance(event, AssistantMessage):
            return f"\n## Consultant\n\n{event.text.strip()}\n" if event.text.strip() else ""
        if isinstance(event, ToolCallStarted):
            arguments = json.dumps(event.arguments, ensure_ascii=False, indent=2)
            return f"\n**Tool call** `{event.name}` ({event.server}, id `{event.call_id}`)\n\n" + _fence(
                arguments, "json"
            )
        if isinstance(event, ToolCallFinished):
            return self._render_result(event)
        if isinstance(event, CompactionDone):
            head = (
                f"\n---\n**History compacted** ({event.method}: {event.replaced_messages} messages, "
                f"{event.tokens_before:,} → {event.tokens_after:,} tokens). The model now sees this "
                "instead; everything above stays here.\n\n"
            )
            return head + _quote(event.summary) + "\n---\n"
        if isinstance(event, Notice):
            return f"\n> **{event.level}:** {event.message}\n"
        if isinstance(event, DraftsChanged):
            return f"\n_Drafts changed: {', '.join(event.paths) or '(none)'}_\n"
        if isinstance(event, TurnFinished) and event.reason != "done":
            detail = f": {event.error}" if event.error else ""
            return f"\n_Turn ended ({event.reason}){detail}_\n"
        return ""

    @staticmethod
    def _render_result(event: ToolCallFinished) -> str:
        from formspec_consult.store.tool_status import tool_status

        status = {"ok": "ok", "refused": "refused by the validation gate", "failed": "failed"}[
            tool_status(event.ok, event.result)
        ]
        result = event.result
        excerpt = result if len(result) <= RESULT_EXCERPT_CHARS else result[:RESULT_EXCERPT_CHARS]
        note = ""
        if len(result) > RESULT_EXCERPT_CHARS:
            note = (
                f"_… {len(result) - RESULT_EXCERPT_CHARS:,} more characters; the full output is in "
                f"events.jsonl (tool_result for call `{event.call_id}`)._\n"
            )
        head = f"\n**Result** of `{event.name}` — {status} in {event.duration_ms:.0f} ms\n\n"
        return head + _fence(excerpt) + note
