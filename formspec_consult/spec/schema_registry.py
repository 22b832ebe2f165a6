"""JSON Schemas per kind: official ones from the project or user cache first, ours otherwise.

Validators are compiled once per (kind, schema file, mtime) and reused.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError

from formspec_consult.spec.errors import UnknownKind
from formspec_consult.spec.kinds import canonical_kind, effective_kind, known_kinds
from formspec_consult.spec.schema_sources import load_official, official_schema_path

if TYPE_CHECKING:
    from formspec_consult.spec.project import Project

_BUILTIN_DIR = Path(__file__).resolve().parent / "schemas"
_RICH = {"Entity", "Module", "App", "Workspace", "Form", "Table", "Page"}
BUILTIN_SOURCE = "formspec-consult built-in schema"


@cache
def _builtin_file(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((_BUILTIN_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))
    return schema


def builtin_schema(kind: str) -> dict[str, Any]:
    """Our schema for `kind` (a properly-cased known kind); others get the common envelope."""
    target = effective_kind(kind)
    if target in _RICH:
        schema = copy.deepcopy(_builtin_file(target.lower()))
        schema["properties"]["kind"] = {"enum": sorted({kind, target})}
        return schema
    schema = copy.deepcopy(_builtin_file("envelope"))
    schema["title"] = kind
    schema["properties"]["kind"] = {"const": kind}
    return schema


def resolve_kind(kind: str) -> str:
    """Properly-cased kind or UnknownKind listing the known kinds."""
    canonical = canonical_kind(kind)
    if canonical is None:
        raise UnknownKind(str(kind), known_kinds())
    return canonical


def kind_schema(kind: str, project: Project | None = None) -> tuple[dict[str, Any], str]:
    """(JSON schema, sentence naming its source) for `kind`, case-insensitive."""
    schema, source, _ = _schema_with_fallback(resolve_kind(kind), project)
    return copy.deepcopy(schema), source


def _schema_with_fallback(kind: str, project: Project | None) -> tuple[dict[str, Any], str, str | None]:
    """Official schema when present and usable; else ours plus a note why the official one failed."""
    official = official_schema_path(kind, project)
    if official is not None:
        path, source = official
        try:
            return load_official(str(path), path.stat().st_mtime_ns), source, None
        except (OSError, ValueError, SchemaError) as exc:
            note = f"{source} is unusable ({exc.__class__.__name__}: {str(exc)[:200]})"
            return builtin_schema(kind), BUILTIN_SOURCE, note
    return builtin_schema(kind), BUILTIN_SOURCE, None


def schema_scope(schema: dict[str, Any]) -> tuple[str, ...]:
    """Where in a document a schema applies: () for whole documents, ("spec",) for spec-only ones.

    Official schemas are not guaranteed to describe the whole document; one whose properties
    name none of the envelope keys is taken to describe `spec`.
    """
    props = schema.get("properties")
    if isinstance(props, dict) and props and not ({"apiVersion", "kind", "metadata", "spec"} & set(props)):
        return ("spec",)
    return ()


class CompiledSchema:
    """A ready validator for one kind. Busy built-in schemas also get a compiled fast path.

    fastjsonschema turns our schemas into plain Python (~6x faster than jsonschema) and is
    used only to answer "valid?"; jsonschema then explains any failure in full. Compiling costs
    10-60 ms, so it happens only once a kind has been validated FAST_PATH_AFTER times (large
    projects). Official schemas use jsonschema alone (they may use keywords fastjsonschema does
    not know), with their sibling files registered for `$ref`; if one still fails while
    validating (say, a `$ref` to a missing file), it is replaced by ours and `note` says why.
    """

    FAST_PATH_AFTER = 20

    def __init__(self, kind: str, schema: dict[str, Any], source: str, note: str | None,
                 file: Path | None = None) -> None:
        self.kind = kind
        self.schema = schema
        self.scope = schema_scope(schema)
        self.source = source
        self.note = note
        #: the official schema file in use, or the unusable one ours stands in for
        self.file = file
        cls = validators.validator_for(schema, default=Draft202012Validator)
        if file is not None and note is None:
            self.validator = cls({"$id": file.resolve().as_uri(), **schema}, registry=sibling_registry(file, schema))
        else:
            self.validator = cls(schema)
        self._uses = 0 if source == BUILTIN_SOURCE else -1  # -1: never compile
        self._fast: Any = None
        self._fallback: CompiledSchema | None = None

    def check(self, document: dict[str, Any]) -> tuple[list[Any], tuple[str, ...]]:
        """(jsonschema errors, scope of their paths) for a whole document's data."""
        if self._fallback is not None:
            return self._fallback.check(document)
        instance = document.get("spec") if self.scope else document
        if self._fast is None and self._uses >= 0:
            self._uses += 1
            if self._uses > self.FAST_PATH_AFTER:
                import fastjsonschema

                self._fast = fastjsonschema.compile({k: v for k, v in self.schema.items() if k != "$schema"})
        if self._fast is not None:
            try:
                self._fast(instance)
                return [], self.scope
            except Exception:  # noqa: BLE001 - any failure: let jsonschema give the real answer
                pass
        try:
            return list(self.validator.iter_errors(instance)), self.scope
        except Exception as exc:  # noqa: BLE001 - a broken official schema must not break validation
            if self.source == BUILTIN_SOURCE:
                raise
            self.note = f"{self.source} failed while validating ({exc.__class__.__name__}: {str(exc)[:200]})"
            self._fallback = CompiledSchema(self.kind, builtin_schema(self.kind), BUILTIN_SOURCE, None)
            return self._fallback.check(document)


def sibling_registry(file: Path, schema: dict[str, Any]) -> Any:
    """A `referencing` registry of every JSON schema beside `file`, so relative `$ref`s resolve."""
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    base_id = _base_id if isinstance(_base_id := schema.get("$id"), str) else None
    resources = []
    for sibling in sorted(file.parent.glob("*.json")):
        try:
            contents = json.loads(sibling.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(contents, dict):
            continue
        resource = Resource.from_contents(contents, default_specification=DRAFT202012)
        uris = {sibling.resolve().as_uri()}
        if isinstance(contents.get("$id"), str):
            uris.add(contents["$id"])
        if base_id and "/" in base_id:
            uris.add(base_id.rsplit("/", 1)[0] + "/" + sibling.name)
        resources += [(uri, resource) for uri in uris]
    return Registry().with_resources(resources)


_VALIDATORS: dict[tuple[str, str, int], CompiledSchema] = {}


def validator_for(kind: str, project: Project | None) -> CompiledSchema:
    """The compiled schema for a properly-cased kind (cached per kind, source file and mtime)."""
    official = official_schema_path(kind, project)
    stamp = 0
    if official is not None:
        try:
            stamp = official[0].stat().st_mtime_ns
        except OSError:
            stamp = -1
    key = (kind, official[1] if official else BUILTIN_SOURCE, stamp)
    cached = _VALIDATORS.get(key)
    if cached is None:
        schema, source, note = _schema_with_fallback(kind, project)
        cached = CompiledSchema(kind, schema, source, note, official[0] if official else None)
        _VALIDATORS[key] = cached
    return cached
