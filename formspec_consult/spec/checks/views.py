"""Rules about views that FormSpec checks in Go: menu views, expressions, aggregates, Page/Form/App.

- `formspec validate` (dangling references): an App menu item's `view` names a registered
  view (Page, Form, Table, Wizard, Report, Kanban, Timeline, Calendar, Dashboard, Listing).
- `formspec check`: FormSpecExpr strings (`fields.<name>`) name fields of the view's entity and
  stay inside the expression subset; aggregates are sum/avg/count/min/max over a field that
  exists, and all but count need a numeric or money field.
- the engine loader: Page `blocks`/`tabs` are exclusive and `mode: custom` needs an asset; a
  Form binds an entity or an auth action, not both; an App's persist_backend is installed.
"""

from __future__ import annotations

import re
from typing import Any

from formspec_consult.spec.checks.context import Findings, Index
from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document

VIEW_KINDS = frozenset({"Page", "Form", "Table", "Wizard", "Report", "Kanban", "Timeline", "Calendar",
                        "Dashboard", "Listing"})
AGGREGATES = ("sum", "avg", "count", "min", "max")
NUMERIC_TYPES = frozenset({"integer", "decimal", "money", "number"})
INSTALLED_PERSIST_BACKENDS = frozenset({"jsonb-persist"})
_FIELD_REF = re.compile(r"fields\.([a-z_][a-z0-9_]*)")
_EXPR_KEYS = ("visible_when", "readonly_when", "required_when", "compute")
_FORBIDDEN = ("def ", "import ", "return ", "lambda")
_PAIRS = {")": "(", "]": "[", "}": "{"}


def _items(value: Any) -> list[tuple[int, dict[str, Any]]]:
    return [(i, v) for i, v in enumerate(value) if isinstance(v, dict)] if isinstance(value, list) else []


# ── local: one document ──────────────────────────────────────────────────────────────────────

def check_view_shape(doc: Document, out: Findings) -> None:
    """Page, Form and App rules of FormSpec's loader that need no other document."""
    kind = effective_kind(doc.kind)
    spec = doc.spec
    if kind == "Page":
        blocks, tabs = spec.get("blocks"), spec.get("tabs")
        if blocks and tabs:
            out.error("FS-PAGE-BLOCKS-TABS", doc, ("spec", "tabs"), "a Page has either `blocks` or `tabs`, not both",
                      "Move the blocks into a tab, or drop `tabs:`.")
        if spec.get("mode") == "custom":
            if not spec.get("asset"):
                out.error("FS-PAGE-CUSTOM", doc, ("spec", "mode"), "a `mode: custom` Page needs `asset`",
                          "Add `asset: modules/<module>/assets/<page>.js` (the component that renders the page).")
            if blocks or tabs:
                out.error("FS-PAGE-CUSTOM", doc, ("spec", "blocks" if blocks else "tabs"),
                          "a `mode: custom` Page is drawn by its asset and cannot declare blocks or tabs",
                          "Drop `blocks:`/`tabs:`, or drop `mode: custom`.")
    elif kind == "Form":
        if spec.get("auth_action") and spec.get("entity"):
            out.error("FS-FORM-TARGET", doc, ("spec", "auth_action"),
                      "a Form binds either `entity` or `auth_action`, not both",
                      "Keep `auth_action` for a login/register form, or `entity` for a record form.")
        elif not spec.get("auth_action") and not spec.get("entity"):
            out.error("FS-FORM-TARGET", doc, ("spec",), "a Form needs `entity` (or `auth_action` for an auth form)",
                      "Add `entity: <module>.<entity>`.")
    elif kind == "App":
        backend = spec.get("persist_backend")
        if isinstance(backend, str) and backend and backend not in INSTALLED_PERSIST_BACKENDS:
            out.error("FS-APP-PERSIST-BACKEND", doc, ("spec", "persist_backend"),
                      f"persist_backend {backend!r} is not installed in FormSpec",
                      f"Use {', '.join(sorted(INSTALLED_PERSIST_BACKENDS))} or leave it out (that is the default).")


def expression_grammar(expr: str) -> str | None:
    """Why `expr` is outside the FormSpecExpr subset (None when it is inside)."""
    if "ctx." in expr:
        return "ctx access is server-side only and not allowed in FormSpecExpr"
    if any(word in expr for word in _FORBIDDEN):
        return "function definitions, imports and statements are outside the expression subset"
    stack: list[str] = []
    for ch in expr:
        if ch in "([{":
            stack.append(ch)
        elif ch in _PAIRS and (not stack or stack.pop() != _PAIRS[ch]):
            return "its brackets do not match"
    return "its brackets do not match" if stack else None


# ── tree: across documents ───────────────────────────────────────────────────────────────────

def check_views_across(docs: list[Document], index: Index, out: Findings) -> None:
    """App menu views, FormSpecExpr field references and aggregates."""
    views = {n for d in docs if effective_kind(d.kind) in VIEW_KINDS and d.name
             for n in (d.name, f"{d.module}/{d.name}")}
    for doc in docs:
        kind = effective_kind(doc.kind)
        if kind == "App":
            _check_menu_views(doc, doc.spec.get("menu"), ("spec", "menu"), views, out)
        elif kind in ("Form", "Kanban", "Wizard"):
            _check_expressions(doc, kind, index, out)
        elif kind in ("Report", "Widget"):
            _check_aggregates(doc, kind, index, out)


