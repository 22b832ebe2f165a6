"""Names a Table, a module menu and an Entity field's client expressions read, which FormSpec leaves unchecked.

FormSpec's `check` and `validate` resolve none of these (only an App menu's `view` is refused, by
`validateDanglingRefs`), so each is a warning that says what goes wrong when the app runs:
- a Table's `row_actions` naming no action of its entity: the button calls a route that is not there;
- a dot-path column whose second hop is no field of the related entity: the column stays empty;
- `default_sort`, `filters`/`fixed_filters` on a field the entity lacks, or a `fixed_filters` value
  outside an enum field's values: the sort/filter is ignored or never matches;
- a Module's own menu `view` naming no view: the entry navigates nowhere;
- an Entity field's `visible_when`/`readonly_when`/`required_when`: FormSpec reads them as the
  defaults of form fields, in the form-expression language (FormSpecExpr: `fields.<name>`), so they
  must stay inside that language and read fields the entity has.
"""

from __future__ import annotations

import json
from typing import Any

from formspec_consult.spec.checks.context import Findings, Index
from formspec_consult.spec.checks.views import EXPR_HINT, VIEW_KINDS, expression_grammar, suggest_expression
from formspec_consult.spec.kinds import RESERVED_ACTIONS, RESERVED_FIELD_NAMES, effective_kind
from formspec_consult.spec.model import Document

_SYSTEM_FIELDS = RESERVED_FIELD_NAMES | {"id", "name"}
_ENTITY_EXPR_KEYS = ("visible_when", "readonly_when", "required_when")
#: bare words a FormSpecExpr may use besides fields.<name> and its functions
_EXPR_WORDS = frozenset({"true", "false", "null", "and", "or", "not", "in", "len", "sum", "amount",
                         "currency", "today"})
_LIST_OPS = ("in", "nin")
#: actions a row button may name without declaring them: the engine's lifecycle actions plus the two
#: the renderer opens itself (`view`, `edit`), as FormSpec's renderer derivation lists its built-ins
ROW_BUILTIN_ACTIONS = RESERVED_ACTIONS | {"view", "edit"}


def _items(value: Any) -> list[tuple[int, dict[str, Any]]]:
    return [(i, v) for i, v in enumerate(value) if isinstance(v, dict)] if isinstance(value, list) else []


def _fields(entity: Document) -> dict[str, dict[str, Any]]:
    return {f["name"]: f for _, f in _items(entity.spec.get("fields")) if isinstance(f.get("name"), str)}


def _listing(names: Any) -> str:
    return ", ".join(sorted(names)) or "(none)"


def check_table_refs(docs: list[Document], index: Index, out: Findings) -> None:
    """Warn about Table, module-menu and Entity-field names that resolve to nothing."""
    views = {n for d in docs if effective_kind(d.kind) in VIEW_KINDS and d.name
             for n in (d.name, f"{d.module}/{d.name}")}
    for doc in docs:
        kind = effective_kind(doc.kind)
        if kind == "Table":
            _check_table(doc, index, out)
        elif kind == "Module":
            _check_module_menu(doc, doc.spec.get("menu"), ("spec", "menu"), views, out)
        elif kind == "Entity":
            _check_entity_expressions(doc, out)


def _check_table(doc: Document, index: Index, out: Findings) -> None:
    spec = doc.spec
    ref = spec.get("entity")
    if not isinstance(ref, str):
        return
    key = index.entity_key(ref, doc.module)
    if key is None:
        return  # an unknown entity is FS-VIEW-ENTITY's business
    entity = index.entities[key]
    names = index.field_names(key)
    fields = _fields(entity)
    actions = {a["name"] for _, a in _items(entity.spec.get("actions")) if isinstance(a.get("name"), str)}
    sm = entity.spec.get("state_machine")
    if isinstance(sm, dict):
        actions |= {t["via"] for _, t in _items(sm.get("transitions")) if isinstance(t.get("via"), str)}
    for i, action in _items(spec.get("row_actions")):
        name = action.get("action")
        if isinstance(name, str) and name and name not in actions and name not in ROW_BUILTIN_ACTIONS:
            out.warn("FS-TABLE-ROW-ACTION", doc, ("spec", "row_actions", i, "action"),
                     f"row action {name!r} is no action of {ref}: its button would call nothing",
                     f"Name an action of {ref} ({_listing(actions)}) or a built-in one "
                     f"({_listing(ROW_BUILTIN_ACTIONS)}), or declare it under the entity's `actions:`.")
    for i, col in _items(spec.get("columns")):
        path = col.get("field")
        if isinstance(path, str) and path.count(".") == 1:
            _check_second_hop(doc, ref, path, fields, index, ("spec", "columns", i, "field"), out)
    sort = spec.get("default_sort")
    if isinstance(sort, str) and sort:
        field = sort.lstrip("-+").split()[0] if sort.lstrip("-+").split() else ""
        if field and field not in names and field not in _SYSTEM_FIELDS:
            out.warn("FS-TABLE-SORT", doc, ("spec", "default_sort"),
                     f"default_sort {sort!r} names no field of {ref}: the rows would not be sorted by it",
                     f"Sort by a field of {ref} (`-` in front sorts descending): {_listing(names)}.")
    for key_name in ("filters", "fixed_filters"):
        for i, flt in _items(spec.get(key_name)):
            _check_filter(doc, ref, key_name, i, flt, names, fields, out)


