"""Owner documents generated from the specs (pure): the domain model's Mermaid diagrams, and the
markers that keep the generated part apart from the owner's own text.

`docs/domain-model.md` holds one generated part, between a begin and an end marker::

    <!-- formspec-consult:generated begin sha256=<12 hex> (made from the specs; edit the specs, not this part) -->
    ...an erDiagram of the entities and relations, one stateDiagram-v2 per lifecycle...
    <!-- formspec-consult:generated end -->

The begin marker records a hash of the part as it was generated, so a hand edit between the
markers is told apart from a part the specs have moved past (stale): the first is refused (the
owner's lines would be lost), the second is regenerated. Text outside the markers is the owner's
and is never touched.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document, Problem

__all__ = [
    "CHANGELOG",
    "DOMAIN_MODEL",
    "GENERATED_END",
    "OVERVIEW",
    "Block",
    "DocsError",
    "NoEntities",
    "Regenerated",
    "block_status",
    "changelog_findings",
    "check_doc",
    "domain_model_part",
    "edited_message",
    "fill_generated",
    "find_block",
    "new_domain_model",
    "own_entities",
    "refresh",
    "regenerate",
]

OVERVIEW = "docs/overview.md"
DOMAIN_MODEL = "docs/domain-model.md"
CHANGELOG = "docs/changelog.md"
_BEGIN = "<!-- formspec-consult:generated begin sha256={digest} (made from the specs; edit the specs, not this part) -->"
GENERATED_END = "<!-- formspec-consult:generated end -->"
_BEGIN_LINE = re.compile(r"^<!-- formspec-consult:generated begin sha256=([0-9a-f]{12})\b.*-->[ \t]*$", re.MULTILINE)
_ANY_BEGIN = re.compile(r"^<!-- formspec-consult:generated begin\b.*$", re.MULTILINE)
_END_LINE = re.compile(r"^<!-- formspec-consult:generated end -->[ \t]*$", re.MULTILINE)
_ID = re.compile(r"[^A-Za-z0-9_]")
_STATE_KEYWORDS = frozenset({"state", "note", "end", "direction", "class", "classdef", "as", "fork", "join", "choice"})
Status = Literal["fresh", "stale", "edited", "missing"]


class DocsError(ValueError):
    """A docs file whose markers cannot be read (unbalanced, doubled); the message says what to fix."""


class NoEntities(DocsError):
    """The project has no entities of its own: there is nothing to draw yet."""


@dataclass(frozen=True)
class Block:
    """The generated part of a docs file: where it is, the hash recorded, the text between the markers."""

    start: int  # offset of the begin marker
    end: int  # offset just past the end marker's line
    recorded: str
    body: str

    @property
    def edited(self) -> bool:
        """True when the text between the markers is not what was generated (a hand edit)."""
        return _digest(self.body) != self.recorded


def _digest(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:12]


def _wrap(body: str) -> str:
    return f"{_BEGIN.format(digest=_digest(body))}\n{body}{GENERATED_END}\n"


def find_block(text: str, name: str = DOMAIN_MODEL) -> Block | None:
    """The generated part of `text` (None when it has none); DocsError when the markers are broken."""
    begins = list(_ANY_BEGIN.finditer(text))
    ends = list(_END_LINE.finditer(text))
    if not begins and not ends:
        return None
    fix = f"Put back one begin and one end marker in {name}, or delete both (and the lines between) to regenerate it."
    if len(begins) != 1 or len(ends) != 1:
        raise DocsError(f"{name} has {len(begins)} begin and {len(ends)} end marker(s) of the generated part; "
                        f"it needs exactly one of each. {fix}")
    begin, end = begins[0], ends[0]
    if end.start() < begin.start():
        raise DocsError(f"In {name} the end marker of the generated part comes before its begin marker. {fix}")
    recorded = _BEGIN_LINE.match(text, begin.start())
    if recorded is None:
        raise DocsError(f"The begin marker of the generated part of {name} was changed (its sha256 is unreadable). {fix}")
    body_start = begin.end() + 1 if text[begin.end():begin.end() + 1] == "\n" else begin.end()
    stop = end.end() + 1 if text[end.end():end.end() + 1] == "\n" else end.end()
    return Block(begin.start(), stop, recorded.group(1), text[body_start:end.start()])


def block_status(text: str | None, part: str, name: str = DOMAIN_MODEL) -> Status:
    """`missing` (no file or no generated part), `edited` (changed by hand between the markers),
    `stale` (the specs have changed since) or `fresh`; DocsError when the markers are broken."""
    block = find_block(text, name) if text is not None else None
    if block is None:
        return "missing"
    if block.edited:
        return "edited"
    return "fresh" if block.body == part else "stale"


def refresh(text: str, part: str, name: str = DOMAIN_MODEL, *, over_edits: bool = False) -> str:
    """`text` with its generated part replaced by `part` (appended when it has none); the owner's
    text around it is kept byte for byte. DocsError when the part was edited by hand (unless
    `over_edits`: a draft's own part, which is nobody's hand edit)."""
    block = find_block(text, name)
    if block is None:
        joiner = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        return text + joiner + _wrap(part)
    if block.edited and not over_edits:
        raise DocsError(edited_message(name))
    return text[: block.start] + _wrap(part) + text[block.end :]


def edited_message(name: str) -> str:
    return (f"{name} was edited by hand between the generated-part markers, so regenerating it would lose "
            "those lines. Move your own text above or below the markers (the part between them is made "
            "from the specs), then run again.")


def new_domain_model(title: str, part: str) -> str:
    """A new `docs/domain-model.md`: a title, one line for the owner, the generated part."""
    return (f"# Domain model — {title}\n\n"
            "The diagrams below are made from the specs. Write your own notes above or below them.\n\n"
            + _wrap(part))


# -- the generated part ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Entity:
    module: str
    name: str
    spec: Mapping[str, Any]


def own_entities(documents: Iterable[Document]) -> list[_Entity]:
    """The project's own entities (not vendored), sorted by module and name; one per identity."""
    found: dict[tuple[str, str], _Entity] = {}
    for doc in documents:
        if effective_kind(doc.kind) != "Entity" or doc.origin in ("vendors", "overrides") or not doc.name:
            continue
        if doc.spec.get("extend_storage"):  # an extension adds to another entity: not one of its own
            continue
        found.setdefault((doc.module or "", doc.name), _Entity(doc.module or "", doc.name, doc.spec))
    return [found[key] for key in sorted(found)]


