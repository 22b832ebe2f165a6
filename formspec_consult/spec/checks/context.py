"""Shared plumbing for structural checks: the cross-document index and the findings sink."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from formspec_consult.spec.kinds import CORE_ENTITIES, CORE_MODULE, effective_kind
from formspec_consult.spec.model import Document, Problem


@dataclass
class Findings:
    """Collects problems and warnings, resolving the line of the offending node."""

    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    def error(self, code: str, doc: Document, path: tuple[Any, ...], message: str, hint: str) -> None:
        """Record a blocking problem at `path` inside `doc`."""
        self.problems.append(self._make(code, doc, path, message, hint))

    def warn(self, code: str, doc: Document, path: tuple[Any, ...], message: str, hint: str) -> None:
        """Record a non-blocking warning at `path` inside `doc`."""
        self.warnings.append(self._make(code, doc, path, message, hint))

    @staticmethod
    def _make(code: str, doc: Document, path: tuple[Any, ...], message: str, hint: str) -> Problem:
        line, column = doc.position_of(path)
        return Problem(code, doc.rel, line, "structural", message, hint, column)


def as_list(value: Any) -> list[Any]:
    """`value` when it is a list, else an empty list (specs are untrusted input)."""
    return value if isinstance(value, list) else []


def module_key(name: str) -> str:
    """The comparable form of a module name: `formspec/core` (as `depends` spells it) = `formspec.core`."""
    return name.lower().replace("/", ".")


def split_ref(ref: str, own_module: str | None) -> tuple[str | None, str]:
    """`billing.invoice` / `billing/invoice` / `formspec.core.user` / `invoice` → (module, entity)."""
    for sep in ("/", "."):
        if sep in ref:
            module, _, name = ref.rpartition(sep)
            return module, name
    return own_module, ref


@dataclass
class Index:
    """Lookup tables over the effective documents of a tree (overrides applied)."""

    docs: list[Document]
    entities: dict[tuple[str, str], Document] = field(default_factory=dict)
    module_docs: dict[str, Document] = field(default_factory=dict)
    module_names: set[str] = field(default_factory=set)
    depends: dict[str, set[str]] = field(default_factory=dict)
    #: entity key → Entity Extensions whose extend_storage.target is that entity
    extensions: dict[tuple[str, str], list[Document]] = field(default_factory=dict)
    #: per-run memo: many documents repeat the same references (e.g. formspec.core.user)
    _resolved: dict[tuple[str, str | None], tuple[str | None, bool]] = field(default_factory=dict)
    _fields: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)

    @classmethod
    def build(cls, docs: list[Document], extra_modules: set[str] | frozenset[str] = frozenset()) -> Index:
        """Index the effective documents; `extra_modules` are module folders without a manifest."""
        index = cls(docs)
        index.module_names = {module_key(m) for m in extra_modules} | {CORE_MODULE}
        entity_docs: list[Document] = []
        for doc in docs:
            kind = effective_kind(doc.kind)
            if kind == "Entity" and doc.name:
                index.entities.setdefault((module_key(doc.module or ""), doc.name.lower()), doc)
                entity_docs.append(doc)
            elif kind == "Module" and doc.name:
                key = module_key(doc.name)
                index.module_docs.setdefault(key, doc)
                index.module_names.add(key)
                deps = doc.spec.get("depends")
                index.depends[key] = {module_key(str(d.get("module", ""))) for d in deps
                                      if isinstance(d, dict)} if isinstance(deps, list) else set()
        for doc in entity_docs:
            ext = doc.spec.get("extend_storage")
            if isinstance(ext, dict) and isinstance(ext.get("target"), str):
                target = index.entity_key(ext["target"], doc.module)
                if target is not None:
                    index.extensions.setdefault(target, []).append(doc)
        return index

    def entity_key(self, ref: str, own_module: str | None) -> tuple[str, str] | None:
        """The index key of the project entity `ref` names (None for core or unknown entities)."""
        module, name = split_ref(ref, own_module)
        key = (module_key(module or ""), name.lower())
        return key if key in self.entities else None

    def field_names(self, key: tuple[str, str]) -> frozenset[str]:
        """Field names of an entity, including those added by Entity Extensions."""
        names = self._fields.get(key)
        if names is None:
            names = own_field_names(self.entities[key])
            for ext in self.extensions.get(key, []):
                names = names | own_field_names(ext)
            self._fields[key] = names
        return names

    def has_module(self, module: str) -> bool:
        """True for modules with a manifest or folder, and for formspec.core."""
        return module_key(module) in self.module_names

    def resolve_entity(self, ref: str, own_module: str | None) -> tuple[str | None, bool]:
        """(target module, found) for an entity reference written in `own_module`."""
        hit = self._resolved.get((ref, own_module))
        if hit is None:
            hit = self._resolved[(ref, own_module)] = self._resolve(ref, own_module)
        return hit

    def _resolve(self, ref: str, own_module: str | None) -> tuple[str | None, bool]:
        module, name = split_ref(ref, own_module)
        mod = module_key(module or "")
        if mod == CORE_MODULE:  # built in, and a project may add its own spec/modules/formspec.core/
            return CORE_MODULE, name.lower() in CORE_ENTITIES or (mod, name.lower()) in self.entities
        return module, (mod, name.lower()) in self.entities

    def may_reference(self, from_module: str | None, to_module: str | None) -> bool:
        """Same module, formspec.core, or a module `from_module` depends on."""
        src, dst = module_key(from_module or ""), module_key(to_module or "")
        return dst in (src, CORE_MODULE) or dst in self.depends.get(src, set())


def own_field_names(doc: Document) -> frozenset[str]:
    """The top-level field names one entity document declares (memoised on the document)."""
    names = doc.__dict__.get("_field_names")
    if names is None:
        raw = doc.spec.get("fields")
        names = frozenset(f["name"] for f in raw if isinstance(f, dict) and isinstance(f.get("name"), str)) \
            if isinstance(raw, list) else frozenset()
        doc.__dict__["_field_names"] = names
    return names
