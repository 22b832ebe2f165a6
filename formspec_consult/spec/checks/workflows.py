"""A Workflow (approval) must intercept a transition its entity really has.

FormSpec indexes a Workflow under the text `{spec.entity}.{from}.{to}` (newer versions also accept
`on.transition: {name: <via action>}`) and looks it up with `module.entity` and the transition
when that transition runs (internal/workflow). A
Workflow whose `entity` is not written `module.entity`, names no entity, or names a transition the
entity's state machine does not declare is loaded without complaint and never asks anyone to
approve anything, so the gate warns.
"""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.checks.context import Findings, Index, as_list
from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document


def check_workflows(docs: list[Document], index: Index, out: Findings) -> None:
    """Every Workflow's entity resolves and its `on.transition` is one of that entity's transitions."""
    for doc in docs:
        if effective_kind(doc.kind) != "Workflow":
            continue
        entity = doc.spec.get("entity")
        on = doc.spec.get("on")
        transition = on.get("transition") if isinstance(on, dict) else None
        if not isinstance(entity, str) or not isinstance(transition, dict):
            continue  # the schema reports the shape
        if "." not in entity or "/" in entity:
            module = doc.module or "<module>"
            out.warn("FS-WORKFLOW-TRANSITION", doc, ("spec", "entity"), f"workflow entity {entity!r} is not written "
                     "module.entity: FormSpec matches it as text, so this approval would never run",
                     f"Write `entity: {module}.{entity.replace('/', '.').rsplit('.', 1)[-1]}`.")
            continue
        key = index.entity_key(entity, doc.module)
        if key is None:
            continue  # an unknown entity is reported by the reference checks
        spec = index.entities[key].spec
        if "name" in transition:  # newer FormSpec names the transition by its `via` action
            vias = _vias(spec)
            if transition["name"] not in vias:
                out.warn("FS-WORKFLOW-TRANSITION", doc, ("spec", "on", "transition", "name"),
                         f"{entity} has no transition via {transition['name']!r}, so this approval would never run",
                         f"Name one of its transitions' `via` actions: {', '.join(sorted(vias)) or '(none)'}.")
            continue
        pairs = _transitions(spec)
        wanted = (transition.get("from"), transition.get("to"))
        if wanted not in pairs and ("*", wanted[1]) not in pairs:
            listing = ", ".join(f"{a} → {b}" for a, b in sorted(pairs, key=str)) or "none (it has no state_machine)"
            out.warn("FS-WORKFLOW-TRANSITION", doc, ("spec", "on", "transition"),
                     f"{entity} has no transition {wanted[0]} → {wanted[1]}, so this approval would never run",
                     f"Name one of its transitions ({listing}), or add it to the entity's state_machine.")


def _vias(spec: dict[str, Any]) -> set[str]:
    sm = spec.get("state_machine")
    return {str(tr.get("via") or tr.get("action")) for tr in as_list(sm.get("transitions") if isinstance(sm, dict)
                                                                     else None) if isinstance(tr, dict)}


def _transitions(spec: dict[str, Any]) -> set[tuple[Any, Any]]:
    sm = spec.get("state_machine")
    pairs: set[tuple[Any, Any]] = set()
    for tr in as_list(sm.get("transitions") if isinstance(sm, dict) else None):
        if isinstance(tr, dict):
            sources = tr.get("from")
            for source in [sources] if isinstance(sources, str) else as_list(sources):
                pairs.add((source, tr.get("to")))
    return pairs
