"""An owner-readable preview of Entity drafts: fields as a table, the lifecycle as a state diagram,
and an overview of the session's proposed entities and their relations.

Drafts are parsed with the pure spec loader (`spec.yamlload`); nothing here validates — the gate
does that — so a draft that does not parse simply says the preview is not available.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from formspec_consult.i18n import _
from formspec_consult.spec.verify.vocabulary import is_branch, is_terminal
from formspec_consult.spec.yamlbuild import YamlLoadError
from formspec_consult.spec.yamlload import load_stream

ENTITY_KINDS = {"entity", "document"}


@dataclass(frozen=True)
class Field:
    """One field as the owner reads it."""

    name: str
    type: str
    required: bool
    target: str = ""  # the entity a relation points to, with how ("belongs to shop.customer")


@dataclass(frozen=True)
class Transition:
    sources: tuple[str, ...]
    target: str
    action: str


@dataclass(frozen=True)
class Lifecycle:
    field: str
    initial: str
    states: tuple[str, ...]
    labels: dict[str, str]
    transitions: tuple[Transition, ...]

    def label(self, state: str) -> str:
        return self.labels.get(state) or state

    def outgoing(self) -> dict[str, list[str]]:
        """Each state's ways forward, in the order the spec declares them."""
        ways: dict[str, list[str]] = {}
        for t in self.transitions:
            for source in t.sources:
                targets = ways.setdefault(source, [])
                if t.target and t.target not in targets:
                    targets.append(t.target)
        return ways

    def happy_path(self) -> list[str]:
        """The main path: from the initial state to an end state (no way out), preferring an end
        that reads as a success (done, paid, …) over a dead end, and a dead end over an unhappy
        end (cancelled, lost, …); then the path through the fewest unhappy states; then the
        longest; ties go to the transitions declared first. Without any end (a cycle), the
        longest path found. A dead end or an unhappy branch is never on it while a better end is
        reachable, whatever order the transitions are written in."""
        if not self.initial:
            return []
        ways = self.outgoing()
        best: tuple[tuple[int, int, int], list[str]] = ((-1, 0, 0), [self.initial])
        budget = 20_000  # simple paths of a large, dense graph explode: keep the best found so far

        def score(path: list[str]) -> tuple[int, int, int]:
            last = path[-1]
            if ways.get(last):
                end = 0  # stopped where the lifecycle goes on (only when every way loops back)
            elif is_branch(last):
                end = 1
            else:
                end = 3 if is_terminal(last) else 2
            unhappy = sum(1 for state in path[1:-1] if is_branch(state))
            return end, -unhappy, len(path)

        def walk(path: list[str]) -> None:
            nonlocal best, budget
            budget -= 1
            forward = [n for n in ways.get(path[-1], []) if n not in path]
            if not forward:
                key = score(path)
                if key > best[0]:
                    best = (key, list(path))
                return
            for state in forward:
                if budget <= 0:
                    return
                path.append(state)
                walk(path)
                path.pop()

        walk([self.initial])
        return best[1]


@dataclass(frozen=True)
class EntityView:
    """What the preview shows of one Entity document."""

    name: str
    module: str
    fields: tuple[Field, ...]
    lifecycle: Lifecycle | None = None
    preset: str = ""  # `lifecycle: two_step_manual` and the like
    relations: tuple[tuple[str, str], ...] = field(default=())  # (how, target entity)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _field(raw: Mapping[str, Any]) -> Field:
    kind = _text(raw.get("type")) or "?"
    relation = raw.get("relation") if isinstance(raw.get("relation"), Mapping) else None
    target = ""
    if relation is not None:
        how = _text(relation.get("type")).replace("_", " ") or _("relates to")
        target = f"{how} {_text(relation.get('resource') or relation.get('entity'))}".strip()
    elif raw.get("ref"):
        target = _("refers to {entity}").format(entity=_text(raw.get("ref")))
    if kind == "enum" and isinstance(raw.get("enum_values"), list):
        kind = _("one of: {values}").format(values=", ".join(map(_text, raw["enum_values"])))
    return Field(_text(raw.get("name")) or "?", kind, bool(raw.get("required")), target)