def domain_model_part(documents: Iterable[Document]) -> str:
    """The generated part of the domain model: the ER diagram, then one state diagram per lifecycle.
    NoEntities when the project has no entities of its own."""
    entities = own_entities(documents)
    if not entities:
        raise NoEntities(
            "The project has no entities yet, so there is no domain model to draw. Design them first "
            "(a consultation: formspec-consult), apply the drafts, then run formspec-consult docs again."
        )
    ids = _entity_ids(entities)
    lines = ["## Entities and relations", "", "```mermaid", "erDiagram"]
    for entity in entities:
        lines += _er_entity(ids[(entity.module, entity.name)], entity.spec)
    for entity in entities:
        lines += _er_relations(ids[(entity.module, entity.name)], entity, ids)
    lines += ["```", ""]
    for entity in entities:
        diagram = _state_diagram(entity.spec)
        if diagram:
            label = f"{entity.module}.{entity.name}" if entity.module else entity.name
            lines += [f"## Lifecycle of {label}", "", "```mermaid", *diagram, "```", ""]
    return "\n".join(lines)


def _entity_ids(entities: Sequence[_Entity]) -> dict[tuple[str, str], str]:
    """A diagram id per entity: its name, with the module before it where two modules share a name."""
    names = [e.name for e in entities]
    return {(e.module, e.name): _er_id(f"{e.module}-{e.name}" if names.count(e.name) > 1 else e.name)
            for e in entities}


def _er_id(text: str) -> str:
    clean = re.sub(r"[^A-Za-z0-9_-]", "_", text)
    return clean if clean[:1].isalpha() else f"e_{clean}"


