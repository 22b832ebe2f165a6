"""The spec-diffs pane: the session's drafts with badges, problems and a highlighted diff.

Keys (while the pane has focus): `a` accept the selected draft, `r` reject it, `u` undo the
last apply, `A` accept all valid drafts. The pane only asks (messages up); the app calls the
local server and hands back the refreshed drafts (attributes down).
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from formspec_consult.tui.drafts import DraftView

_BADGE_STYLE = {
    "new": "bold green",
    "modified": "bold yellow",
    "invalid": "bold red",
    "applied": "bold cyan",
    "undone": "bold magenta",
    "rejected": "dim",
    "closed": "dim",
}
_SETTLED_HINT = {
    "applied": "Applied to the project — u undoes the last apply.",
    "undone": "Applied, then undone: the project file is back as it was.",
    "rejected": "Rejected: the draft was discarded, the project is untouched.",
    "closed": "No longer a draft of this session.",
}


def draft_prompt(draft: DraftView) -> Text:
    """The list line of a draft: badges, then its path."""
    text = Text()
    for badge in draft.badges:
        text.append(f"[{badge}]", style=_BADGE_STYLE.get(badge, "bold"))
        text.append(" ")
    text.append(draft.path, style="dim" if draft.settled else "")
    return text


def draft_details(draft: DraftView, theme: str = "ansi_dark") -> RenderableType:
    """Problems (if any) above the unified diff, highlighted with rich's `diff` lexer."""
    parts: list[RenderableType] = []
    if draft.settled:
        parts.append(Text(_SETTLED_HINT.get(draft.status, "") + "\n", style=_BADGE_STYLE.get(draft.status, "bold")))
    elif draft.problems:
        problems = Text("Validation problems:\n", style="bold red")
        for problem in draft.problems:
            problems.append(f"  • {problem}\n", style="red")
        parts.append(problems)
    if draft.diff:
        from rich.syntax import Syntax  # pygments loads with the first diff, not at start-up

        parts.append(Syntax(draft.diff, "diff", theme=theme, word_wrap=True, background_color="default"))
    else:
        parts.append(Text("(no diff for this draft yet)", style="dim"))
    return Group(*parts)


class DiffPane(Vertical, can_focus=False):
    """Drafts list and the selected draft's diff."""

    BINDINGS = [
        Binding("a", "request('accept')", "Accept"),
        Binding("r", "request('reject')", "Reject"),
        Binding("u", "request('undo')", "Undo"),
        Binding("A", "request('accept_all')", "Accept all"),
    ]

    drafts: reactive[tuple[DraftView, ...]] = reactive(())
    syntax_theme: reactive[str] = reactive("ansi_dark")

    class ActionRequested(Message):
        """Accept/reject a draft, undo the last apply, or accept all (`path` None)."""

        def __init__(self, action: str, path: str | None) -> None:
            super().__init__()
            self.action = action
            self.path = path

    def compose(self) -> ComposeResult:
        yield Static("Spec diffs  [dim]a accept · r reject · u undo · A accept all[/dim]", classes="pane-header")
        yield OptionList(id="draft-list")
        with VerticalScroll(id="diff-scroll"):
            yield Static("No drafts in this session yet.", id="diff-view")

    @property
    def selected(self) -> DraftView | None:
        """The highlighted draft."""
        index = self.query_one("#draft-list", OptionList).highlighted
        return self.drafts[index] if index is not None and index < len(self.drafts) else None

    def watch_drafts(self, old: tuple[DraftView, ...], drafts: tuple[DraftView, ...]) -> None:
        listing = self.query_one("#draft-list", OptionList)
        index = listing.highlighted  # still an index into `old`: keep that draft selected
        keep = old[index].path if index is not None and index < len(old) else None
        listing.clear_options()
        listing.add_options([Option(draft_prompt(d), id=d.path) for d in drafts])
        if drafts:
            paths = [d.path for d in drafts]
            listing.highlighted = paths.index(keep) if keep in paths else 0
        self._show()

    def watch_syntax_theme(self) -> None:
        self._show()

    def select(self, path: str) -> bool:
        """Highlight the draft at `path`; False when there is none."""
        for index, draft in enumerate(self.drafts):
            if draft.path == path:
                self.query_one("#draft-list", OptionList).highlighted = index
                return True
        return False

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show()

    def _show(self) -> None:
        if not self.is_mounted:
            return
        view = self.query_one("#diff-view", Static)
        draft = self.selected
        view.update(draft_details(draft, self.syntax_theme) if draft else "No drafts in this session yet.")

    def action_request(self, action: str) -> None:
        draft = self.selected
        if action in {"accept", "reject"} and draft is None:
            self.notify("No draft selected.", severity="warning")
            return
        if action in {"accept", "reject"} and draft is not None and draft.settled:
            self.notify(f"{draft.path} is {draft.status} already: {_SETTLED_HINT[draft.status]}", severity="warning")
            return
        path = draft.path if draft and action in {"accept", "reject"} else None
        self.post_message(self.ActionRequested(action, path))
