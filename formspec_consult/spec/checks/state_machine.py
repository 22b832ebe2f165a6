"""State machine consistency: field, initial, from/to states and `via` actions."""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.checks.context import Findings
from formspec_consult.spec.kinds import RESERVED_ACTIONS
from formspec_consult.spec.model import Document


def check_state_machine(doc: Document, spec: dict[str, Any], fields: list[tuple[int, dict[str, Any]]],
                        out: Findings) -> None:
    """Check `spec.state_machine` of an entity against its fields and actions."""
    sm = spec.get("state_machine")
    if not isinstance(sm, dict):
        return
    base = ("spec", "state_machine")
    by_name = {f["name"]: f for _, f in fields}
    field_name = sm.get("field")
    target = by_name.get(field_name) if isinstance(field_name, str) else None
    if isinstance(field_name, str) and target is None:
        out.error("FS-SM-FIELD", doc, base + ("field",), f"state_machine.field {field_name!r} is not a field",
                  f"Add an enum field `{field_name}` whose enum_values are the states.")
    elif target is not None and target.get("type") != "enum":
        out.error("FS-SM-FIELD-TYPE", doc, base + ("field",),
                  f"state_machine.field {field_name!r} is of type {target.get('type')!r}, not enum",
                  "Make the state field `type: enum` with the states as enum_values.")
    raw_states = _raw_states if isinstance(_raw_states := sm.get("states"), list) else []
    states: list[str] = []
    for i, state in enumerate(raw_states):
        name = state.get("name") if isinstance(state, dict) else None
        if isinstance(name, str):
            if name in states:
                out.error("FS-SM-STATE-DUPLICATE", doc, base + ("states", i), f"state {name!r} is declared twice",
                          "State names must be unique.")
            states.append(name)
    declared = set(states)
    listing = ", ".join(states) or "(none)"
    initial = sm.get("initial")
    if isinstance(initial, str) and initial not in declared:
        out.error("FS-SM-INITIAL", doc, base + ("initial",), f"initial state {initial!r} is not declared",
                  f"Use one of the states: {listing}.")
    if target is not None and isinstance(target.get("enum_values"), list):
        values = {v.get("value") if isinstance(v, dict) else v for v in target["enum_values"]}
        missing = [s for s in states if s not in values]
        if missing:
            out.warn("FS-SM-ENUM-MISMATCH", doc, base + ("states",),
                     f"states {', '.join(missing)} are not enum_values of {field_name!r}",
                     "Keep the state field's enum_values and the states in step.")
    _check_transitions(doc, sm, spec, declared, listing, out)


def _check_transitions(doc: Document, sm: dict[str, Any], spec: dict[str, Any], declared: set[str],
                       listing: str, out: Findings) -> None:
    actions = _actions if isinstance(_actions := spec.get("actions"), list) else []
    action_names = {a["name"] for a in actions if isinstance(a, dict) and isinstance(a.get("name"), str)}
    transitions = _transitions if isinstance(_transitions := sm.get("transitions"), list) else []
    for i, tr in enumerate(transitions):
        if not isinstance(tr, dict):
            continue
        where = ("spec", "state_machine", "transitions", i)
        sources = tr.get("from")
        for source in [sources] if isinstance(sources, str) else sources if isinstance(sources, list) else []:
            if source != "*" and source not in declared:
                out.error("FS-SM-FROM", doc, where + ("from",), f"transition from unknown state {source!r}",
                          f"Use a declared state ({listing}) or \"*\" for any state.")
        to = tr.get("to")
        if isinstance(to, str) and to not in declared:
            out.error("FS-SM-TO", doc, where + ("to",), f"transition to unknown state {to!r}",
                      f"Use a declared state: {listing}.")
        via = tr.get("via")
        if isinstance(via, str) and via not in action_names and via not in RESERVED_ACTIONS:
            out.error("FS-SM-VIA", doc, where + ("via",), f"transition via unknown action {via!r}",
                      f"Declare the action under `actions:` or use a built-in one "
                      f"({', '.join(sorted(RESERVED_ACTIONS))}).")
