"""A review dialog of a list and the highlighted item's diff below it (a turn's changeset, a
draft's blocks): PageUp/PageDown scroll the diff wherever the focus is, so the list keeps it."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen

from formspec_consult.i18n import N_
from formspec_consult.tui.localise import LocalisedBindings

ResultT = TypeVar("ResultT")


class DiffListScreen(LocalisedBindings, ModalScreen[ResultT]):
    """Base of a modal review dialog whose diff sits in the VerticalScroll `#<DIFF_VIEW>`."""

    DIFF_VIEW: ClassVar[str]
    BINDINGS = [
        Binding("pageup", "scroll_diff(-1)", N_("Scroll diff up"), show=False, priority=True),
        Binding("pagedown", "scroll_diff(1)", N_("Scroll diff down"), show=False, priority=True),
    ]

    def action_scroll_diff(self, pages: int) -> None:
        view = self.query_one(f"#{self.DIFF_VIEW}", VerticalScroll)
        view.scroll_page_up() if pages < 0 else view.scroll_page_down()
