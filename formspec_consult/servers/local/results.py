"""Typed shapes of the tool results (they become each tool's MCP output schema).

Keep them in step with what ``sessions.review`` / ``devserver`` return: a key missing here is
dropped from the structured result (the test client checks text and structured output agree).
"""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict


class Validation(TypedDict):
    """``{ok, problems, warnings, schema_sources}``; each problem has code, source, line, layer, message, hint.

    ``schema_sources`` maps each kind checked to the schema source used (an official file or ours).
    """

    ok: bool
    problems: list[dict[str, Any]]
    warnings: list[dict[str, Any]]
    schema_sources: NotRequired[dict[str, str]]


class SkillRef(TypedDict):
    name: str
    description: str


class Proposed(TypedDict):
    """One draft's verdict: ``valid``, and ``validation`` holding only what blocks THIS draft and the
    warnings in its file; problems elsewhere (other drafts, old ones) are counted in ``other_problems``."""

    written: bool
    path: str
    draft_path: str
    status: str
    diff: NotRequired[str]  # a modified file: the unified diff of the current file -> the draft
    valid: bool
    validation: Validation
    blocking_problems: int
    other_problems: int
    relevant_skills: list[SkillRef]
    findings: list[dict[str, Any]]  # the verifiers' advice (spec.verify): {code, source, line, entity, message, hint}
    next: str


class DraftRow(TypedDict):
    path: str
    status: str
    state: str  # pending | undone (applied, undone, back for review)
    valid: bool
    problems: int
    target_changed: bool | None


class SettledRow(TypedDict):
    path: str
    file: str
    state: str  # applied | rejected
    at: str | None


class DraftList(TypedDict):
    session: str
    drafts: list[DraftRow]
    settled: list[SettledRow]  # the session's drafts no longer under review


class DraftDiff(TypedDict):
    path: str
    status: str
    state: str
    valid: bool
    problems: list[dict[str, Any]]
    target_changed: bool | None
    diff: str


class DiffList(TypedDict):
    session: str
    drafts: list[DraftDiff]


class Rejected(TypedDict):
    rejected: str
    remaining: list[str]
    reason: NotRequired[str]  # the person's reason, when they gave one


class Edited(TypedDict):
    edited: str
    changed: bool  # false: the person's text is the draft's, nothing was written or logged
    diff: str  # the old draft -> the person's version
    valid: bool
    problems: list[dict[str, Any]]


class BlockRow(TypedDict):
    id: str  # e.g. spec.fields[phone], spec.state_machine.transitions[booked->done]
    change: str  # added | removed | changed
    diff: str  # the block's own diff


class DraftBlocks(TypedDict):
    path: str
    blocks: list[BlockRow]


class PartApplied(TypedDict):
    path: str
    accepted: list[str]  # the blocks applied
    rejected: list[str]  # the blocks sent back to the model as a rejection
    reason: NotRequired[str]
    apply: Applied


class Withdrawn(TypedDict):
    withdrawn: str
    remaining: list[str]


class Applied(TypedDict):
    applied: str
    file: str
    backup: str
    previous: str
    undo_step: int
    forced: bool
    validation: Validation


class Undone(TypedDict):
    undone: str
    file: str
    outcome: str
    draft: str  # back for review | newer draft kept | not kept
    undo_step: int
    remaining_steps: int
    validation: Validation


class ServerStatus(TypedDict):
    running: bool
    pid: int | None
    health: str
    managed: bool
    health_url: str
    command: list[str]
    log: str


class Restarted(TypedDict):
    started: bool
    pid: int
    health: str
    health_url: str
    was_running: bool
    log: str


class Stopped(TypedDict):
    stopped: bool
    pid: NotRequired[int]
    forced: NotRequired[bool]
    reason: NotRequired[str]


class KindSchemas(TypedDict):
    """Without a kind: ``kinds``; with one: its ``outline`` (of ``path``) and ``legend``, or with
    ``full`` its whole JSON ``schema``; always the schema ``source``."""

    kinds: NotRequired[list[str]]
    kind: NotRequired[str]
    path: NotRequired[str]
    outline: NotRequired[Any]
    legend: NotRequired[str]
    schema: NotRequired[dict[str, Any]]
    source: NotRequired[str]


class AppFile(TypedDict):
    path: str
    file: str
    name: str | None
    content: str


class Workspace(TypedDict):
    apps: list[AppFile]


class Modules(TypedDict):
    modules: list[dict[str, Any]]
    formspec_lock: bool


class ModuleSpec(TypedDict):
    path: str
    file: str
    kind: str
    module: str | None
    name: str | None
    read_only: bool
    origin: str
    content: str
    note: NotRequired[str]


class Naming(TypedDict):
    name: str
    matches: list[dict[str, Any]]
    conflicts: list[dict[str, Any]]
    available: bool


class Skills(TypedDict):
    skills: list[dict[str, Any]]


class Transcript(TypedDict):
    """One event in full (``event``), one page of a long one (``seq``, ``type``, ``offset``,
    ``total_chars``, ``text``, and a ``hint`` naming the next offset), or search hits (``events``,
    newest first)."""

    session: str
    event: NotRequired[dict[str, Any]]
    seq: NotRequired[int]
    type: NotRequired[str]
    offset: NotRequired[int]
    total_chars: NotRequired[int]
    text: NotRequired[str]
    total_matches: NotRequired[int]
    events: NotRequired[list[dict[str, Any]]]
    hint: NotRequired[str]
