"""The assistant's reply: streamed into one Markdown block through Textual's MarkdownStream."""

from __future__ import annotations

import re

from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream

_OPTION_LINE = re.compile(r"^\s*(?:[-*]\s+)?\(?[A-Za-z][).]\s+\S")


def display_markdown(text: str) -> str:
    """Keep offered options (`A) …` lines) on their own lines: Markdown would join them."""
    lines = text.split("\n")
    for index, line in enumerate(lines[:-1]):
        if _OPTION_LINE.match(line) and lines[index + 1].strip() and not line.endswith("  "):
            lines[index] = line + "  "
    return "\n".join(lines)


class AssistantBlock(Markdown):
    """One reply. `write()` appends streamed text, `finish()` settles the final text.

    The block is the Markdown widget itself (no wrapper): long sessions mount many of them.
    """

    def __init__(self, text: str = "", *, finished: bool = False) -> None:
        super().__init__(display_markdown(text), classes="block assistant")
        self.text = text
        self.finished = finished
        self.set_class(finished, "finished")
        self._stream: MarkdownStream | None = None

    async def write(self, fragment: str) -> None:
        """Append a streamed fragment (MarkdownStream batches fast deltas into few renders)."""
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        self.text += fragment
        await self._stream.write(fragment)

    async def finish(self, text: str | None = None, *, note: str | None = None) -> None:
        """End streaming; show the final text (plus an italic note such as "(cancelled)")."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        final = text if text is not None else self.text
        if note:
            final += f"\n\n*{note}*"
        shown = display_markdown(final)
        if final != self.text or shown != final:
            self.text = final
            await self.update(shown)
        self.finished = True
        self.add_class("finished")
