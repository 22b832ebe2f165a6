"""The local server's answers to the review tools: one typed shape each, built where it is made
(`store.review`, `store.apply`), served as is (the MCP SDK derives each tool's output schema from
it and dumps it) and read back once by every client.

Pydantic models, not dataclasses: the one shape has to be validated on the way in (a client reads
JSON from the wire; a stand-in answers with it), serialised on the way out and described as a JSON
schema for MCP — pydantic does all three from the one declaration, where dataclasses needed a
hand-written reader, a `to_json` per record and a second set of TypedDicts for the schema.

A client calls a local tool and gets a :class:`ToolResult` (the tool's name and its structured
JSON object; ``Engine.call_tool`` and the CLI's short-lived server both return one). The review
workflow (:class:`~formspec_consult.store.review_flow.ReviewFlow`) reads each answer into its
model with ``from_result``: an answer that lacks a field, or holds the wrong kind of value
(strictly: no `"1"` for 1, no 1 for true), is refused with a :class:`ToolResultError` naming the
tool, the field and where it is — so a stand-in (the replay engine, a test fake) cannot drift from
the real server unnoticed. Fields the server adds later are ignored. ``to_json`` gives the wire
shape back. The gate's problems and validations are the spec core's own ``Problem`` and
``ValidationResult``, sent as their ``to_dict``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_serializer

from formspec_consult.spec.model import Problem, ValidationResult
from formspec_consult.store.manifest import LiveState, SettledState

__all__ = [
    "Applied",
    "ChangeRow",
    "DiffList",
    "DraftDiff",
    "DraftList",
    "DraftRow",
    "LiveState",
    "ProjectProblem",
    "ProjectValidation",
    "Proposed",
    "Rejected",
    "SettledRow",
    "SettledState",
    "SkillRef",
    "ToolResult",
    "ToolResultError",
    "TurnChanges",
    "Undone",
    "Withdrawn",
]


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


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


class Answer(BaseModel):
    """A review tool's answer: strict on the way in, its wire names on the way out."""

    model_config = ConfigDict(
        strict=True, frozen=True, validate_by_name=True, validate_by_alias=True, serialize_by_alias=True
    )
    TOOL: ClassVar[str] = ""  # the tool whose answer this is

    @classmethod
    def from_json(cls, data: Any) -> Self:
        """The answer read from its decoded JSON; ToolResultError names what does not fit."""
        if not isinstance(data, Mapping):
            raise _refused(cls.TOOL, "", f"is {type(data).__name__}, not a JSON object")
        try:
            return cls.model_validate_json(json.dumps(cls._as_recorded(data), default=str))
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = tuple(first["loc"])
            if first["type"] == "missing":
                raise _refused(cls.TOOL, _where(loc[:-1]), f"lacks '{loc[-1]}'") from None
            shown = repr(first.get("input"))[:80]
            if first["type"] == "literal_error":
                expected = str(first.get("ctx", {}).get("expected", "")).replace("'", "").replace(" or ", ", ")
                kind = f"one of {expected}"
            else:
                kind = _KINDS.get(first["type"], f"valid ({first['msg']})")
            raise _refused(cls.TOOL, _where(loc[:-1]), f"has '{loc[-1]}' = {shown}, not {kind}") from None

    @classmethod
    def _as_recorded(cls, data: Mapping[str, Any]) -> Mapping[str, Any]:
        """The answer as this version reads it (a subclass fills what older versions did not send)."""
        return data

    @classmethod
    def from_result(cls, result: ToolResult) -> Self:
        """The answer of a call of this model's tool."""
        if result.tool != cls.TOOL:
            raise ToolResultError(f"Expected the answer of {cls.TOOL}, got the answer of {result.tool}.")
        return cls.from_json(result.data)

    def to_json(self) -> dict[str, Any]:
        """The wire shape (the tool's structured result)."""
        return self.model_dump(mode="json")


_KINDS = {  # pydantic's error types, said as what the field should have been
    "int_type": "a whole number",
    "bool_type": "true or false",
    "string_type": "a string",
    "tuple_type": "a list",
    "list_type": "a list",
    "dict_type": "a JSON object",
    "model_type": "a JSON object",
    "dataclass_type": "a JSON object",
}


def _refused(tool: str, where: str, what: str) -> ToolResultError:
    place = f" at {where}" if where else ""
    return ToolResultError(
        f"The {tool} result{place} {what}. The client and the local server disagree on the "
        "tool's result: run both from the same formspec-consult version (restart mcp-serve)."
    )


class _Validated(Answer):
    """An answer holding a validation (its subclass declares where), sent as the core record's `to_dict`."""

    @field_serializer("validation", check_fields=False)
    def _validation_out(self, validation: ValidationResult) -> dict[str, Any]:
        return validation.to_dict()


