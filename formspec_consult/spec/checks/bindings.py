"""Cross-document bindings FormSpec checks: persist categories, uses.resources, datastores.

- a relation may not cross `persist.category` (operational → financial …): the engine blocks
  cross-category joins, so it could never resolve (`formspec validate`);
- an action's `uses.resources` names entities that exist (`formspec check`);
- a Module's `datastore:` names a `kind: Datastore` document (`formspec check`).
"""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.checks.context import Findings, Index
from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document


def _items(value: Any) -> list[tuple[int, dict[str, Any]]]:
    return [(i, v) for i, v in enumerate(value) if isinstance(v, dict)] if isinstance(value, list) else []


def _category(spec: dict[str, Any]) -> str:
    persist = spec.get("persist")
    value = persist.get("category") if isinstance(persist, dict) else None
    return value if isinstance(value, str) else ""


def check_bindings(docs: list[Document], index: Index, out: Findings) -> None:
    """Relation categories, uses.resources and datastore bindings over the effective documents."""
    datastores = {d.name for d in docs if effective_kind(d.kind) == "Datastore" and d.name}
    for doc in docs:
        kind = effective_kind(doc.kind)
        if kind == "Datastore" and not doc.spec.get("serves"):
            out.error("FS-DATASTORE-SERVES", doc, ("spec",), f"datastore {doc.name!r} serves no primitive",
                      "List what it serves under `serves:` (db, cache, lock, queue, pubsub, storage, config, "
                      "kvstore, log) — FormSpec's check refuses an empty list.")
        elif kind == "Datastore":
            _check_driver(doc, out)
        if kind == "Entity":
            _check_categories(doc, index, out)
            _check_uses(doc, index, out)
        elif kind == "Module":
            bound = doc.spec.get("datastore")
            if isinstance(bound, str) and bound and bound not in datastores:
                out.error("FS-DATASTORE-BINDING", doc, ("spec", "datastore"),
                          f"module {doc.name!r} binds datastore {bound!r}, which no `kind: Datastore` declares",
                          f"Add a Datastore named {bound!r}, fix the name"
                          f"{' (declared: ' + ', '.join(sorted(datastores)) + ')' if datastores else ''}, "
                          "or drop `datastore:` to use the default one.")


def _check_categories(doc: Document, index: Index, out: Findings) -> None:
    own = _category(doc.spec)
    if not own:
        return
    fields = _items(doc.spec.get("fields"))
    rows: list[tuple[tuple[Any, ...], dict[str, Any]]] = [(("spec", "fields", i), f) for i, f in fields]
    for i, f in fields:
        child = f.get("child")
        if isinstance(child, dict):
            rows += [(("spec", "fields", i, "child", "fields", j), cf) for j, cf in _items(child.get("fields"))]
    for path, f in rows:
        rel = f.get("relation")
        resource = rel.get("resource") if isinstance(rel, dict) else None
        key = index.entity_key(resource, doc.module) if isinstance(resource, str) else None
        if key is None:
            continue
        theirs = _category(index.entities[key].spec)
        if theirs and theirs != own:
            out.error("FS-RELATION-CATEGORY", doc, path + ("relation", "resource"),
                      f"relation {f.get('name')!r} crosses persist categories ({own} → {theirs}); "
                      "FormSpec blocks joins across categories, so it can never resolve",
                      "Keep related entities in one persist.category, or carry the value over with an event "
                      "or an Integrator instead of a relation.")


def _as_module_entity(ref: str) -> str:
    """How FormSpec's `check` splits a uses.resources entry: at the first `.` (else `/`)."""
    sep = "." if "." in ref else "/"
    module, _, entity = ref.partition(sep)
    return f"{entity!r} of module {module!r}"


def _check_uses(doc: Document, index: Index, out: Findings) -> None:
    for i, action in _items(doc.spec.get("actions")):
        uses = action.get("uses")
        resources = uses.get("resources") if isinstance(uses, dict) else None
        for j, ref in enumerate(resources if isinstance(resources, list) else []):
            if not isinstance(ref, str) or "*" in ref or not ("." in ref or "/" in ref):
                continue
            _, found = index.resolve_entity(ref, doc.module)
            if not found:
                out.error("FS-USES-RESOURCE", doc, ("spec", "actions", i, "uses", "resources", j),
                          f"action {action.get('name')!r} declares it uses {ref!r}, which FormSpec reads as "
                          f"entity {_as_module_entity(ref)}; no such entity exists",
                          "Each uses.resources entry names an entity as `<module>.<entity>` (or `<module>/<entity>`),"
                          " never `<entity>.<action>`: write the module that owns the entity, then its name, or "
                          "remove the entry (`formspec check --fix` removes entries that name no entity).")


#: which primitives each Datastore driver can serve (FormSpec's DatastoreDriver.Serves)
DRIVER_SERVES: dict[str, tuple[str, ...]] = {
    "sqlite": ("db", "kvstore"), "postgres": ("db", "kvstore"),
    "valkey": ("cache", "lock", "kvstore", "queue", "pubsub"), "redis": ("cache", "lock", "kvstore", "queue", "pubsub"),
    "s3": ("storage",), "minio": ("storage",), "fs": ("storage",),
    "nats": ("queue", "pubsub"),
    "memory": ("cache", "lock", "queue", "pubsub", "kvstore"),
}


def _check_driver(doc: Document, out: Findings) -> None:
    """FormSpec's checkDatastores: every primitive a Datastore serves is one its driver can serve."""
    driver = doc.spec.get("driver")
    serves = doc.spec.get("serves")
    if not isinstance(driver, str) or not isinstance(serves, list):
        return
    compatible = DRIVER_SERVES.get(driver, ())
    for i, primitive in enumerate(serves):
        if primitive in compatible:
            continue
        able = [d for d, prims in DRIVER_SERVES.items() if primitive in prims]
        out.error("FS-DATASTORE-DRIVER", doc, ("spec", "serves", i),
                  f"datastore {doc.name!r}: driver {driver!r} cannot serve primitive {primitive!r}",
                  f"Driver {driver!r} serves {', '.join(compatible) or 'nothing FormSpec knows'}; "
                  + (f"for {primitive!r} use a Datastore with driver {', '.join(able)}."
                     if able else f"{primitive!r} is served by no driver, drop it from `serves`."))
