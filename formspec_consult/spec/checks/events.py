"""Entity rules FormSpec's engine enforces beyond its schema: events, hooks, extensions, renames.

Each is a rule of `ValidateEntitySpec` (FormSpec stops at the first; we report them all).
"""

from __future__ import annotations

import re
from typing import Any

from formspec_consult.spec.checks.context import Findings
from formspec_consult.spec.kinds import RESERVED_ACTIONS, RESERVED_FIELD_NAMES
from formspec_consult.spec.model import Document

#: delivery channels that need the publisher's outbox: the event must be published durably
DURABLE_CHANNELS = ("reliable_event", "queue")
_HOOK_ACTION_TIMINGS = ("before", "after", "on_error")
_HOOK_EVENT_TIMINGS = ("before_deliver", "after_deliver")
_NAMESPACE = re.compile(r"^[a-z][a-z0-9_]*$")


def _items(value: Any) -> list[tuple[int, dict[str, Any]]]:
    return [(i, v) for i, v in enumerate(value) if isinstance(v, dict)] if isinstance(value, list) else []


def declared_actions(spec: dict[str, Any]) -> set[str]:
    """Action names an entity declares, plus the reserved ones it always has."""
    names = {a["name"] for _, a in _items(spec.get("actions")) if isinstance(a.get("name"), str)}
    soft = spec.get("soft_deactivate")
    if isinstance(soft, dict) and soft.get("enabled"):
        names |= {"deactivate", "reactivate"}
    return names | RESERVED_ACTIONS


def action_sources(spec: dict[str, Any]) -> set[str]:
    """FormSpec's ActionSources: the declared actions plus every transition `via` (a via is an action)."""
    sm = spec.get("state_machine")
    vias = {t.get("via", t.get("action")) for _, t in _items(sm.get("transitions"))} if isinstance(sm, dict) else set()
    return declared_actions(spec) | {v for v in vias if isinstance(v, str) and v}


def check_entity_engine_rules(doc: Document, out: Findings) -> None:
    """Events (naming, type, durability), hooks, extend_storage and renamed_from."""
    spec = doc.spec
    _check_events(doc, spec, out)
    _check_hooks(doc, spec, out)
    _check_extension(doc, spec, out)
    _check_renames(doc, spec, out)


def _check_events(doc: Document, spec: dict[str, Any], out: Findings) -> None:
    for i, event in _items(spec.get("events")):
        name = event.get("name")
        if not isinstance(name, str):
            continue
        where = ("spec", "events", i)
        kind = event.get("type")
        if name.startswith(("before_", "on_")):
            wanted = "sync" if name.startswith("before_") else "async"
            if kind not in (None, "", wanted):
                out.error("FS-EVENT-TYPE-MISMATCH", doc, where + ("type",),
                          f"event {name!r} is a {name.split('_', 1)[0]}_* event, so its type is {wanted}, not {kind!r}",
                          f"Write `type: {wanted}` or leave `type` out (the prefix decides it).")
        elif kind in (None, ""):
            out.error("FS-EVENT-TYPE-MISSING", doc, where,
                      f"custom event {name!r} (not named before_* or on_*) has no `type`",
                      "Add `type: sync` (it gates the action) or `type: async` (a notification afterwards), "
                      "or rename it on_<something>.")
        elif kind not in ("sync", "async"):
            out.error("FS-EVENT-TYPE-MISMATCH", doc, where + ("type",),
                      f"event {name!r} has type {kind!r}; an event is sync or async", "Write `type: sync` or `type: async`.")
        publish = event.get("publish")
        durable = isinstance(publish, dict) and publish.get("durable") is True
        for j, delivery in _items(event.get("deliver")):
            channel = delivery.get("channel")
            if channel in DURABLE_CHANNELS and not durable:
                out.error("FS-EVENT-DURABLE", doc, where + ("deliver", j, "channel"),
                          f"event {name!r} is delivered on channel {channel}, which needs a durable publisher",
                          "Add `publish: {durable: true}` to the event (or deliver it on another channel).")


