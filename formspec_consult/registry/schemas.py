"""JSON Schemas for what the registry imports: Module documents (with `ai_index`) and templates.

Written from the FormSpec format notes (design 02): a spec document has exactly the four keys
apiVersion/kind/metadata/spec; metadata allows name, module, description, labels, annotations.
The registry additionally needs `spec.ai_index` to index a module.
"""

from __future__ import annotations

from typing import Any

NAME = r"^[a-z][a-z0-9_.-]*$"
_TEXT = {"type": "string"}
_TEXT_LIST = {"type": "array", "items": {"type": "string", "minLength": 1}}

MODULE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"type": "string", "pattern": r"^(formspec|forma)\.dev/v[0-9]+((alpha|beta)[0-9]+)?$"},
        "kind": {"const": "Module"},
        "metadata": {
            "type": "object",
            "required": ["name"],
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string", "pattern": NAME, "maxLength": 100},
                "module": _TEXT,
                "description": _TEXT,
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
            },
        },
        "spec": {
            "type": "object",
            "required": ["version", "ai_index"],
            "properties": {
                "version": {"type": "string", "minLength": 1},
                "vendor": _TEXT,
                "depends": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["module"],
                        "properties": {"module": {"type": "string", "minLength": 1}, "version": _TEXT},
                    },
                },
                "ai_index": {
                    "type": "object",
                    "required": ["category"],
                    "additionalProperties": False,
                    "properties": {
                        "category": {"type": "string", "pattern": r"^[a-z][a-z0-9_-]*$"},
                        "features": _TEXT_LIST,
                        "aliases": _TEXT_LIST,
                        "integration_pattern": _TEXT,
                        "skills_for_ai": _TEXT,
                    },
                },
            },
        },
    },
}

CHARACTERISTICS = ["master", "transaction", "reference", "summary"]

TEMPLATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["pattern", "applies_to", "description", "probing_questions", "candidate_entities"],
    "additionalProperties": False,
    "properties": {
        "pattern": {"type": "string", "pattern": r"^[a-z][a-z0-9-]*$"},
        "title": _TEXT,
        "applies_to": {**_TEXT_LIST, "minItems": 1},
        "description": {"type": "string", "minLength": 1},
        "probing_questions": {**_TEXT_LIST, "minItems": 1},
        "candidate_entities": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name", "characteristic"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "characteristic": {"enum": CHARACTERISTICS},
                    "note": _TEXT,
                },
            },
        },
        "suggested_modules": _TEXT_LIST,
    },
}

LOCK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["modules"],
    "properties": {
        "modules": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "version"],
                "properties": {
                    "name": _TEXT,
                    "alias": _TEXT,
                    "version": _TEXT,
                    "source": _TEXT,
                    "checksum": _TEXT,
                    "trust_tier": {"enum": ["official", "verified", "community"]},
                },
            },
        }
    },
}
