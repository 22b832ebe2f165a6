"""JSON-Schema layer: turn jsonschema errors into Problems with a path, a line and a hint."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from typing import Any

from jsonschema.exceptions import ValidationError, best_match

from formspec_consult.spec.model import Document, Problem
from formspec_consult.spec.outline import SchemaReader, drill_call
from formspec_consult.spec.schema_registry import CompiledSchema
from formspec_consult.spec.schemas.data import IDENT

MAX_SCHEMA_ERRORS = 20
#: keys a model writes on a field or an input that FormSpec takes only as validation rules
_RULE_KEYS = frozenset({"min", "max", "min_length", "max_length", "pattern", "precision", "min_items", "max_items",
                        "positive", "email", "url", "future", "past", "after", "before"})
_TYPO_HINTS = {"depends_on": "The key is `depends` (a list of {module, version?}).",
               "target": "A relation names its entity with `resource:`, not `target:`.",
               "entity": "A relation names its entity with `resource:`.",
               "values": "Enum fields list their values under `enum_values:`.",
               "options": "Enum fields list their values under `enum_values:`."}


def schema_problems(doc: Document, validator: CompiledSchema) -> tuple[list[Problem], list[Problem]]:
    """(problems, warnings) of `doc` against its schema.

    At most MAX_SCHEMA_ERRORS problems, the most specific message per error. Shorthands that
    FormSpec's engine accepts although its schema rejects them (`render: modal`, a guard
    written as a plain expression, a transition's legacy `action:` key) are warnings whose
    hint gives the canonical form.
    """
    out: list[Problem] = []
    warnings: list[Problem] = []
    errors, scope = validator.check(doc.data)
    module_relative = doc.kind == "Module"
    seen_shorthand: set[tuple[object, ...]] = set()
    for error in sorted(errors, key=lambda e: list(map(str, e.absolute_path))):
        path = scope + tuple(error.absolute_path)
        shorthand = shorthand_warning(path, error)
        if shorthand is not None:
            if path not in seen_shorthand:
                seen_shorthand.add(path)
                line, column = doc.position_of(path)
                warnings.append(Problem("FS-SCHEMA-SHORTHAND", doc.rel, line, "schema",
                                        f"{'/'.join(map(str, path))}: {shorthand[0]}", shorthand[1], column))
            continue
        if len(out) >= MAX_SCHEMA_ERRORS:
            out.append(Problem("FS-SCHEMA", doc.rel, doc.line, "schema",
                               f"more schema errors were left out after the first {MAX_SCHEMA_ERRORS}",
                               "Fix these first, then validate again."))
            break
        menu = _menu_message(error, module_relative)
        shown = error if menu or not error.context else best_match(error.context)
        where = "/".join(str(p) for p in path) or "(document)"
        line, column = doc.position_of(scope + tuple(shown.absolute_path))
        hint = (_bare_mapping_hint(doc.data, tuple(error.absolute_path), error, validator)
                or _hint(shown, doc.kind, scope + tuple(shown.absolute_path), validator,
                         error if shown is not error else None))
        out.append(Problem("FS-SCHEMA", doc.rel, line, "schema", f"{where}: {menu or shown.message}", hint, column))
    return out, warnings


_RENDER_MODES = ("modal", "drawer", "separate_page")


def shorthand_warning(path: tuple[Any, ...], error: ValidationError) -> tuple[str, str] | None:
    """(message, hint) when `error` is only a shorthand FormSpec's engine accepts; else None."""
    inst = error.instance
    last = path[-1] if path else None
    if last == "render" and error.validator == "type" and inst in _RENDER_MODES:
        return (f"`render: {inst}` is a shorthand FormSpec's engine accepts but its schema rejects",
                f"Write `render: {{mode: {inst}}}`.")
    if last == "guard" and error.validator == "type" and isinstance(inst, str):
        return ("a guard written as a plain expression is a shorthand the engine accepts but the schema rejects",
                f"Write `guard: {{expression: {json.dumps(inst)}}}`.")
    if ("transitions" in path and isinstance(inst, dict) and "action" in inst and "via" not in inst
            and error.validator in ("additionalProperties", "required")):
        return ("`action:` on a transition is a legacy alias the engine accepts but the schema rejects",
                f"Write `via: {inst['action']}` instead of `action: {inst['action']}`.")
    return None


