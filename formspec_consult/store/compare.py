"""Two sessions' drafts side by side (`/compare ID`, `formspec-consult compare A B`): for a fork and
its source, the design each one proposes — entities, their fields and their states.

Only the drafts under review are read (what each session proposes beyond the project both share),
each from its session's own folder and never through a link. A draft that is not YAML, or holds
no Entity, is listed by path only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from formspec_consult.store.drafts import DraftError, refuse_symlinks
from formspec_consult.store.folder import existing_session
from formspec_consult.store.fork import fork_point_of
from formspec_consult.store.layout import SessionLayout
from formspec_consult.store.manifest import LIVE_STATES, DraftManifest

__all__ = ["CompareError", "EntityDraft", "SessionDrafts", "compare_sessions", "compare_text", "session_drafts"]


@dataclass(frozen=True)
class EntityDraft:
    """An entity as one session's draft proposes it."""

    key: str  # module/name
    path: str
    fields: tuple[str, ...]  # "name (type)"
    states: tuple[str, ...]


@dataclass(frozen=True)
class SessionDrafts:
    session_id: str
    entities: dict[str, EntityDraft] = field(default_factory=dict)
    other: tuple[str, ...] = ()  # drafts that hold no entity
    forked_from: str | None = None
    forked_at_turn: int | None = None


def session_drafts(consult_dir: Path, session_id: str) -> SessionDrafts:
    """The drafts under review of one session, read (SessionError for an unknown id)."""
    folder = existing_session(consult_dir, session_id)
    layout = SessionLayout(folder)
    entities: dict[str, EntityDraft] = {}
    other: list[str] = []
    for rel, record in sorted(DraftManifest(folder).load().items()):
        if record.state not in LIVE_STATES:
            continue
        file = layout.draft.joinpath(*rel.split("/"))
        try:
            refuse_symlinks(folder, file)
            text = file.read_text(encoding="utf-8")
            documents = [d for d in yaml.safe_load_all(text) if isinstance(d, Mapping)]
        except (DraftError, OSError, UnicodeDecodeError, yaml.YAMLError):
            other.append(rel)
            continue
        found = [_entity(rel, d) for d in documents if d.get("kind") == "Entity"]
        entities.update({e.key: e for e in found})
        if not found:
            other.append(rel)
    point = fork_point_of(folder)
    return SessionDrafts(session_id, entities, tuple(other), point.source if point else None,
                         point.turn if point else None)


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _entity(rel: str, document: Mapping[str, Any]) -> EntityDraft:
    meta = _mapping(document.get("metadata"))
    spec = _mapping(document.get("spec"))
    fields = [f for f in spec.get("fields") or [] if isinstance(f, Mapping) and isinstance(f.get("name"), str)]
    machine = _mapping(spec.get("state_machine"))
    states = [str(s["name"]) for s in machine.get("states") or [] if isinstance(s, Mapping) and "name" in s]
    if machine and not states:  # without `states`, the states are the state field's enum values
        state_field = next((f for f in fields if f["name"] == machine.get("field")), None)
        values = state_field.get("enum_values") if state_field else None
        states = [str(v.get("value") if isinstance(v, Mapping) else v) for v in values or []]
    name = str(meta.get("name") or rel)
    return EntityDraft(f"{meta.get('module') or '?'}/{name}", rel,
                       tuple(f"{f['name']} ({f.get('type', '?')})" for f in fields), tuple(states))


def compare_text(a: SessionDrafts, b: SessionDrafts) -> str:
    """Markdown: one table per entity, A and B side by side; a field or state only one side has is
    marked `+`."""

    def title(s: SessionDrafts) -> str:
        fork = f", forked from {s.forked_from} at turn {s.forked_at_turn}" if s.forked_from else ""
        return f"{s.session_id}{fork}"

    lines = [f"A: {title(a)}  ", f"B: {title(b)}", ""]
    keys = sorted({*a.entities, *b.entities})
    if not keys:
        lines.append("Neither session has an entity under review.")
    for key in keys:
        left, right = a.entities.get(key), b.entities.get(key)
        where = "A and B" if left and right else ("A only" if left else "B only")
        lines += [f"### {key} ({where})", "", "| | A | B |", "|---|---|---|"]
        lines.append(f"| fields | {_cell(left, right, 'fields')} | {_cell(right, left, 'fields')} |")
        lines.append(f"| states | {_cell(left, right, 'states')} | {_cell(right, left, 'states')} |")
        lines.append("")
    for label, s in (("A", a), ("B", b)):
        if s.other:
            lines.append(f"Other drafts of {label}: {', '.join(s.other)}")
    return "\n".join(lines).rstrip() + "\n"


def _cell(this: EntityDraft | None, that: EntityDraft | None, what: str) -> str:
    if this is None:
        return "—"
    mine: tuple[str, ...] = getattr(this, what)
    theirs: tuple[str, ...] = getattr(that, what) if that is not None else ()
    if not mine:
        return "(none)"
    return ", ".join(f"+{item}" if that is not None and item not in theirs else item for item in mine)


class CompareError(ValueError):
    """The comparison cannot be made as asked; the message says what to do."""


def compare_sessions(consult_dir: Path, this: str, other: str | None) -> str:
    """`/compare [ID]` from session `this`: with `other`, that one; without, the session it was
    forked from (CompareError when it is not a fork). A is always `this`."""
    if other is None:
        point = fork_point_of(existing_session(consult_dir, this))
        if point is None:
            raise CompareError(
                f"Session {this} is not a fork, so there is no source to compare with: give a session id "
                "(/compare ID; /sessions lists them)."
            )
        other = point.source
    if other == this:
        raise CompareError(f"That is this session ({this}): give another session's id (/sessions lists them).")
    return compare_text(session_drafts(consult_dir, this), session_drafts(consult_dir, other))
