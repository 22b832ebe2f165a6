"""JSON Schemas per kind, resolved once per kind and source files, compiled once and reused.

`resolve` walks the sources of `schema_sources` (official project schemas, the user cache, then
ours), checks each candidate in full and returns the first usable one plus notes about the
unusable ones. `validator_for` turns a resolution into a `CompiledSchema`, cached by the
identity (path, mtime, size) of the files it was built from, so a project validated again, or
another project sharing the user cache, does not compile anything twice.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator, validators
from jsonschema.exceptions import SchemaError

from formspec_consult.spec.errors import UnknownKind
from formspec_consult.spec.kinds import canonical_kind, known_kinds
from formspec_consult.spec.model import ProjectLike
from formspec_consult.spec.schema_sources import (
    Found,
    UnusableSchema,
    candidate_folders,
    locate,
    spec_version,
)
from formspec_consult.spec.schemas import shared_builtin_schema

BUILTIN_SOURCE = "formspec-consult built-in schema"
DEFAULT_API_VERSION = "formspec.dev/v1"


@dataclass
class Resolution:
    """Which schema a kind uses, where it came from, and why better candidates were skipped."""

    kind: str
    schema: dict[str, Any]
    source: str
    file: Path | None = None
    stamps: tuple[tuple[str, int, int], ...] = ()
    scope: tuple[str, ...] = ()
    flat: bool = False
    local_refs_only: bool = True
    #: (unusable file, reason) for every official candidate that was skipped
    skipped: list[tuple[Path, str]] = field(default_factory=list)


def resolve_kind(kind: str) -> str:
    """Properly-cased kind or UnknownKind listing the known kinds."""
    canonical = canonical_kind(kind)
    if canonical is None:
        raise UnknownKind(str(kind), known_kinds())
    return canonical


def resolve(kind: str, project: ProjectLike | None, api_version: str | None = DEFAULT_API_VERSION) -> Resolution:
    """The schema `kind` (properly cased) uses for documents of `api_version` in `project`."""
    skipped: list[tuple[Path, str]] = []
    for folder, label in candidate_folders(project, api_version):
        try:
            found = locate(kind, folder, label)
            if found is None:
                continue
            local_only = _check_usable(found)
        except UnusableSchema as exc:
            skipped.append((exc.file, exc.reason))
            continue
        return Resolution(kind, found.schema, found.source, found.file, found.stamps, found.scope, found.flat,
                          local_only, skipped)
    return Resolution(kind, shared_builtin_schema(kind), BUILTIN_SOURCE, skipped=skipped)


def kind_schema(kind: str, project: ProjectLike | None = None) -> tuple[dict[str, Any], str]:
    """(JSON schema, sentence naming its source) for `kind`, case-insensitive."""
    found = resolve(resolve_kind(kind), project)
    return copy.deepcopy(found.schema), found.source


def builtin_schema(kind: str) -> dict[str, Any]:
    """Our schema for a properly-cased known kind (shared: do not modify)."""
    return shared_builtin_schema(kind)


# -- checking an official candidate ------------------------------------------------------------

def _check_usable(found: Found) -> bool:
    """Raise UnusableSchema unless `found` is a valid schema whose `$ref`s all resolve.

    Returns True when every `$ref` is local (`#/…`), which allows the compiled fast path.
    """
    key = (found.source, found.stamps)
    cached = _USABLE.get(key)
    if cached is None:
        try:
            cached = (True, _local_only(found))
        except UnusableSchema as exc:
            cached = (False, exc)
        _USABLE[key] = cached
    ok, value = cached
    if not ok:
        assert isinstance(value, UnusableSchema)
        raise value
    return bool(value)


_USABLE: dict[tuple[str, tuple[tuple[str, int, int], ...]], tuple[bool, Any]] = {}


def _local_only(found: Found) -> bool:
    schema = found.schema
    cls = validators.validator_for(schema, default=Draft7Validator)
    if found.flat:
        try:
            cls.check_schema(schema)
        except SchemaError as exc:
            raise UnusableSchema(found.file, f"is not a valid JSON Schema ({exc.message})") from None
    # A FormSpec-layout schema is not checked against the meta-schema up front: doing so costs
    # more than validating a whole small project. Its `$ref`s are all resolved here; anything
    # else broken surfaces when a document reaches it, and `CompiledSchema.check` then falls
    # back to ours for the kind and the run starts over, so every document sees one schema.
    registry, base = _registry(found)
    resolver = registry.resolver(base_uri=base)
    local_only = True
    seen: set[int] = set()
    todo: list[tuple[Any, Any]] = [(schema if found.flat else schema["properties"], resolver)]
    while todo:
        node, here = todo.pop()
        if isinstance(node, list):
            todo.extend((item, here) for item in node)
            continue
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        target = node.get("$ref")
        if isinstance(target, str):
            local_only &= target.startswith("#")
            todo.append(_follow(found, schema, here, target))
        todo.extend((value, here) for key, value in node.items()
                    if key not in ("$ref", "const", "enum", "examples", "default"))
    return local_only


def _follow(found: Found, schema: dict[str, Any], here: Any, target: str) -> tuple[Any, Any]:
    """(what `target` points at, resolver to continue with); UnusableSchema when it points nowhere."""
    if target.startswith("#/") and not found.flat:  # a JSON pointer into this document: no registry needed
        node: Any = schema
        for part in target[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise UnusableSchema(found.file, f"has a `$ref` that does not resolve: {target}")
        return node, here
    try:
        resolved = here.lookup(target)
    except Exception:  # noqa: BLE001 - referencing raises several kinds of Unresolvable
        raise UnusableSchema(found.file, f"has a `$ref` that does not resolve: {target}") from None
    return resolved.contents, resolved.resolver


def _registry(found: Found) -> tuple[Any, str]:
    """A `referencing` registry holding the schema (and, for flat files, its sibling files)."""
    key = (found.source, found.stamps)
    if key not in _REGISTRIES:
        _REGISTRIES[key] = _new_registry(found)
    return _REGISTRIES[key]


_REGISTRIES: dict[tuple[str, tuple[tuple[str, int, int], ...]], tuple[Any, str]] = {}


def _new_registry(found: Found) -> tuple[Any, str]:
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT7

    base = found.file.resolve().as_uri()
    resources = [(base, Resource.from_contents(found.schema, default_specification=DRAFT7))]
    if found.flat:
        base_id = found.schema.get("$id") if isinstance(found.schema.get("$id"), str) else None
        for sibling in sorted(found.file.parent.glob("*.json")):
            if sibling == found.file:
                continue
            try:
                contents = json.loads(sibling.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if not isinstance(contents, dict):
                continue
            resource = Resource.from_contents(contents, default_specification=DRAFT7)
            uris = {sibling.resolve().as_uri()}
            if isinstance(contents.get("$id"), str):
                uris.add(contents["$id"])
            if base_id and "/" in base_id:
                uris.add(base_id.rsplit("/", 1)[0] + "/" + sibling.name)
            resources += [(uri, resource) for uri in uris]
    return Registry().with_resources(resources), base


class RefResolver:
    """Follows the `$ref`s of a resolved kind schema (for reading it, e.g. the outline).

    Local `#/…` pointers are read from the schema itself; other references (flat official files
    pointing at their siblings) go through the same `referencing` registry validation uses.
    Anything unresolvable reads as an empty schema: an outline must never fail on a broken file
    the validator would already have refused.
    """

    def __init__(self, resolution: Resolution) -> None:
        self.resolution = resolution
        self._resolver: Any = None

    def root(self) -> tuple[dict[str, Any], tuple[str, ...]]:
        """(the schema, the scope it describes: () for the whole document, ("spec",) for spec only)."""
        return self.resolution.schema, self.resolution.scope

    def follow(self, target: str) -> Any:
        schema = self.resolution.schema
        if target.startswith("#/") and not self.resolution.flat:
            node: Any = schema
            for part in target[2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                if not isinstance(node, dict) or part not in node:
                    return {}
                node = node[part]
            return node
        if self.resolution.file is None:
            return {}
        try:
            if self._resolver is None:
                registry, base = _registry(_as_found(self.resolution))
                self._resolver = registry.resolver(base_uri=base)
            return self._resolver.lookup(target).contents
        except Exception:  # noqa: BLE001 - referencing raises several kinds of Unresolvable
            return {}


# -- compiled validators -------------------------------------------------------------------------

class CompiledSchema:
    """A ready validator for one kind.

    Busy kinds also get a compiled fast path: fastjsonschema turns a schema into plain Python
    (~6x faster than jsonschema) and is used only to answer "valid?"; jsonschema then explains
    any failure in full. Compiling costs 10-100 ms, so it happens only once a kind has been
    validated FAST_PATH_AFTER times (large projects). Schemas with non-local `$ref`s never get
    it (fastjsonschema would try to fetch them). If an official schema still fails while
    validating, it is replaced by ours, `note` says why, and `generation` changes so the
    caller can validate every document of the kind again with the same schema.
    """

    FAST_PATH_AFTER = 20

    def __init__(self, resolution: Resolution) -> None:
        self.kind = resolution.kind
        self.resolution = resolution
        self.schema = resolution.schema
        self.scope = resolution.scope
        self.source = resolution.source
        self.notes: list[tuple[Path, str]] = list(resolution.skipped)
        self.generation = 0
        cls = validators.validator_for(self.schema, default=Draft7Validator)
        if resolution.file is not None:
            registry, base = _registry(_as_found(resolution))
            self.validator = cls({**self.schema, "$id": base}, registry=registry)
        else:
            self.validator = cls(self.schema)
        self._uses = 0 if resolution.local_refs_only and not resolution.flat else -1  # -1: never compile
        self._fast: Any = None
        self._fallback: CompiledSchema | None = None

    @property
    def file(self) -> Path | None:
        """The official schema file in use (None for ours)."""
        return self.resolution.file if self._fallback is None else None

    def check(self, document: dict[str, Any]) -> tuple[list[Any], tuple[str, ...]]:
        """(jsonschema errors, scope of their paths) for a whole document's data."""
        if self._fallback is not None:
            return self._fallback.check(document)
        instance = document.get("spec") if self.scope else document
        if self._fast is None and self._uses >= 0:
            self._uses += 1
            if self._uses > self.FAST_PATH_AFTER:
                self._fast = _fast_validator(self.resolution)
                if self._fast is False:
                    self._uses = -1
        if self._fast:
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
            assert self.resolution.file is not None
            self.notes.append((self.resolution.file,
                               f"failed while validating ({exc.__class__.__name__}: {str(exc)[:200]})"))
            self._fallback = CompiledSchema(Resolution(self.kind, shared_builtin_schema(self.kind), BUILTIN_SOURCE))
            self.source = BUILTIN_SOURCE
            self.generation += 1
            return self._fallback.check(document)


