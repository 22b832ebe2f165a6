"""The local server's answers to the review tools, as typed records.

A client calls a local tool and gets a :class:`ToolResult` (the tool's name and its structured
JSON object; ``Engine.call_tool`` and the CLI's short-lived server both return one). The review
workflow (:class:`~formspec_consult.store.review_flow.ReviewFlow`) reads each answer ONCE into a
record here — :class:`DraftList`, :class:`DiffList`, :class:`Applied`, :class:`Undone`,
:class:`Rejected`, :class:`Proposed` — so the TUI's diff pane, the slash commands, the CLI and the
review texts read fields, not keys. The gate's problems and validations are the spec core's own
``Problem`` and ``ValidationResult``.

What the server always sends (its MCP output schemas, ``servers/local/results.py``) is required:
an answer that lacks such a field, or holds the wrong kind of value, is refused with a
:class:`ToolResultError` naming the tool, the field and where it is — so a stand-in (the replay
engine, a test fake) cannot drift from the real server unnoticed. Fields the server adds later are
ignored. ``to_json`` gives the wire shape back, for the stand-ins to answer with.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NoReturn, get_args

from formspec_consult.spec.model import Layer, Problem, ValidationResult

__all__ = [
    "Applied",
    "DiffList",
    "DraftDiff",
    "DraftList",
    "DraftRow",
    "LiveState",
    "Proposed",
    "Rejected",
    "SettledRow",
    "SettledState",
    "ToolResult",
    "ToolResultError",
    "Undone",
    "Withdrawn",
]

LiveState = Literal["pending", "undone"]  # a draft under review; "undone": applied, undone, back
SettledState = Literal["applied", "rejected"]  # a draft that left review


class ToolResultError(ValueError):
    """A tool answered something that is not its documented result; the message names the field."""


@dataclass(frozen=True)
class ToolResult:
    """What a client's call of a local MCP tool gives back: the tool and its JSON object."""

    tool: str
    data: Mapping[str, Any]

    @classmethod
    def of(cls, tool: str, answer: Any) -> ToolResult:
        """Wrap a decoded answer; one that is not a JSON object (a bare text or list) sits under
        ``result``, as the MCP SDK wraps a non-object return value."""
        return cls(tool, answer if isinstance(answer, Mapping) else {"result": answer})


class _Reader:
    """Reads one JSON object of a tool's answer, refusing a missing field or a wrong value."""

    def __init__(self, tool: str, data: Any, where: str = "") -> None:
        self.tool, self.where = tool, where
        if not isinstance(data, Mapping):
            self.fail(f"is {type(data).__name__}, not a JSON object")
        self.data: Mapping[str, Any] = data

    def fail(self, what: str) -> NoReturn:
        place = f" at {self.where}" if self.where else ""
        raise ToolResultError(
            f"The {self.tool} result{place} {what}. The client and the local server disagree on the "
            "tool's result: run both from the same formspec-consult version (restart mcp-serve)."
        )

    def _value(self, key: str) -> Any:
        if key not in self.data:
            self.fail(f"lacks '{key}'")
        return self.data[key]

    def _typed(self, key: str, kinds: tuple[type, ...], name: str, *, none: bool = False) -> Any:
        value = self._value(key)
        if value is None and none:
            return None
        if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
            self.fail(f"has '{key}' = {value!r}, not {name}{' or null' if none else ''}")
        return value

    def text(self, key: str) -> str:
        value: str = self._typed(key, (str,), "a string")
        return value

    def opt_text(self, key: str) -> str | None:
        value: str | None = self._typed(key, (str,), "a string", none=True)
        return value

    def whole(self, key: str) -> int:
        value: int = self._typed(key, (int,), "a whole number")
        return value

    def opt_whole(self, key: str) -> int | None:
        value: int | None = self._typed(key, (int,), "a whole number", none=True)
        return value

    def flag(self, key: str) -> bool:
        value: bool = self._typed(key, (bool,), "true or false")
        return value

    def opt_flag(self, key: str) -> bool | None:
        value: bool | None = self._typed(key, (bool,), "true or false", none=True)
        return value

    def choice(self, key: str, allowed: tuple[str, ...]) -> str:
        value = self.text(key)
        if value not in allowed:
            self.fail(f"has '{key}' = {value!r}, not one of {', '.join(allowed)}")
        return value

    def items(self, key: str) -> Sequence[Any]:
        value: Sequence[Any] = self._typed(key, (list, tuple), "a list")
        return value

    def obj(self, key: str) -> Mapping[str, Any]:
        value: Mapping[str, Any] = self._typed(key, (Mapping,), "a JSON object")
        return value

    def rows(self, key: str) -> list[_Reader]:
        """Each object of the list under ``key``, as a reader naming its place (drafts[2])."""
        prefix = f"{self.where}." if self.where else ""
        return [_Reader(self.tool, item, f"{prefix}{key}[{i}]") for i, item in enumerate(self.items(key))]

    def nested(self, key: str) -> _Reader:
        return _Reader(self.tool, self.obj(key), f"{self.where}.{key}" if self.where else key)


