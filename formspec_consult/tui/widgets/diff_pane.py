"""The spec-diffs pane: the session's drafts with badges, problems and a highlighted diff.

Keys (while the pane has focus): `a` accept the selected draft, `r` reject it, `u` undo the
last apply, `A` accept all valid drafts, `p` switch between the diff, the owner's preview of an
Entity draft (fields and lifecycle) and the overview of every proposed entity. The keys that
change the project act only while the pane is *armed* — entered on purpose (`ctrl+r`, a click) —
and each of them sends the focus back to the prompt (see `tui/review_keys.py`, which routes them).
The pane only asks (messages up); the app calls the local server and hands back the refreshed
drafts (attributes down).

Colours come from the app's theme, made readable on the pane's background (see `contrast`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.color import Color
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from formspec_consult.i18n import N_, _
from formspec_consult.store.review_text import state_label
from formspec_consult.tui.contrast import BADGE_MIN, TEXT_MIN, ink_on, readable
from formspec_consult.tui.drafts import DraftView
from formspec_consult.tui.localise import LocalisedBindings

_SETTLED_HINT = {
    "applied": N_("Applied to the project — u undoes the last apply."),
    "undone": N_("Applied, then undone: the project file is back as it was — a accepts it again."),
    "rejected": N_("Rejected: the draft was discarded, the project is untouched."),
    "closed": N_("No longer a draft of this session."),
}
VIEWS = ("diff", "preview", "overview")


@dataclass(frozen=True)
class PaneColours:
    """Readable colours for one theme: text colours on the background, badges as blocks."""

    added: str = "green"
    removed: str = "red"
    hunk: str = "cyan"
    error: str = "red"
    muted: str = ""
    badges: tuple[tuple[str, str], ...] = ()  # (badge, rich style)

    def badge(self, name: str) -> str:
        return dict(self.badges).get(name, "bold reverse")


def pane_colours(variables: dict[str, str]) -> PaneColours:
    """Colours for the theme whose CSS variables are given (`App.get_css_variables()`)."""
    background = Color.parse(variables.get("background", "#121212"))

    def text(name: str, fallback: str) -> str:
        return readable(Color.parse(variables.get(name, fallback)), background, TEXT_MIN).hex

    def block(name: str) -> str:
        colour = Color.parse(variables.get(name, "#808080"))
        colour = readable(colour, background, BADGE_MIN)  # the block itself stands out of the pane
        return f"bold {ink_on(colour).hex} on {colour.hex}"

    return PaneColours(
        added=text("text-success", "#4EBF71"),
        removed=text("text-error", "#B93C5B"),
        hunk=text("text-primary", "#0178D4"),
        error=text("text-error", "#B93C5B"),
        muted=text("foreground-darken-1", "#CACACA"),
        badges=(("new", block("success")), ("modified", block("warning")), ("invalid", block("error")),
                ("applied", block("primary")), ("undone", block("accent")), ("rejected", block("panel-lighten-2")),
                ("closed", block("panel-lighten-2"))),
    )


def draft_prompt(draft: DraftView, colours: PaneColours = PaneColours()) -> Text:
    """The list line of a draft: badges, then its path."""
    text = Text()
    for badge in draft.badges:
        text.append(f"[{state_label(badge)}]", style=colours.badge(badge))
        text.append(" ")
    text.append(draft.path)
    return text


def diff_lines(diff: str, colours: PaneColours = PaneColours()) -> Table:
    """The unified diff as a two-column grid: the `+`/`-` gutter stays beside every wrapped row."""
    grid = Table.grid(padding=0, expand=True)
    grid.add_column(width=1, no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            grid.add_row("", Text(line, style="bold"))
        elif line.startswith("@@"):
            grid.add_row("", Text(line, style=colours.hunk))
        elif line.startswith("+"):
            grid.add_row(Text("+", style=colours.added), Text(line[1:], style=colours.added))
        elif line.startswith("-"):
            grid.add_row(Text("-", style=colours.removed), Text(line[1:], style=colours.removed))
        else:
            grid.add_row("", Text(line[1:] if line.startswith(" ") else line))
    return grid


def draft_details(draft: DraftView, colours: PaneColours = PaneColours()) -> RenderableType:
    """Problems (if any) above the unified diff."""
    parts: list[RenderableType] = []
    if draft.settled:
        parts.append(Text(_(_SETTLED_HINT.get(draft.status, "")) + "\n", style="bold"))
    elif draft.state == "undone":
        parts.append(Text(_("Applied, then undone: the project file is back as it was and this draft is back "
                            "for review — a accepts it again.") + "\n", style="bold"))
    if not draft.settled and draft.problems:
        problems = Text(_("The gate refused this draft — the consultant fixes it, or you reject it:") + "\n",
                        style=f"bold {colours.error}")
        for problem in draft.problems:
            problems.append(f"  • {problem}\n", style=colours.error)
        parts.append(problems)
    if draft.diff:
        parts.append(diff_lines(draft.diff, colours))
    elif draft.settled:  # settled in an earlier run of the session: its diff was not kept
        after = {"applied": _("(its diff was shown when it was proposed; the file is in the project now)"),
                 "rejected": _("(its diff was shown when it was proposed; the project was not changed)")}
        parts.append(Text(after.get(draft.status) or _("(its diff was shown when it was proposed)")))
    else:
        parts.append(Text(_("(no diff for this draft yet)")))
    return Group(*parts)


class DiffPane(LocalisedBindings, Vertical, can_focus=False):
    """Drafts list and the selected draft's diff, preview or the session overview."""

    BINDINGS = [
        Binding("a", "request('accept')", N_("Accept")),
        Binding("r", "request('reject')", N_("Reject")),
        Binding("u", "request('undo')", N_("Undo")),
        Binding("A", "request('accept_all')", N_("Accept all")),
        Binding("e", "request('edit')", N_("Edit in $EDITOR")),
        Binding("b", "request('blocks')", N_("Accept part (blocks)")),
        Binding("c", "request('changes')", N_("The turn's changes")),
        Binding("p", "next_view", N_("Diff/preview")),
        # From where ctrl+r lands (the draft list), PageUp/PageDown scroll the diff or preview,
        # not the list: priority, so the focused list does not take them first.
        Binding("pageup", "scroll_view(-1)", N_("Scroll diff up"), show=False, priority=True),
        Binding("pagedown", "scroll_view(1)", N_("Scroll diff down"), show=False, priority=True),
    ]

    # The actions that change the project (or open a screen that can): they need the pane armed,
    # and hand the focus back.
    DESTRUCTIVE = frozenset({"request('accept')", "request('reject')", "request('undo')", "request('accept_all')",
                             "request('edit')", "request('blocks')", "request('changes')"})

    drafts: reactive[tuple[DraftView, ...]] = reactive(())
    # Entered on purpose (ctrl+r, F4 on a small screen, a click): the review keys act. Leaving the
    # pane, or any review action, disarms it; reached by Tab, its printable keys are typing.
    armed: reactive[bool] = reactive(False)
    syntax_theme: reactive[str] = reactive("ansi_dark")  # follows the app's light/dark: recolours
    view: reactive[str] = reactive("diff")

    class ActionRequested(Message):
        """Accept/reject a draft, undo the last apply, or accept all (`path` None)."""

        def __init__(self, action: str, path: str | None) -> None:
            super().__init__()
            self.action = action
            self.path = path

    def compose(self) -> ComposeResult:
        yield Static(Text.assemble((_("Spec diffs"), "bold"), "  " + _("a accept · b part · r reject · e edit · u undo · A all · c turn · p preview"),
                                   no_wrap=True, overflow="ellipsis"), classes="pane-header")
        yield OptionList(id="draft-list")
        with VerticalScroll(id="diff-scroll"):
            yield Static(_("No drafts in this session yet."), id="diff-view")

    @property
    def colours(self) -> PaneColours:
        try:
            return pane_colours(self.app.get_css_variables())
        except Exception:  # not mounted in an app (a unit test renders it alone)
            return PaneColours()

    @property
    def selected(self) -> DraftView | None:
        """The highlighted draft."""
        index = self.query_one("#draft-list", OptionList).highlighted
        return self.drafts[index] if index is not None and index < len(self.drafts) else None

    def watch_drafts(self, old: tuple[DraftView, ...], drafts: tuple[DraftView, ...]) -> None:
        listing = self.query_one("#draft-list", OptionList)
        index = listing.highlighted  # still an index into `old`: keep that draft selected
        keep = old[index].path if index is not None and index < len(old) else None
        self._fill(listing, drafts)
        if drafts:
            paths = [d.path for d in drafts]
            listing.highlighted = paths.index(keep) if keep in paths else 0
        self._show()

    def _fill(self, listing: OptionList, drafts: tuple[DraftView, ...]) -> None:
        colours = self.colours
        listing.clear_options()
        listing.add_options([Option(draft_prompt(d, colours), id=d.path) for d in drafts])

    def watch_syntax_theme(self) -> None:
        if self.is_mounted:
            listing = self.query_one("#draft-list", OptionList)
            index = listing.highlighted
            self._fill(listing, self.drafts)
            if index is not None and index < len(self.drafts):
                listing.highlighted = index
        self._show()

    def watch_view(self) -> None:
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
        view.update(self.rendered())

    def rendered(self) -> RenderableType:
        """What the lower part of the pane shows for the current view."""
        from formspec_consult.tui.widgets.entity_preview import Palette, entity_preview, session_overview

        colours = self.colours
        palette = Palette(heading="bold", happy=colours.added, unhappy=colours.removed)
        if self.view == "overview":
            pairs = [(d.path, d.content or "") for d in self.drafts if d.status not in {"rejected", "closed"}]
            return Group(Text(_("Overview — p: back to the diff") + "\n", style="bold"), session_overview(pairs, palette))
        draft = self.selected
        if draft is None:
            return _("No drafts in this session yet.")
        if self.view == "preview":
            text = draft.content
            width = max(20, self.query_one("#diff-scroll").size.width - 2)
            preview = entity_preview(text, width, palette) if text else None
            if preview is None:
                why = (_("No preview: {path} is not an Entity.") if text
                       else _("No preview: {path} has no full text to read here (its diff is partial)."))
                preview = Text(why.format(path=draft.path))
            return Group(Text(_("Preview of {path} — p: the session overview").format(path=draft.path) + "\n",
                              style="bold"), preview)
        return draft_details(draft, colours)

    def review_action(self, key: str) -> str | None:
        """The action a key is bound to in this pane (from BINDINGS, so the footer agrees)."""
        return next((b.action for b in self.BINDINGS if isinstance(b, Binding) and b.key == key), None)

    def run_review_key(self, action: str) -> None:
        """Run a review key's action now; one that changes the project disarms the pane first."""
        if action in self.DESTRUCTIVE:
            self.armed = False
        if action == "next_view":
            self.action_next_view()
        else:  # request('accept') …: the one parameterised action of the pane
            self.action_request(action.removeprefix("request('").removesuffix("')"))

    _hinted = False

    def hint_unarmed(self) -> None:
        """Once per visit: a review key pressed in a pane reached by Tab went to the prompt."""
        if not self._hinted:
            self._hinted = True
            self.notify(_("That key went to the prompt: review keys act after ctrl+r (or a click on a draft)."),
                        severity="information")

    def watch_armed(self, armed: bool) -> None:
        self.set_class(armed, "-armed")
        if armed:
            self._hinted = False

    def on_click(self, event: events.Click) -> None:
        self.armed = True  # a click in the pane is entering it on purpose

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        node = self.app.focused
        while node is not None and node is not self:
            node = node.parent  # type: ignore[assignment]
        if node is None:  # the focus left the pane (Esc, Tab, a click elsewhere): disarmed
            self.armed = False

    def action_scroll_view(self, pages: int) -> None:
        view = self.query_one("#diff-scroll", VerticalScroll)
        view.scroll_page_up() if pages < 0 else view.scroll_page_down()

    def action_next_view(self) -> None:
        self.view = VIEWS[(VIEWS.index(self.view) + 1) % len(VIEWS)]

    def action_request(self, action: str) -> None:
        draft = self.selected
        if action in {"accept", "reject"} and draft is None:
            self.notify(_("No draft selected."), severity="warning")
            return
        if action in {"accept", "reject", "edit", "blocks"} and draft is not None and draft.settled and not (
                action == "accept" and draft.status == "undone"):
            self.notify(_("{path} is {status} already: {hint}").format(path=draft.path, status=state_label(draft.status),
                                                               hint=_(_SETTLED_HINT[draft.status])), severity="warning")
            return
        path = draft.path if draft and action in {"accept", "reject", "edit", "blocks"} else None
        self.post_message(self.ActionRequested(action, path))
