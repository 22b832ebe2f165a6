"""Scores of one case, from what the run left behind: the session's event log, the project after
the drafts were applied, and the outcome of applying them. Pure: no model, no MCP, no clock.

- validity: every proposed draft passes the gate (its last version), the project validates after
  applying all of them, and how many gate refusals happened on the way;
- coverage (alias-aware): expected entities, their states (main and branch states apart) and
  relations, matched against the project's entities by name, plural or label. Which expected
  states are branches is the case's (corpus.py); where the project's lifecycle has transitions,
  its structure is checked too: a main state must lie on a way from the initial state to the
  success state, a branch state off the shortest such way and reachable (an "overdue" every
  rental must pass through is not a branch);
- module reuse: expected registry modules the consultant looked up, named or depended on;
- discipline: no spec YAML pasted in chat; a skill for the kind read before its first draft;
- iterate (a change request on an applied starter, agent/engine/phase.py): the session entered the
  Iterate phase, the starter's entities are all still there, the fields the change adds are there
  (alias-aware), and the applied docs/changelog.md has a new dated entry naming a changed spec file.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from formspec_consult.eval.corpus import Expected, Named
from formspec_consult.spec.verify.lifecycle import Lifecycle
from formspec_consult.store.records import (
    EventRecord,
    PhaseRecord,
    ResponseRecord,
    SideReplyRecord,
    ToolCallRecord,
    ToolResultRecord,
    TurnStartedRecord,
    UsageRecord,
)

Events = Sequence[EventRecord]

_SPEC_IN_CHAT = (re.compile(r"(?m)^\s*apiVersion:\s*\S+"), re.compile(r"(?m)^\s*kind:\s*[A-Z][A-Za-z]+\s*$"))
_KIND = re.compile(r"(?m)^kind:\s*[\"']?([A-Za-z][A-Za-z0-9_]*)")


def norm(name: str) -> str:
    """Compare names loosely: case, separators and a plural `s` do not matter."""
    text = re.sub(r"[^a-z0-9]", "", name.lower())
    if len(text) > 4 and text.endswith("ies"):
        return text[:-3] + "y"
    if len(text) > 3 and text.endswith("s") and not text.endswith("ss"):
        return text[:-1]
    return text


@dataclass(frozen=True)
class EntityFacts:
    """What scoring needs of one entity of the final project."""

    name: str
    module: str | None
    spellings: tuple[str, ...]  # name, plural, label
    states: tuple[str, ...]
    relations: tuple[str, ...]  # target entity names (module prefix dropped)
    initial: str | None = None  # the lifecycle's initial state (its first state when not said)
    transitions: tuple[tuple[str, str], ...] = ()  # (from, to), `from: *` spelled out
    fields: tuple[str, ...] = ()  # field names

    @classmethod
    def of(cls, name: str, module: str | None, spec: Mapping[str, Any]) -> EntityFacts:
        spellings = tuple(str(s) for s in (name, spec.get("plural"), spec.get("label")) if isinstance(s, str) and s)
        life = Lifecycle.of(dict(spec))
        states = tuple(life.states) if life else ()
        initial = (life.initial or (states[0] if states else None)) if life else None
        moves = tuple((a, b) for a in states for b in states if life and b in life.outgoing.get(a, ()))
        relations = []
        names = []
        for f in (f for f in spec.get("fields") or [] if isinstance(f, Mapping)):
            names.append(str(f.get("name") or ""))
            rel = f.get("relation")
            if isinstance(rel, Mapping) and isinstance(rel.get("resource"), str):
                relations.append(re.split(r"[./]", rel["resource"])[-1])
        return cls(name, module, spellings, states, tuple(relations), initial, moves, tuple(n for n in names if n))

    def main_path(self, success: str) -> tuple[list[str], set[str], set[str]] | None:
        """(the shortest way from the initial state to `success`, every state on some way there,
        every state reachable at all), or None when the lifecycle has no transitions or `success`
        cannot be reached."""
        if not self.transitions or self.initial is None or success not in self.states:
            return None
        forward = {s: [b for a, b in self.transitions if a == s] for s in self.states}
        back = {s: [a for a, b in self.transitions if b == s] for s in self.states}
        came_from: dict[str, str | None] = {self.initial: None}
        queue = deque([self.initial])
        while queue:  # breadth first, in the lifecycle's own order, so ties break the same way every run
            state = queue.popleft()
            for nxt in forward.get(state, []):
                if nxt not in came_from:
                    came_from[nxt] = state
                    queue.append(nxt)
        if success not in came_from:
            return None
        path: list[str] = []
        step: str | None = success
        while step is not None:
            path.append(step)
            step = came_from[step]
        reaches = _closure(success, back)
        return path[::-1], {s for s in came_from if s in reaches}, set(came_from)


@dataclass
class ApplyOutcome:
    """What applying the drafts at the end of the case did (through the local MCP server)."""

    drafts: dict[str, bool] = field(default_factory=dict)  # every draft at the end: passes the gate?
    applied: list[str] = field(default_factory=list)
    refused: list[dict[str, str]] = field(default_factory=list)  # {path, error}
    project_valid: bool | None = None  # None: nothing was applied
    project_problems: int = 0


def _closure(start: str, edges: Mapping[str, list[str]]) -> set[str]:
    seen, stack = {start}, [start]
    while stack:
        for nxt in edges.get(stack.pop(), []):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def _state_named(state: Named, states: Iterable[str]) -> str | None:
    """The project's state that is `state` (by name or alias), if any."""
    wanted = {norm(s) for s in state.spellings}
    return next((s for s in states if norm(s) in wanted), None)


