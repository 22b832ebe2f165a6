"""Transitions as FormSpec's newest engine reads them: `emit`, `require_permission` and `approval`.

An approval gate lives on the transition it holds (`state_machine.transitions[].approval`; the
separate `kind: Workflow` is gone from FormSpec's newest loader). `spec.ValidateEntitySpec` checks
the chain's shape (`ValidateApprovalSpec` / `ValidateApprovalSteps`), `ValidateTransitionEmits`
the emitted event and `ValidateTransitionPermissions` the gate; `formspec validate`'s
`validateApprovals` adds what one document cannot see: every `display_fields` entry is a field
of the entity, and every role a step names is a role some `kind: Seed` declares (or one of the
owner roles the framework seeds itself).
"""

from __future__ import annotations

import re
from typing import Any

from formspec_consult.spec.checks.context import Findings, as_list
from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document

#: owner roles FormSpec's auth service seeds at runtime (no manifest declares them)
FRAMEWORK_ROLES = ("app-owner", "cloud-owner", "module-owner", "workspace-owner")
#: a step or duty name must fit into `workflow.<module>.<entity>.<transition>.<name>`
_STEP_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_MODES = ("any", "sequential")


def _transitions(doc: Document) -> list[tuple[int, dict[str, Any]]]:
    sm = doc.spec.get("state_machine")
    if not isinstance(sm, dict):
        return []
    return [(i, t) for i, t in enumerate(as_list(sm.get("transitions"))) if isinstance(t, dict)]


def _label(t: dict[str, Any]) -> str:
    return f"{t.get('from')} → {t.get('to')}"


def check_transition_rules(doc: Document, out: Findings) -> None:
    """One Entity's transitions: emit, require_permission and the approval chain's shape."""
    events = {e if isinstance(e, str) else str(e.get("name")) for e in as_list(doc.spec.get("events"))
              if isinstance(e, (str, dict))}
    actions = {a["name"]: a for a in as_list(doc.spec.get("actions"))
               if isinstance(a, dict) and isinstance(a.get("name"), str)}
    for i, t in _transitions(doc):
        base = ("spec", "state_machine", "transitions", i)
        emit = t.get("emit")
        if isinstance(emit, str) and emit and emit not in events:
            declared = ", ".join(sorted(events)) or "(none yet)"
            out.error("FS-TRANSITION-EMIT", doc, base + ("emit",),
                      f"the transition {_label(t)} emits {emit!r}, which is not declared in `events`",
                      f"Declare it under events (`- {{name: {emit}}}`; an on_* event is async, a custom name needs "
                      f"`type: sync|async`) or emit a declared one: {declared}.")
        perm = t.get("require_permission")
        if isinstance(perm, str) and perm:
            via = actions.get(str(t.get("via")))
            if not perm.split(".")[-1].strip():
                out.error("FS-TRANSITION-PERMISSION", doc, base + ("require_permission",),
                          f"the transition {_label(t)} requires permission {perm!r}, whose last segment is empty: "
                          "no grant can express it", "Write the whole name, e.g. `require_permission: "
                          "orders.approve` (`<plural>.<action>`; the module prefix is added).")
            elif via is not None and via.get("required_permission") == perm:
                out.error("FS-TRANSITION-PERMISSION", doc, base + ("require_permission",),
                          f"the transition {_label(t)} repeats its via action {via['name']!r}'s own "
                          f"required_permission {perm!r}", "Only the transition's gate is enforced: keep "
                          "`require_permission` on the transition and drop `required_permission` from the action.")
        approval = t.get("approval")
        if isinstance(approval, dict):
            _check_approval(doc, approval, base + ("approval",), _label(t), out)


def _check_approval(doc: Document, approval: dict[str, Any], base: tuple[Any, ...], label: str,
                    out: Findings) -> None:
    steps = as_list(approval.get("steps"))
    if not steps:
        out.error("FS-APPROVAL-STEP", doc, base, f"the approval on {label} has no `steps`, so it can never be granted",
                  "Give it at least one step: `steps: [{name: check, permission: check}]` (a named duty) or "
                  "`steps: [{roles: [supervisor]}]`.")
        return
    names: dict[str, int] = {}
    for j, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        problem = _step_problem(step, names, j)
        if problem:
            out.error("FS-APPROVAL-STEP", doc, base + ("steps", j, problem[0]),
                      f"approval on {label}, step {j}: {problem[1]}", problem[2])
            return
        if isinstance(step.get("name"), str):
            names[step["name"]] = j