class DraftRow(Answer):
    """A draft under review (a row of `list_drafts`): its status against the project, its review
    state, whether it passes the gate, how many problems block it, whether its target changed."""

    TOOL = "list_drafts"
    path: str
    status: str  # "new" | "modified" | "unchanged"
    state: LiveState
    valid: bool
    problems: int  # the count; `diff_drafts` gives the problems themselves
    target_changed: bool | None  # None: not known (drafts.json lost its record)


class SettledRow(Answer):
    """A draft of the session that left review: applied or rejected, and when."""

    TOOL = "list_drafts"
    path: str
    file: str  # the project file, e.g. spec/modules/…
    state: SettledState
    at: str | None  # ISO time; None for an older record


class DraftList(Answer):
    """`list_drafts`: every draft of the session — those under review and those that left it."""

    TOOL = "list_drafts"
    session: str
    drafts: tuple[DraftRow, ...]
    settled: tuple[SettledRow, ...]  # the session's drafts no longer under review

    def by_state(self) -> dict[str, int]:
        """How many drafts are in each state (pending, undone, applied, rejected)."""
        counts: dict[str, int] = {}
        for state in [*(d.state for d in self.drafts), *(s.state for s in self.settled)]:
            counts[state] = counts.get(state, 0) + 1
        return counts


class DraftDiff(Answer):
    """A draft's unified diff against the project (an entry of `diff_drafts`) and what blocks it."""

    TOOL = "diff_drafts"
    path: str
    status: str
    state: LiveState
    valid: bool
    problems: tuple[Problem, ...]
    target_changed: bool | None
    diff: str

    @field_serializer("problems")
    def _problems_out(self, problems: tuple[Problem, ...]) -> list[dict[str, Any]]:
        return [p.to_dict() for p in problems]


class DiffList(Answer):
    """`diff_drafts`: the diffs of every draft under review (or of the one asked for)."""

    TOOL = "diff_drafts"
    session: str
    drafts: tuple[DraftDiff, ...]


class Applied(_Validated):
    """`apply_draft`: the draft applied, the project file written, its backup and undo step, and
    the whole tree's validation after the apply."""

    TOOL = "apply_draft"
    path: str = Field(alias="applied")
    file: str
    backup: str
    previous: str  # "backed up" | "did not exist"
    undo_step: int
    forced: bool
    validation: ValidationResult

    @property
    def created(self) -> bool:
        """True when the apply wrote a file that did not exist (an undo removes it)."""
        return self.previous == "did not exist"


class Undone(_Validated):
    """`undo_apply`: which apply was undone and how, what became of its draft, what is left."""

    TOOL = "undo_apply"
    path: str = Field(alias="undone")
    file: str
    outcome: str  # "restored" | "removed" | …
    draft: str  # "back for review" | "newer draft kept" | "not kept"
    undo_step: int
    remaining_steps: int
    validation: ValidationResult

    @property
    def back_for_review(self) -> bool:
        """True when the undone draft is under review again (state undone: accept it again)."""
        return self.draft == "back for review"


class Rejected(Answer):
    """`reject_draft`: the draft discarded and the drafts still under review."""

    TOOL = "reject_draft"
    path: str = Field(alias="rejected")
    remaining: tuple[str, ...]
    # the person's reason, when they gave one (answers recorded before reasons have none)
    reason: str | None = Field(default=None, exclude_if=lambda value: not value)


class Withdrawn(Answer):
    """`withdraw_draft`: the proposer's own pending draft taken back, and the drafts still under review."""

    TOOL = "withdraw_draft"
    path: str = Field(alias="withdrawn")
    remaining: tuple[str, ...]


class SkillRef(Answer):
    """A skill relevant to a proposed draft's kind."""

    name: str
    description: str


class Proposed(_Validated):
    """`propose_spec_file`: the draft written, its status, this draft's verdict (``valid`` and
    ``validation``: only what blocks THIS draft and the warnings in its file; problems elsewhere are
    counted in ``other_problems``), the relevant skills, the verifiers' findings and what is next."""

    TOOL = "propose_spec_file"
    written: bool
    path: str
    draft_path: str
    status: str
    # a modified file: the unified diff of the current file -> the draft (absent otherwise)
    diff: str | None = Field(default=None, exclude_if=lambda value: value is None)
    valid: bool
    validation: ValidationResult
    blocking_problems: int
    other_problems: int = 0  # none counted in a session recorded before they were
    relevant_skills: tuple[SkillRef, ...]
    # the verifiers' advice: {code, source, line, entity, message, hint}; none in a session
    # recorded before the verifiers came
    findings: tuple[dict[str, Any], ...] = ()
    next: str

    @classmethod
    def _as_recorded(cls, data: Mapping[str, Any]) -> Mapping[str, Any]:
        """A session recorded before `valid` was sent: it is what `blocking_problems` says."""
        if "valid" not in data and isinstance(data.get("blocking_problems"), int):
            return {**data, "valid": data["blocking_problems"] == 0}
        return data

    @property
    def skills(self) -> tuple[str, ...]:
        """The relevant skills' names."""
        return tuple(skill.name for skill in self.relevant_skills)

    @property
    def passes(self) -> bool:
        """True when nothing blocks the draft."""
        return self.blocking_problems == 0