def _match(expected: Named, entities: Iterable[EntityFacts]) -> EntityFacts | None:
    wanted = {norm(s) for s in expected.spellings}
    for entity in entities:
        if wanted & {norm(s) for s in entity.spellings}:
            return entity
    return None


def _ratio(hit: int, total: int) -> float | None:
    return None if total == 0 else round(hit / total, 3)


def _base(name: object) -> str:
    return str(name or "").rsplit("__", 1)[-1]


def _calls(events: Events) -> list[tuple[ToolCallRecord, ToolResultRecord | None]]:
    """(tool_call, its tool_result or None), in order."""
    results = {e.call_id: e for e in events if isinstance(e, ToolResultRecord)}
    return [(e, results.get(e.call_id)) for e in events if isinstance(e, ToolCallRecord)]


def _replies(events: Events) -> list[str]:
    """The text of every reply of the consultant."""
    return [str(e.text or "") for e in events if isinstance(e, ResponseRecord)]


def _json(text: object) -> dict[str, Any]:
    try:
        value = json.loads(str(text))
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def validity(events: Events, outcome: ApplyOutcome) -> dict[str, Any]:
    """The gate's verdict: on the drafts at the end (before applying), on the way, and after applying."""
    refusals = 0
    findings: dict[str, int] = {}
    for call, result in _calls(events):
        if _base(call.name) != "propose_spec_file":
            continue
        path = str(call.arguments.get("path") or "?")
        data = _json(result.result) if result and result.ok else {}
        refusals += 0 if data and int(data.get("blocking_problems") or 0) == 0 else 1
        findings[path] = len(data.get("findings") or [])
    all_pass = bool(outcome.drafts) and all(outcome.drafts.values())
    parts = [1.0 if all_pass else 0.0, 1.0 if outcome.project_valid else 0.0]
    return {
        "drafts": len(outcome.drafts),
        "drafts_passing": sum(outcome.drafts.values()),
        "all_drafts_pass": all_pass,
        "gate_refusals": refusals,
        "findings_on_last_drafts": sum(findings.values()),
        "applied": len(outcome.applied),
        "apply_refusals": len(outcome.refused),
        "project_valid": outcome.project_valid,
        "project_problems": outcome.project_problems,
        "score": round(sum(parts) / len(parts), 3),
    }