def _lifecycle(raw: Any) -> Lifecycle | None:
    if not isinstance(raw, Mapping):
        return None
    states: list[str] = []
    labels: dict[str, str] = {}
    for state in raw.get("states") or []:
        name = _text(state.get("name")) if isinstance(state, Mapping) else _text(state)
        if name:
            states.append(name)
            if isinstance(state, Mapping) and state.get("label"):
                labels[name] = _text(state["label"])
    transitions = []
    for item in raw.get("transitions") or []:
        if not isinstance(item, Mapping):
            continue
        sources = item.get("from")
        sources = tuple(map(_text, sources)) if isinstance(sources, list) else (_text(sources),)
        transitions.append(Transition(sources, _text(item.get("to")), _text(item.get("via") or item.get("action"))))
    initial = _text(raw.get("initial")) or (states[0] if states else "")
    return Lifecycle(_text(raw.get("field")), initial, tuple(states), labels, tuple(transitions))


def parse_entity(text: str) -> EntityView | None:
    """The Entity in a draft's YAML, or None when the draft is not an Entity (or does not parse)."""
    try:
        docs = load_stream(text)
    except YamlLoadError:
        return None
    for doc in docs:
        value = doc.value
        if not isinstance(value, Mapping) or _text(value.get("kind")).lower() not in ENTITY_KINDS:
            continue
        raw_meta, raw_spec = value.get("metadata"), value.get("spec")
        meta: Mapping[str, Any] = raw_meta if isinstance(raw_meta, Mapping) else {}
        spec: Mapping[str, Any] = raw_spec if isinstance(raw_spec, Mapping) else {}
        fields = tuple(_field(f) for f in spec.get("fields") or [] if isinstance(f, Mapping))
        relations = tuple((f.target.rsplit(" ", 1)[0], f.target.rsplit(" ", 1)[-1]) for f in fields if f.target)
        preset = _text(spec.get("lifecycle")) if not isinstance(spec.get("lifecycle"), Mapping) else ""
        return EntityView(_text(meta.get("name")) or "?", _text(meta.get("module")), fields,
                          _lifecycle(spec.get("state_machine")), preset, relations)
    return None


# -- rendering ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Palette:
    """Colours (any rich colour) the preview draws with; the pane passes readable theme colours."""

    heading: str = "bold"
    happy: str = "green"
    unhappy: str = "red"
    muted: str = ""


def fields_table(entity: EntityView, palette: Palette = Palette()) -> Table:
    table = Table(title=None, expand=False, show_edge=False, pad_edge=False, header_style=palette.heading)
    for column in (_("Field"), _("Type"), _("Required"), _("Relation to")):
        table.add_column(column, overflow="fold")
    for f in entity.fields:
        table.add_row(f.name, f.type, _("yes") if f.required else "", f.target)
    return table


def _box(label: str) -> tuple[str, str, str]:
    inner = f" {label} "
    return "┌" + "─" * len(inner) + "┐", "│" + inner + "│", "└" + "─" * len(inner) + "┘"