def _problem(row: _Reader) -> Problem:
    layer: Layer = row.choice("layer", get_args(Layer))  # type: ignore[assignment]
    column = row.data.get("column")
    return Problem(
        code=row.text("code"),
        source=row.text("source"),
        line=row.opt_whole("line"),
        layer=layer,
        message=row.text("message"),
        hint=row.text("hint"),
        column=column if isinstance(column, int) and not isinstance(column, bool) else None,
    )


def _problems(row: _Reader, key: str) -> tuple[Problem, ...]:
    return tuple(_problem(item) for item in row.rows(key))


def _validation(row: _Reader) -> ValidationResult:
    """``{ok, problems, warnings, schema_sources}`` (the last optional) as the core's record."""
    sources = row.data.get("schema_sources")
    return ValidationResult(
        ok=row.flag("ok"),
        problems=list(_problems(row, "problems")),
        warnings=list(_problems(row, "warnings")),
        schema_sources={str(k): str(v) for k, v in sources.items()} if isinstance(sources, Mapping) else {},
    )


def _start(result: ToolResult, tool: str) -> _Reader:
    if result.tool != tool:
        raise ToolResultError(f"Expected the answer of {tool}, got the answer of {result.tool}.")
    return _Reader(tool, result.data)


@dataclass(frozen=True)
class DraftRow:
    """A draft under review (a row of `list_drafts`): its status against the project, its review
    state, whether it passes the gate, how many problems block it, whether its target changed."""

    path: str
    status: str  # "new" | "modified" | "unchanged"
    state: LiveState
    valid: bool
    problems: int  # the count; `diff_drafts` gives the problems themselves
    target_changed: bool | None  # None: not known (drafts.json lost its record)

    @classmethod
    def read(cls, row: _Reader) -> DraftRow:
        state: LiveState = row.choice("state", get_args(LiveState))  # type: ignore[assignment]
        return cls(row.text("path"), row.text("status"), state, row.flag("valid"), row.whole("problems"),
                   row.opt_flag("target_changed"))

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "status": self.status, "state": self.state, "valid": self.valid,
                "problems": self.problems, "target_changed": self.target_changed}


@dataclass(frozen=True)
class SettledRow:
    """A draft of the session that left review: applied or rejected, and when."""

    path: str
    file: str  # the project file, e.g. spec/modules/…
    state: SettledState
    at: str | None  # ISO time; None for an older record

    @classmethod
    def read(cls, row: _Reader) -> SettledRow:
        state: SettledState = row.choice("state", get_args(SettledState))  # type: ignore[assignment]
        return cls(row.text("path"), row.text("file"), state, row.opt_text("at"))

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "file": self.file, "state": self.state, "at": self.at}


@dataclass(frozen=True)
class DraftList:
    """`list_drafts`: every draft of the session — those under review and those that left it."""

    session: str
    drafts: tuple[DraftRow, ...]
    settled: tuple[SettledRow, ...]

    @classmethod
    def from_result(cls, result: ToolResult) -> DraftList:
        row = _start(result, "list_drafts")
        return cls(row.text("session"), tuple(DraftRow.read(r) for r in row.rows("drafts")),
                   tuple(SettledRow.read(r) for r in row.rows("settled")))

    def to_json(self) -> dict[str, Any]:
        return {"session": self.session, "drafts": [d.to_json() for d in self.drafts],
                "settled": [s.to_json() for s in self.settled]}

    def by_state(self) -> dict[str, int]:
        """How many drafts are in each state (pending, undone, applied, rejected)."""
        counts: dict[str, int] = {}
        for state in [*(d.state for d in self.drafts), *(s.state for s in self.settled)]:
            counts[state] = counts.get(state, 0) + 1
        return counts