def coverage(entities: list[EntityFacts], expected: Expected) -> dict[str, Any]:
    matched = {e.name: _match(e, entities) for e in expected.entities}
    main_hit = main_total = branch_hit = branch_total = 0
    missing_states: dict[str, list[str]] = {}
    misplaced: dict[str, list[str]] = {}
    lifecycles: dict[str, dict[str, Any]] = {}
    for entity_name, states in expected.states.items():
        found = matched.get(entity_name)
        have = found.states if found else ()
        success = next((s for s in states if s.success), None)
        end = _state_named(success, have) if success and found else None
        structure = found.main_path(end) if found and end else None
        if found and structure:
            lifecycles[entity_name] = {"initial": found.initial, "success": end, "main_path": structure[0],
                                       "branches": [s for s in have if s not in structure[0]]}
        for state in states:
            own = _state_named(state, have)
            placed = structure is None or own is None or (
                own not in structure[0] and own in structure[2] if state.branch else own in structure[1])
            hit = own is not None and placed
            if state.branch:
                branch_total, branch_hit = branch_total + 1, branch_hit + hit
            else:
                main_total, main_hit = main_total + 1, main_hit + hit
            if own is None:
                missing_states.setdefault(entity_name, []).append(state.name)
            elif not placed:
                misplaced.setdefault(entity_name, []).append(state.name)
    rel_hit = 0
    missing_relations = []
    for a, b in expected.relations:
        ea, eb = matched.get(a), matched.get(b)
        linked = bool(ea and eb) and (
            norm(eb.name) in {norm(r) for r in ea.relations} or norm(ea.name) in {norm(r) for r in eb.relations}  # type: ignore[union-attr]
        )
        rel_hit += linked
        if not linked:
            missing_relations.append([a, b])
    return {
        "entities": _ratio(sum(1 for m in matched.values() if m), len(matched)),
        "entities_matched": {k: (v.name if v else None) for k, v in matched.items()},
        "states": _ratio(main_hit, main_total),
        "branch_states": _ratio(branch_hit, branch_total),
        "missing_states": missing_states,
        # present, but a branch on the main path or never reached, or a main state off every way to success
        "misplaced_states": misplaced,
        "lifecycles": lifecycles,
        "relations": _ratio(rel_hit, len(expected.relations)),
        "missing_relations": missing_relations,
    }


def module_reuse(events: Events, depended: Iterable[str], expected: Expected) -> dict[str, Any]:
    looked_up = {
        str(call.arguments.get("name") or "").lower()
        for call, _ in _calls(events)
        if _base(call.name) == "get_module_detail"
    }
    said = " ".join(_replies(events)).lower()
    used = {d.lower() for d in depended}
    evidence = {}
    for module in expected.modules:
        name = module.lower()
        evidence[module] = (
            "depends" if name in used else "looked up" if name in looked_up else "proposed" if name in said else None
        )
    return {
        "score": _ratio(sum(1 for v in evidence.values() if v), len(evidence)),
        "evidence": evidence,
    }


def discipline(events: Events, skills_for_kind: Callable[[str], set[str]]) -> dict[str, Any]:
    pasted = sum(1 for text in _replies(events) if all(p.search(text) for p in _SPEC_IN_CHAT))
    read: set[str] = set()
    checked: dict[str, bool] = {}
    for call, result in _calls(events):
        name = _base(call.name)
        arguments = call.arguments
        if name == "read_skill" and result is not None and result.ok:
            read.add(str(arguments.get("name") or "").lower())
        elif name == "propose_spec_file":
            match = _KIND.search(str(arguments.get("content") or ""))
            kind = match.group(1) if match else None
            if kind and kind not in checked:
                relevant = {s.lower() for s in skills_for_kind(kind)}
                checked[kind] = not relevant or bool(relevant & read)
    skill_ratio = _ratio(sum(checked.values()), len(checked))
    parts = [1.0 if pasted == 0 else 0.0] + ([skill_ratio] if skill_ratio is not None else [])
    return {
        "yaml_pasted_in_chat": pasted,
        "skill_read_before_first_draft": checked,
        "score": round(sum(parts) / len(parts), 3),
    }


@dataclass(frozen=True)
class IterateState:
    """What an Iterate case leaves to score besides the entities: the starter's entity names, and
    docs/changelog.md before the consultation and after applying (None: no file)."""

    starter_entities: tuple[str, ...] = ()
    changelog_before: str | None = None
    changelog_after: str | None = None


