"""Events that would silently never fire or never be delivered (FormSpec's validate layer).

- `validateSubscriptionEvents`: a Subscription's `events` are written `{module}.{entity}.{event}`;
  when that entity is in the tree, the event is one it declares or a reserved lifecycle event
  (`before_<action>` / `on_<action>` of the reserved actions). An entity outside the tree cannot
  be verified and is left alone.
- `validateEventTargets`: a `queue` delivery names its job as `service.action` (the publisher's
  module) or `module.service.action`, and when that Service is in the tree the action exists; a
  `notification` delivery has `notification:` with a `recipient`, or a `handler:` Service action.
"""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.checks.context import Findings, module_key
from formspec_consult.spec.kinds import RESERVED_ACTIONS, effective_kind
from formspec_consult.spec.model import Document


def _items(value: Any) -> list[tuple[int, dict[str, Any]]]:
    return [(i, v) for i, v in enumerate(value) if isinstance(v, dict)] if isinstance(value, list) else []


def _actions(spec: dict[str, Any]) -> set[str]:
    return {a["name"] for _, a in _items(spec.get("actions")) if isinstance(a.get("name"), str)}


def check_event_consumers(docs: list[Document], out: Findings) -> None:
    """Subscription events, queue jobs and notification deliveries across the effective documents."""
    events: dict[str, set[str]] = {}
    services: dict[str, set[str]] = {}
    for doc in docs:
        kind = effective_kind(doc.kind)
        key = f"{module_key(doc.module or '')}.{(doc.name or '').lower()}"
        if kind == "Entity" and doc.name:
            declared = {e["name"] for _, e in _items(doc.spec.get("events")) if isinstance(e.get("name"), str)}
            events[key] = declared | {f"{p}_{a}" for a in RESERVED_ACTIONS for p in ("before", "on")}
        elif kind == "Service" and doc.name:
            services[key] = _actions(doc.spec)
    for doc in docs:
        kind = effective_kind(doc.kind)
        if kind == "Subscription":
            _subscription(doc, events, out)
        elif kind == "Entity":
            _deliveries(doc, services, out)


def _subscription(doc: Document, events: dict[str, set[str]], out: Findings) -> None:
    raw = doc.spec.get("events")
    for i, ref in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(ref, str):
            continue
        where = ("spec", "events", i)
        name = ref.strip()
        entity, dot, event = name.rpartition(".")
        if not name or not dot or not entity:
            out.error("FS-SUBSCRIPTION-EVENT", doc, where,
                      f"subscription event {ref!r} is not written `<module>.<entity>.<event>`, so it would never fire",
                      "Name the event fully, e.g. `billing.order.on_submit` (an event the entity declares, or "
                      "before_/on_ of a reserved action).")
            continue
        module, _, entity_name = entity.rpartition(".")
        known = events.get(f"{module_key(module)}.{entity_name.lower()}")
        if known is not None and event not in known:
            declared = sorted(known - _reserved())
            out.error("FS-SUBSCRIPTION-EVENT", doc, where,
                      f"subscription listens to {name!r}, but {entity} declares no event {event!r}: it would never fire",
                      f"Use an event {entity} declares ({', '.join(declared) or 'none declared'}) or a lifecycle "
                      "event such as on_create, on_update, on_submit.")


def _reserved() -> set[str]:
    return {f"{p}_{a}" for a in RESERVED_ACTIONS for p in ("before", "on")}


def _deliveries(doc: Document, services: dict[str, set[str]], out: Findings) -> None:
    for i, event in _items(doc.spec.get("events")):
        for j, delivery in _items(event.get("deliver")):
            where = ("spec", "events", i, "deliver", j)
            channel = delivery.get("channel")
            if channel == "queue":
                _service_ref(doc, where, "job", delivery.get("job"), event.get("name"), services, out, required=True)
            elif channel == "notification":
                note, handler = delivery.get("notification"), delivery.get("handler")
                if not note and not (isinstance(handler, str) and handler.strip()):
                    out.error("FS-EVENT-JOB", doc, where,
                              f"event {event.get('name')!r} delivers on `notification` with neither `notification:` "
                              "nor `handler:`, so it would deliver nothing",
                              "Add `notification: {recipient: <field holding the addressee>, …}` for an in-app "
                              "notification, or `handler: <service>.<action>` for another channel.")
                elif isinstance(note, dict) and not str(note.get("recipient") or "").strip():
                    out.error("FS-EVENT-JOB", doc, where + ("notification",),
                              f"event {event.get('name')!r}: the notification has no `recipient`, so nobody could read it",
                              "Add `recipient:` (the field or value naming who receives it).")
                elif isinstance(handler, str) and handler.strip():
                    _service_ref(doc, where, "handler", handler, event.get("name"), services, out, required=False)


def _service_ref(doc: Document, where: tuple[Any, ...], key: str, ref: Any, event: Any,
                 services: dict[str, set[str]], out: Findings, required: bool) -> None:
    text = ref.strip() if isinstance(ref, str) else ""
    if not text:
        if required:
            out.error("FS-EVENT-JOB", doc, where, f"event {event!r} delivers on `queue` without a `job:`, so the worker "
                      "has nothing to call", "Add `job: <service>.<action>` naming a Service action of this module "
                      "(or `<module>.<service>.<action>`).")
        return
    parts = text.split(".")
    if len(parts) not in (2, 3) or not all(parts):
        out.error("FS-EVENT-JOB", doc, where + (key,), f"event {event!r}: `{key}: {text}` is not written "
                  "`<service>.<action>` or `<module>.<service>.<action>`",
                  "Name the Service and its action, e.g. `receipt-jobs.generate-receipt`.")
        return
    module = parts[0] if len(parts) == 3 else (doc.module or "")
    service, action = parts[-2], parts[-1]
    actions = services.get(f"{module_key(module)}.{service.lower()}")
    if actions is not None and action not in actions:
        out.error("FS-EVENT-JOB", doc, where + (key,),
                  f"event {event!r}: `{key}: {text}` names action {action!r}, which Service {service!r} does not declare",
                  f"Use one of its actions ({', '.join(sorted(actions)) or 'none declared'}) or declare it.")
