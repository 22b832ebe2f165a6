"""A compaction in the conversation: a collapsed notice that expands to the structured summary."""

from __future__ import annotations

from textual.widgets import Collapsible


class CompactionBlock(Collapsible):
    """A compaction notice; expanding it shows the structured summary that replaced old turns."""

    def __init__(self, summary: str, title: str) -> None:
        super().__init__(title=title, collapsed=True, classes="block compaction")
        self.role = "compaction"
        self.text = summary

    def on_collapsible_expanded(self, event: Collapsible.Expanded) -> None:
        # Build the Markdown only when first opened: most summaries are never expanded.
        from textual.widgets import Markdown  # markdown-it loads on first use, not at start-up

        if event.collapsible is self and not self.query(Markdown):
            self.query_one(Collapsible.Contents).mount(Markdown(self.text, classes="summary"))
