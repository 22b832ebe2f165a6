"""Rules about views that FormSpec checks in Go: menu views, expressions, aggregates, Page/Form/App.

- `formspec validate` (dangling references): an App menu item's `view` names a registered
  view (Page, Form, Table, Wizard, Report, Kanban, Timeline, Calendar, Dashboard, Listing).
- `formspec check`: FormSpecExpr strings (`fields.<name>`) name fields of the view's entity and
  stay inside the expression subset (its tokens, and calls only to len/sum/amount/currency/today),
  menu `when` conditions too; aggregates are sum/avg/count/min/max over a field that exists, and
  all but count need a numeric or money field; Page blocks/tabs and Dashboard widgets name a
  Form/Table/Widget some module declares (a component block needs its asset).
- the engine loader: Page `blocks`/`tabs` are exclusive and `mode: custom` needs an asset; a
  Form binds an entity or an auth action, not both; an App's persist_backend is installed; a
  Page/Form `context:` entry has a unique name and the key its source needs.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Collection
from typing import Any

from formspec_consult.spec.checks.context import Findings, Index, module_key
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
#: the only functions a FormSpecExpr may call (what FormSpec's client evaluator implements)
EXPR_CALLABLES = ("len", "sum", "amount", "currency", "today")
_ONE_CHAR_OPS = frozenset("+-*/<>!")
_TWO_CHAR_OPS = frozenset({"==", "!=", "<=", ">=", "&&", "||"})
_OP_STARTS = frozenset("=!<>&|")
_CALL = re.compile(r"(?<![A-Za-z0-9_.])([A-Za-z_][A-Za-z0-9_.]*)[ \t]*\(")
EXPR_HINT = ("Keep to literals (numbers, 'text' or \"text\"), fields.<name>, == != < > <= >=, && || !, "
             f"+ - * /, brackets, and calls to {', '.join(EXPR_CALLABLES)} only.")
#: what a reference from a Page block, Page tab or Dashboard may name (FormSpec's `check`)
REF_KINDS = frozenset({"Form", "Table", "Page", "Report", "Print", "Widget", "Dashboard", "Wizard", "Kanban",
                       "Timeline", "Calendar", "Listing", "NotificationCenter", "ApprovalInbox"})
#: a context entry's source and the key that source needs (FormSpec's ValidateContextDecls)
CONTEXT_NEEDS = {"entity": "entity", "api": "call", "config": "config", "expr": "expr"}


def _items(value: Any) -> list[tuple[int, dict[str, Any]]]:
    return [(i, v) for i, v in enumerate(value) if isinstance(v, dict)] if isinstance(value, list) else []


# ── local: one document ──────────────────────────────────────────────────────────────────────

def check_view_shape(doc: Document, out: Findings) -> None:
    """Page, Form and App rules of FormSpec's loader that need no other document."""
    kind = effective_kind(doc.kind)
    spec = doc.spec
    if kind in ("Page", "Form"):
        check_context(doc, spec, out)
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
        # FormSpec's check warns (never refuses) about an App that mounts nothing or shows nothing
        if spec.get("workspaces") == []:
            out.warn("FS-APP-STAGED", doc, ("spec", "workspaces"),
                     "`workspaces: []` stages the App: it is mounted in no workspace",
                     "List the workspace slugs it should be mounted in, or drop `workspaces:` to mount it everywhere.")
        if spec.get("modules") and not spec.get("menu") and not spec.get("registered_views"):
            out.warn("FS-APP-SURFACE", doc, ("spec",),
                     "the App mounts modules but has neither `menu` nor `registered_views`: no page of it is reachable",
                     "Add a `menu:` (e.g. `- {type: module, module: <module>}` to adopt a module's menu) or "
                     "`registered_views: [{entity: <module>/<entity>}]`.")
        backend = spec.get("persist_backend")
        if isinstance(backend, str) and backend and backend not in INSTALLED_PERSIST_BACKENDS:
            out.error("FS-APP-PERSIST-BACKEND", doc, ("spec", "persist_backend"),
                      f"persist_backend {backend!r} is not installed in FormSpec",
                      f"Use {', '.join(sorted(INSTALLED_PERSIST_BACKENDS))} or leave it out (that is the default).")


