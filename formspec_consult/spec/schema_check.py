"""JSON-Schema layer: turn jsonschema errors into Problems with a path, a line and a hint."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from jsonschema.exceptions import ValidationError, best_match

from formspec_consult.spec.model import Document, Problem
from formspec_consult.spec.schema_registry import CompiledSchema

MAX_SCHEMA_ERRORS = 20
_TYPO_HINTS = {"depends_on": "The key is `depends` (a list of {module, version?}).",
               "target": "A relation names its entity with `resource:`, not `target:`.",
               "entity": "A relation names its entity with `resource:`.",
               "values": "Enum fields list their values under `enum_values:`.",
               "options": "Enum fields list their values under `enum_values:`."}


def schema_problems(doc: Document, validator: CompiledSchema) -> list[Problem]:
    """Schema problems of `doc` (at most MAX_SCHEMA_ERRORS, most specific message per error)."""
    out: list[Problem] = []
    errors, scope = validator.check(doc.data)
    for error in sorted(errors, key=lambda e: list(map(str, e.absolute_path))):
        if len(out) >= MAX_SCHEMA_ERRORS:
            out.append(Problem("FS-SCHEMA", doc.rel, doc.line, "schema",
                               f"more schema errors were left out after the first {MAX_SCHEMA_ERRORS}",
                               "Fix these first, then validate again."))
            break
        menu = _menu_message(error)
        shown = error if menu or not error.context else best_match(error.context)
        path = scope + tuple(error.absolute_path)
        where = "/".join(str(p) for p in path) or "(document)"
        line, column = doc.position_of(scope + tuple(shown.absolute_path))
        out.append(Problem("FS-SCHEMA", doc.rel, line, "schema", f"{where}: {menu or shown.message}",
                           _hint(shown, doc.kind), column))
    return out


def _menu_message(error: ValidationError) -> str | None:
    """A plain explanation when `error` is about a menu item's shape (jsonschema's is cryptic)."""
    path = list(error.absolute_path)
    if "menu" in path and isinstance(error.instance, dict) and error.validator in ("oneOf", "not", "anyOf"):
        return menu_item_problem(error.instance, path.count("children") + 1)
    return None


def menu_item_problem(item: dict[str, Any], depth: int) -> str | None:
    """Plain words for a menu item that fits none of the three shapes (None when it fits one)."""
    if depth >= 3 and "children" in item:
        return "menus nest at most 3 levels; this third-level item may not have children"
    if item.get("type") == "module":
        if "children" in item:
            return "an adopt node {type: module, module} cannot have children"
        return None if "module" in item else "an adopt node (type: module) needs `module`"
    if "children" in item:
        if "view" in item or "route" in item:
            return "a group {label, children} cannot also have a view or route"
        return None if "label" in item else "a group needs a `label`"
    missing = [k for k in ("label", "module") if k not in item]
    if missing:
        return f"a menu leaf needs {' and '.join(missing)} (and exactly one of view/route)"
    if ("view" in item) == ("route" in item):
        return "a menu leaf needs exactly one of `view` or `route`"
    return None


def _hint(error: ValidationError, kind: str) -> str:
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        schema = error.schema if isinstance(error.schema, Mapping) else {}
        allowed = set((schema.get("properties") or {}).keys())
        extra = [k for k in error.instance if k not in allowed]
        for key in extra:
            if key in _TYPO_HINTS:
                return _TYPO_HINTS[key]
            close = difflib.get_close_matches(key, sorted(allowed), n=1, cutoff=0.75)
            if close:
                return f"Did you mean `{close[0]}` instead of `{key}`?"
        return f"Remove or rename {', '.join(map(repr, extra))}; list_kind_schemas({kind}) shows the allowed keys."
    if "menu" in list(error.absolute_path):
        return ("Menu items are an adopt node {type: module, module}, a group {label, children} or a leaf "
                "{label, module, view | route}, at most 3 levels deep.")
    if error.validator == "required":
        return "Add the missing key."
    if error.validator in ("enum", "const"):
        return "Use one of the allowed values."
    if error.validator == "type":
        return "Change the value to the expected type."
    if error.validator == "pattern":
        return "Use lower-case letters, digits and underscores, starting with a letter."
    return f"See list_kind_schemas({kind}) for the expected shape."
