"""Cross-document rules about what an event or an Integrator makes happen elsewhere.

FormSpec's `formspec validate` checks these with every manifest in view: a reliable_event
delivery target and an Integrator's call must name an action that exists and is idempotent
(the outbox retries it), and an Integrator reacting to an event needs a partner reacting to
the cancel of the same resource.
"""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.checks.context import Findings, module_key
from formspec_consult.spec.checks.events import declared_actions
from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document

_CANCEL_EVENTS = frozenset({"on_cancel", "before_cancel"})


def _items(value: Any) -> list[tuple[int, dict[str, Any]]]:
    return [(i, v) for i, v in enumerate(value) if isinstance(v, dict)] if isinstance(value, list) else []


def _own_actions(spec: dict[str, Any]) -> dict[str, bool]:
    """Declared action name → idempotent."""
    return {a["name"]: a.get("idempotent") is True for _, a in _items(spec.get("actions"))
            if isinstance(a.get("name"), str)}


def _split_target(ref: str, own_module: str | None) -> str:
    """`module.entity` → key; a bare name is in the publisher's own module (first dot splits)."""
    module, dot, name = ref.partition(".")
    if not dot:
        module, name = own_module or "", ref
    return f"{module_key(module)}.{name.lower()}"


def check_delivery(docs: list[Document], out: Findings) -> None:
    """Event deliver targets and Integrator pairs/targets across the effective documents."""
    entities: dict[str, dict[str, Any]] = {}
    services: dict[str, dict[str, Any]] = {}
    integrators: list[Document] = []
    for doc in docs:
        kind = effective_kind(doc.kind)
        key = f"{module_key(doc.module or '')}.{(doc.name or '').lower()}"
        if kind == "Entity":
            entities.setdefault(key, doc.spec)
        elif kind == "Service":
            services.setdefault(key, doc.spec)
        elif kind == "Integrator":
            integrators.append(doc)
    for doc in docs:
        if effective_kind(doc.kind) == "Entity":
            _check_event_targets(doc, entities, services, out)
    _check_integrators(integrators, entities, out)


def _check_event_targets(doc: Document, entities: dict[str, dict[str, Any]], services: dict[str, dict[str, Any]],
                         out: Findings) -> None:
    for i, event in _items(doc.spec.get("events")):
        for j, delivery in _items(event.get("deliver")):
            target = delivery.get("target")
            if delivery.get("channel") != "reliable_event" or not isinstance(target, dict):
                continue
            where = ("spec", "events", i, "deliver", j, "target")
            name = event.get("name")
            resource, action = target.get("resource"), target.get("action")
            if not resource or not action:
                out.error("FS-EVENT-TARGET", doc, where,
                          f"event {name!r}: a reliable_event target needs both `resource` and `action`",
                          "Write `target: {resource: <module>.<entity>, action: <action>}` — the outbox calls it.")
                continue
            if not isinstance(resource, str) or not isinstance(action, str):
                continue
            key = _split_target(resource, doc.module)
            spec = entities.get(key)
            service = services.get(key)
            if spec is None and service is None:
                continue  # shipped elsewhere: FormSpec cannot verify it either
            actions = declared_actions(spec if spec is not None else service or {})
            if action not in actions:
                out.error("FS-EVENT-TARGET", doc, where + ("action",),
                          f"event {name!r} delivers to {resource}.{action}, which does not exist",
                          f"Declare action {action!r} on {resource}, or target one it has "
                          f"({', '.join(sorted(actions))}); the outbox would retry it to dead-letter.")
            elif spec is not None and not _own_actions(spec).get(action, False):
                out.error("FS-EVENT-TARGET-IDEMPOTENT", doc, where + ("action",),
                          f"event {name!r} delivers to {resource}.{action}, which is not idempotent",
                          f"Declare `{action}` on {resource} with `idempotent: true`: the outbox retries "
                          "deliveries, so the action may run twice.")


def _check_integrators(integrators: list[Document], entities: dict[str, dict[str, Any]], out: Findings) -> None:
    listens = [(doc, doc.spec.get("listen")) for doc in integrators]
    cancelled = {str(listen.get("resource")) for _, listen in listens
                 if isinstance(listen, dict) and listen.get("event") in _CANCEL_EVENTS}
    for doc, listen in listens:
        if not isinstance(listen, dict) or listen.get("event") in _CANCEL_EVENTS:
            continue
        resource = str(listen.get("resource"))
        if resource not in cancelled:
            out.error("FS-INTEGRATOR-CANCEL", doc, ("spec", "listen"),
                      f"Integrator {doc.name!r} reacts to {resource}.{listen.get('event')} but no Integrator "
                      f"reacts to the cancel of {resource}",
                      f"Add an Integrator with `listen: {{resource: {resource}, event: on_cancel}}` (or before_cancel) "
                      "that undoes the effect; without it a cancel on the source would be blocked for good.")
    for doc in integrators:
        call = doc.spec.get("call")
        if not isinstance(call, dict) or not isinstance(call.get("resource"), str):
            continue
        key = _split_target(call["resource"], None) if "." in call["resource"] else None
        spec = entities.get(key) if key else None
        if spec is None:
            continue  # target not in this project: cannot verify
        actions = _own_actions(spec)
        action = call.get("action")
        if action not in actions:
            out.error("FS-INTEGRATOR-TARGET", doc, ("spec", "call", "action"),
                      f"Integrator {doc.name!r} calls {call['resource']}.{action}, which that entity does not declare",
                      f"Declare action {action!r} on {call['resource']} (idempotent: true), or call one it declares"
                      f"{': ' + ', '.join(sorted(actions)) if actions else ''}.")
        elif not actions[action]:
            out.error("FS-INTEGRATOR-IDEMPOTENT", doc, ("spec", "call", "action"),
                      f"Integrator {doc.name!r} calls {call['resource']}.{action}, which is not idempotent",
                      f"Mark `{action}` on {call['resource']} `idempotent: true`: a cross-module call may be retried.")