def expression_grammar(expr: str) -> str | None:
    """Why `expr` is outside the FormSpecExpr subset (None when it is inside).

    Scans the text token by token the way FormSpec's client lexer does: strings in either quote,
    numbers, identifiers with dotted member access, the listed operators, ( ) [ ] and commas.
    """
    if "ctx." in expr:
        return "ctx access is server-side only and not allowed in FormSpecExpr"
    if any(word in expr for word in _FORBIDDEN):
        return "function definitions, imports and statements are outside the expression subset"
    stack: list[str] = []
    i, n = 0, len(expr)
    while i < n:
        ch = expr[i]
        if ch in " \t\r\n,":
            i += 1
        elif ch in "'\"":
            end = _string_end(expr, i)
            if end < 0:
                return f"the string literal starting at column {i + 1} is not closed"
            i = end + 1
        elif ch in "([":
            stack.append(ch)
            i += 1
        elif ch in ")]":
            if not stack:
                return "its brackets do not match"
            if stack.pop() != ("(" if ch == ")" else "["):
                return "its brackets do not match"
            i += 1
        elif ch in "{}":
            return "braces (dict or set literals, blocks) are outside the expression subset"
        elif ch in _ONE_CHAR_OPS or ch in _OP_STARTS:
            if expr[i:i + 2] in _TWO_CHAR_OPS:
                i += 2
            elif ch in _ONE_CHAR_OPS:
                i += 1
            else:
                return f"operator {ch!r} is not part of FormSpecExpr (comparisons are ==, !=; logic is &&, ||, !)"
        elif ch.isascii() and ch.isdigit():
            while i < n and expr[i].isascii() and (expr[i].isdigit() or expr[i] == "."):
                i += 1
        elif ch.isascii() and (ch.isalpha() or ch == "_"):
            while i < n and expr[i].isascii() and (expr[i].isalnum() or expr[i] in "_."):
                i += 1
        else:
            return f"character {ch!r} is not part of FormSpecExpr"
    if stack:
        return "its brackets do not match"
    bad = _unknown_call(expr)
    if bad:
        return f"it calls {bad!r}, and FormSpecExpr can only call {', '.join(EXPR_CALLABLES)}"
    return None


#: words a model writes from Python or SQL, and the FormSpecExpr spelling of each
_WORD_FIXES = {"and": "&&", "or": "||", "not": "!", "True": "true", "False": "false", "None": "null"}


def suggest_expression(expr: str, fields: Collection[str]) -> str | None:
    """`expr` rewritten into FormSpecExpr, when a mechanical rewrite gets it there: `=` → `==`,
    `<>` → `!=`, and/or/not → && || !, True/False/None → true/false/null, a bare field name →
    `fields.<name>`, a misspelt `fields.<name>` → the closest field. None unless the rewrite passes
    the same checks the gate runs (the grammar, and every `fields.<name>` one of `fields`)."""
    known = set(fields)
    out: list[str] = []
    i, n = 0, len(expr)
    while i < n:
        ch = expr[i]
        if ch in "'\"":
            end = _string_end(expr, i)
            end = n - 1 if end < 0 else end
            out.append(expr[i:end + 1])
            i = end + 1
        elif expr.startswith("<>", i):
            out.append("!=")
            i += 2
        elif ch == "=" and not (out and out[-1] and out[-1][-1] in "=!<>") and not expr.startswith("==", i):
            out.append("==")
            i += 1
        elif ch.isascii() and (ch.isalpha() or ch == "_"):
            j = i
            while j < n and expr[j].isascii() and (expr[j].isalnum() or expr[j] in "_."):
                j += 1
            word = expr[i:j]
            called = expr[j:].lstrip().startswith("(")
            if word in _WORD_FIXES:
                out.append(_WORD_FIXES[word])
            elif word.startswith("fields.") and word.count(".") == 1 and word[7:] not in known:
                close = difflib.get_close_matches(word[7:], sorted(known), n=1, cutoff=0.75)
                out.append(f"fields.{close[0]}" if close else word)
            elif "." not in word and word in known and not called:
                out.append(f"fields.{word}")
            else:
                out.append(word)
            i = j
        else:
            out.append(ch)
            i += 1
    fixed = "".join(out)
    if fixed == expr or expression_grammar(fixed) is not None:
        return None
    if any(name not in known for name in _FIELD_REF.findall(fixed)):
        return None
    return fixed


