"""Forms and Tables may only list fields their entity has (or gains through an extension).

FormSpec's `check` (checkForms) refuses a Form section field its entity lacks: an error here too.
It does not resolve Table columns (dot-paths and system fields make that a guess), so a column
naming no field is a warning (FS-VIEW-COLUMN).
"""

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


def _full_name(doc: Document, path: tuple[Any, ...]) -> str | None:
    node: Any = doc.data
    for step in path:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            return None
    return _name_of(node)


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
    is_table = effective_kind(doc.kind) == "Table"
    if not is_table:
        _check_widget_cardinality(doc, index.entities[key], out)
    for path, ref in refs:
        name = ref.rstrip(".")
        if not is_table:
            # FormSpec's checkForms compares a form field with the declared fields, exactly: a
            # dot-path or a system field is reported (fields of Entity Extensions stay allowed)
            if ref.endswith(".") or name not in names:
                full = _full_name(doc, path) or name
                out.error("FS-VIEW-FIELD", doc, path, f"{target!r} has no field {full!r}",
                          f"A form field names one declared field of the entity (or of its extensions): "
                          f"{', '.join(sorted(names)) or '(none)'}.")
            continue
        if ref.endswith(".") and f"{name}_id" in names:
            continue
        if name not in names and name not in _SYSTEM_FIELDS:
            listing = ", ".join(sorted(names)) or "(none)"
            if effective_kind(doc.kind) == "Table":
                out.warn("FS-VIEW-COLUMN", doc, path, f"{target!r} has no field {name!r}; the column would stay empty",
                         f"Use a field of the entity (or of its extensions): {listing}.")
            else:  # pragma: no cover - forms are handled above
                out.error("FS-VIEW-FIELD", doc, path, f"{target!r} has no field {name!r}",
                          f"List only fields of the entity (or of its extensions): {listing}.")


#: widgets FormSpec's WidgetCardinalityMismatch judges: one picking a set, three picking one value
_SET_WIDGET = "select-multi-tag"
_ONE_VALUE_WIDGETS = frozenset({"select", "radio-group", "combobox"})
#: field types that hold one value or a set, so `options` on them needs `multiple`
AMBIGUOUS_OPTION_TYPES = frozenset({"json", "string"})


def _check_widget_cardinality(doc: Document, entity: Document, out: Findings) -> None:
    """FormSpec's checkForms: a section field's `widget` must agree with the field's cardinality."""
    declared = {f["name"]: f for f in as_list(entity.spec.get("fields"))
                if isinstance(f, dict) and isinstance(f.get("name"), str)}
    for j, section in enumerate(as_list(doc.spec.get("sections"))):
        if not isinstance(section, dict):
            continue
        for i, item in enumerate(as_list(section.get("fields"))):
            if not isinstance(item, dict) or not isinstance(item.get("widget"), str):
                continue
            field = declared.get(str(item.get("field")))
            if field is None:
                continue
            problem = widget_cardinality_problem(field, item["widget"])
            if problem:
                out.error("FS-WIDGET-CARDINALITY", doc, ("spec", "sections", j, "fields", i, "widget"), *problem)


def widget_cardinality_problem(field: dict[str, Any], widget: str) -> tuple[str, str] | None:
    """(message, hint) when `widget` contradicts how many values `field` holds, else None."""
    name, kind = field["name"], field.get("type")
    options = bool(as_list(field.get("options")))
    multiple = field.get("multiple")
    if widget == _SET_WIDGET:
        if not options and not as_list(field.get("enum_values")):
            return None
    elif widget in _ONE_VALUE_WIDGETS:
        if not options:
            return None
    else:
        return None
    if not isinstance(multiple, bool):
        if kind in AMBIGUOUS_OPTION_TYPES:
            return (f"field {name!r} is a {kind} field with `options` but no `multiple`, so `widget: {widget}` "
                    "cannot be judged",
                    "A json or string field with options must say how many values it holds: add "
                    "`multiple: true` (a set) or `multiple: false` (one value) to the field in the entity.")
        multiple = False
    if widget == _SET_WIDGET and not multiple:
        return (f"`widget: select-multi-tag` needs a field that holds a set, but the entity declares {name!r} "
                f"`multiple: false`" + ("" if "multiple" in field else f" (the default for {kind})"),
                "Use a one-value widget (select, radio-group or combobox), or make the field a set: "
                "`type: json` (or string) with `multiple: true` in the entity.")
    if widget != _SET_WIDGET and multiple:
        return (f"`widget: {widget}` picks one value, but the entity declares {name!r} a set (`multiple: true`)",
                "Use `widget: select-multi-tag` for a set, or set `multiple: false` on the field if one value "
                "is meant.")
    return None
