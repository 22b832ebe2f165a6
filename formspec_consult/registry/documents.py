"""Parse and validate registry source files: Module documents and business templates.

A file is a YAML stream; each document is a FormSpec `kind: Module` document (its `ai_index`
feeds the search index) or a business template (a mapping with a `pattern` key). Other FormSpec
kinds (Entity, Form, …) found next to a module are ignored. Every problem is reported as a
`CatalogueError` naming the file and the document, before anything is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

import jsonschema
import yaml

from formspec_consult.registry.codec import template_from_dict
from formspec_consult.registry.models import AiIndex, BusinessTemplate, Dependency, ModuleRecord, TrustTier
from formspec_consult.registry.schemas import MODULE_SCHEMA, TEMPLATE_SCHEMA

# Annotations the bundled catalogue uses to carry registry facts inside a Module document.
TIER_KEY = "registry.formspec.dev/trust-tier"
VERSIONS_KEY = "registry.formspec.dev/versions"
SOURCE_KEY = "registry.formspec.dev/source"


class CatalogueError(ValueError):
    """A registry source file is unreadable or invalid; the message names the file."""

    def __init__(self, path: Path | str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = str(path)


@dataclass
class ParsedFile:
    """What one file contributed."""

    path: Path
    modules: list[ModuleRecord] = field(default_factory=list)
    templates: list[BusinessTemplate] = field(default_factory=list)


def _where(error: jsonschema.ValidationError) -> str:
    return ".".join(str(p) for p in error.absolute_path) or "(top level)"


_VALIDATORS: dict[int, jsonschema.Draft202012Validator] = {}


def _check(schema: dict[str, Any], doc: dict[str, Any], path: Path, label: str) -> None:
    validator = _VALIDATORS.get(id(schema))
    if validator is None:  # schemas here live for the whole process, so id() is a stable key
        validator = _VALIDATORS[id(schema)] = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        details = "; ".join(f"{_where(e)}: {e.message}" for e in errors[:5])
        raise CatalogueError(path, f"{label} is invalid — {details}")


@lru_cache(maxsize=1)
def _formspec_module_schema() -> dict[str, Any] | None:
    """The project's own Module schema (formspec_consult.spec), when that package provides it.

    Module documents are checked against it first so the registry accepts exactly what the rest
    of formspec-consult accepts; the registry's schema then adds what indexing needs.
    """
    try:
        from formspec_consult.spec.schema_registry import kind_schema
    except ImportError:  # a build without the spec core: the registry schema alone
        return None
    return kind_schema("Module")[0]


def module_from_document(
    doc: dict[str, Any], path: Path, label: str, *, honour_annotations: bool
) -> ModuleRecord:
    """Validate a Module document and turn it into a record (trust tier from annotations only if honoured)."""
    if "ai_index" not in (doc.get("spec") or {}):
        raise CatalogueError(
            path,
            f"{label} (Module {doc.get('metadata', {}).get('name', '?')!r}) has no spec.ai_index; the registry "
            "needs at least ai_index.category (and ideally features, aliases) to index it",
        )
    formspec_schema = _formspec_module_schema()
    if formspec_schema is not None:
        _check(formspec_schema, doc, path, label)
    _check(MODULE_SCHEMA, doc, path, label)
    meta, spec = doc["metadata"], doc["spec"]
    notes: dict[str, str] = meta.get("annotations") or {}
    ai = spec["ai_index"]
    tier = notes.get(TIER_KEY, "community") if honour_annotations else "community"
    if tier not in ("official", "verified", "community"):
        raise CatalogueError(
            path, f"{label}: annotation {TIER_KEY}={tier!r} is not official, verified or community"
        )
    return ModuleRecord(
        name=meta["name"],
        description=meta.get("description", "").strip(),
        version=str(spec["version"]),
        versions=tuple(v.strip() for v in notes.get(VERSIONS_KEY, "").split(",") if v.strip()),
        trust_tier=cast(TrustTier, tier),
        vendor=spec.get("vendor", ""),
        depends=tuple(Dependency(d["module"], d.get("version")) for d in spec.get("depends") or ()),
        source=notes.get(SOURCE_KEY, ""),
        ai_index=AiIndex(
            category=ai["category"],
            features=tuple(ai.get("features") or ()),
            aliases=tuple(ai.get("aliases") or ()),
            integration_pattern=(ai.get("integration_pattern") or "").strip(),
            skills_for_ai=(ai.get("skills_for_ai") or "").strip(),
        ),
    )


def template_from_document(doc: dict[str, Any], path: Path, label: str) -> BusinessTemplate:
    """Validate a business template mapping and turn it into a record."""
    _check(TEMPLATE_SCHEMA, doc, path, label)
    return template_from_dict(doc)


def parse_file(path: Path, *, honour_annotations: bool = False) -> ParsedFile:
    """Parse every document of one YAML file. Raises CatalogueError on the first problem."""
    try:
        text = path.read_text(encoding="utf-8")
        docs = list(yaml.safe_load_all(text))
    except OSError as exc:
        raise CatalogueError(path, f"cannot be read ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise CatalogueError(path, "is not UTF-8 text") from exc
    except yaml.YAMLError as exc:
        raise CatalogueError(path, f"is not valid YAML: {exc}") from exc
    parsed = ParsedFile(path)
    for index, doc in enumerate(docs, start=1):
        if doc is None:
            continue
        label = f"document {index}"
        if not isinstance(doc, dict):
            raise CatalogueError(path, f"{label} is a {type(doc).__name__}, expected a mapping")
        if doc.get("kind") == "Module":
            parsed.modules.append(
                module_from_document(doc, path, label, honour_annotations=honour_annotations)
            )
        elif "pattern" in doc:
            parsed.templates.append(template_from_document(doc, path, label))
    return parsed