@dataclass(frozen=True)
class DraftDiff:
    """A draft's unified diff against the project (an entry of `diff_drafts`) and what blocks it."""

    path: str
    status: str
    state: LiveState
    valid: bool
    problems: tuple[Problem, ...]
    target_changed: bool | None
    diff: str

    @classmethod
    def read(cls, row: _Reader) -> DraftDiff:
        state: LiveState = row.choice("state", get_args(LiveState))  # type: ignore[assignment]
        return cls(row.text("path"), row.text("status"), state, row.flag("valid"), _problems(row, "problems"),
                   row.opt_flag("target_changed"), row.text("diff"))

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "status": self.status, "state": self.state, "valid": self.valid,
                "problems": [p.to_dict() for p in self.problems], "target_changed": self.target_changed,
                "diff": self.diff}


@dataclass(frozen=True)
class DiffList:
    """`diff_drafts`: the diffs of every draft under review (or of the one asked for)."""

    session: str
    drafts: tuple[DraftDiff, ...]

    @classmethod
    def from_result(cls, result: ToolResult) -> DiffList:
        row = _start(result, "diff_drafts")
        return cls(row.text("session"), tuple(DraftDiff.read(r) for r in row.rows("drafts")))

    def to_json(self) -> dict[str, Any]:
        return {"session": self.session, "drafts": [d.to_json() for d in self.drafts]}


@dataclass(frozen=True)
class Applied:
    """`apply_draft`: the draft applied, the project file written, its backup and undo step, and
    the whole tree's validation after the apply."""

    path: str
    file: str
    backup: str
    previous: str  # "backed up" | "did not exist"
    undo_step: int
    forced: bool
    validation: ValidationResult

    @classmethod
    def from_result(cls, result: ToolResult) -> Applied:
        return cls.from_json(_start(result, "apply_draft").data)

    @classmethod
    def from_json(cls, data: Any) -> Applied:
        row = _Reader("apply_draft", data)
        return cls(row.text("applied"), row.text("file"), row.text("backup"), row.text("previous"),
                   row.whole("undo_step"), row.flag("forced"), _validation(row.nested("validation")))

    def to_json(self) -> dict[str, Any]:
        return {"applied": self.path, "file": self.file, "backup": self.backup, "previous": self.previous,
                "undo_step": self.undo_step, "forced": self.forced, "validation": self.validation.to_dict()}

    @property
    def created(self) -> bool:
        """True when the apply wrote a file that did not exist (an undo removes it)."""
        return self.previous == "did not exist"


@dataclass(frozen=True)
class Undone:
    """`undo_apply`: which apply was undone and how, what became of its draft, what is left."""

    path: str
    file: str
    outcome: str  # "restored" | "removed" | …
    draft: str  # "back for review" | "newer draft kept" | "not kept"
    undo_step: int
    remaining_steps: int
    validation: ValidationResult

    @classmethod
    def from_result(cls, result: ToolResult) -> Undone:
        return cls.from_json(_start(result, "undo_apply").data)

    @classmethod
    def from_json(cls, data: Any) -> Undone:
        row = _Reader("undo_apply", data)
        return cls(row.text("undone"), row.text("file"), row.text("outcome"), row.text("draft"),
                   row.whole("undo_step"), row.whole("remaining_steps"), _validation(row.nested("validation")))

    def to_json(self) -> dict[str, Any]:
        return {"undone": self.path, "file": self.file, "outcome": self.outcome, "draft": self.draft,
                "undo_step": self.undo_step, "remaining_steps": self.remaining_steps,
                "validation": self.validation.to_dict()}

    @property
    def back_for_review(self) -> bool:
        """True when the undone draft is under review again (state undone: accept it again)."""
        return self.draft == "back for review"


@dataclass(frozen=True)
class Rejected:
    """`reject_draft`: the draft discarded and the drafts still under review."""

    path: str
    remaining: tuple[str, ...]
    reason: str | None = None  # the person's reason (answers recorded before reasons have none)

    @classmethod
    def from_result(cls, result: ToolResult) -> Rejected:
        return cls.from_json(_start(result, "reject_draft").data)

    @classmethod
    def from_json(cls, data: Any) -> Rejected:
        row = _Reader("reject_draft", data)
        rejected, remaining = row.text("rejected"), row.items("remaining")
        if not all(isinstance(p, str) for p in remaining):
            row.fail("has a 'remaining' entry that is not a path")
        reason = row.opt_text("reason") if "reason" in row.data else None
        return cls(rejected, tuple(remaining), reason or None)

    def to_json(self) -> dict[str, Any]:
        reason = {"reason": self.reason} if self.reason else {}
        return {"rejected": self.path, "remaining": list(self.remaining), **reason}


