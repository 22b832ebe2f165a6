"""Plain views of the local server's draft tools (`list_drafts`, `diff_drafts`) for the diff pane.

The answers arrive as the typed records of `store.review_results`, read once by the review
workflow (an answer that is not the tool's result was refused there); this module only turns
them into what the pane shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from formspec_consult.spec.model import Problem
    from formspec_consult.store.review_results import DraftDiff, DraftRow


@dataclass(frozen=True)
class DraftView:
    """One draft of the session as the diff pane shows it."""

    path: str
    status: str = "new"  # "new" | "modified"; once out of review: one of SETTLED
    valid: bool = True
    problems: tuple[str, ...] = ()
    diff: str = ""
    text: str | None = field(default=None, compare=False)  # the whole draft, for the preview
    state: str = "pending"  # the server's review state of a live draft: "pending" | "undone"

    @property
    def content(self) -> str | None:
        """The draft's whole text: as read from the session, else rebuilt from a new file's diff."""
        if self.text is not None:
            return self.text
        from formspec_consult.tui.widgets.entity_preview import draft_text_from_diff

        return draft_text_from_diff(self.diff)

    @property
    def settled(self) -> bool:
        """True once the draft has left review (applied, rejected; "undone" and "closed" for what
        an older session's log says): the pane keeps showing it, and its diff, so the review stays
        readable after the decision. An undo puts the draft back for review (live, state undone)."""
        return self.status in SETTLED

    @property
    def badges(self) -> tuple[str, ...]:
        """Short labels: the status, "undone" for a draft back for review after an undo, and
        "invalid" when the gate reported problems."""
        if self.settled:
            return (self.status,)
        undone = ("undone",) if self.state == "undone" else ()
        return (self.status, *undone) if self.valid else (self.status, *undone, "invalid")


# Statuses of drafts the server no longer lists; "closed" when the app did not see why it left.
SETTLED = frozenset({"applied", "rejected", "undone", "closed"})


def problem_lines(problems: Sequence[Problem]) -> tuple[str, ...]:
    """The gate's problems as the pane lists them: `line 3: message` and the hint below it."""
    out: list[str] = []
    for problem in problems:
        text = f"line {problem.line}: {problem.message}" if problem.line is not None else problem.message
        out.append(f"{text}\n    → {problem.hint}" if problem.hint else text)
    return tuple(out)


def parse_drafts(rows: Sequence[DraftRow], diffs: Sequence[DraftDiff] = ()) -> list[DraftView]:
    """The `list_drafts` rows merged with their `diff_drafts` entries (problems, diff), by path."""
    by_path = {entry.path: entry for entry in diffs}
    views: list[DraftView] = []
    for row in sorted(rows, key=lambda r: r.path):
        entry = by_path.get(row.path)
        views.append(
            DraftView(
                path=row.path,
                status=row.status,
                valid=row.valid if entry is None else entry.valid,
                problems=problem_lines(entry.problems) if entry is not None else (),
                diff=entry.diff if entry is not None else "",
                state=row.state,
            )
        )
    return views
