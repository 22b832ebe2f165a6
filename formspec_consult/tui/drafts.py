"""Plain views of the local server's draft tools (`list_drafts`, `diff_drafts`) for the diff pane.

The results arrive as the typed records of `store.review_results` (read by the review workflow);
this module only turns them into what the pane shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from formspec_consult.store.review_results import DraftDiff, DraftRow


@dataclass(frozen=True)
class DraftView:
    """One draft of the session as the diff pane shows it."""

    path: str
    status: str = "new"  # "new" | "modified"
    valid: bool = True
    problems: tuple[str, ...] = ()
    diff: str = ""
    text: str | None = field(default=None, compare=False)  # the whole draft, for the preview

    @property
    def content(self) -> str | None:
        """The draft's whole text: as read from the session, else rebuilt from a new file's diff."""
        if self.text is not None:
            return self.text
        from formspec_consult.tui.widgets.entity_preview import draft_text_from_diff

        return draft_text_from_diff(self.diff)

    @property
    def settled(self) -> bool:
        """True once the draft has left the server's list (applied, rejected, undone): the pane
        keeps showing it, and its diff, so the review stays readable after the decision."""
        return self.status in SETTLED

    @property
    def badges(self) -> tuple[str, ...]:
        """Short labels: the status, plus "invalid" when the gate reported problems."""
        return (self.status,) if self.valid or self.settled else (self.status, "invalid")


# Statuses of drafts the server no longer lists; "closed" when the app did not see why it left.
SETTLED = frozenset({"applied", "rejected", "undone", "closed"})


def _problem_lines(raw: Sequence[Mapping[str, Any] | str]) -> tuple[str, ...]:
    """The gate's problems as lines: `line 3: message` and the hint below it."""
    out: list[str] = []
    for problem in raw:
        if isinstance(problem, Mapping):
            line = problem.get("line")
            where = f"line {line}" if isinstance(line, int) else problem.get("path") or ""
            message = problem.get("message") or str(dict(problem))
            text = f"{where}: {message}" if where else str(message)
            hint = problem.get("hint")
            out.append(f"{text}\n    → {hint}" if hint else text)
        else:
            out.append(str(problem))
    return tuple(out)


def parse_drafts(rows: Sequence[DraftRow], diffs: Sequence[DraftDiff] = ()) -> list[DraftView]:
    """Merge the `list_drafts` rows with their `diff_drafts` entries, sorted by path."""
    by_diff = {d.path: d for d in diffs}
    views: list[DraftView] = []
    for row in sorted(rows, key=lambda r: r.path):
        entry = by_diff.get(row.path)
        views.append(
            DraftView(
                path=row.path,
                status=row.status,
                valid=row.valid if entry is None else entry.valid,
                problems=_problem_lines(entry.problems) if entry is not None else (),
                diff=entry.diff if entry is not None else "",
            )
        )
    return views