def expression_hint(key: Any, expr: str, fields: Collection[str] | None) -> str:
    """How to fix an expression the gate refused: its rewrite when one passes, then the language."""
    fixed = suggest_expression(expr, fields) if fields is not None else None
    if fixed is None:
        return EXPR_HINT
    return f"Write `{key}: {json.dumps(fixed, ensure_ascii=False)}`. {EXPR_HINT}"


def _string_end(expr: str, start: int) -> int:
    """Index of the quote closing the string opened at `start` (-1 when it is never closed)."""
    quote, i = expr[start], start + 1
    while i < len(expr):
        if expr[i] == "\\":
            i += 2
            continue
        if expr[i] == quote:
            return i
        i += 1
    return -1


def _unknown_call(expr: str) -> str | None:
    """The first function called in `expr` (outside string literals) that FormSpecExpr lacks."""
    parts, i = [], 0
    while i < len(expr):  # blank out string literals so a "(" inside one is not a call
        if expr[i] in "'\"":
            end = _string_end(expr, i)
            end = len(expr) - 1 if end < 0 else end
            parts.append(" " * (end - i + 1))
            i = end + 1
        else:
            parts.append(expr[i])
            i += 1
    for match in _CALL.finditer("".join(parts)):
        name = match.group(1).rstrip(".")  # `user.has(` is reported whole: a member call is no function
        if name not in EXPR_CALLABLES:
            return name
    return None


def check_context(doc: Document, spec: dict[str, Any], out: Findings) -> None:
    """A Page/Form `context:` entry: a unique name, and the key its source reads from."""
    seen: set[str] = set()
    for i, decl in _items(spec.get("context")):
        name, source = decl.get("name"), decl.get("source")
        if isinstance(name, str) and name:
            if name in seen:
                out.error("FS-CONTEXT-DECL", doc, ("spec", "context", i, "name"),
                          f"context name {name!r} is declared twice", "Give each context entry its own `name`.")
            seen.add(name)
        needed = CONTEXT_NEEDS.get(source) if isinstance(source, str) else None
        if needed and not decl.get(needed):
            example = {"entity": "<module>.<entity>", "call": "<module>.<service>.<action>",
                       "config": "<config-name>.<key>", "expr": "a FormSpecExpr"}[needed]
            out.error("FS-CONTEXT-DECL", doc, ("spec", "context", i),
                      f"context {name!r} reads from source {source!r} but has no `{needed}`",
                      f"Add `{needed}:` ({example}); each source needs its own key: "
                      + ", ".join(f"{s} → {k}" for s, k in CONTEXT_NEEDS.items()) + ".")


# ── tree: across documents ───────────────────────────────────────────────────────────────────

def check_views_across(docs: list[Document], index: Index, out: Findings) -> None:
    """App menu views, FormSpecExpr field references and aggregates."""
    views = {n for d in docs if effective_kind(d.kind) in VIEW_KINDS and d.name
             for n in (d.name, f"{d.module}/{d.name}")}
    declared: dict[str, set[tuple[str, str]]] = {}
    for d in docs:
        if effective_kind(d.kind) in REF_KINDS and d.name:
            declared.setdefault(effective_kind(d.kind), set()).add((module_key(d.module or ""), d.name))
    for doc in docs:
        kind = effective_kind(doc.kind)
        if kind in ("App", "Module"):
            _check_menu_when(doc, doc.spec.get("menu"), ("spec", "menu"), out)
        if kind == "App":
            _check_menu_views(doc, doc.spec.get("menu"), ("spec", "menu"), views, out)
        elif kind in ("Form", "Kanban", "Wizard"):
            _check_expressions(doc, kind, index, out)
        elif kind in ("Report", "Widget"):
            _check_aggregates(doc, kind, index, out)
        elif kind in ("Page", "Dashboard"):
            _check_view_refs(doc, kind, declared, out)


def _check_menu_when(doc: Document, items: Any, base: tuple[Any, ...], out: Findings) -> None:
    for i, item in _items(items):
        when = item.get("when")
        if isinstance(when, str) and when:
            problem = expression_grammar(when)
            if problem:
                out.error("FS-EXPR-GRAMMAR", doc, base + (i, "when"),
                          f"menu item {item.get('label')!r}: `when` {when!r} is not a FormSpecExpr: {problem}",
                          EXPR_HINT + " `when` is a business condition; to hide an item by permission use "
                          "`permissions: [<permission>]`.")
        _check_menu_when(doc, item.get("children"), base + (i, "children"), out)


