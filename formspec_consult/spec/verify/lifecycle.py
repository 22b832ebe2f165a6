"""Lifecycle verifiers: branch states, ways out, reachability, due dates (the seed's main lesson:
a one-pass draft misses branch states such as cancelled, lost, overdue and reopened)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from formspec_consult.spec.model import Document
from formspec_consult.spec.verify.findings import Finding, finding
from formspec_consult.spec.verify.vocabulary import DUE_WORDS, is_branch, is_terminal, mentions

OVERDUE_WORDS = frozenset({"overdue", "late", "lapsed", "expired", "terlambat", "telat", "kedaluwarsa",
                           "kadaluarsa", "menunggak", "tunggak", "hangus"})
SM = ("spec", "state_machine")


@dataclass
class Lifecycle:
    """The states and transitions of one entity, read leniently (validation reports bad shapes)."""

    states: list[str]
    initial: str | None
    outgoing: dict[str, set[str]] = field(default_factory=dict)
    incoming: dict[str, set[str]] = field(default_factory=dict)
    has_transitions: bool = False

    @classmethod
    def of(cls, spec: dict[str, Any]) -> Lifecycle | None:
        sm = spec.get("state_machine")
        if not isinstance(sm, dict):
            return None
        states = [s["name"] for s in sm.get("states") or [] if isinstance(s, dict) and isinstance(s.get("name"), str)]
        if not states:  # without `states`, the states are the state field's enum values
            states = _enum_values(spec, sm.get("field"))
        initial = sm.get("initial") if isinstance(sm.get("initial"), str) else None
        life = cls(states, initial, {s: set() for s in states}, {s: set() for s in states})
        for tr in sm.get("transitions") or []:
            if not isinstance(tr, dict) or not isinstance(tr.get("to"), str):
                continue
            life.has_transitions = True
            raw = tr.get("from")
            sources = states if raw == "*" else [raw] if isinstance(raw, str) else [s for s in raw or [] if isinstance(s, str)]
            for src in sources:
                life.outgoing.setdefault(src, set()).add(tr["to"])
                life.incoming.setdefault(tr["to"], set()).add(src)
        return life


def _enum_values(spec: dict[str, Any], field_name: object) -> list[str]:
    for f in spec.get("fields") or []:
        if isinstance(f, dict) and f.get("name") == field_name and isinstance(f.get("enum_values"), list):
            return [str(v.get("value") if isinstance(v, dict) else v) for v in f["enum_values"]]
    return []


def _fields(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in spec.get("fields") or [] if isinstance(f, dict) and isinstance(f.get("name"), str)]


def verify_lifecycle(doc: Document) -> list[Finding]:
    """Findings about the state machine of one entity."""
    spec = doc.spec
    life = Lifecycle.of(spec)
    transaction = spec.get("characteristic") == "transaction"
    if life is None:
        if transaction:
            return [finding("FSV-TRANSACTION-NO-LIFECYCLE", doc, ("spec",),
                            f"transaction {doc.name!r} has no state_machine, so it never moves between states",
                            "Ask how one moves from start to finish (and how it can be cancelled), then add a "
                            "state_machine with an enum status field.")]
        return []
    out: list[Finding] = []
    if transaction and len(life.states) >= 2 and not any(is_branch(s) for s in life.states):
        out.append(finding(
            "FSV-LIFECYCLE-NO-BRANCH", doc, SM,
            f"the lifecycle of {doc.name!r} ({' → '.join(life.states)}) has no cancelled, rejected or lost branch",
            "Ask what happens when it does not go as planned (cancelled, rejected, lost, refunded) and add that "
            "state with a transition from the states where it can happen."))
    if life.has_transitions:
        for i, state in enumerate(life.states):
            if not life.outgoing.get(state) and not is_terminal(state):
                out.append(finding(
                    "FSV-STATE-DEAD-END", doc, SM + ("states", i) if _declared(spec) else SM,
                    f"state {state!r} of {doc.name!r} has no transition out, but does not read as an end state",
                    f"Add a transition from {state!r} to the next state, or confirm with the person that "
                    f"{state!r} ends the lifecycle."))
            if state != life.initial and not life.incoming.get(state):
                out.append(finding(
                    "FSV-STATE-UNREACHABLE", doc, SM + ("states", i) if _declared(spec) else SM,
                    f"state {state!r} of {doc.name!r} is never reached: no transition leads to it",
                    f"Add the transition (and its action) that moves a record into {state!r}, or drop the state."))
    due = [f["name"] for f in _fields(spec) if f.get("type") in ("date", "datetime") and mentions(f["name"], DUE_WORDS)]
    if due and life.states and not any(mentions(s, OVERDUE_WORDS) for s in life.states):
        out.append(finding(
            "FSV-DUE-NO-OVERDUE", doc, SM,
            f"{doc.name!r} has a due date ({due[0]}) but no overdue state",
            f"Ask what happens when {due[0]} passes (overdue, late fee, expired) and model it as a state."))
    return out


def _declared(spec: dict[str, Any]) -> bool:
    sm = spec.get("state_machine")
    return isinstance(sm, dict) and isinstance(sm.get("states"), list)
