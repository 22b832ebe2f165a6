"""Partial review: a draft's change in YAML blocks (each field, state, transition, key), each kept
or dropped by the person. `a` applies the kept blocks — the gate checks them as a draft of their
own — and the dropped ones go back to the consultant as a rejection; Esc changes nothing.

The list and the highlighted block's diff are side by side on a wide screen, one above the other
on a narrow one. The screen only asks: the app's review runs the answer (store.review_flow).
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import SelectionList, Static
from textual.widgets.selection_list import Selection

from formspec_consult.i18n import N_, _
from formspec_consult.store.review_results import DraftBlocks
from formspec_consult.tui.screens.diff_list import DiffListScreen
from formspec_consult.tui.widgets.diff_pane import diff_lines, pane_colours

_MARK = {"added": "+", "removed": "-", "changed": "~"}


class BlocksScreen(DiffListScreen[list[str] | None]):
    """Dismissed with the kept block ids on `a`, None on Esc."""

    DIFF_VIEW = "block-diff"
    BINDINGS = [
        Binding("a", "apply", N_("Apply the kept blocks"), priority=True),
        Binding("escape", "cancel", N_("Cancel")),
    ]

    def __init__(self, blocks: DraftBlocks) -> None:
        super().__init__(id="blocks")
        self.blocks = blocks

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog blocks"):
            yield Static(Text.assemble((_("Accept part of {path}").format(path=self.blocks.path), "bold"),
                                       "  " + _("Space keeps/drops · a applies the kept · Esc cancels"),
                                       no_wrap=True, overflow="ellipsis"))
            yield SelectionList[str](
                *[Selection(Text(f"{_MARK.get(b.change, '?')} {b.id}  ({b.change})"), b.id, True)
                  for b in self.blocks.blocks],
                id="block-list",
            )
            with VerticalScroll(id="block-diff"):
                yield Static(id="block-diff-text")
            yield Static(Text(_("Dropped blocks go back to the consultant as a rejection."), style="dim"),
                         id="blocks-hint")

    def on_mount(self) -> None:
        self.query_one(SelectionList).focus()
        self._show(0)

    def _show(self, index: int | None) -> None:
        if index is None or not 0 <= index < len(self.blocks.blocks):
            return
        block = self.blocks.blocks[index]
        colours = pane_colours(self.app.get_css_variables())
        self.query_one("#block-diff-text", Static).update(
            Group(Text(f"{block.id} ({block.change})", style="bold"), diff_lines(block.diff, colours)))

    def on_selection_list_selection_highlighted(self, event: SelectionList.SelectionHighlighted[str]) -> None:
        self._show(event.selection_index)

    def on_selection_list_selected_changed(self) -> None:
        kept = len(self.query_one(SelectionList).selected)
        total = len(self.blocks.blocks)
        hint = _("{kept} of {total} kept; dropped blocks go back to the consultant as a rejection.").format(
            kept=kept, total=total)
        self.query_one("#blocks-hint", Static).update(Text(hint, style="dim"))

    def action_apply(self) -> None:
        kept = list(self.query_one(SelectionList).selected)
        if not kept:
            self.notify(_("No block is kept: Esc cancels, r in the diffs pane rejects the whole draft."),
                        severity="warning")
            return
        order = [b.id for b in self.blocks.blocks]
        self.dismiss(sorted(kept, key=order.index))

    def action_cancel(self) -> None:
        self.dismiss(None)