_DATED = re.compile(r"(?m)^##[ \t]+\d{4}-\d{2}-\d{2}\b")


def iterate(events: Events, entities: list[EntityFacts], expected: Expected, outcome: ApplyOutcome,
            state: IterateState) -> dict[str, Any]:
    """The Iterate phase's part (see the module): phase, kept, fields, changelog."""
    entered = any(isinstance(e, PhaseRecord) and e.phase == "iterate" for e in events)
    have = {norm(e.name) for e in entities}
    lost = [name for name in state.starter_entities if norm(name) not in have]
    kept = _ratio(len(state.starter_entities) - len(lost), len(state.starter_entities))
    hit = total = 0
    missing_fields: dict[str, list[str]] = {}
    for entity_name, wanted in expected.fields.items():
        found = _match(next(e for e in expected.entities if e.name == entity_name), entities)
        own = {norm(f) for f in found.fields} if found else set()
        for one in wanted:
            total += 1
            if own & {norm(s) for s in one.spellings}:
                hit += 1
            else:
                missing_fields.setdefault(entity_name, []).append(one.name)
    fields = _ratio(hit, total)
    changed = [p for p in outcome.applied if not p.startswith("docs/")]
    added = (state.changelog_after or "")[len((state.changelog_before or "").rstrip()):]
    logged = bool(state.changelog_after) and bool(_DATED.search(added)) and any(p in added for p in changed)
    parts: list[float | None] = [1.0 if entered else 0.0, kept, fields]
    if expected.changelog:
        parts.append(1.0 if logged else 0.0)
    return {
        "entered_iterate": entered,
        "kept": kept,
        "lost_entities": lost,
        "fields": fields,
        "missing_fields": missing_fields,
        "changelog": logged if expected.changelog else None,
        "score": overall(parts),
    }


def overall(parts: Iterable[float | None]) -> float:
    """The case score: the mean of the parts that apply (a part with nothing expected is left out)."""
    values = [p for p in parts if p is not None]
    return round(sum(values) / len(values), 3) if values else 0.0


def score_case(
    events: Events,
    entities: list[EntityFacts],
    depended: Iterable[str],
    expected: Expected,
    outcome: ApplyOutcome,
    skills_for_kind: Callable[[str], set[str]],
    iterate_state: IterateState | None = None,
) -> dict[str, Any]:
    """Every score of one case; ``score`` is their mean (0..1); an Iterate case (one that expects
    fields or a changelog) has an ``iterate`` part too."""
    valid = validity(events, outcome)
    cover = coverage(entities, expected)
    reuse = module_reuse(events, depended, expected)
    manners = discipline(events, skills_for_kind)
    change = iterate(events, entities, expected, outcome, iterate_state or IterateState()) if expected.iterate else None
    total = overall(
        [valid["score"], cover["entities"], cover["states"], cover["branch_states"], cover["relations"],
         reuse["score"], manners["score"], change["score"] if change else None]
    )
    scores = {"score": total, "validity": valid, "coverage": cover, "modules": reuse, "discipline": manners}
    if change is not None:
        scores["iterate"] = change
    return scores


def cost(events: Events, seconds: float) -> dict[str, Any]:
    """Tokens, money (when the provider reported it), requests and turns of the consultant."""
    requests: list[UsageRecord | SideReplyRecord] = [
        e for e in events if isinstance(e, UsageRecord) or (isinstance(e, SideReplyRecord) and e.purpose == "verify")
    ]
    money = [float(e.cost) for e in requests if e.cost is not None]
    return {
        "prompt_tokens": sum(int(e.prompt_tokens or 0) for e in requests),
        "cached_tokens": sum(int(e.cached_tokens or 0) for e in requests),
        "completion_tokens": sum(int(e.completion_tokens or 0) for e in requests),
        "cost": round(sum(money), 6) if money else None,
        "requests": len(requests),
        "turns": sum(1 for e in events if isinstance(e, TurnStartedRecord)),
        "seconds": round(seconds, 2),
    }