def _check_second_hop(doc: Document, ref: str, path: str, fields: dict[str, dict[str, Any]], index: Index,
                      where: tuple[Any, ...], out: Findings) -> None:
    """`service.ghost`: the relation resolves, but the related entity has no field `ghost`."""
    first, second = path.split(".")
    relation_field = fields.get(first) or fields.get(f"{first}_id")
    relation = relation_field.get("relation") if relation_field else None
    target = relation.get("resource") if isinstance(relation, dict) else None
    target_key = index.entity_key(target, doc.module) if isinstance(target, str) else None
    if target_key is None:
        return  # no relation here (FS-VIEW-COLUMN) or a core/unknown target we cannot read
    related = index.field_names(target_key)
    if second not in related and second not in _SYSTEM_FIELDS:
        out.warn("FS-VIEW-COLUMN", doc, where,
                 f"column {path!r}: {target} has no field {second!r}; the column would stay empty",
                 f"After `{first}.` name a field of {target}: {_listing(related)}.")


def _check_filter(doc: Document, ref: str, key_name: str, i: int, flt: dict[str, Any], names: frozenset[str],
                  fields: dict[str, dict[str, Any]], out: Findings) -> None:
    field = flt.get("field")
    where = ("spec", key_name, i)
    if not isinstance(field, str) or not field:
        return
    if field not in names and field not in _SYSTEM_FIELDS:
        out.warn("FS-TABLE-FILTER", doc, where + ("field",),
                 f"{key_name} entry filters on {field!r}, which {ref} does not have: the filter never matches",
                 f"Filter on a field of {ref}: {_listing(names)}.")
        return
    # a fixed filter's value: `value`, or `default` (FormSpec resolves either into `field[op]=value`)
    value = flt.get("value", flt.get("default"))
    allowed = fields.get(field, {}).get("enum_values")
    if key_name != "fixed_filters" or not isinstance(allowed, list) or value is None:
        return
    values = [str(v) for v in allowed]
    op = flt.get("op", "eq")
    given = [v.strip() for v in str(value).split(",")] if op in _LIST_OPS else [str(value)]
    wrong = [v for v in given if v not in values]
    if wrong:
        out.warn("FS-TABLE-FILTER", doc, where + ("value",),
                 f"fixed filter on {field!r} compares with {', '.join(map(repr, wrong))}, which is not one of its "
                 "values: the filter never matches",
                 f"Use one of {', '.join(values)}; for `op: in`/`nin` write the values in one string, "
                 "separated by commas (\"a,b\").")


def _check_module_menu(doc: Document, items: Any, base: tuple[Any, ...], views: set[str], out: Findings) -> None:
    for i, item in _items(items):
        view = item.get("view")
        if isinstance(view, str) and view and view not in views:
            out.warn("FS-MODULE-MENU-VIEW", doc, base + (i, "view"),
                     f"module menu item {item.get('label')!r} opens view {view!r}, which no Page, Form, Table, "
                     "Wizard, Report, Kanban, Timeline, Calendar, Dashboard or Listing declares: it navigates nowhere",
                     "Name an existing view (its metadata.name), create it, or use `route:` for a raw URL.")
        _check_module_menu(doc, item.get("children"), base + (i, "children"), views, out)


def _check_entity_expressions(doc: Document, out: Findings) -> None:
    fields = _fields(doc)
    for i, field in _items(doc.spec.get("fields")):
        for key in _ENTITY_EXPR_KEYS:
            expr = field.get(key)
            if not isinstance(expr, str) or not expr:
                continue
            where = ("spec", "fields", i, key)
            problem = expression_grammar(expr) or _unknown_name(expr, fields)
            if problem:
                fixed = suggest_expression(expr, set(fields) | _SYSTEM_FIELDS)
                how = (f"Write `{key}: {json.dumps(fixed, ensure_ascii=False)}`."
                       if fixed is not None and _unknown_name(fixed, fields) is None else
                       f"Write it like a Form's: `fields.<name> == false`, with fields of this entity "
                       f"({_listing(fields)}).")
                out.warn("FS-ENTITY-EXPR", doc, where,
                         f"field {field.get('name')!r}: `{key}` {expr!r} is not a form expression FormSpec can "
                         f"evaluate ({problem}); forms would ignore it", f"{how} {EXPR_HINT}")


def _unknown_name(expr: str, fields: dict[str, dict[str, Any]]) -> str | None:
    """The first name `expr` reads that is neither fields.<a field> nor a word of the language."""
    for word in _words(expr):
        if word.startswith("fields."):
            name = word.split(".")[1]
            if name not in fields and name not in _SYSTEM_FIELDS:
                return f"it reads fields.{name}, which this entity does not have"
        elif word in ("True", "False", "None"):
            return f"{word!r} is Starlark; a form expression writes {word.lower().replace('none', 'null')}"
        elif word not in _EXPR_WORDS:
            hint = f"fields.{word}" if word in fields else "fields.<name>"
            return f"it reads {word!r}; a field is read as {hint}"
    return None


def _words(expr: str) -> list[str]:
    """Identifiers (with dotted member access) outside string literals."""
    words, i, n = [], 0, len(expr)
    while i < n:
        ch = expr[i]
        if ch in "'\"":
            end = expr.find(ch, i + 1)
            i = n if end < 0 else end + 1
        elif ch.isascii() and (ch.isalpha() or ch == "_"):
            start = i
            while i < n and expr[i].isascii() and (expr[i].isalnum() or expr[i] in "_."):
                i += 1
            words.append(expr[start:i])
        elif ch.isascii() and ch.isdigit():
            while i < n and expr[i].isascii() and (expr[i].isalnum() or expr[i] == "."):
                i += 1
        else:
            i += 1
    return words
