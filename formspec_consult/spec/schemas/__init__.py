"""Our built-in JSON Schemas, written from FormSpec's Go types (`pkg/spec`) in our own words.

They are laid out the way FormSpec ships its official ones: one root with shared `$defs` and one
spec fragment per kind whose `$ref`s point into the root's `$defs`. `document_schema` merges a
fragment with the root and the document envelope exactly as FormSpec's CLI does, so built-in
and official schemas go through the same code path.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from formspec_consult.spec.schemas import data, platform, views
from formspec_consult.spec.schemas._dsl import MAP, STR, Schema, obj

DRAFT = "http://json-schema.org/draft-07/schema#"
API_VERSIONS = ("formspec.dev/v1", "forma.dev/v1alpha1")

_METADATA = obj({"name": STR, "module": STR, "description": STR, "labels": MAP, "annotations": MAP}, "name",
                title="Metadata")

ROOT_DEFS: dict[str, Schema] = {"Metadata": _METADATA, **data.DEFS, **views.DEFS, **platform.DEFS}

KIND_SPECS: dict[str, Schema] = {
    "Entity": data.ENTITY_SPEC, "Document": data.ENTITY_SPEC, "Service": data.SERVICE_SPEC,
    **views.SPECS, **platform.SPECS,
}


def document_schema(defs: dict[str, Any], fragment: dict[str, Any], kinds: list[str],
                    api_version: dict[str, Any] | None = None) -> dict[str, Any]:
    """A whole-document schema: the envelope around `fragment`, with the root's `$defs` beside it."""
    return {
        "$schema": DRAFT,
        "title": kinds[0],
        "type": "object",
        "$defs": defs,
        "properties": {
            "apiVersion": api_version or {"type": "string"},
            "kind": {"const": kinds[0]} if len(kinds) == 1 else {"enum": kinds},
            "metadata": {"$ref": "#/$defs/Metadata"},
            "spec": fragment,
        },
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "additionalProperties": False,
    }


@cache
def _builtin(kind: str) -> dict[str, Any]:
    kinds = sorted({kind, "Entity"}) if kind == "Document" else [kind]
    return document_schema(ROOT_DEFS, KIND_SPECS[kind], kinds, {"enum": list(API_VERSIONS)})


def builtin_document_schema(kind: str) -> dict[str, Any]:
    """Our whole-document schema for a properly-cased known kind (a fresh copy)."""
    return copy.deepcopy(_builtin(kind))


def shared_builtin_schema(kind: str) -> dict[str, Any]:
    """The same schema without copying (callers must not change it)."""
    return _builtin(kind)


def official_layout() -> dict[str, dict[str, Any]]:
    """Our schemas as files in FormSpec's layout: `formspec.schema.json` + `kinds/<Kind>.schema.json`."""
    root = {"$schema": DRAFT, "title": "FormSpec document (formspec-consult built-in)", "$defs": ROOT_DEFS,
            "type": "object", "required": ["apiVersion", "kind", "metadata", "spec"]}
    files = {"formspec.schema.json": root}
    files.update({f"kinds/{kind}.schema.json": fragment for kind, fragment in KIND_SPECS.items()})
    return copy.deepcopy(files)
