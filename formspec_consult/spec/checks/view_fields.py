"""Forms and Tables may only list fields their entity has (or gains through an extension)."""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.checks.context import Findings, Index, as_list
from formspec_consult.spec.kinds import RESERVED_FIELD_NAMES, effective_kind
from formspec_consult.spec.model import Document

FieldRef = tuple[tuple[Any, ...], str]  # (path in doc, field name)
_SYSTEM_FIELDS = RESERVED_FIELD_NAMES | {"id", "name"}


def _name_of(item: Any) -> str | None:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        value = item.get("field", item.get("name"))
        return value if isinstance(value, str) else None
    return None


def _collect(items: Any, base: tuple[Any, ...], found: list[FieldRef]) -> None:
    if not isinstance(items, list):
        return
    for i, item in enumerate(items):
        name = _name_of(item)
        if name:
            # dotted paths (customer.full_name) reach into a relation: check the first hop only;
            # it names the relation field, or the field without its `_id` (patient.name → patient_id)
            found.append((base + (i,), name.split(".", 1)[0] + ("." if "." in name else "")))


def collect_view_fields(doc: Document) -> list[FieldRef]:
    """Field names a Form (fields, sections[].fields) or Table (columns) lists."""
    kind = effective_kind(doc.kind)
    spec = doc.spec
    found: list[FieldRef] = []
    if kind == "Form":
        _collect(spec.get("fields"), ("spec", "fields"), found)
        sections = as_list(spec.get("sections"))
        for j, section in enumerate(sections):
            if isinstance(section, dict):
                _collect(section.get("fields"), ("spec", "sections", j, "fields"), found)
    elif kind == "Table":
        _collect(spec.get("columns"), ("spec", "columns"), found)
    return found


def check_view_fields(doc: Document, refs: list[FieldRef], index: Index, out: Findings) -> None:
    """Report listed fields that the view's entity does not have."""
    if not refs:
        return
    spec = doc.spec
    target = _target if isinstance(_target := spec.get("entity"), str) else spec.get("resource")
    key = index.entity_key(target, doc.module) if isinstance(target, str) else None
    if key is None:
        return  # an unknown entity is already reported as FS-VIEW-ENTITY
    names = index.field_names(key)
    for path, ref in refs:
        name = ref.rstrip(".")
        if ref.endswith(".") and f"{name}_id" in names:
            continue
        if name not in names and name not in _SYSTEM_FIELDS:
            listing = ", ".join(sorted(names)) or "(none)"
            out.error("FS-VIEW-FIELD", doc, path, f"{target!r} has no field {name!r}",
                      f"List only fields of the entity (or of its extensions): {listing}.")
