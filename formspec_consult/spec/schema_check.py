"""JSON-Schema layer: turn jsonschema errors into Problems with a path, a line and a hint."""

from __future__ import annotations

import difflib
from typing import Any

from jsonschema.exceptions import ValidationError, best_match

from formspec_consult.spec.model import Document, Problem

MAX_SCHEMA_ERRORS = 20
_TYPO_HINTS = {"depends_on": "The key is `depends` (a list of {module, version?}).",
               "target": "A relation names its entity with `resource:`, not `target:`.",
               "entity": "A relation names its entity with `resource:`.",
               "values": "Enum fields list their values under `enum_values:`.",
               "options": "Enum fields list their values under `enum_values:`."}


def schema_problems(doc: Document, validator: Any) -> list[Problem]:
    """Schema problems of `doc` (at most MAX_SCHEMA_ERRORS, most specific message per error)."""
    out: list[Problem] = []
    for error in sorted(validator.iter_errors(doc.data), key=lambda e: list(map(str, e.absolute_path))):
        if len(out) >= MAX_SCHEMA_ERRORS:
            out.append(Problem("FS-SCHEMA", doc.rel, doc.line, "schema",
                               f"more schema errors were left out after the first {MAX_SCHEMA_ERRORS}",
                               "Fix these first, then validate again."))
            break
        shown = best_match(error.context) if error.context else error
        path = tuple(error.absolute_path)
        where = "/".join(str(p) for p in path) or "(document)"
        line, column = doc.position_of(tuple(shown.absolute_path))
        out.append(Problem("FS-SCHEMA", doc.rel, line, "schema", f"{where}: {_message(shown)}",
                           _hint(shown, doc.kind), column))
    return out


def _message(error: ValidationError) -> str:
    if error.validator == "oneOf" and isinstance(error.instance, dict):
        return ("this item matches none (or several) of the allowed shapes: adopt node {type: module, module}, "
                "group {label, children}, leaf {label, module, view | route}")
    return error.message


def _hint(error: ValidationError, kind: str) -> str:
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set((error.schema.get("properties") or {}).keys())
        extra = [k for k in error.instance if k not in allowed]
        for key in extra:
            if key in _TYPO_HINTS:
                return _TYPO_HINTS[key]
            close = difflib.get_close_matches(key, sorted(allowed), n=1, cutoff=0.75)
            if close:
                return f"Did you mean `{close[0]}` instead of `{key}`?"
        return f"Remove or rename {', '.join(map(repr, extra))}; list_kind_schemas({kind}) shows the allowed keys."
    if error.validator == "required":
        return "Add the missing key."
    if error.validator in ("enum", "const"):
        return "Use one of the allowed values."
    if error.validator == "type":
        return "Change the value to the expected type."
    if error.validator == "pattern":
        return "Use lower-case letters, digits and underscores, starting with a letter."
    return f"See list_kind_schemas({kind}) for the expected shape."
