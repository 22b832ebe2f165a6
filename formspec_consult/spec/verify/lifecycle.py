"""Lifecycle verifiers: branch states, ways out, reachability, due dates (the seed's main lesson:
a one-pass draft misses branch states such as cancelled, lost, overdue and reopened)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from formspec_consult.spec.model import Document
from formspec_consult.spec.verify.findings import Finding, finding
from formspec_consult.spec.verify.vocabulary import BRANCH_WORDS, DUE_WORDS, is_terminal, is_waiting, mentions

OVERDUE_WORDS = frozenset({"overdue", "late", "lapsed", "expired", "terlambat", "telat", "kedaluwarsa",
                           "kadaluarsa", "menunggak", "tunggak", "hangus"})
SM = ("spec", "state_machine")
#: words of a state where things did not go as planned and the record ends there. Not `returned`,
#: `overdue`, `reopened` and the like: a rental ends well when it is returned, and a late or
#: reopened record goes on — the structure decides those (two ends are a branch)
ENDING_BRANCH_WORDS = BRANCH_WORDS - frozenset({"returned", "overdue", "reopened", "suspended", "disputed",
                                                "terlambat", "telat", "dikembalikan", "retur"})


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
                            "status field and a state_machine, e.g. add `{name: status, type: enum, enum_values: "
                            "[open, done, cancelled], default: open}` to `spec.fields`, set `spec.state_machine` to "
                            "`{field: status, initial: open, states: [{name: open, label: Open}, {name: done, label: "
                            "Done}, {name: cancelled, label: Cancelled}], transitions: [{from: open, to: done, via: "
                            "complete}, {from: open, to: cancelled, via: cancel}]}`, with the states the person names "
                            "(a transition's `via` is an action of its own: it needs no `spec.actions` entry).")]
        return []
    out: list[Finding] = []
    if transaction and len(life.states) >= 2 and not _has_branch(life):
        out.append(finding(
            "FSV-LIFECYCLE-NO-BRANCH", doc, SM,
            f"the lifecycle of {doc.name!r} ({' → '.join(life.states)}) has no cancelled, rejected or lost branch",
            "Ask what happens when it does not go as planned (cancelled, rejected, lost, refunded); then "
            + _new_state(spec, life, "cancelled", _open_states(life), "cancel")))
    if life.has_transitions:
        for i, state in enumerate(life.states):
            target = _dead_end_target(life, state)
            if target is not None:
                out.append(finding(
                    "FSV-STATE-DEAD-END", doc, SM + ("states", i) if _declared(spec) else SM,
                    f"state {state!r} of {doc.name!r} has no transition out, but does not read as an end state",
                    f"Ask what happens next to a record in {state!r}, then add the way on, e.g. "
                    + _transition(spec, life, [state], target, f"move_to_{target}")
                    + f"; if nothing does ({state!r} ends the lifecycle), leave it as it is."))
            if state != life.initial and not life.incoming.get(state):
                source = life.initial or next(s for s in life.states if s != state)
                out.append(finding(
                    "FSV-STATE-UNREACHABLE", doc, SM + ("states", i) if _declared(spec) else SM,
                    f"state {state!r} of {doc.name!r} is never reached: no transition leads to it",
                    f"Add the transition that moves a record into {state!r}: "
                    + _transition(spec, life, [source], state, f"move_to_{state}") + "; or drop the state."))
    due = [f["name"] for f in _fields(spec) if f.get("type") in ("date", "datetime") and mentions(f["name"], DUE_WORDS)]
    if due and life.states and not any(mentions(s, OVERDUE_WORDS) for s in life.states):
        out.append(finding(
            "FSV-DUE-NO-OVERDUE", doc, SM,
            f"{doc.name!r} has a due date ({due[0]}) but no overdue state",
            f"Ask what happens when {due[0]} passes (overdue, late fee, expired); to model it as a state, "
            + _new_state(spec, life, "overdue", _open_states(life), "mark_overdue")
            + _way_on(spec, life, "overdue")))
    return out


def _way_on(spec: dict[str, Any], life: Lifecycle, state: str) -> str:
    """Advice text for the way out of a state that goes on (an overdue record is still settled)."""
    ends = [s for s in life.states if s != state and is_terminal(s)
            and not any(w in ENDING_BRANCH_WORDS for w in _words(s))]
    if not ends:
        return ""
    return " A record goes on from there: " + _transition(spec, life, [state], ends[0], f"move_to_{ends[0]}") + "."


def _has_branch(life: Lifecycle) -> bool:
    """A state named as an unplanned ending, or (with transitions) two different ways to end."""
    if any(w in ENDING_BRANCH_WORDS for s in life.states for w in _words(s)):
        return True
    ends = [s for s in life.states if not life.outgoing.get(s) and (s == life.initial or life.incoming.get(s))]
    return life.has_transitions and len(ends) >= 2


def _words(name: str) -> list[str]:
    from formspec_consult.spec.verify.vocabulary import words

    return words(name)


def _open_states(life: Lifecycle) -> list[str]:
    """The states a record can still leave (those with a way out; the initial one without transitions)."""
    open_ = [s for s in life.states if life.outgoing.get(s)]
    return open_ or ([life.initial] if life.initial else life.states[:1])


def _ends_badly(state: str) -> bool:
    """Whether a state is named as an unplanned ending (cancelled, lost, batal, ditolak, …)."""
    return any(w in ENDING_BRANCH_WORDS for w in _words(state))


def _dead_end_target(life: Lifecycle, state: str) -> str | None:
    """Where a state with no way out most plausibly goes on to; None when it is no dead end.

    A state is no dead end when it has a way out, or reads as an end (done, received, selesai,
    lunas, batal, …). One whose name says it waits (pending, on_hold, menunggu, …) is one: it goes
    on to the next declared state that is not an unplanned ending, else back to where it came from.
    Any other name is a dead end only when the declared flow goes on after it (a state declared
    later that is not an unplanned ending): the last step of the flow, with only `cancelled` after
    it, is where the flow ends, and `received → cancelled` would be no advice at all.
    """
    if life.outgoing.get(state) or is_terminal(state):
        return None
    index = life.states.index(state)
    onwards = [s for s in life.states[index + 1:] if s != state and not _ends_badly(s)]
    if onwards:
        return onwards[0]
    if not is_waiting(state):
        return None
    back = sorted(s for s in life.incoming.get(state, set()) if s != state)
    others = [s for s in life.states if s != state and not _ends_badly(s)]
    candidates = back or others
    return candidates[0] if candidates else None


def _status_field(spec: dict[str, Any]) -> str | None:
    sm = spec.get("state_machine")
    name = sm.get("field") if isinstance(sm, dict) else None
    return name if isinstance(name, str) and any(f.get("name") == name and isinstance(f.get("enum_values"), list)
                                                 for f in _fields(spec)) else None


def _actions(spec: dict[str, Any]) -> set[str]:
    return {a["name"] for a in spec.get("actions") or [] if isinstance(a, dict) and isinstance(a.get("name"), str)}


def _via(spec: dict[str, Any], to: str, fallback: str) -> str:
    """The action of an existing transition into `to`, else `fallback`."""
    sm = spec.get("state_machine")
    for tr in (sm.get("transitions") if isinstance(sm, dict) else None) or []:
        if isinstance(tr, dict) and tr.get("to") == to and isinstance(tr.get("via"), str):
            return str(tr["via"])
    return fallback


def _transition(spec: dict[str, Any], life: Lifecycle, sources: list[str], to: str, action: str) -> str:
    """Advice text adding one transition, as YAML the gate accepts (its `via` is an action of its own)."""
    via = _via(spec, to, action)
    origin = sources[0] if len(sources) == 1 else "[" + ", ".join(sources) + "]"
    return f"add `{{from: {origin}, to: {to}, via: {via}}}` to `spec.state_machine.transitions`"


def _new_state(spec: dict[str, Any], life: Lifecycle, state: str, sources: list[str], action: str) -> str:
    """Advice text adding the state `state` (declared where the states are) and a transition into it."""
    parts = []
    if _declared(spec):
        parts.append(f"add `{{name: {state}, label: {state.replace('_', ' ').capitalize()}}}` to "
                     "`spec.state_machine.states`")
    field = _status_field(spec)
    if field:
        parts.append(f"add `{state}` to the `enum_values` of field `{field}`")
    parts.append(_transition(spec, life, sources, state, action))
    return ", ".join(parts) + "."


def _declared(spec: dict[str, Any]) -> bool:
    sm = spec.get("state_machine")
    return isinstance(sm, dict) and isinstance(sm.get("states"), list)
