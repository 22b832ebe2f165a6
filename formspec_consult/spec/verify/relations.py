"""Relation verifiers: a has_many/has_one needs a belongs_to on the other side to hold its key."""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.model import Document
from formspec_consult.spec.verify.findings import Finding, finding


def _ref(ref: str, own_module: str | None) -> tuple[str | None, str]:
    for sep in ("/", "."):
        if sep in ref:
            module, _, name = ref.rpartition(sep)
            return module.lower(), name.lower()
    return (own_module or "").lower() or None, ref.lower()


class EntityIndex:
    """Entities of a tree by (module, name) and by bare name."""

    def __init__(self, docs: list[Document]) -> None:
        self.by_key: dict[tuple[str | None, str], Document] = {}
        self.by_name: dict[str, list[Document]] = {}
        for doc in docs:
            if doc.name:
                self.by_key[((doc.module or "").lower() or None, doc.name.lower())] = doc
                self.by_name.setdefault(doc.name.lower(), []).append(doc)

    def resolve(self, ref: str, own_module: str | None) -> Document | None:
        module, name = _ref(ref, own_module)
        hit = self.by_key.get((module, name))
        if hit is None and len(self.by_name.get(name, [])) == 1:
            hit = self.by_name[name][0]
        return hit


def _relations(doc: Document) -> list[tuple[int, dict[str, Any], dict[str, Any]]]:
    out = []
    for i, f in enumerate(doc.spec.get("fields") or []):
        if isinstance(f, dict) and isinstance(f.get("relation"), dict) and isinstance(f["relation"].get("resource"), str):
            out.append((i, f, f["relation"]))
    return out


def verify_inverses(doc: Document, index: EntityIndex) -> list[Finding]:
    """A has_many/has_one whose target has no belongs_to back (so no field holds the key)."""
    out: list[Finding] = []
    for i, f, rel in _relations(doc):
        if rel.get("type") not in ("has_many", "has_one"):
            continue
        target = index.resolve(rel["resource"], doc.module)
        if target is None or target.read_only:
            continue
        target_fields = {g.get("name") for g in target.spec.get("fields") or [] if isinstance(g, dict)}
        if isinstance(rel.get("foreign_key"), str) and rel["foreign_key"] in target_fields:
            continue
        back = [
            g for _, g, r in _relations(target)
            if r.get("type") == "belongs_to" and index.resolve(r["resource"], target.module) is doc
        ]
        if not back:
            out.append(finding(
                "FSV-RELATION-NO-INVERSE", doc, ("spec", "fields", i),
                f"{doc.name}.{f['name']} is {rel['type']} {rel['resource']}, but {target.name!r} has no belongs_to "
                f"back to {doc.name!r}",
                f"Add {_back_field(doc, target)} to the `spec.fields` of {target.name!r} (it holds the key), or "
                f"name an existing field of {target.name!r} with `foreign_key`."))
    return out


def _back_field(doc: Document, target: Document) -> str:
    """The belongs_to field (as YAML the gate accepts) that points `target` back at `doc`."""
    taken = {g.get("name") for g in target.spec.get("fields") or [] if isinstance(g, dict)}
    name = next(n for n in (doc.name, f"{doc.name}_ref", f"parent_{doc.name}") if n not in taken)
    resource = f"{doc.module}.{doc.name}" if doc.module else str(doc.name)
    return f"`{{name: {name}, type: relation, relation: {{type: belongs_to, resource: {resource}}}}}`"