@dataclass(frozen=True)
class Withdrawn:
    """`withdraw_draft`: the pending draft taken back and the drafts still under review."""

    path: str
    remaining: tuple[str, ...]

    @classmethod
    def from_result(cls, result: ToolResult) -> Withdrawn:
        row = _start(result, "withdraw_draft")
        withdrawn, remaining = row.text("withdrawn"), row.items("remaining")
        if not all(isinstance(p, str) for p in remaining):
            row.fail("has a 'remaining' entry that is not a path")
        return cls(withdrawn, tuple(remaining))


@dataclass(frozen=True)
class Proposed:
    """`propose_spec_file`: the draft written, its status, the gate's validation and what is next."""

    path: str
    draft_path: str
    status: str
    validation: ValidationResult
    blocking_problems: int
    next: str
    skills: tuple[str, ...]  # the relevant skills' names
    findings: tuple[Mapping[str, Any], ...]  # the verifiers' advice: {code, source, line, entity, message, hint}

    @classmethod
    def from_result(cls, result: ToolResult) -> Proposed:
        row = _start(result, "propose_spec_file")
        row.flag("written")
        skills = tuple(r.text("name") for r in row.rows("relevant_skills"))
        # The verifiers' findings came later: a session recorded before them has none.
        findings = tuple(r.data for r in row.rows("findings")) if "findings" in row.data else ()
        return cls(row.text("path"), row.text("draft_path"), row.text("status"), _validation(row.nested("validation")),
                   row.whole("blocking_problems"), row.text("next"), skills, findings)

    @property
    def passes(self) -> bool:
        """True when nothing blocks the draft."""
        return self.blocking_problems == 0



@dataclass(frozen=True)
class Edited:
    """`edit_draft`: the person's version became the draft (``changed``), what they changed, and
    the gate's verdict on it."""

    path: str
    changed: bool
    diff: str
    valid: bool
    problems: tuple[Problem, ...]

    @classmethod
    def from_result(cls, result: ToolResult) -> Edited:
        return cls.from_json(_start(result, "edit_draft").data)

    @classmethod
    def from_json(cls, data: Any) -> Edited:
        row = _Reader("edit_draft", data)
        return cls(row.text("edited"), row.flag("changed"), row.text("diff"), row.flag("valid"),
                   _problems(row, "problems"))

    def to_json(self) -> dict[str, Any]:
        return {"edited": self.path, "changed": self.changed, "diff": self.diff, "valid": self.valid,
                "problems": [p.to_dict() for p in self.problems]}


@dataclass(frozen=True)
class BlockRow:
    """One block of a draft's change: its id, what happened to it, its own diff."""

    id: str
    change: str  # added | removed | changed
    diff: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "change": self.change, "diff": self.diff}


@dataclass(frozen=True)
class DraftBlocks:
    """`list_draft_blocks`: the draft's change cut into blocks."""

    path: str
    blocks: tuple[BlockRow, ...]

    @classmethod
    def from_result(cls, result: ToolResult) -> DraftBlocks:
        row = _start(result, "list_draft_blocks")
        blocks = tuple(BlockRow(r.text("id"), r.choice("change", ("added", "removed", "changed")), r.text("diff"))
                       for r in row.rows("blocks"))
        return cls(row.text("path"), blocks)

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "blocks": [b.to_json() for b in self.blocks]}


@dataclass(frozen=True)
class PartApplied:
    """`apply_draft_blocks`: the blocks applied (as their own draft: `applied`), those sent back."""

    path: str
    accepted: tuple[str, ...]
    rejected: tuple[str, ...]
    applied: Applied
    reason: str | None = None

    @classmethod
    def from_result(cls, result: ToolResult) -> PartApplied:
        row = _start(result, "apply_draft_blocks")
        reason = row.opt_text("reason") if "reason" in row.data else None
        return cls(row.text("path"), tuple(row.items("accepted")), tuple(row.items("rejected")),
                   Applied.from_json(row.obj("apply")), reason)

    def to_json(self) -> dict[str, Any]:
        reason = {"reason": self.reason} if self.reason else {}
        return {"path": self.path, "accepted": list(self.accepted), "rejected": list(self.rejected), **reason,
                "apply": self.applied.to_json()}