def _check_hooks(doc: Document, spec: dict[str, Any], out: Findings) -> None:
    actions = action_sources(spec)
    for i, hook in _items(spec.get("hooks")):
        where = ("spec", "hooks", i)
        on, action, event = hook.get("on"), hook.get("action"), hook.get("event")
        if on in _HOOK_ACTION_TIMINGS:
            if not action:
                out.error("FS-HOOK-SHAPE", doc, where, f"a hook on: {on} needs `action` (an action name or \"*\")",
                          "Name the action it attaches to, e.g. `action: submit`, or `action: \"*\"` for all.")
            elif event:
                out.error("FS-HOOK-SHAPE", doc, where + ("event",), f"a hook on: {on} attaches to an action, not an event",
                          "Drop `event:` (before_deliver/after_deliver hooks are the ones that name an event).")
            elif isinstance(action, str) and action != "*" and action not in actions:
                own = sorted(actions - RESERVED_ACTIONS)
                out.error("FS-HOOK-ACTION", doc, where + ("action",),
                          f"hook on: {on} names action {action!r}, which this entity does not declare",
                          f"Declare it under `actions:` (or as a state_machine transition's `via`), or use one of: "
                          f"{', '.join(own + sorted(RESERVED_ACTIONS))}.")
        elif on in _HOOK_EVENT_TIMINGS:
            if not event:
                out.error("FS-HOOK-SHAPE", doc, where, f"a hook on: {on} needs `event` (an event name or \"*\")",
                          "Name the event whose delivery it wraps, e.g. `event: on_submit`.")
            elif action:
                out.error("FS-HOOK-SHAPE", doc, where + ("action",), f"a hook on: {on} attaches to an event, not an action",
                          "Drop `action:` (before/after/on_error hooks are the ones that name an action).")
        elif on is not None:
            out.error("FS-HOOK-SHAPE", doc, where + ("on",), f"hook on: {on!r} is not a hook point",
                      "Use one of: before, after, on_error, before_deliver, after_deliver.")
        if on is not None and hook.get("impl") is None:
            out.error("FS-HOOK-SHAPE", doc, where, f"the hook on: {on} has no `impl`",
                      "Add `impl: {type: script_ref, ref: <name>}` (it runs scripts/<name>.star beside the entity file).")


def _check_extension(doc: Document, spec: dict[str, Any], out: Findings) -> None:
    ext = spec.get("extend_storage")
    if not isinstance(ext, dict):
        return
    base = ("spec", "extend_storage")
    target = ext.get("target")
    if isinstance(target, str):
        parts = target.split("/")
        if len(parts) != 2 or not all(parts):
            out.error("FS-EXTEND-TARGET-FORMAT", doc, base + ("target",),
                      f"extend_storage.target {target!r} is not written module/entity",
                      f"Write it with one slash, e.g. `target: {target.replace('.', '/', 1) if '.' in target else 'crm/customer'}`.")
    namespace = ext.get("namespace")
    if not namespace:
        out.error("FS-EXTEND-NAMESPACE", doc, base, "extend_storage has no `namespace`",
                  "Add `namespace: <3-32 lower-case letters, digits or _>`; the extension's data lives in "
                  "column ext_<namespace> of the target table.")
    elif not isinstance(namespace, str) or not 3 <= len(namespace) <= 32 or not _NAMESPACE.match(namespace):
        out.error("FS-EXTEND-NAMESPACE", doc, base + ("namespace",),
                  f"extend_storage.namespace {namespace!r} must be 3-32 characters: a lower-case letter, "
                  "then lower-case letters, digits or _",
                  "e.g. `namespace: loyalty_points`.")
    for i, f in _items(spec.get("fields")):
        if f.get("required") is True:
            out.error("FS-EXTEND-REQUIRED", doc, ("spec", "fields", i, "required"),
                      f"extension field {f.get('name')!r} cannot be required (existing rows of the target have no value)",
                      "Drop `required: true`; give it a `default` if it needs one.")


def _check_renames(doc: Document, spec: dict[str, Any], out: Findings) -> None:
    fields = _items(spec.get("fields"))
    names = {f.get("name") for _, f in fields}
    for i, f in fields:
        old = f.get("renamed_from")
        if not isinstance(old, str) or not old:
            continue
        where = ("spec", "fields", i, "renamed_from")
        if old in RESERVED_FIELD_NAMES:
            out.error("FS-FIELD-RENAMED-FROM", doc, where, f"field {f.get('name')!r}: renamed_from {old!r} is a reserved name",
                      "A reserved field was never yours to rename; drop `renamed_from`.")
        elif old in names:
            out.error("FS-FIELD-RENAMED-FROM", doc, where,
                      f"field {f.get('name')!r}: renamed_from {old!r} is still a field of this entity",
                      "Remove the old field (the rename moves its data), or drop `renamed_from`.")