def _split_view_ref(ref: str, own_module: str | None) -> tuple[str, str, bool]:
    """(module, name, qualified) — `m/name` or `m.name` names the module, a bare name does not."""
    for sep in ("/", "."):
        i = ref.rfind(sep)
        if i > 0:
            return module_key(ref[:i]), ref[i + 1:], True
    return module_key(own_module or ""), ref, False


def _check_view_refs(doc: Document, kind: str, declared: dict[str, set[tuple[str, str]]], out: Findings) -> None:
    spec = doc.spec
    refs: list[tuple[tuple[Any, ...], str, Any, Any]] = []  # (path, kind named, ref, asset)
    if kind == "Page":
        for i, block in _items(spec.get("blocks")):
            for key in ("form", "table", "component", "widget"):
                if isinstance(block.get(key), dict):
                    refs.append((("spec", "blocks", i, key), key, block[key].get("ref"), block[key].get("asset")))
        for i, tab in _items(spec.get("tabs")):
            for key in ("form", "table", "component"):
                if isinstance(tab.get(key), dict):
                    refs.append((("spec", "tabs", i, key), key, tab[key].get("ref"), tab[key].get("asset")))
    else:
        for i, widget in _items(spec.get("widgets")):
            refs.append((("spec", "widgets", i, "ref"), "widget", widget.get("ref"), None))
        defaults = spec.get("defaults")
        for i, name in enumerate(defaults if isinstance(defaults, list) else []):
            refs.append((("spec", "defaults", i), "widget", name, None))
    for path, key, ref, asset in refs:
        if not isinstance(ref, str) or not ref or asset:
            continue  # an inline asset replaces the reference
        if key == "component":
            out.error("FS-VIEW-REF", doc, path, f"component block names {ref!r}, but FormSpec has no Component "
                      "kind a reference could name",
                      "Give the block `asset: modules/<module>/assets/<component>.js` (the code that draws it).")
            continue
        target = key.capitalize()
        module, name, qualified = _split_view_ref(ref, doc.module)
        have = declared.get(target, set())
        if (module, name) in have or (not qualified and any(n == name for _, n in have)):
            continue
        known = sorted(f"{m}/{n}" for m, n in have)
        out.error("FS-VIEW-REF", doc, path,
                  f"{kind} {doc.name!r} places {key} {ref!r}, but no module declares a {target} of that name",
                  f"Name a `kind: {target}` document by its metadata.name (bare for any module, or "
                  f"`<module>/<name>`): {', '.join(known[:12]) or f'none declared yet - create the {target}'}.")


def _check_menu_views(doc: Document, items: Any, base: tuple[Any, ...], views: set[str], out: Findings) -> None:
    for i, item in _items(items):
        view = item.get("view")
        if isinstance(view, str) and view and view not in views:
            names = sorted(v for v in views if "/" not in v)
            out.error("FS-MENU-VIEW", doc, base + (i, "view"),
                      f"menu item {item.get('label')!r} opens view {view!r}, which no Page, Form, Table, Wizard, "
                      "Report, Kanban, Timeline, Calendar, Dashboard or Listing declares",
                      "A menu `view` names the metadata.name of one of those kinds (bare, or `<module>/<name>`)"
                      + (f": {', '.join(names[:12])}" if names else "") + "; create the view, or use `route:` "
                      "for a raw URL.")
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
        fixed = suggest_expression(expr, names)
        rewrite = f"Write `{path[-1]}: {json.dumps(fixed, ensure_ascii=False)}`. " if fixed else ""
        for name in dict.fromkeys(_FIELD_REF.findall(expr)):
            if name not in names:
                out.error("FS-EXPR-FIELD", doc, path, f"expression {expr!r} reads fields.{name}, which {ref} does not have",
                          f"{rewrite}Use a field of {ref}: {', '.join(sorted(names)) or '(none)'}.")
        problem = expression_grammar(expr)
        if problem:
            out.error("FS-EXPR-GRAMMAR", doc, path, f"expression {expr!r} is not a FormSpecExpr: {problem}",
                      expression_hint(path[-1], expr, names))


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
