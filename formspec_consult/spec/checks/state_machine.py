"""State machine consistency: field, initial, states and from/to (a `via` is an action of its own).

FormSpec's Go (`spec.ValidateEntitySpec`, `formspec validate`/`check`) checks none of this
statically: a broken state machine fails only when a transition runs. So these are warnings —
the gate passes what FormSpec passes — that still tell the author what will go wrong
(docs/fidelity.md, "checks of ours").
"""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.checks.context import Findings, as_list
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
        out.warn("FS-SM-FIELD", doc, base + ("field",), f"state_machine.field {field_name!r} is not a field",
                  f"Add an enum field `{field_name}` whose enum_values are the states.")
    elif target is not None and target.get("type") != "enum":
        out.warn("FS-SM-FIELD-TYPE", doc, base + ("field",),
                  f"state_machine.field {field_name!r} is of type {target.get('type')!r}, not enum",
                  "Make the state field `type: enum` with the states as enum_values.")
    raw_states = as_list(sm.get("states"))
    states: list[str] = []
    for i, state in enumerate(raw_states):
        name = state.get("name") if isinstance(state, dict) else None
        if isinstance(name, str):
            if name in states:
                out.warn("FS-SM-STATE-DUPLICATE", doc, base + ("states", i), f"state {name!r} is declared twice",
                          "State names must be unique.")
            states.append(name)
    enum_values = _enum_values(target)
    if "states" not in sm and enum_values is not None:
        states = enum_values  # without `states:`, the states are the state field's enum_values
    declared = set(states)
    listing = ", ".join(states) or "(none)"
    initial = sm.get("initial")
    if isinstance(initial, str) and initial not in declared:
        out.warn("FS-SM-INITIAL", doc, base + ("initial",), f"initial state {initial!r} is not declared",
                  f"Use one of the states: {listing}." if states else
                  "Give the state field enum_values (they are the states), or declare `states:`.")
    if "states" in sm and enum_values is not None:
        missing = [s for s in states if s not in enum_values]
        if missing:
            out.warn("FS-SM-ENUM-MISMATCH", doc, base + ("states",),
                     f"states {', '.join(missing)} are not enum_values of {field_name!r}",
                     "Keep the state field's enum_values and the states in step.")
    _check_transitions(doc, sm, spec, declared, listing, out)


def _check_transitions(doc: Document, sm: dict[str, Any], spec: dict[str, Any], declared: set[str],
                       listing: str, out: Findings) -> None:
    transitions = as_list(sm.get("transitions"))
    for i, tr in enumerate(transitions):
        if not isinstance(tr, dict):
            continue
        where = ("spec", "state_machine", "transitions", i)
        sources = tr.get("from")
        for source in [sources] if isinstance(sources, str) else sources if isinstance(sources, list) else []:
            if source != "*" and source not in declared:
                out.warn("FS-SM-FROM", doc, where + ("from",), f"transition from unknown state {source!r}",
                          f"Use a declared state ({listing}) or \"*\" for any state.")
        to = tr.get("to")
        if isinstance(to, str) and to not in declared:
            out.warn("FS-SM-TO", doc, where + ("to",), f"transition to unknown state {to!r}",
                      f"Use a declared state: {listing}.")
        # a transition's `via` is an action of its own in FormSpec (ActionSources, since L3): it needs no
        # `actions:` entry, so nothing is reported for it (FS-SM-VIA is dropped, docs/fidelity.md)


def _enum_values(target: dict[str, Any] | None) -> list[str] | None:
    """The state field's enum_values as strings (None when it has none)."""
    if target is None or not isinstance(target.get("enum_values"), list):
        return None
    values = [v.get("value") if isinstance(v, dict) else v for v in target["enum_values"]]
    return [str(v) for v in values if v is not None]
