"""FormSpec's `spec.ValidateRowScopeFilters`: the rules of a server-enforced filter list.

An Entity's `row_scope` and a role grant's `row_scope` are the same construct, held to the same
rules (a filter that silently does not filter is worse than none):
- `field` is named (and, on an Entity, declared or an engine-owned field);
- `op`, when given, is one the storage layer implements;
- exactly one value source: `from: session` (a login attribute, `attr`), `from: route` (a query
  parameter, `param`; with `via: <module>.<entity>` and `via_field` the value is read from that
  record), or a literal `value`; the operators null/notnull/root need none; `from` and `value` are
  not both given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: FormSpec's FilterOperators (pkg/spec/rowscope.go)
FILTER_OPERATORS = ("eq", "neq", "gt", "gte", "lt", "lte", "like", "ilike", "in", "nin", "between", "null",
                    "notnull", "descendant_of", "child_of", "root")
VALUELESS_OPERATORS = frozenset({"null", "notnull", "root"})
_SOURCES_HINT = ("Give the entry one value source: `from: session` (a login attribute, optionally `attr: <name>`), "
                 "`from: route` (a query parameter, optionally `param: <name>`), or a fixed `value: <text>`.")


def _text(entry: dict[str, Any], key: str) -> str:
    value = entry.get(key)
    return "" if value is None else str(value)


def _entity_ref(ref: str) -> bool:
    for sep in (".", "/"):
        module, found, name = ref.rpartition(sep)
        if found:
            return bool(module) and bool(name)
    return False


def filter_problem(label: str, entry: dict[str, Any],
                   field_known: Callable[[str], bool] | None) -> tuple[str | None, str, str] | None:
    """The first rule `entry` breaks, as (key to point at, message, hint); None when it keeps them all."""
    field = _text(entry, "field")
    if not field:
        return None, f"{label} names no `field`", "Name the field the filter compares, e.g. `field: branch_id`."
    if field_known is not None and not field_known(field):
        return "field", f"{label} filters on {field!r}, which is not a field of this entity", ""
    op = _text(entry, "op")
    if op and op not in FILTER_OPERATORS:
        return "op", (f"{label} ({field}) uses operator {op!r}, which the storage layer cannot express, so the "
                      "filter would not hold"), f"Use one of: {', '.join(FILTER_OPERATORS)} (or leave `op` out for eq)."
    source, value = _text(entry, "from"), _text(entry, "value")
    via, via_field = _text(entry, "via"), _text(entry, "via_field")
    if source and value:
        return "value", f"{label} ({field}) has both `from: {source}` and a literal `value`", (
            "Keep one value source: drop `value` to read it from the " + source + ", or drop `from` for a fixed value.")
    if source == "session":
        if via:
            return "via", f"{label} ({field}): `via` only applies to `from: route`", (
                "Drop `via`: a login attribute is not a reference to a record.")
    elif source == "route":
        if via and not _entity_ref(via):
            return "via", f"{label} ({field}): via {via!r} is not written `<module>.<entity>`", (
                "Name the entity the route parameter points at, e.g. `via: sales.order`.")
        if via and not via_field:
            return "via", f"{label} ({field}): `via` needs `via_field`", (
                f"Add `via_field: <field of {via} that holds the value>`.")
        if via_field and not via:
            return "via_field", f"{label} ({field}): `via_field` means nothing without `via`", (
                "Add `via: <module>.<entity>` (the record the parameter names), or drop `via_field`.")
    elif not source:
        if via or via_field:
            return ("via" if via else "via_field"), f"{label} ({field}): `via` applies to `from: route` only", (
                "Add `from: route`, or drop `via`/`via_field`.")
        if op not in VALUELESS_OPERATORS and not value:
            return None, f"{label} ({field}) has no value source, so it would not filter", _SOURCES_HINT
    else:
        return "from", f"{label} ({field}) takes its value from {source!r}; FormSpec reads `session`, `route` or a " \
            "literal `value`", _SOURCES_HINT
    return None
