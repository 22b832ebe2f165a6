"""The review tools' results as typed records: what a client gets back from the local server.

`list_drafts`, `diff_drafts`, `apply_draft`, `undo_apply` and `reject_draft` answer JSON objects
(their MCP output schemas are `servers/local/results.py`); :class:`~formspec_consult.store.
review_flow.ReviewFlow` reads each one into a record here, so the TUI, the slash commands and the
CLI read fields, not keys. A result that lacks a field the server always sends is refused with
:class:`ToolResultError` naming it — a stand-in server (a test fake) cannot drift from the real one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Applied", "DraftDiff", "DraftRow", "Rejected", "ToolResultError", "Undone"]


class ToolResultError(ValueError):
    """A review tool answered something that is not its documented result."""


def _need(tool: str, data: Any, keys: Sequence[str]) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise ToolResultError(f"{tool} answered {type(data).__name__}, not its result object")
    missing = [key for key in keys if key not in data]
    if missing:
        raise ToolResultError(f"{tool}'s result lacks {', '.join(missing)}")
    return data


def _problems(raw: Any) -> tuple[Mapping[str, Any] | str, ...]:
    return tuple(p if isinstance(p, (Mapping, str)) else str(p) for p in raw or ())


@dataclass(frozen=True)
class DraftRow:
    """One row of `list_drafts`: a draft, its status, whether it validates, its problem count."""

    path: str
    status: str  # "new" | "modified"
    valid: bool
    problems: int
    target_changed: bool | None = None  # None: not known (drafts.json lost its record)

    @classmethod
    def from_json(cls, data: Any) -> DraftRow:
        row = _need("list_drafts", data, ("path", "status", "valid", "problems"))
        return cls(str(row["path"]), str(row["status"]), bool(row["valid"]), int(row["problems"]),
                   row.get("target_changed"))


@dataclass(frozen=True)
class DraftDiff:
    """One entry of `diff_drafts`: the draft's unified diff and the gate's problems."""

    path: str
    status: str
    valid: bool
    problems: tuple[Mapping[str, Any] | str, ...]  # {code, line, message, hint, …}
    diff: str
    target_changed: bool | None = None

    @classmethod
    def from_json(cls, data: Any) -> DraftDiff:
        row = _need("diff_drafts", data, ("path", "status", "valid", "problems", "diff"))
        return cls(str(row["path"]), str(row["status"]), bool(row["valid"]), _problems(row["problems"]),
                   str(row["diff"] or ""), row.get("target_changed"))


@dataclass(frozen=True)
class Applied:
    """`apply_draft`: the draft's path, the project file written, its backup and undo step."""

    path: str
    file: str
    previous: str  # "backed up" | "did not exist"
    backup: str | None = None
    undo_step: int | None = None
    forced: bool = False
    validation: Mapping[str, Any] | None = None  # the whole tree after the apply

    @classmethod
    def from_json(cls, data: Any) -> Applied:
        row = _need("apply_draft", data, ("applied", "file", "previous"))
        return cls(str(row["applied"]), str(row["file"]), str(row["previous"]), row.get("backup"),
                   row.get("undo_step"), bool(row.get("forced")), row.get("validation"))

    @property
    def created(self) -> bool:
        """True when the apply wrote a file that did not exist (an undo removes it)."""
        return self.previous == "did not exist"


@dataclass(frozen=True)
class Undone:
    """`undo_apply`: which apply was undone, how (restored, removed), and what is left to undo."""

    path: str
    file: str
    outcome: str
    remaining_steps: int = 0
    undo_step: int | None = None
    validation: Mapping[str, Any] | None = None

    @classmethod
    def from_json(cls, data: Any) -> Undone:
        row = _need("undo_apply", data, ("undone", "file", "outcome"))
        return cls(str(row["undone"]), str(row["file"]), str(row["outcome"]),
                   int(row.get("remaining_steps") or 0), row.get("undo_step"), row.get("validation"))


@dataclass(frozen=True)
class Rejected:
    """`reject_draft`: the draft discarded and the drafts that remain."""

    path: str
    remaining: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, data: Any) -> Rejected:
        row = _need("reject_draft", data, ("rejected",))
        return cls(str(row["rejected"]), tuple(str(p) for p in row.get("remaining") or ()))
