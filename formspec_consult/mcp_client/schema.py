"""A tool's input schema as the model reads it: the same arguments, without the generator's noise.

Servers built on pydantic (ours and most Python ones) declare every argument with a `title` that
repeats its name, a schema title like `read_skillArguments`, each optional argument as
`anyOf: [{type: X}, {type: null}], default: null`, and the value an omitted argument takes as
`default`. Every request carries every declaration, so this noise is paid on each one.
:func:`compact_schema` drops the `title` and `default` annotations (leaving an argument out is the
call with its default: the model needs to know that it is optional, which `required` says, not the
server's value) and writes an optional-with-null-default argument as its plain type. The names,
types, descriptions, bounds, enums and `required` lists are kept as they are.
"""

from __future__ import annotations

from typing import Any

# Keywords whose value maps names to schemas (a property called "title" is a name, not a title).
_NAMED_SCHEMAS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_ONE_SCHEMA = ("items", "additionalProperties", "not", "contains", "if", "then", "else", "propertyNames")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_NULL = {"type": "null"}


def compact_schema(schema: Any) -> Any:
    """A copy of a JSON Schema without `title` and `default` annotations, nullable optionals as
    their type."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in _NAMED_SCHEMAS and isinstance(value, dict):
            out[key] = {name: compact_schema(sub) for name, sub in value.items()}
        elif key in _ONE_SCHEMA and isinstance(value, dict):
            out[key] = compact_schema(value)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [compact_schema(sub) for sub in value]
        else:
            out[key] = value
    compact = _without_null_option(out)
    compact.pop("default", None)
    return compact


def _without_null_option(node: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [X, null]` with `default: null` is an optional X: omitting it is the null call."""
    options = node.get("anyOf")
    if not ("default" in node and node["default"] is None and isinstance(options, list)):
        return node
    if len(options) != 2 or _NULL not in options:
        return node
    other = next(option for option in options if option != _NULL)
    rest = {key: value for key, value in node.items() if key not in ("anyOf", "default")}
    if not isinstance(other, dict) or set(other) & set(rest):
        return node  # the two would not merge cleanly: keep the schema as declared
    return {**other, **rest}