def _fields(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [f for f in spec.get("fields") or [] if isinstance(f, Mapping) and isinstance(f.get("name"), str)]


def _er_entity(ident: str, spec: Mapping[str, Any]) -> list[str]:
    rows = []
    for field in _fields(spec):
        kind = re.sub(r"[^A-Za-z0-9_]", "_", str(field.get("type") or "string"))
        keys = " FK" if isinstance(field.get("relation"), Mapping) else ""
        notes = [word for word, flag in (("required", field.get("required")), ("unique", field.get("unique"))) if flag]
        if field.get("natural_key"):
            keys = " UK"
        note = f' "{", ".join(notes)}"' if notes else ""
        rows.append(f"        {kind} {_er_id(field['name'])}{keys}{note}")
    return [f"    {ident} {{", *rows, "    }"] if rows else [f"    {ident}"]


def _target(resource: object, module: str, ids: Mapping[tuple[str, str], str]) -> str | None:
    if not isinstance(resource, str) or not resource.strip():
        return None
    parts = [p for p in re.split(r"[./]", resource.strip()) if p]
    name = parts[-1]
    owner = ".".join(parts[:-1]) if len(parts) > 1 else module
    for candidate in ((owner, name), (module, name)):
        if candidate in ids:
            return ids[candidate]
    same = [ident for (_, n), ident in ids.items() if n == name]
    return same[0] if len(same) == 1 else _er_id(name)


def _er_relations(ident: str, entity: _Entity, ids: Mapping[tuple[str, str], str]) -> list[str]:
    lines = []
    for field in _fields(entity.spec):
        label = field["name"]
        relation, child = field.get("relation"), field.get("child")
        if isinstance(relation, Mapping):
            other = _target(relation.get("resource"), entity.module, ids)
            if other is None:
                continue
            kind = relation.get("type")
            if kind == "has_many":
                lines.append(f'    {ident} ||--o{{ {other} : "{label}"')
            elif kind == "has_one":
                lines.append(f'    {ident} ||--o| {other} : "{label}"')
            else:  # belongs_to: many of this entity to one of the other
                lines.append(f'    {other} ||--o{{ {ident} : "{label}"')
        elif isinstance(child, Mapping) and isinstance(child.get("entity"), str):
            other = _target(child["entity"], entity.module, ids)
            if other is not None:
                lines.append(f'    {ident} ||--|{{ {other} : "{label}"')
    return lines


def _state_id(name: str) -> str:
    clean = _ID.sub("_", name)
    if clean != name or clean.lower() in _STATE_KEYWORDS or not clean[:1].isalpha():
        return f"s_{clean}"
    return clean


def _state_diagram(spec: Mapping[str, Any]) -> list[str]:
    machine = spec.get("state_machine")
    if not isinstance(machine, Mapping):
        return []
    states = [s["name"] for s in machine.get("states") or [] if isinstance(s, Mapping) and isinstance(s.get("name"), str)]
    if not states:  # without `states`, the states are the state field's enum values
        field = next((f for f in _fields(spec) if f["name"] == machine.get("field")), None)
        values = field.get("enum_values") if field else None
        states = [str(v.get("value") if isinstance(v, Mapping) else v) for v in values or []]
    if not states:
        return []
    moves: list[tuple[str, str, str]] = []
    for transition in machine.get("transitions") or []:
        if not isinstance(transition, Mapping) or not isinstance(transition.get("to"), str):
            continue
        raw, to, via = transition.get("from"), transition["to"], str(transition.get("via") or "")
        sources = [s for s in states if s != to] if raw == "*" else [raw] if isinstance(raw, str) else \
            [s for s in raw or [] if isinstance(s, str)]
        moves += [(source, to, via) for source in sources]
    lines = ["stateDiagram-v2"]
    named = [*states, *(s for move in moves for s in move[:2] if s not in states)]
    for state in dict.fromkeys(named):
        if _state_id(state) != state:
            lines.append(f'    state "{state}" as {_state_id(state)}')
    initial = machine.get("initial") if isinstance(machine.get("initial"), str) else states[0]
    lines.append(f"    [*] --> {_state_id(str(initial))}")
    for source, to, via in moves:
        lines.append(f"    {_state_id(source)} --> {_state_id(to)}" + (f" : {via}" if via else ""))
    leaving = {source for source, _, _ in moves}
    if moves:
        lines += [f"    {_state_id(s)} --> [*]" for s in dict.fromkeys(named) if s not in leaving]
    return lines


# -- checking a draft of a docs file ----------------------------------------------------------

_DATED = re.compile(r"^##[ \t]+(\d{4})-(\d{2})-(\d{2})\b", re.MULTILINE)
_FILL_HINT = ("Propose docs/domain-model.md again with your own text only: the generated part is filled "
              "in from the specs (with the pending drafts) when it is proposed.")


def fill_generated(rel: str, text: str, documents: Iterable[Document], before: str | None = None) -> str:
    """A proposed docs file as it is drafted: the domain model with its generated part (re)made from
    `documents` (its diagrams are never the proposer's to write); a changelog proposed as just its
    new entry (text that starts with a dated heading) added at the end of the current file
    `before` (or under a title, when there is none). Other files, a project with no entities and
    broken markers come back unchanged (the check says what is wrong)."""
    if rel == CHANGELOG:
        return _append_entry(text, before)
    if rel != DOMAIN_MODEL:
        return text
    try:
        return refresh(text, domain_model_part(documents), rel, over_edits=True)
    except DocsError:
        return text


def _append_entry(text: str, before: str | None) -> str:
    if not _DATED.match(text.lstrip()):  # a whole file: checked as it is
        return text
    entry = text.strip() + "\n"
    if before is None or not before.strip():
        return "# Changelog\n\n" + entry
    return before.rstrip() + "\n\n" + entry


def _problem(code: str, rel: str, message: str, hint: str = "") -> Problem:
    return Problem(code, rel, None, "structural", message, hint)


def check_doc(rel: str, text: str, before: str | None, documents: Iterable[Document], today: date) -> list[Problem]:
    """What blocks applying `text` as the docs file `rel` (whose current text is `before`, None
    when it does not exist), with the spec documents `documents` (the tree with the pending drafts)."""
    if rel == DOMAIN_MODEL:
        return _check_domain_model(rel, text, before, documents)
    if rel == CHANGELOG:
        return _check_changelog(rel, text, before, today)
    return []


def _check_domain_model(rel: str, text: str, before: str | None, documents: Iterable[Document]) -> list[Problem]:
    try:
        part = domain_model_part(documents)
    except NoEntities as exc:
        return [_problem("FS-DOCS-NO-ENTITIES", rel, str(exc))]
    try:
        old = find_block(before, rel) if before is not None else None
    except DocsError:
        old = None  # the file's own markers are broken: this draft repairs them
    if old is not None and old.edited:
        return [_problem("FS-DOCS-EDITED", rel, edited_message(rel).replace("run again", "propose it again"),
                         "Ask the person to move their lines out of the generated part first.")]
    try:
        status = block_status(text, part, rel)
    except DocsError as exc:
        return [_problem("FS-DOCS-MARKERS", rel, str(exc), _FILL_HINT)]
    if status == "fresh":
        return []
    what = {"missing": "has no generated part", "edited": "has a generated part that was edited",
            "stale": "has a generated part that no longer matches the specs"}[status]
    return [_problem("FS-DOCS-STALE", rel, f"The draft of {rel} {what}.", _FILL_HINT)]


def _check_changelog(rel: str, text: str, before: str | None, today: date) -> list[Problem]:
    kept = (before or "").rstrip()
    if kept and not text.startswith(kept):
        return [_problem(
            "FS-CHANGELOG-REWRITTEN", rel,
            f"{rel} is append-only: this draft changes or drops earlier entries.",
            "Propose only the new entry (starting with its '## YYYY-MM-DD — …' heading): it is added at the "
            "end of the current file.")]
    added = text[len(kept):]
    dates = [_date(m) for m in _DATED.finditer(added)]
    if not any(d is not None and d <= today for d in dates):
        return [_problem(
            "FS-CHANGELOG-UNDATED", rel,
            f"The new entry of {rel} has no dated heading (today is {today.isoformat()}).",
            f"Start the entry with '## {today.isoformat()} — <what changed>', then why and which files.")]
    return []


def changelog_findings(
    rel: str, text: str, before: str | None, today: date, changed: Iterable[str]
) -> list[dict[str, Any]]:
    """Advice on a changelog draft that does not block it (in the shape of the verifiers' findings:
    code, source, line, entity, message, hint): an entry not dated today, files this session
    changes that the entry does not name."""
    if rel != CHANGELOG:
        return []
    added = text[len((before or "").rstrip()):]
    advice = []
    dates = {_date(m) for m in _DATED.finditer(added)}
    if dates and today not in dates:
        advice.append(_advice("FSD-CHANGELOG-DATE", rel, f"The new entry is not dated today ({today.isoformat()}).",
                              f"Date its heading '## {today.isoformat()}'."))
    missing = sorted(f for f in set(changed) if f not in added)  # the tool path ("modules/…") as proposed
    if missing:
        advice.append(_advice("FSD-CHANGELOG-FILES", rel,
                              "The new entry does not name these files this session changes: " + ", ".join(missing) + ".",
                              "Name every file the change touches, and say why it changed."))
    return advice


def _advice(code: str, rel: str, message: str, hint: str) -> dict[str, Any]:
    return {"code": code, "source": rel, "line": None, "entity": None, "message": message, "hint": hint}


def _date(match: re.Match[str]) -> date | None:
    try:
        return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return None


@dataclass(frozen=True)
class Regenerated:
    """What `formspec-consult docs` finds for one docs file: its status and the text it should have
    (None when nothing is to be written: fresh, or refused — `message` says why)."""

    rel: str
    status: Literal["fresh", "stale", "missing", "new", "edited", "broken", "no-entities"]
    text: str | None
    message: str


def regenerate(documents: Iterable[Document], current: str | None, title: str) -> Regenerated:
    """The domain model as the specs make it, against its `current` text (None: no file yet)."""
    rel = DOMAIN_MODEL
    try:
        part = domain_model_part(documents)
    except NoEntities as exc:
        return Regenerated(rel, "no-entities", None, str(exc))
    if current is None:
        return Regenerated(rel, "new", new_domain_model(title, part), f"{rel} does not exist yet.")
    try:
        status = block_status(current, part, rel)
    except DocsError as exc:
        return Regenerated(rel, "broken", None, str(exc))
    if status == "edited":
        return Regenerated(rel, "edited", None, edited_message(rel))
    if status == "fresh":
        return Regenerated(rel, "fresh", None, f"{rel} is up to date with the specs.")
    what = "has no generated part" if status == "missing" else "is stale: the specs have changed since it was made"
    return Regenerated(rel, status, refresh(current, part, rel), f"{rel} {what}.")
