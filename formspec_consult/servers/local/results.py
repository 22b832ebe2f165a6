"""Typed shapes of the tool results (they become each tool's MCP output schema).

Keep them in step with what ``devserver`` and the read tools return: a key missing here is
dropped from the structured result (the test client checks text and structured output agree).
The review tools' answers are not here: they are the pydantic models of ``store.review_results``,
built by ``store.review`` where they are made and read back by the clients.
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