def _check_menu_views(doc: Document, items: Any, base: tuple[Any, ...], views: set[str], out: Findings) -> None:
    for i, item in _items(items):
        view = item.get("view")
        if isinstance(view, str) and view and view not in views:
            out.error("FS-MENU-VIEW", doc, base + (i, "view"),
                      f"menu item {item.get('label')!r} opens view {view!r}, which no Page, Form, Table, Wizard, "
                      "Report, Kanban, Timeline, Calendar, Dashboard or Listing declares",
                      "Name an existing view (its metadata.name), create it, or use `route:` for a raw URL.")
        _check_menu_views(doc, item.get("children"), base + (i, "children"), views, out)


def _entity_fields(doc: Document, ref: Any, index: Index) -> tuple[frozenset[str], dict[str, Any]] | None:
    key = index.entity_key(ref, doc.module) if isinstance(ref, str) else None
    if key is None:
        return None  # an unknown entity is FS-VIEW-ENTITY's business
    entity = index.entities[key]
    types = {f["name"]: f.get("type") for _, f in _items(entity.spec.get("fields")) if isinstance(f.get("name"), str)}
    return index.field_names(key), types


def _expressions(doc: Document, kind: str) -> list[tuple[tuple[Any, ...], str]]:
    spec = doc.spec
    found: list[tuple[tuple[Any, ...], str]] = []

    def fields(items: Any, base: tuple[Any, ...]) -> None:
        for j, f in _items(items):
            found.extend((base + (j, key), f[key]) for key in _EXPR_KEYS if isinstance(f.get(key), str) and f[key])

    if kind == "Form":
        for i, section in _items(spec.get("sections")):
            if isinstance(section.get("visible_when"), str) and section["visible_when"]:
                found.append((("spec", "sections", i, "visible_when"), section["visible_when"]))
            fields(section.get("fields"), ("spec", "sections", i, "fields"))
    elif kind == "Kanban":
        if isinstance(spec.get("drag_guard"), str) and spec["drag_guard"]:
            found.append((("spec", "drag_guard"), spec["drag_guard"]))
    else:
        for i, step in _items(spec.get("steps")):
            fields(step.get("fields"), ("spec", "steps", i, "fields"))
    return found


def _check_expressions(doc: Document, kind: str, index: Index, out: Findings) -> None:
    exprs = _expressions(doc, kind)
    if not exprs:
        return
    ref = doc.spec.get("entity")
    known = _entity_fields(doc, ref, index)
    if known is None:
        return  # FormSpec checks expressions only against a resolved entity
    names = known[0]
    for path, expr in exprs:
        for name in dict.fromkeys(_FIELD_REF.findall(expr)):
            if name not in names:
                out.error("FS-EXPR-FIELD", doc, path, f"expression {expr!r} reads fields.{name}, which {ref} does not have",
                          f"Use a field of {ref}: {', '.join(sorted(names)) or '(none)'}.")
        problem = expression_grammar(expr)
        if problem:
            out.error("FS-EXPR-GRAMMAR", doc, path, f"expression {expr!r} is not a FormSpecExpr: {problem}",
                      "Keep to literals, fields.<name>, comparisons, and/or/not, arithmetic, len/sum and `in`.")


def _check_aggregates(doc: Document, kind: str, index: Index, out: Findings) -> None:
    spec = doc.spec
    decls: list[tuple[tuple[Any, ...], Any, Any]] = []
    if kind == "Report":
        ref = spec.get("entity")
        source = spec.get("source")
        if isinstance(source, dict) and source.get("entity"):
            ref = source["entity"]
        for i, col in _items(spec.get("columns")):
            if col.get("aggregate"):
                decls.append((("spec", "columns", i, "aggregate"), col.get("aggregate"), col.get("field")))
        for i, total in _items(spec.get("totals")):
            decls.append((("spec", "totals", i), total.get("fn"), total.get("field")))
    else:
        ref = spec.get("entity")
        config = spec.get("config")
        if isinstance(config, dict) and config.get("aggregate"):
            decls.append((("spec", "config", "aggregate"), config.get("aggregate"), config.get("field")))
    if not decls or not ref:
        return
    known = _entity_fields(doc, ref, index)
    for path, fn, field in decls:
        if fn not in AGGREGATES:
            out.error("FS-AGGREGATE-FN", doc, path, f"aggregate {fn!r} is not defined",
                      f"Use one of {', '.join(AGGREGATES)}.")
            continue
        if not field:
            if fn != "count":
                out.error("FS-AGGREGATE-FIELD", doc, path, f"aggregate {fn} needs a `field`",
                          "Name the numeric field it aggregates (only count works without one).")
            continue
        if known is None:
            continue  # the entity does not resolve: reported as FS-VIEW-ENTITY where it applies
        names, types = known
        if field not in names:
            out.error("FS-AGGREGATE-FIELD", doc, path, f"aggregate {fn} reads field {field!r}, which {ref} does not have",
                      f"Use a field of {ref}: {', '.join(sorted(names)) or '(none)'}.")
        elif fn != "count" and field in types and types[field] not in NUMERIC_TYPES:
            numeric = sorted(n for n, t in types.items() if t in NUMERIC_TYPES)
            out.error("FS-AGGREGATE-NUMERIC", doc, path,
                      f"{fn}({field}) means nothing: {field!r} is of type {types[field]}, not a number",
                      f"Aggregate a numeric or money field ({', '.join(numeric) or 'none on this entity'}), "
                      "or use count.")
