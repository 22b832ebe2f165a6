"""Action rules of FormSpec's loader that concern one Entity or Service.

- `permission.ValidatePublicAction` (through `Loader.Validate`): `public: true` (an anonymous
  endpoint) is legal on a Service action only, and needs a `rate_limit`.
- `spec.ValidateActionTransitionDuplication`: a state-machine transition's `via` is an action of
  its own (FormSpec's `ActionSources`), so an `actions:` entry with the same name must add
  something the transition lacks (an `impl` the transition does not have, a `required_permission`
  other than the transition's `require_permission`, or one of description, audit, emits,
  idempotent, idempotency_key, conditions, ui, uses, params, expose, rate_limit); reserved names
  (create, update, submit, cancel, ...) are exempt.
"""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.checks.context import Findings, as_list
from formspec_consult.spec.kinds import RESERVED_ACTIONS, effective_kind
from formspec_consult.spec.model import Document

#: what an `actions:` entry may carry that its transition then lacks (FormSpec's addsField)
_ADDS = ("description", "audit", "emits", "idempotent", "idempotency_key", "conditions", "ui", "uses", "params",
         "expose", "rate_limit")


def _set(value: Any) -> bool:
    return value not in (None, "", False, [], {})


def check_actions(doc: Document, out: Findings) -> None:
    """Public actions (Entity and Service) and action/transition duplication (Entity)."""
    kind = effective_kind(doc.kind)
    if kind not in ("Entity", "Service"):
        return
    actions = [(i, a) for i, a in enumerate(as_list(doc.spec.get("actions"))) if isinstance(a, dict)]
    for i, action in actions:
        if action.get("public") is not True:
            continue
        where = ("spec", "actions", i)
        name = action.get("name")
        if kind == "Entity":
            out.error("FS-ACTION-PUBLIC", doc, where + ("public",),
                      f"action {name!r}: `public: true` is valid on a Service action only",
                      "Drop `public`: an entity is reached by anonymous visitors through the public views its App "
                      "exposes (a page or form); put an anonymous operation on a `kind: Service` action instead.")
        elif not isinstance(action.get("rate_limit"), dict):
            out.error("FS-ACTION-PUBLIC", doc, where + ("public",),
                      f"action {name!r}: a public (anonymous) action needs a `rate_limit`",
                      "Add e.g. `rate_limit: {max: 10, per: 1m, scope: ip}` to the action.")
    if kind == "Entity":
        _check_duplication(doc, actions, out)


def _check_duplication(doc: Document, actions: list[tuple[int, dict[str, Any]]], out: Findings) -> None:
    sm = doc.spec.get("state_machine")
    transitions = [t for t in as_list(sm.get("transitions")) if isinstance(t, dict)] if isinstance(sm, dict) else []
    for i, action in actions:
        name = action.get("name")
        if not isinstance(name, str) or name in RESERVED_ACTIONS:
            continue
        for tr in transitions:
            if tr.get("via", tr.get("action")) != name:
                continue
            if _set(action.get("impl")) and not _set(tr.get("impl")):
                continue
            permission = action.get("required_permission")
            if _set(permission) and permission != tr.get("require_permission"):
                continue
            if any(_set(action.get(key)) and not _set(tr.get(key)) for key in _ADDS):
                continue
            out.error("FS-ACTION-TRANSITION-DUPLICATE", doc, ("spec", "actions", i, "name"),
                      f"action {name!r} is declared under `actions:` and as a transition's `via`, and the entry "
                      "adds nothing the transition does not say",
                      f"Delete the `actions:` entry {name!r}: the transition's `via` already declares the action. "
                      "To gate the transition, write `require_permission` on the transition.")
            break