class Edited(Answer):
    """`edit_draft`: the person's version became the draft (``changed``), what they changed, and
    the gate's verdict on it."""

    TOOL = "edit_draft"
    path: str = Field(alias="edited")
    changed: bool  # false: the person's text is the draft's, nothing was written or logged
    diff: str  # the old draft -> the person's version
    valid: bool
    problems: tuple[Problem, ...]

    @field_serializer("problems")
    def _problems_out(self, problems: tuple[Problem, ...]) -> list[dict[str, Any]]:
        return [p.to_dict() for p in problems]


class BlockRow(Answer):
    """One block of a draft's change (store.blocks): its id, what happened to it, its own diff."""

    TOOL = "list_draft_blocks"
    id: str  # e.g. spec.fields[phone], spec.state_machine.transitions[booked->done]
    change: Literal["added", "removed", "changed"]
    diff: str


class DraftBlocks(Answer):
    """`list_draft_blocks`: the draft's change cut into blocks."""

    TOOL = "list_draft_blocks"
    path: str
    blocks: tuple[BlockRow, ...]


class PartApplied(Answer):
    """`apply_draft_blocks`: the blocks applied (as a draft of their own: `applied`), and those
    sent back to the model as a rejection, with the person's reason."""

    TOOL = "apply_draft_blocks"
    path: str
    accepted: tuple[str, ...]
    rejected: tuple[str, ...]
    applied: Applied = Field(alias="apply")
    reason: str | None = Field(default=None, exclude_if=lambda value: not value)


ChangeState = Literal["pending", "undone", "applied", "rejected", "withdrawn"]


class ChangeRow(Answer):
    """One file of a turn's changeset: the draft the turn proposed at `path` and what became of it
    (`state`: under review — pending or undone — or applied, rejected, withdrawn), whether it is a
    new file or a change, the lines it adds and removes, and the gate's verdict while under review."""

    TOOL = "list_turn_changes"
    path: str
    file: str  # the project file, e.g. spec/modules/…
    status: str  # "new" | "modified" | "unchanged" ("" when not known: rejected or withdrawn)
    state: ChangeState
    valid: bool | None  # the gate's verdict, for a draft under review (None once it left review)
    problems: int  # problems that block it (0 once it left review)
    added: int | None  # lines added and removed; None when not known (a rejected draft's)
    removed: int | None
    diff: str  # the draft against the project (under review), or what its apply wrote; "" when not known
    later_turn: int | None  # proposed again by this later turn: its review belongs to that turn

    @property
    def open(self) -> bool:
        """True for a draft of this turn still to decide on: under review and not proposed again later."""
        return self.state in ("pending", "undone") and self.later_turn is None


class TurnChanges(Answer):
    """`list_turn_changes`: the files one turn proposed (by default the latest turn that proposed
    any), and the turns that proposed drafts (to pick another)."""

    TOOL = "list_turn_changes"
    session: str
    turn: int  # 0: no turn of the session proposed a draft
    user_text: str  # what the person said to start that turn
    turns: tuple[int, ...]  # every turn that proposed drafts, oldest first
    files: tuple[ChangeRow, ...]

    @property
    def open(self) -> tuple[ChangeRow, ...]:
        """The files still to decide on (accepting or rejecting the turn acts on these)."""
        return tuple(row for row in self.files if row.open)


class ProjectProblem(Answer):
    """One problem (or warning) of `validate_project`: the file by the path the tools take, whether
    it is one of the session's pending drafts, where, and how to fix it."""

    TOOL = "validate_project"
    file: str
    draft: bool
    line: int | None
    code: str
    message: str
    hint: str


class ProjectValidation(Answer):
    """`validate_project`: the whole project — the applied files with the session's pending drafts
    over them — checked in one go. At most a few problems and warnings are listed (the first, in
    file order); `more_problems`/`more_warnings` count the rest."""

    TOOL = "validate_project"
    ok: bool
    files: int  # spec files and owner documents checked
    drafts: int  # of them, pending drafts of this session
    problems: tuple[ProjectProblem, ...]
    more_problems: int
    warnings: tuple[ProjectProblem, ...]
    more_warnings: int
    next: str