def _as_found(resolution: Resolution) -> Found:
    assert resolution.file is not None
    return Found(resolution.schema, resolution.source, resolution.file, resolution.stamps, resolution.scope,
                 resolution.flat)


_FAST: dict[tuple[str, str, tuple[tuple[str, int, int], ...]], Any] = {}


def _fast_validator(resolution: Resolution) -> Any:
    """A fastjsonschema validator (cached per kind and source files), or False when it cannot compile."""
    key = (resolution.kind, resolution.source, resolution.stamps)
    if key not in _FAST:
        import fastjsonschema

        try:
            _FAST[key] = fastjsonschema.compile(_pruned(resolution.schema))
        except Exception:  # noqa: BLE001 - an official schema may use what fastjsonschema lacks
            _FAST[key] = False
    return _FAST[key]


def _pruned(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` without `$schema` and with only the `$defs` its `#/$defs/…` refs reach.

    A merged official schema carries every shared definition of every kind; fastjsonschema
    would generate code for all of them (seconds), while a kind needs a fraction.
    """
    defs = schema.get("$defs")
    body = {k: v for k, v in schema.items() if k not in ("$schema", "$defs")}
    if not isinstance(defs, dict):
        return body
    keep: dict[str, Any] = {}
    todo: list[Any] = [body]
    while todo:
        node = todo.pop()
        if isinstance(node, list):
            todo.extend(node)
        elif isinstance(node, dict):
            target = node.get("$ref")
            if isinstance(target, str) and target.startswith("#/$defs/"):
                name = target.removeprefix("#/$defs/").split("/", 1)[0]
                if name in defs and name not in keep:
                    keep[name] = defs[name]
                    todo.append(defs[name])
            todo.extend(v for k, v in node.items() if k not in ("const", "enum", "examples", "default"))
    return {**body, "$defs": keep}


_VALIDATORS: dict[tuple[Any, ...], CompiledSchema] = {}


def validator_for(kind: str, project: ProjectLike | None, api_version: str | None = DEFAULT_API_VERSION) -> CompiledSchema:
    """The compiled schema for a properly-cased kind (cached per kind and source files)."""
    resolution = resolve(kind, project, api_version)
    key = (kind, resolution.source, resolution.stamps, tuple(resolution.skipped))
    cached = _VALIDATORS.get(key)
    if cached is None:
        cached = _VALIDATORS[key] = CompiledSchema(resolution)
    return cached


def version_key(api_version: str | None) -> str | None:
    """The part of an apiVersion that selects a schema version (for per-run caching)."""
    return spec_version(api_version)
