"""Tiny helpers for writing JSON Schemas (draft-07) as Python values.

Our built-in schemas follow FormSpec's own conventions: every object closes its key set
(`additionalProperties: false`) unless it is a free-form map, required keys are the ones
FormSpec's Go types do not mark optional, and enums list exactly the allowed values.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

STR: Schema = {"type": "string"}
BOOL: Schema = {"type": "boolean"}
INT: Schema = {"type": "integer"}
NUM: Schema = {"type": "number"}
ANY: Schema = {}
#: a free-form mapping (FormSpec's `map[string]any`)
MAP: Schema = {"type": "object"}
#: a mapping of names to strings (FormSpec's `map[string]string`)
STR_MAP: Schema = {"type": "object", "additionalProperties": {"type": "string"}}
STRS: Schema = {"type": "array", "items": STR}


def ref(name: str) -> Schema:
    """A reference into the shared `$defs`."""
    return {"$ref": f"#/$defs/{name}"}


def arr(items: Schema) -> Schema:
    """A list of `items`."""
    return {"type": "array", "items": items}


def enum(*values: str) -> Schema:
    """One of the given strings."""
    return {"type": "string", "enum": list(values)}


def obj(props: dict[str, Schema], *required: str, title: str | None = None) -> Schema:
    """A closed object: only `props` may appear, `required` must."""
    out: Schema = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        missing = set(required) - set(props)
        assert not missing, f"required keys without a property: {missing}"
        out["required"] = list(required)
    if title:
        out["title"] = title
    return out


def pattern(regex: str, **extra: Any) -> Schema:
    """A string matching `regex`."""
    return {"type": "string", "pattern": regex, **extra}