def _menu_message(error: ValidationError, module_relative: bool = False) -> str | None:
    """A plain explanation when `error` is about a menu item's shape (jsonschema's is cryptic)."""
    path = list(error.absolute_path)
    if "menu" in path and isinstance(error.instance, dict) and error.validator in ("oneOf", "not", "anyOf"):
        return menu_item_problem(error.instance, path.count("children") + 1, module_relative)
    return None


def menu_item_problem(item: dict[str, Any], depth: int, module_relative: bool = False) -> str | None:
    """Plain words for a menu item that fits none of the three shapes (None when it fits one).

    A Module's own menu is module-relative: its leaves need no `module`, and it has no adopt
    nodes (an App adopts a whole Module menu).
    """
    if depth >= 3 and "children" in item:
        return "menus nest at most 3 levels; this third-level item may not have children"
    if module_relative:
        if item.get("type") == "module":
            return "a Module's own menu has no adopt nodes; an App adopts this module's menu with {type: module}"
        if "children" in item:
            if "view" in item or "route" in item:
                return "a group {label, children} cannot also have a view or route"
            return None if "label" in item else "a group needs a `label`"
        if "label" not in item:
            return "a menu leaf needs a `label` (and exactly one of view/route)"
        if ("view" in item) == ("route" in item):
            return "a menu leaf needs exactly one of `view` or `route`"
        return None
    if item.get("type") == "module":
        if "children" in item:
            return "an adopt node {type: module, module} cannot have children"
        return None if "module" in item else "an adopt node (type: module) needs `module`"
    if "children" in item:
        if "view" in item or "route" in item:
            return "a group {label, children} cannot also have a view or route"
        return None if "label" in item else "a group needs a `label`"
    if "label" not in item:
        return "a menu leaf needs a `label` (and exactly one of view/route)"
    if ("view" in item) == ("route" in item):
        return "a menu leaf needs exactly one of `view` or `route`"
    if "view" in item and "module" not in item:
        return "a menu leaf with a `view` needs the `module` that declares the view (a `route` leaf needs none)"
    return None


def _is_bare_mapping(value: Any) -> bool:
    """True for what YAML makes of an unquoted `{x}` or `{a, b}`: a mapping of keys without values."""
    return isinstance(value, dict) and bool(value) and all(
        isinstance(k, str) and v is None for k, v in value.items())


def _bare_mapping_hint(data: dict[str, Any], rel_path: tuple[Any, ...], error: ValidationError,
                       validator: CompiledSchema) -> str | None:
    """The quoted form, when the value at `rel_path` is an unquoted `{…}` that YAML read as a mapping.

    `label: {x}` or `computed: {qty * price}` is YAML's flow mapping `{x: null}`; telling the model
    to remove or rename the key `x` (what the schema error is about) leaves it nothing to write.
    The candidates — the braces' text quoted, then the text under the part's only required key —
    are tried against the gate's own schema, and the first it accepts at that place is the advice;
    None when it accepts none (the usual hint applies then).
    """
    instance = error.instance
    if not rel_path or not _is_bare_mapping(instance):
        return None
    parent: Any = data.get("spec") if validator.scope else data
    for step in rel_path[:-1]:
        try:
            parent = parent[step]
        except (KeyError, IndexError, TypeError):
            return None
    last = rel_path[-1]
    if not isinstance(parent, (dict, list)) or parent[last] is not instance:
        return None
    inner = ", ".join(instance)
    text = "{" + inner + "}"
    candidates: list[Any] = [text]
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    required = schema.get("required")
    if isinstance(required, list) and len(required) == 1 and isinstance(required[0], str):
        candidates.append({required[0]: inner})
    try:
        for candidate in candidates:
            parent[last] = candidate
            errors, _ = validator.check(data)
            if any(tuple(e.absolute_path)[:len(rel_path)] == rel_path for e in errors):
                continue
            written = (json.dumps(candidate, ensure_ascii=False) if isinstance(candidate, str) else
                       "{" + ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in candidate.items()) + "}")
            head = f"Unquoted, `{text}` is YAML for a mapping with the key `{inner}` and no value. "
            if isinstance(last, str):
                return head + f"Write `{last}: {written}` (quoted) instead."
            return head + f"Write the list item as `{written}` (quoted) instead."
    finally:
        parent[last] = instance
    return None


