"""The conversation pane: user messages, streamed replies, notices and compaction summaries.

Long sessions stay fast because at most `max_blocks` blocks are mounted: older ones are
unmounted (the full history stays on disk in the session's transcript) and replaced by one
marker line. The scroll stays anchored to the bottom only while the user is there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from formspec_consult.i18n import _, format_number, ngettext
from formspec_consult.tui.widgets.message_block import MessageBlock

if TYPE_CHECKING:
    from formspec_consult.tui.widgets.assistant_block import AssistantBlock


def _assistant_block() -> type[AssistantBlock]:
    # Imported on first use: Markdown (markdown-it) is not needed to paint the first frame.
    from formspec_consult.tui.widgets.assistant_block import AssistantBlock

    return AssistantBlock


@dataclass(frozen=True)
class Entry:
    """A finished conversation entry, e.g. from a resumed session's past events."""

    role: str  # "user" | "assistant" | "notice-info" | "notice-warning" | "notice-error" | "compaction"
    text: str
    title: str | None = None


class ConversationView(VerticalScroll):
    """Scrollable list of conversation blocks with a mounted-block limit."""

    DEFAULT_MAX_BLOCKS = 120

    def __init__(self, *, max_blocks: int = DEFAULT_MAX_BLOCKS, id: str | None = None) -> None:
        super().__init__(id=id)
        self.max_blocks = max_blocks
        self.pruned = 0  # blocks no longer mounted (still on disk)
        self._marker = Static("", classes="pruned-marker")
        self._marker.display = False

    def on_mount(self) -> None:
        self.mount(self._marker)
        self.anchor()

    @property
    def blocks(self) -> list[Widget]:
        """Mounted conversation blocks, oldest first (the marker excluded)."""
        return [child for child in self.children if child is not self._marker]

    def _block_for(self, entry: Entry) -> Widget:
        if entry.role == "assistant":
            return _assistant_block()(entry.text, finished=True)
        if entry.role == "compaction":
            from formspec_consult.tui.widgets.compaction_block import (
                CompactionBlock,  # not for the first frame
            )

            return CompactionBlock(entry.text, entry.title or _("History compacted"))
        return MessageBlock(entry.role, entry.text)

    async def load(self, entries: Iterable[Entry]) -> None:
        """Show earlier entries at once; only the newest `max_blocks` are built at all."""
        items = list(entries)
        skipped = max(0, len(items) - self.max_blocks)
        if skipped:
            self._note_pruned(skipped)
        widgets = [self._block_for(entry) for entry in items[skipped:]]
        if widgets:
            await self.mount_all(widgets)
            await self._prune()
        self.scroll_end(animate=False, immediate=True)

    async def clear(self) -> None:
        """Remove every block (another session is being opened)."""
        await self.remove_children(self.blocks)
        self.pruned = 0
        self._marker.display = False

    async def add(self, entry: Entry) -> Widget:
        """Append one finished entry."""
        block = self._block_for(entry)
        await self.mount(block)
        await self._prune()
        return block

    async def start_reply(self) -> AssistantBlock:
        """Append an empty reply block to stream into."""
        block = _assistant_block()()
        await self.mount(block)
        await self._prune()
        return block

    def _note_pruned(self, count: int) -> None:
        self.pruned += count
        self._marker.update(
            "… " + ngettext(
                "{n} earlier message not shown here — the full history is in the session transcript.",
                "{n} earlier messages not shown here — the full history is in the session transcript.",
                self.pruned).format(n=format_number(self.pruned))
        )
        self._marker.display = True

    async def _prune(self) -> None:
        blocks = self.blocks
        excess = len(blocks) - self.max_blocks
        if excess > 0:
            # Never unmount a reply that is still streaming.
            old = [b for b in blocks[:excess] if getattr(b, "finished", True)]
            self._note_pruned(len(old))
            await self.remove_children(old)
