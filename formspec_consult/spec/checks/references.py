"""Cross-document references: relation `resource`, `extend_storage.target`, views' entities."""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.checks.context import Findings, Index
from formspec_consult.spec.checks.entity import fields_of
from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document

_VIEW_KINDS = frozenset({"Form", "Table", "Listing", "Kanban", "Calendar", "Timeline", "Print", "Report"})


def check_references(doc: Document, index: Index, out: Findings) -> None:
    """Resolve every entity reference `doc` makes against the index."""
    kind = effective_kind(doc.kind)
    spec = doc.spec
    if kind == "Entity":
        _check_fields(doc, fields_of(spec), index, out, ("spec", "fields"))
        ext = spec.get("extend_storage")
        if isinstance(ext, dict) and isinstance(ext.get("target"), str):
            _resolve(doc, ext["target"], index, out, ("spec", "extend_storage", "target"), "FS-EXTEND-TARGET",
                     "extend_storage.target")
    elif kind in _VIEW_KINDS:
        for key in ("entity", "resource"):
            if isinstance(spec.get(key), str):
                _resolve(doc, spec[key], index, out, ("spec", key), "FS-VIEW-ENTITY", f"{kind} {key}")


def _check_fields(doc: Document, fields: list[tuple[int, dict[str, Any]]], index: Index, out: Findings,
                  base: tuple[Any, ...]) -> None:
    for i, f in fields:
        rel = f.get("relation")
        if isinstance(rel, dict) and isinstance(rel.get("resource"), str):
            _resolve(doc, rel["resource"], index, out, base + (i, "relation", "resource"),
                     "FS-RELATION-RESOURCE", f"relation {f['name']!r}")
        child = f.get("child")
        if isinstance(child, dict):
            if isinstance(child.get("entity"), str) and child.get("storage") == "table":
                _resolve(doc, child["entity"], index, out, base + (i, "child", "entity"),
                         "FS-CHILD-ENTITY", f"child table {f['name']!r}")
            _check_fields(doc, fields_of(child), index, out, base + (i, "child", "fields"))


def _resolve(doc: Document, ref: str, index: Index, out: Findings, path: tuple[Any, ...], code: str,
             what: str) -> None:
    module, found = index.resolve_entity(ref, doc.module)
    if not found:
        where = f"module {module!r}" if module else "this module"
        out.error(code, doc, path, f"{what} points to {ref!r}, but no such entity exists in {where}",
                  "Write `<module>.<entity>` naming an existing entity (check_naming_conflict/read_module_spec "
                  "help find it), or create that entity first.")
    elif not index.may_reference(doc.module, module):
        out.error(code + "-DEPENDS", doc, path,
                  f"{what} points to {ref!r} in module {module!r}, which module {doc.module!r} does not depend on",
                  f"Add `- module: {module}` to `depends:` in {doc.module}'s module.yaml.")