def lifecycle_diagram(lifecycle: Lifecycle, width: int = 80, palette: Palette = Palette()) -> Text:
    """The happy path left to right in boxes (top to bottom when too wide), then the other
    transitions as branches; states reached only off the happy path are marked ✗."""
    path = lifecycle.happy_path()
    on_path = {(a, b) for a, b in pairwise(path)}
    actions = {(s, t.target): t.action for t in lifecycle.transitions for s in t.sources}
    out = Text()
    out.append(_("Lifecycle (field {field}), starts at {state}").format(
        field=lifecycle.field or "?", state=lifecycle.label(lifecycle.initial)) + "\n",
               style=palette.heading)
    boxes = [_box(lifecycle.label(state)) for state in path]
    arrows = [f" {actions.get((a, b), '')} " for a, b in pairwise(path)]
    total = sum(len(b[0]) for b in boxes) + sum(max(len(a), 4) + 1 for a in arrows)
    if boxes and total <= width:
        rows = ["", "", ""]
        for index, box in enumerate(boxes):
            for r in range(3):
                rows[r] += box[r]
            if index < len(arrows):
                span = max(len(arrows[index]), 4)
                rows[0] += arrows[index].center(span) + " "
                rows[1] += "─" * span + "▶"
                rows[2] += " " * (span + 1)
        for row in rows:
            out.append(row + "\n", style=palette.happy)
    else:
        for index, state in enumerate(path):
            top, middle, bottom = _box(lifecycle.label(state))
            out.append(f"{top}\n{middle}\n{bottom}\n", style=palette.happy)
            if index + 1 < len(path):
                out.append(f"   │ {actions.get((state, path[index + 1]), '')}\n   ▼\n", style=palette.happy)
    branches = [t for t in lifecycle.transitions
                if not all((s, t.target) in on_path for s in t.sources)]
    if branches:
        out.append(_("Other ways (✗ marks an unhappy end):") + "\n", style=palette.heading)
        for t in branches:
            unhappy = t.target not in path or is_branch(t.target)
            sources = ", ".join(lifecycle.label(s) for s in t.sources)
            mark = "✗ " if unhappy else "  "
            out.append(f"  {mark}{sources} ── {t.action or '?'} ──▶ {lifecycle.label(t.target)}\n",
                       style=palette.unhappy if unhappy else "")
    unreached = [s for s in lifecycle.states if s not in path and all(s != t.target for t in lifecycle.transitions)]
    if unreached:
        out.append("  " + _("States no transition reaches: {states}").format(
            states=", ".join(map(lifecycle.label, unreached))) + "\n",
                   style=palette.unhappy)
    return out


def entity_preview(text: str, width: int = 80, palette: Palette = Palette()) -> RenderableType | None:
    """The preview of an Entity draft, or None when the draft is not an Entity."""
    entity = parse_entity(text)
    if entity is None:
        return None
    name = f"{entity.module + '.' if entity.module else ''}{entity.name}"
    title = Text(_("Entity {name}").format(name=name) + "\n", style=palette.heading)
    parts: list[RenderableType] = [title, fields_table(entity, palette), Text("")]
    if entity.lifecycle is not None and entity.lifecycle.states:
        parts.append(lifecycle_diagram(entity.lifecycle, width, palette))
    elif entity.preset:
        parts.append(Text(_("Lifecycle: the {preset} preset (no states of its own).").format(
            preset=entity.preset.replace("_", " "))))
    else:
        parts.append(Text(_("No lifecycle: records are simply created, changed and deleted.")))
    return Group(*parts)


def session_overview(drafts: Iterable[tuple[str, str]], palette: Palette = Palette()) -> RenderableType:
    """The proposed entities of a session (path, text pairs) and how they relate."""
    entities: list[tuple[str, EntityView]] = []
    for path, text in drafts:
        entity = parse_entity(text)
        if entity is not None:
            entities.append((path, entity))
    if not entities:
        return Text(_("No Entity drafts in this session yet."))
    table = Table(show_edge=False, pad_edge=False, header_style=palette.heading)
    for column in (_("Entity"), _("Fields"), _("Lifecycle"), _("Relations")):
        table.add_column(column, overflow="fold")
    for _path, entity in entities:
        lifecycle = (" → ".join(entity.lifecycle.label(s) for s in entity.lifecycle.happy_path())
                     if entity.lifecycle else entity.preset.replace("_", " "))
        relations = "\n".join(f"{how} {target}" for how, target in entity.relations)
        table.add_row(entity.name, str(len(entity.fields)), lifecycle, relations)
    return Group(Text(_("Proposed entities ({n})").format(n=len(entities)) + "\n", style=palette.heading), table)


def draft_text_from_diff(diff: str) -> str | None:
    """The whole text of a new file's draft, rebuilt from its diff (None for a partial diff)."""
    lines = diff.splitlines()
    if not lines or not lines[0].startswith("--- /dev/null"):
        return None
    body = [line[1:] for line in lines[3:] if line.startswith("+")]
    return "\n".join(body) + "\n"
