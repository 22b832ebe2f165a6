"""Review actions — list, accept, reject, undo, accept all — shown in the diff pane.

The actions are those of the review workflow every client uses (store.review_flow, through the
local MCP server); this module only presents them. The diff pane's keys and the `/diff`, `/apply`,
`/reject`, `/undo` commands both end here. Every failure becomes a notification that says what to
do; nothing here raises into the app.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from textual.app import App

from formspec_consult.agent.engine.port import EngineLike
from formspec_consult.i18n import N_, _, ngettext
from formspec_consult.store.layout import SessionLayout
from formspec_consult.store.review_flow import ReviewFlow
from formspec_consult.store.review_results import Applied
from formspec_consult.tui.drafts import DraftView, parse_drafts
from formspec_consult.tui.widgets.diff_pane import DiffPane

Notify = Callable[[str, str], None]
T = TypeVar("T")

# How a review tool reads in a notice ("Applying failed: …", not "apply_draft failed: …").
_DOING = {"apply_draft": N_("Applying"), "reject_draft": N_("Rejecting"), "undo_apply": N_("Undoing"),
          "edit_draft": N_("Editing"), "list_draft_blocks": N_("Reading the blocks"),
          "apply_draft_blocks": N_("Applying the blocks"), "list_turn_changes": N_("Reading the turn's changes"),
          "list_drafts": N_("Listing the drafts"), "diff_drafts": N_("Reading the diffs")}

# What a review command does to the drafts it names (the status the pane then shows).
_OUTCOME = {"apply": "applied", "reject": "rejected", "undo": "undone"}


class DiffPaneReview:
    """Runs review actions for one app and hands the refreshed drafts to the diff pane."""

    def __init__(self, engine: EngineLike, pane: DiffPane, notify: Notify, say: Notify | None = None) -> None:
        self.engine = engine
        self.flow = ReviewFlow(engine.call_tool)
        self.pane = pane
        self.toast = notify
        # Outcomes (applied, rejected, undone, refused) also leave a line in the conversation.
        self.say = say
        # Drafts the server no longer lists, kept (newest last) so their diff stays reviewable.
        self.settled: dict[str, DraftView] = {}
        self._expected: str | None = None  # the outcome of a review command sent as a turn

    def expect(self, text: str) -> None:
        """Note a command about to run as an engine turn (`/apply`, `/reject`, `/undo`), so the
        drafts it makes disappear are shown as applied/rejected/undone rather than "closed"."""
        words = text.strip().split()
        self._expected = _OUTCOME.get(words[0].lstrip("/").lower()) if words and words[0].startswith("/") else None

    def notify(self, message: str, severity: str) -> None:
        """A toast in the person's terms; an outcome of their review also goes into the conversation."""
        from formspec_consult.store.wording import for_person

        message = for_person(message, "tui")
        self.toast(message, severity)
        if self.say is not None:
            self.say(message, severity)

    def _settle(self, path: str, status: str) -> None:
        known = self.settled.pop(path, None) or next((d for d in self.pane.drafts if d.path == path), None)
        self.settled[path] = replace(known or DraftView(path), status=status)

    async def _guard(self, name: str, action: Awaitable[T]) -> T | None:
        try:
            result = await action
        except Exception as exc:  # a refusal, a dead server, a timeout, a wrong answer: never end the app
            self.notify(_("{doing} failed: {problem}").format(doing=_(_DOING.get(name, name)), problem=exc), "error")
            return None
        return result

    async def refresh(self, changed: Iterable[str] = ()) -> list[DraftView]:
        """Reload the drafts and their diffs into the pane; return the live ones.

        The server lists every draft of the session: those under review (an undone one is back
        among them, state "undone") and those applied or rejected, which stay in the pane below
        the live ones with their diff when the app saw it. `changed` (from DraftsChanged) names
        the paths an undo restored."""
        overview = await self._guard("list_drafts", self.flow.overview())
        if overview is None:
            return [d for d in self.pane.drafts if not d.settled]
        diffs = await self._guard("diff_drafts", self.flow.diffs())
        drafts = [replace(d, text=self._draft_text(d.path))
                  for d in parse_drafts(overview.drafts, diffs or ())]
        live = {d.path for d in drafts}
        expected, self._expected = self._expected, None
        for row in overview.settled:
            if row.path not in self.settled or self.settled[row.path].status != row.state:
                self._settle(row.path, row.state)
        for old in self.pane.drafts:
            if not old.settled and old.path not in live and old.path not in self.settled:
                self._settle(old.path, expected if expected in {"applied", "rejected"} else "closed")
        if expected == "undone":
            for path in changed:
                if path in self.settled and path not in live:
                    self._settle(path, "undone")
        for path in live:
            self.settled.pop(path, None)  # back for review (undone, or proposed again): live
        self.pane.drafts = (*drafts, *reversed(self.settled.values()))
        return drafts

    def seed_from_log(self) -> None:
        """A resumed session lists what became of its earlier drafts (applied, undone, rejected),
        read from its event log, so the pane shows every draft of the session with its state."""
        if self.engine.read_only:
            return  # a replay shows the drafts as the recording reaches them
        from formspec_consult.store.events import load_records
        from formspec_consult.store.records import ApplyRecord, RejectRecord, UndoRecord

        try:
            events = load_records(SessionLayout(Path(self.engine.session_dir)).events)
        except Exception:  # no log yet, or a damaged one: the live drafts are still listed
            return
        for event in events:
            if isinstance(event, (ApplyRecord, UndoRecord, RejectRecord)) and event.path:
                self.settled.pop(event.path, None)
                self.settled[event.path] = DraftView(event.path, status=_OUTCOME[event.TYPE])

    def _draft_text(self, path: str) -> str | None:
        """The draft's text from the session folder (read-only), for the owner's preview."""
        try:
            file = SessionLayout(Path(self.engine.session_dir)).draft / path
            return file.read_text(encoding="utf-8") if file.is_file() else None
        except (OSError, UnicodeDecodeError, ValueError):
            return None

    async def accept(self, path: str) -> bool:
        """Apply one draft; an invalid draft is refused by the server and the reason shown."""
        try:
            result = await self.flow.apply(path)
        except Exception as exc:  # the server refused (invalid draft, target changed) or is gone
            from formspec_consult.store.wording import for_person

            self.notify(_("Not applied: {path} — {why}").format(path=path, why=for_person(str(exc), "tui", path)), "warning")
            return False
        return self._applied(result)

    def _applied(self, result: Applied) -> bool:
        path = result.path
        if result.created:
            how = " " + _("(a new file; /undo removes it)")
        elif result.backup:
            how = " " + _("(the previous version is backed up; /undo restores it)")
        else:
            how = ""
        self._settle(path, "applied")
        self.notify(_("Applied {path}{how}.").format(path=path, how=how), "information")
        return True

    async def reject(self, path: str, reason: str | None = None) -> bool:
        """Discard one draft; the person's `reason` (optional) goes to the consultant with it."""
        result = await self._guard("reject_draft", self.flow.reject(path, reason))
        if result is None:
            return False
        from formspec_consult.store.review_text import format_reject

        self._settle(path, "rejected")
        self.notify(format_reject(result), "information")
        return True

    async def edit(self, path: str, run_editor: Callable[[str, str], str | None]) -> bool:
        """Open the draft in the person's editor; their saved version becomes the draft (validated,
        logged as their edit). An unchanged save, or an editor that failed, changes nothing."""
        from formspec_consult.store.editor import EditorError
        from formspec_consult.store.review_text import format_edit

        text = self._draft_text(path)
        if text is None:
            self.notify(_("No draft text to edit at {path}.").format(path=path), "warning")
            return False
        try:
            saved = run_editor(text, path)
        except EditorError as exc:
            self.notify(str(exc), "error")
            return False
        if saved is None:
            self.notify(_("The editor exited with an error; the draft {path} is unchanged.").format(path=path), "warning")
            return False
        if saved == text:
            self.notify(_("{path}: saved unchanged; nothing was changed.").format(path=path), "information")
            return False
        result = await self._guard("edit_draft", self.flow.edit(path, saved))
        if result is None:
            return False
        self.notify(format_edit(result), "information" if result.valid else "warning")
        await self.refresh()
        return result.changed

    async def partial(self, path: str, app: App[None]) -> None:
        """Partial review of one draft: the person keeps some blocks (BlocksScreen), says why the
        others go back (optional); the kept blocks are applied as their own draft, the gate deciding."""
        from formspec_consult.store.review_text import format_part
        from formspec_consult.tui.screens.blocks import BlocksScreen
        from formspec_consult.tui.screens.reason import ReasonScreen

        blocks = await self._guard("list_draft_blocks", self.flow.blocks(path))
        if blocks is None:
            return
        if len(blocks.blocks) < 2:
            self.notify(_("{path} changes one block or none: accept (a) or reject (r) it whole.").format(path=path),
                        "warning")
            return
        kept = await app.push_screen_wait(BlocksScreen(blocks))
        if not kept:
            return
        if len(kept) == len(blocks.blocks):
            await self.accept(path)
            await self.refresh()
            return
        reason = await app.push_screen_wait(ReasonScreen(
            path, title=_("Apply {kept} of {total} blocks of {path}?").format(kept=len(kept), total=len(blocks.blocks),
                                                                            path=path),
            enter=_("Enter applies the kept blocks, the rest goes back · Esc cancels")))
        if reason is None:
            return
        done = await self._guard("apply_draft_blocks", self.flow.apply_blocks(path, kept, reason or None))
        if done is not None:
            self._settle(path, "applied")
            # what reached the project is the kept blocks, not the whole proposal: show their diffs
            applied_ids = set(done.accepted)
            self.settled[path] = replace(self.settled[path],
                                         diff="".join(b.diff for b in blocks.blocks if b.id in applied_ids))
            self.notify(format_part(done.path, done.accepted, done.rejected, done.reason), "information")
        await self.refresh()

    async def changes(self, app: App[None], turn: int | None = None) -> None:
        """The turn changeset (ChangesScreen): the files one turn proposed, accepted or rejected as
        one set — each draft applied or rejected on its own, through the review workflow."""
        from formspec_consult.tui.screens.changes import ACCEPT, REJECT, TYPE, ChangesScreen
        from formspec_consult.tui.screens.reason import ReasonScreen

        listing = await self._guard("list_turn_changes", self.flow.changes(turn))
        if listing is None:
            return
        if not listing.turn:
            self.notify(_("No turn of this session has proposed drafts yet."), "information")
            return
        screen = ChangesScreen(listing)
        answer = await app.push_screen_wait(screen)
        if answer == TYPE:  # the person typed on: their keys go to the prompt
            back = getattr(app, "back_to_prompt", None)
            if back is not None:
                back()
            from textual import events

            for key in screen.typed:
                app.post_message(events.Key(key.key, key.character))
            return
        if answer == ACCEPT:
            await self.accept_turn(listing.turn)
        elif answer == REJECT:
            count = len(listing.open)
            reason = await app.push_screen_wait(ReasonScreen(
                "", title=ngettext("Reject the {n} draft of turn {turn}?", "Reject the {n} drafts of turn {turn}?",
                                   count).format(n=count, turn=listing.turn),
                enter=_("Enter rejects them all · Esc keeps them")))
            if reason is None:
                return
            await self.reject_turn(listing.turn, reason or None)

    async def accept_turn(self, turn: int | None = None) -> int:
        """Accept a turn's changeset: each valid draft still under review applied on its own."""
        from formspec_consult.store.review_text import format_turn_accept

        await self.refresh()  # the pane knows every draft's diff before they settle
        done = await self._guard("apply_draft", self.flow.accept_turn(turn))
        if done is None:
            return 0
        listing, outcome = done
        for result in outcome.applied:
            self._settle(result.path, "applied")
        self.notify(format_turn_accept(listing.turn, outcome.applied, outcome.skipped, outcome.failed),
                    "warning" if outcome.skipped or outcome.failed else "information")
        await self.refresh()
        return len(outcome.applied)

    async def reject_turn(self, turn: int | None = None, reason: str | None = None) -> int:
        """Reject a turn's changeset: each draft still under review rejected (with the reason)."""
        from formspec_consult.store.review_text import format_turn_reject

        await self.refresh()
        done = await self._guard("reject_draft", self.flow.reject_turn(turn, reason))
        if done is None:
            return 0
        listing, outcome = done
        for result in outcome.rejected:
            self._settle(result.path, "rejected")
        self.notify(format_turn_reject(listing.turn, outcome.rejected, outcome.failed, reason),
                    "warning" if outcome.failed else "information")
        await self.refresh()
        return len(outcome.rejected)

    async def reject_and_refresh(self, path: str, reason: str | None) -> None:
        await self.reject(path, reason)
        await self.refresh()

    async def undo(self) -> bool:
        """Undo the last apply."""
        result = await self._guard("undo_apply", self.flow.undo())
        if result is None:
            return False
        restored = result.path
        if result.back_for_review:
            self.settled.pop(restored, None)  # live again: the refresh lists it as undone
            tail = " — " + _("the draft is back for review; accept it again with /apply {path} (or a in the diffs "
                             "pane)").format(path=restored)
        else:
            if restored in self.settled:
                self._settle(restored, "undone")
            tail = ""
        self.notify(_("Undone: {restored}{tail}.").format(restored=restored, tail=tail), "information")
        return True

    async def accept_all(self) -> int:
        """Apply every valid draft; invalid ones are left for review and counted in a notice."""
        await self.refresh()  # the pane knows every draft's diff before they settle
        outcome = await self._guard("apply_draft", self.flow.apply_all())
        if outcome is None:
            return 0
        applied = sum(self._applied(r) for r in outcome.applied)
        for path, why in outcome.failed:
            self.notify(_("Not applied: {path} — {why}").format(path=path, why=why), "warning")
        skipped = len(outcome.skipped)
        tail = "; " + ngettext("{n} invalid draft left for review", "{n} invalid drafts left for review",
                               skipped).format(n=skipped) if skipped else ""
        said = ngettext("Accepted {n} draft{tail}.", "Accepted {n} drafts{tail}.", applied).format(n=applied, tail=tail)
        self.notify(said, "information" if not skipped else "warning")
        return applied

    async def run(self, action: str, path: str | None) -> None:
        """Perform `accept`/`reject`/`undo`/`accept_all`, then refresh the pane."""
        if action == "accept" and path:
            await self.accept(path)
        elif action == "reject" and path:
            await self.reject(path)
        elif action == "undo":
            await self.undo()
        elif action == "accept_all":
            await self.accept_all()
        await self.refresh()


def run_editor_in(app: App[None], text: str, name: str) -> str | None:
    """Run the person's editor on `text` with the terminal handed over (the app suspended); where
    the app cannot be suspended (a test's headless driver), the editor just runs."""
    from textual.app import SuspendNotSupported

    from formspec_consult.store.editor import edit_text

    try:
        suspended = app.suspend()
        suspended.__enter__()
    except SuspendNotSupported:
        return edit_text(text, name)
    try:
        return edit_text(text, name)
    finally:
        suspended.__exit__(None, None, None)
