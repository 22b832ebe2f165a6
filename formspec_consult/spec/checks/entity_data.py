"""The data rules of FormSpec's `spec.ValidateEntitySpec` beyond fields and events.

FormSpec's loader refuses an Entity (and `formspec validate` fails) when:
- a `row_scope` entry breaks `ValidateRowScopeFilters` (see row_filters.py: a declared field, a
  known operator, exactly one value source);
- `scope` names no declared field, or is `required` while its field is not;
- an `assignments` entry repeats a dimension or names undeclared fields;
- `maintained_by` / `invariants` / `sources` / `join_key` / `rebuild` sit on an entity that is not a
  summary, a summary declares sources without a join_key (or the reverse), `rebuild` has no
  sources, or its strategy is not full, partial or none; `maintained_by` is not `<module>/<path>`;
- an invariant's fields are undeclared, or no unique index (without `where`) backs it;
- a field is `removed` or `accept_data_loss` without a `reason`, both at once, removed and renamed,
  or removed and required;
- a money field overrides `currency` without `decimal_places`;
- a `unit` sits on a field that is not enum or string, or names units outside the enum_values;
- `cache.ttl` is not a duration between 1s and 1h.
And across entities (validateScopeSources): a `from: session` row scope whose value nothing provides.
"""

from __future__ import annotations

import re
from typing import Any

from formspec_consult.spec.checks.context import Findings, as_list
from formspec_consult.spec.checks.row_filters import filter_problem
from formspec_consult.spec.kinds import RESERVED_FIELD_NAMES, effective_kind
from formspec_consult.spec.model import Document

_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_SUMMARY_ONLY = ("maintained_by", "invariants", "sources", "join_key", "rebuild")


def _items(value: Any) -> list[tuple[int, dict[str, Any]]]:
    return [(i, v) for i, v in enumerate(value) if isinstance(v, dict)] if isinstance(value, list) else []


def go_duration_seconds(text: str) -> float | None:
    """Seconds in a Go duration such as `300s`, `5m`, `1h30m` (None when it is not one)."""
    if not text or text in ("0",):
        return 0.0 if text == "0" else None
    pos, total = 0, 0.0
    for match in _DURATION.finditer(text):
        if match.start() != pos:
            return None
        total += float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        pos = match.end()
    return total if pos == len(text) else None


def check_entity_data(doc: Document, out: Findings) -> None:
    """Row scope, scope, assignments, summary projections, invariants, removals, money, units, cache."""
    spec = doc.spec
    fields = {f["name"]: f for _, f in _items(spec.get("fields")) if isinstance(f.get("name"), str)}
    names = ", ".join(sorted(fields)) or "(none)"
    _row_scope(doc, spec, fields, names, out)
    _scope(doc, spec, fields, names, out)
    _summary(doc, spec, fields, names, out)
    for i, f in _items(spec.get("fields")):
        _field(doc, ("spec", "fields", i), f, out)
    cache = spec.get("cache")
    ttl = cache.get("ttl") if isinstance(cache, dict) else None
    if isinstance(ttl, str):
        seconds = go_duration_seconds(ttl)
        if seconds is None or not 1 <= seconds <= 3600:
            out.error("FS-CACHE-TTL", doc, ("spec", "cache", "ttl"),
                      f"cache.ttl {ttl!r} is not a duration between 1s and 1h",
                      "Write a duration such as `30s`, `5m` or `1h` (FormSpec caches for 1 second to 1 hour).")


def _row_scope(doc: Document, spec: dict[str, Any], fields: dict[str, Any], names: str, out: Findings) -> None:
    known = lambda name: name in fields or name in RESERVED_FIELD_NAMES  # noqa: E731 - tiny predicate
    for i, entry in _items(spec.get("row_scope")):
        problem = filter_problem(f"row_scope[{i}]", entry, known)
        if problem is not None:
            key, message, hint = problem
            where = ("spec", "row_scope", i) + ((key,) if key and key in entry else ())
            out.error("FS-ROW-SCOPE", doc, where, message, hint or f"Name a declared field: {names}.")


def _scope(doc: Document, spec: dict[str, Any], fields: dict[str, Any], names: str, out: Findings) -> None:
    scope = spec.get("scope")
    if isinstance(scope, dict):
        field = scope.get("field")
        if isinstance(field, str) and field not in fields:
            out.error("FS-SCOPE", doc, ("spec", "scope", "field"), f"scope.field {field!r} is not a field",
                      f"Name the field that carries the dimension value: {names}.")
        elif isinstance(field, str) and scope.get("required") is True and fields[field].get("required") is not True:
            out.error("FS-SCOPE", doc, ("spec", "scope", "required"),
                      f"scope is required, but its field {field!r} is not: rows could still omit the dimension",
                      f"Mark `{field}` `required: true`, or drop `required` from scope.")
    seen: set[str] = set()
    for i, entry in _items(spec.get("assignments")):
        where = ("spec", "assignments", i)
        dimension = entry.get("dimension")
        if isinstance(dimension, str):
            if dimension in seen:
                out.error("FS-SCOPE", doc, where + ("dimension",), f"assignments declare dimension {dimension!r} twice",
                          "One principal has one value per dimension: keep one entry.")
            seen.add(dimension)
        for key in ("field", "principal_field"):
            value = entry.get(key)
            if isinstance(value, str) and value not in fields:
                out.error("FS-SCOPE", doc, where + (key,), f"assignments[{i}].{key} {value!r} is not a field",
                          f"Name a declared field: {names}.")


