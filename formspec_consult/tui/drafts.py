"""Plain views of the local server's draft tools (`list_drafts`, `diff_drafts`) for the diff pane.

The server's result shapes are read leniently (a list, or a dict holding one under `drafts`/
`diffs`/`items`) so that a field added on the server side never breaks the review pane.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class DraftView:
    """One draft of the session as the diff pane shows it."""

    path: str
    status: str = "new"  # "new" | "modified"; once out of review: one of SETTLED
    valid: bool = True
    problems: tuple[str, ...] = ()
    diff: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
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


def _items(result: Any, keys: Sequence[str]) -> list[Mapping[str, Any]]:
    if isinstance(result, Mapping):
        for key in keys:
            value = result.get(key)
            if isinstance(value, list):
                return [item for item in value if isinstance(item, Mapping)]
            if isinstance(value, Mapping):  # {path: {...}}
                return [{"path": path, **item} for path, item in value.items() if isinstance(item, Mapping)]
        return []
    if isinstance(result, list):
        return [item for item in result if isinstance(item, Mapping)]
    return []


def _problems(item: Mapping[str, Any]) -> tuple[str, ...]:
    raw = item.get("problems")
    validation = item.get("validation")
    if raw is None and isinstance(validation, Mapping):
        raw = validation.get("problems") or validation.get("errors")
    if not raw or isinstance(raw, (int, float)):  # list_drafts gives a count; diff_drafts the list
        return ()
    out: list[str] = []
    for problem in raw if isinstance(raw, list) else [raw]:
        if isinstance(problem, Mapping):
            line = problem.get("line")
            where = f"line {line}" if isinstance(line, int) else problem.get("path") or problem.get("location") or ""
            message = problem.get("message") or problem.get("error") or str(dict(problem))
            text = f"{where}: {message}" if where else str(message)
            hint = problem.get("hint")
            out.append(f"{text}\n    → {hint}" if hint else text)
        else:
            out.append(str(problem))
    return tuple(out)


def _valid(item: Mapping[str, Any], problems: tuple[str, ...]) -> bool:
    if "valid" in item:
        return bool(item["valid"])
    validation = item.get("validation")
    if isinstance(validation, Mapping) and "valid" in validation:
        return bool(validation["valid"])
    return not problems


def parse_drafts(listing: Any, diffs: Any = None) -> list[DraftView]:
    """Merge a `list_drafts` result with an optional `diff_drafts` result, sorted by path."""
    by_path: dict[str, dict[str, Any]] = {}
    for item in _items(listing, ("drafts", "items")) + _items(diffs, ("diffs", "drafts", "items")):
        path = str(item.get("path") or item.get("file") or "")
        if path:
            by_path.setdefault(path, {}).update({k: v for k, v in item.items() if v is not None})
    views: list[DraftView] = []
    for path, item in sorted(by_path.items()):
        problems = _problems(item)
        views.append(
            DraftView(
                path=path,
                status=str(item.get("status") or ("modified" if item.get("exists") else "new")),
                valid=_valid(item, problems),
                problems=problems,
                diff=str(item.get("diff") or item.get("unified_diff") or ""),
                extra=dict(item),
                state=str(item.get("state") or "pending"),
            )
        )
    return views