def _hint(error: ValidationError, kind: str, path: tuple[Any, ...], validator: CompiledSchema,
          alternatives: ValidationError | None = None) -> str:
    """What to write instead, in terms of the schema at that place, and where to read more of it.

    `alternatives` is the anyOf/oneOf error `error` was picked from: a value that fits none of
    several shapes is told all of them, not only the one the pick happened to measure it against.
    """
    reader = SchemaReader(validator.resolution)
    here = drill_call(kind, path)
    if alternatives is not None and error.validator == "type" and list(alternatives.absolute_path) == list(
            error.absolute_path):
        return f"Expected {reader.summary(alternatives.schema)}. {here} shows this part."
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted((schema.get("properties") or {}).keys())
        extra = [k for k in error.instance if k not in allowed]
        for key in extra:
            if key in _TYPO_HINTS:
                return _TYPO_HINTS[key]
            if key in _RULE_KEYS and "rules" in allowed:
                value = error.instance[key]
                shown = json.dumps(value) if isinstance(value, (int, float, bool)) else value
                return (f"`{key}` is a validation rule here, not a key: write it under `rules`, e.g. "
                        f"`rules: [{{{key}: {shown}}}]`. {here} lists the rule names.")
        matches = [(key, difflib.get_close_matches(key, allowed, n=1, cutoff=0.75)) for key in extra]
        guess = next(((key, match[0]) for key, match in matches if match), None)
        if guess:
            return f"Did you mean `{guess[1]}` instead of `{guess[0]}`? {here} lists the keys allowed here."
        head = f"Remove or rename {', '.join(f'`{k}`' for k in extra)}. "
        if not allowed:
            return head + f"Nothing may be added here; {here} shows the shape."
        return head + f"The keys allowed here: {', '.join(allowed)} — {here} shows their types."
    if "menu" in list(error.absolute_path):
        return ("Menu items are an adopt node {type: module, module}, a group {label, children} or a leaf "
                "{label, module, view} / {label, route}, at most 3 levels deep.")
    wanted: Any = error.validator_value
    if error.validator == "required" and isinstance(error.instance, dict) and isinstance(wanted, list):
        props = schema.get("properties") or {}
        missing = [k for k in wanted if isinstance(k, str) and k not in error.instance]
        parts = []
        for key in missing:
            what = reader.summary(props.get(key, {}))
            about = reader.description(props.get(key, {}))
            parts.append(f"`{key}` ({what}{'; ' + about if about else ''})")
        if parts:
            return f"Add {' and '.join(parts)}. {here} shows this part."
        return f"Add the missing key; {here} shows this part."
    if error.validator in ("enum", "const"):
        values = list(wanted) if error.validator == "enum" and isinstance(wanted, list) else [wanted]
        shown = [str(v) for v in values]
        close = difflib.get_close_matches(str(error.instance), shown, n=1, cutoff=0.6)
        # the message lists the allowed values already (jsonschema's "is not one of [...]")
        return f"Did you mean `{close[0]}`?" if close else "Use one of the values listed."
    if error.validator == "type":
        return f"Expected {reader.shape(schema)}. {here} shows this part."
    if error.validator == "pattern":
        if wanted == IDENT:
            return "Use lower-case letters, digits and underscores, starting with a letter."
        return f"Write {reader.summary(schema)}."
    return f"{here} shows the expected shape."