def _summary(doc: Document, spec: dict[str, Any], fields: dict[str, Any], names: str, out: Findings) -> None:
    summary = spec.get("characteristic") == "summary"
    if not summary:
        for key in _SUMMARY_ONLY:
            if key in spec:
                out.error("FS-SUMMARY-DECL", doc, ("spec", key),
                          f"`{key}` is only valid on a summary projection (`characteristic: summary`)",
                          "Set `characteristic: summary`, or drop the key.")
        return
    maintained = spec.get("maintained_by")
    if isinstance(maintained, str) and maintained and ("/" not in maintained or maintained.startswith("/")):
        out.error("FS-SUMMARY-DECL", doc, ("spec", "maintained_by"),
                  f"maintained_by {maintained!r} is not a script reference",
                  "Write `maintained_by: <module>/<script path>`.")
    sources, join_key, rebuild = spec.get("sources"), spec.get("join_key"), spec.get("rebuild")
    if sources and not join_key:
        out.error("FS-SUMMARY-DECL", doc, ("spec", "sources"), "a summary with `sources` needs `join_key`",
                  "Add `join_key:` (how the source rows map onto a projection row).")
    if join_key and not sources:
        out.error("FS-SUMMARY-DECL", doc, ("spec", "join_key"), "a summary with `join_key` needs `sources`",
                  "List the entities it is computed from under `sources:`.")
    if isinstance(rebuild, dict):
        strategy = rebuild.get("strategy")
        if strategy not in (None, "", "full", "partial", "none"):
            out.error("FS-SUMMARY-DECL", doc, ("spec", "rebuild", "strategy"),
                      f"rebuild.strategy {strategy!r} is not full, partial or none", "Use full, partial or none.")
        if not sources:
            out.error("FS-SUMMARY-DECL", doc, ("spec", "rebuild"), "a summary `rebuild` needs `sources` (and `join_key`)",
                      "List the source entities under `sources:` and add `join_key:`, or drop `rebuild`.")
    indexes = [ix for _, ix in _items(spec.get("indexes"))]
    persist = spec.get("persist")
    if isinstance(persist, dict):
        indexes += [ix for _, ix in _items(persist.get("indexes"))]
    backed = {tuple(sorted(ix.get("fields") or [])) for ix in indexes
              if ix.get("unique") is True and not ix.get("where") and isinstance(ix.get("fields"), list)}
    for i, inv in _items(spec.get("invariants")):
        unique = [u for u in as_list(inv.get("unique")) if isinstance(u, str)]
        missing = [u for u in unique if u not in fields]
        if missing:
            out.error("FS-INVARIANT", doc, ("spec", "invariants", i, "unique"),
                      f"invariant unique({', '.join(unique)}) names {', '.join(missing)}, not fields of this entity",
                      f"Name declared fields: {names}.")
        elif unique and tuple(sorted(unique)) not in backed:
            out.error("FS-INVARIANT", doc, ("spec", "invariants", i, "unique"),
                      f"invariant unique({', '.join(unique)}) is not backed by a unique index",
                      f"Add `indexes: [{{fields: [{', '.join(unique)}], unique: true}}]` — a summary runs no actions, "
                      "so only the database can hold the invariant.")


def _field(doc: Document, where: tuple[Any, ...], f: dict[str, Any], out: Findings) -> None:
    name = f.get("name")
    removed, lossy = f.get("removed") is True, f.get("accept_data_loss") is True
    if removed or lossy:
        what = "removed" if removed else "accept_data_loss"
        if removed and lossy:
            out.error("FS-FIELD-REMOVED", doc, where, f"field {name!r} is both `removed` and `accept_data_loss`",
                      "Keep `removed: true` (the field goes) or `accept_data_loss: true` (its type changes), not both.")
        elif not str(f.get("reason") or "").strip():
            out.error("FS-FIELD-REMOVED", doc, where + (what,), f"field {name!r} declares `{what}` without a `reason`",
                      "Add `reason: <why the data may go>`: a destructive change must say why it is intended.")
        if removed and f.get("renamed_from"):
            out.error("FS-FIELD-REMOVED", doc, where + ("renamed_from",),
                      f"field {name!r} is `removed` and `renamed_from` at once",
                      "A rename keeps the data and a removal discards it: keep one of them.")
        if removed and f.get("required") is True:
            out.error("FS-FIELD-REMOVED", doc, where + ("required",), f"removed field {name!r} cannot be required",
                      "Drop `required` from the removed field.")
    if f.get("type") == "money" and f.get("currency") and f.get("decimal_places") is None:
        out.error("FS-MONEY-DECIMALS", doc, where + ("currency",),
                  f"money field {name!r} sets currency {f['currency']!r} without `decimal_places`",
                  "Add `decimal_places:` (e.g. 2, or 0 for IDR/JPY): FormSpec has no currency catalogue to look it up.")
    unit = f.get("unit")
    if isinstance(unit, dict):
        if f.get("type") not in ("enum", "string"):
            out.error("FS-UNIT", doc, where + ("unit",),
                      f"field {name!r} of type {f.get('type')!r} has a `unit`; units belong on an enum or string field "
                      "whose values are unit names", "Move `unit` to the field that holds the unit name.")
            return
        if f.get("type") == "enum":
            values = [v for v in as_list(f.get("enum_values")) if isinstance(v, str)]
            base = unit.get("base")
            wrong = [u for u in [base, *as_list(unit.get("convertible"))] if isinstance(u, str) and u not in values]
            if wrong:
                out.error("FS-UNIT", doc, where + ("unit",),
                          f"field {name!r}: unit {', '.join(repr(u) for u in wrong)} is not among its enum_values",
                          f"Use values of the field: {', '.join(values) or '(none)'}.")
        if unit.get("base") in as_list(unit.get("convertible")):
            out.error("FS-UNIT", doc, where + ("unit", "convertible"),
                      f"field {name!r}: unit.convertible repeats the base unit {unit.get('base')!r}",
                      "List only the other units under `convertible`.")
            return
        _unit_factors(doc, where, str(name), unit, out)