def _step_problem(step: dict[str, Any], names: dict[str, int], j: int) -> tuple[str, str, str] | None:
    """(key, message, hint) of the first rule of FormSpec's ValidateApprovalSteps the step breaks."""
    roles = [r for r in as_list(step.get("roles")) if isinstance(r, str) and r.strip()]
    duty = step.get("permission") if isinstance(step.get("permission"), str) else ""
    name = step.get("name") if isinstance(step.get("name"), str) else ""
    mode = step.get("mode")
    escalation = step.get("escalation") if isinstance(step.get("escalation"), dict) else None
    if not roles and not duty:
        return ("roles", "names neither `roles` nor `permission`, so it is un-approvable",
                "Give the step `permission: <duty>` (with a `name`) or `roles: [<role>]`.")
    if name and not _STEP_NAME.match(name):
        return ("name", f"name {name!r} cannot be used in a permission",
                "A step name is lower-case kebab-case (letters, digits, single hyphens), e.g. `supervisor-check`.")
    if name in names:
        return ("name", f"shares the name {name!r} with step {names[name]}", "Give every step its own name.")
    if duty and not name:
        return ("permission", "has a `permission` duty but no `name`; a duty must be nameable",
                "Add `name:` (kebab-case) so the duty can be granted as workflow.<module>.<entity>.<transition>.<name>.")
    if escalation is not None and not name:
        return ("escalation", "has an escalation but no `name`", "Add `name:` (kebab-case) to the step.")
    if mode == "all":
        return ("mode", "`mode: all` cannot be computed (the number of eligible approvers cannot be derived)",
                "Use `approvers: <n>` with mode any (the default) for a count, or `mode: sequential` with an "
                "ordered `roles` list for a chain.")
    if mode == "sequential":
        if not roles:
            return ("mode", "`mode: sequential` without `roles`: the role list IS the chain",
                    "List the roles in approval order under `roles:`.")
        if step.get("approvers") not in (None, 0):
            return ("approvers", "`approvers` has no effect on a sequential step",
                    "Drop `approvers`: a sequential step needs one approval per role, in order.")
        if duty:
            return ("permission", "a sequential step cannot take a `permission` duty: a duty has no position in "
                    "that order", "Drop `permission` and keep the ordered `roles`, or drop `mode: sequential`.")
    elif mode is not None and mode not in _MODES:
        return ("mode", f"mode {mode!r} is not one FormSpec knows", "Use `any` (the default) or `sequential`.")
    if escalation is not None:
        after, reassign = escalation.get("after"), escalation.get("reassign")
        if after and not reassign:
            return ("escalation", "escalation has `after` but no `reassign`, so it would do nothing",
                    "Add `reassign: <duty-name>` (who takes over after the wait).")
        if reassign and not after:
            return ("escalation", "escalation has `reassign` without `after`",
                    "Add `after: 4h` (how long to wait before reassigning).")
        if isinstance(reassign, str) and reassign in (name, duty):
            return ("escalation", "escalation reassigns to the step's own duty, which changes nothing",
                    "Name another duty under `reassign`, e.g. `manager-check`.")
        if isinstance(reassign, str) and not all(_STEP_NAME.match(p) for p in reassign.split(".")):
            return ("escalation", f"reassign {reassign!r} is not a usable duty name",
                    "Write it kebab-case (e.g. `manager-check`), or a full dotted permission.")
    return None


def check_approvals_across(docs: list[Document], out: Findings) -> None:
    """FormSpec's validateApprovals: display_fields name fields, roles name declared roles."""
    roles = set(FRAMEWORK_ROLES)
    for doc in docs:
        if effective_kind(doc.kind) != "Seed":
            continue
        for block in as_list(doc.spec.get("entities")):
            entity = block.get("entity") if isinstance(block, dict) else None
            if isinstance(entity, str) and (entity == "role" or entity.endswith(".role")):
                roles |= {r["name"].strip() for r in as_list(block.get("records"))
                          if isinstance(r, dict) and isinstance(r.get("name"), str) and r["name"].strip()}
    for doc in docs:
        if effective_kind(doc.kind) != "Entity":
            continue
        fields = {f["name"] for f in as_list(doc.spec.get("fields")) if isinstance(f, dict) and "name" in f}
        for i, t in _transitions(doc):
            approval = t.get("approval")
            if not isinstance(approval, dict):
                continue
            base = ("spec", "state_machine", "transitions", i, "approval", "steps")
            if _report_step_refs(doc, as_list(approval.get("steps")), base, _label(t), fields, roles, out):
                break


def _report_step_refs(doc: Document, steps: list[Any], base: tuple[Any, ...], label: str, fields: set[str],
                      roles: set[str], out: Findings) -> bool:
    for j, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        for k, name in enumerate(as_list(step.get("display_fields"))):
            if name not in fields:
                out.error("FS-APPROVAL-FIELD", doc, base + (j, "display_fields", k),
                          f"approval on {label}, step {j}: display_fields names {name!r}, which is not a field of "
                          f"{doc.name!r}", f"Name fields of the entity: {', '.join(sorted(fields)) or '(none)'}.")
                return True
    for j, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        for k, role in enumerate(as_list(step.get("roles"))):
            if isinstance(role, str) and role.strip() and role not in roles:
                out.error("FS-APPROVAL-ROLE", doc, base + (j, "roles", k),
                          f"approval on {label}, step {j} names role {role!r}, which no role declares: the step "
                          "could never be approved", "Role names are compared literally. Declare the role in a "
                          "kind: Seed (`entities: [{entity: role, records: [{name: " + role + "}]}]`) or use a "
                          f"declared one: {', '.join(sorted(roles))}.")
                return True
    return False
