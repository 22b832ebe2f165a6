"""The assistant's reply: streamed into one Markdown block through Textual's MarkdownStream."""

from __future__ import annotations

import re

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownStream


_OPTION_LINE = re.compile(r"^\s*(?:[-*]\s+)?\(?[A-Za-z][).]\s+\S")


def display_markdown(text: str) -> str:
    """Keep offered options (`A) …` lines) on their own lines: Markdown would join them."""
    lines = text.split("\n")
    for index, line in enumerate(lines[:-1]):
        if _OPTION_LINE.match(line) and lines[index + 1].strip() and not line.endswith("  "):
            lines[index] = line + "  "
    return "\n".join(lines)


class AssistantBlock(Vertical):
    """One reply. `write()` appends streamed text, `finish()` settles the final text."""

    def __init__(self, text: str = "") -> None:
        super().__init__(classes="block assistant")
        self.text = text
        self.finished = False
        self._markdown = Markdown(display_markdown(text), classes="reply")
        self._stream: MarkdownStream | None = None

    def compose(self) -> ComposeResult:
        yield Static("[b]Consultant[/b]", classes="who")
        yield self._markdown

    async def write(self, fragment: str) -> None:
        """Append a streamed fragment (MarkdownStream batches fast deltas into few renders)."""
        if self._stream is None:
            self._stream = Markdown.get_stream(self._markdown)
        self.text += fragment
        await self._stream.write(fragment)

    async def finish(self, text: str | None = None, *, note: str | None = None) -> None:
        """End streaming; replace the text with the final message when it differs."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        if note:
            text = (text if text is not None else self.text) + f"\n\n*{note}*"
        final = text if text is not None else self.text
        shown = display_markdown(final)
        if final != self.text or shown != final:
            self.text = final
            await self._markdown.update(shown)
        self.finished = True
        self.add_class("finished")