def _unit_factors(doc: Document, where: tuple[Any, ...], name: str, unit: dict[str, Any], out: Findings) -> None:
    """FormSpec's ValidateEntitySpec (S12): every convertible unit has a positive factor, and only they do."""
    base = unit.get("base")
    convertible = [u for u in as_list(unit.get("convertible")) if isinstance(u, str)]
    factors: dict[str, Any] = unit["factors"] if isinstance(unit.get("factors"), dict) else {}
    example = ", ".join(f"{u}: <how many {base} one {u} is>" for u in convertible[:2]) or f"<unit>: <how many {base}>"
    missing = [u for u in convertible if u not in factors]
    if missing:
        out.error("FS-UNIT", doc, where + ("unit",),
                  f"field {name!r}: convertible unit {', '.join(repr(u) for u in missing)} has no conversion factor",
                  f"Add `factors:` under `unit` with one positive number per convertible unit, e.g. "
                  f"`factors: {{{example}}}` (the base unit {base!r} has no factor).")
        return
    for unit_name, factor in factors.items():
        if unit_name == base:
            out.error("FS-UNIT", doc, where + ("unit", "factors"),
                      f"field {name!r}: unit.factors names the base unit {base!r}",
                      f"Remove `{base}` from `factors`: the base unit's factor is 1 by definition.")
        elif unit_name not in convertible:
            out.error("FS-UNIT", doc, where + ("unit", "factors"),
                      f"field {name!r}: unit.factors names {unit_name!r}, which is not in unit.convertible",
                      f"Add {unit_name!r} to `convertible`, or remove it from `factors`.")
        elif isinstance(factor, bool) or not isinstance(factor, int | float) or factor <= 0:
            out.error("FS-UNIT", doc, where + ("unit", "factors", unit_name),
                      f"field {name!r}: unit.factors[{unit_name!r}] is {factor!r}, not a positive number",
                      f"Write how many {base} one {unit_name} is, as a number above 0.")
        else:
            continue
        return


#: identity attributes FormSpec resolves from any login without a declaration (validate_scope.go)
BUILTIN_SESSION_ATTRS = frozenset({"principal_id", "user_id", "username", "workspace", "workspace_id"})


def check_scope_sources(docs: list[Document], out: Findings) -> None:
    """FormSpec's validateScopeSources: a `from: session` row scope without `attr` has a source.

    Without `attr`, the value is the entity's scope field; unless that is a built-in identity
    attribute, some entity must declare `assignments` for the scope's dimension, or every read
    fails closed (403) for everybody.
    """
    entities = [d for d in docs if effective_kind(d.kind) == "Entity"]
    assigned = {a["dimension"] for d in entities for _, a in _items(d.spec.get("assignments"))
                if isinstance(a.get("dimension"), str)}
    for doc in entities:
        scope = doc.spec.get("scope")
        attr = scope.get("field") if isinstance(scope, dict) else None
        dimension = scope.get("dimension") if isinstance(scope, dict) else None
        for i, entry in _items(doc.spec.get("row_scope")):
            if entry.get("from") != "session" or entry.get("attr"):
                continue
            if not isinstance(attr, str) or not attr or attr in BUILTIN_SESSION_ATTRS:
                continue
            if isinstance(dimension, str) and dimension in assigned:
                continue
            out.error("FS-SCOPE-SOURCE", doc, ("spec", "row_scope", i),
                      f"row_scope on {entry.get('field')!r} reads the login's {attr!r}, which nothing provides: "
                      "every read would be refused",
                      (f"Declare `assignments: [{{dimension: {dimension}, field: <field with the value>, "
                       "principal_field: <field naming the login>}]` on some entity, or write `attr: <token "
                       "attribute>` on this entry." if dimension else
                       "Write `attr: <token attribute>` on this entry, or declare `scope` and `assignments`."))
            break
