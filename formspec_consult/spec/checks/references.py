"""Cross-document references: relation `resource`, `extend_storage.target`, views' entities."""

from __future__ import annotations

import difflib
from typing import Any

from formspec_consult.spec.checks.context import Findings, Index, split_ref
from formspec_consult.spec.checks.entity import fields_of
from formspec_consult.spec.kinds import CORE_ENTITIES, CORE_MODULE, effective_kind
from formspec_consult.spec.model import Document

#: kinds whose `spec.entity` FormSpec's `check` resolves (a Report's `source.entity` wins over `entity`)
_VIEW_KINDS = frozenset({"Form", "Table", "Listing", "Kanban", "Calendar", "Timeline", "Print", "Report", "Widget",
                         "Wizard"})


Reference = tuple[str, tuple[Any, ...], str, str]  # (code, path in doc, reference text, what refers)


def collect_references(doc: Document) -> list[Reference]:
    """Every entity reference `doc` makes; depends on the document alone, so it is cached."""
    kind = effective_kind(doc.kind)
    spec = doc.spec
    found: list[Reference] = []
    if kind == "Entity":
        _collect_fields(fields_of(spec), ("spec", "fields"), found)
        ext = spec.get("extend_storage")
        if isinstance(ext, dict) and isinstance(ext.get("target"), str):
            found.append(("FS-EXTEND-TARGET", ("spec", "extend_storage", "target"), ext["target"],
                          "extend_storage.target"))
    elif kind in _VIEW_KINDS:
        source = spec.get("source")
        if kind == "Report" and isinstance(source, dict) and isinstance(source.get("entity"), str) \
                and source["entity"]:
            found.append(("FS-VIEW-ENTITY", ("spec", "source", "entity"), source["entity"], "Report source.entity"))
            return found
        for key in ("entity", "resource"):
            if isinstance(spec.get(key), str) and spec[key]:
                found.append(("FS-VIEW-ENTITY", ("spec", key), spec[key], f"{kind} {key}"))
    return found


def _collect_fields(fields: list[tuple[int, dict[str, Any]]], base: tuple[Any, ...], found: list[Reference]) -> None:
    for i, f in fields:
        rel = f.get("relation")
        if isinstance(rel, dict) and isinstance(rel.get("resource"), str):
            found.append(("FS-RELATION-RESOURCE", base + (i, "relation", "resource"), rel["resource"],
                          f"relation {f['name']!r}"))
        child = f.get("child")
        if isinstance(child, dict):
            if isinstance(child.get("entity"), str) and child.get("storage") == "table":
                found.append(("FS-CHILD-ENTITY", base + (i, "child", "entity"), child["entity"],
                              f"child table {f['name']!r}"))
            _collect_fields(fields_of(child), base + (i, "child", "fields"), found)


def check_references(doc: Document, refs: list[Reference], index: Index, out: Findings) -> None:
    """Resolve the references collected from `doc` against the index."""
    for code, path, ref, what in refs:
        module, found = index.resolve_entity(ref, doc.module)
        if not found:
            where = f"module {module!r}" if module else "this module"
            out.error(code, doc, path, f"{what} points to {ref!r}, but no such entity exists in {where}",
                      _suggest(ref, module, index))
        elif not index.may_reference(doc.module, module):
            # FormSpec itself resolves references without looking at `depends`: advice, not a block
            out.warn(code + "-DEPENDS", doc, path,
                     f"{what} points to {ref!r} in module {module!r}, which module {doc.module!r} does not depend on",
                     f"Add `- module: {module}` to `depends:` in {doc.module}'s module.yaml, so installing "
                     f"{doc.module} elsewhere brings {module} along.")


def _suggest(ref: str, module: str | None, index: Index) -> str:
    """A "did you mean" over the project's entities (and formspec.core's), else general advice.

    Only a plausible slip is suggested: `booking_item` is not a misspelt `booking` (a name that
    extends another at a `_` is another entity, most often one still to be written), and a bare
    reference is answered with a bare name when the suggestion is in the same module.
    """
    candidates = [f"{m}.{n}" for m, n in index.entities] + [f"{CORE_MODULE}.{n}" for n in sorted(CORE_ENTITIES)]
    _, name = split_ref(ref, module)
    wanted = f"{(module or '').lower()}.{name.lower()}"
    close = [c for c in difflib.get_close_matches(wanted, candidates, n=3, cutoff=0.75)
             if not _extends(name.lower(), c.rsplit(".", 1)[1])][:2]
    if not close:  # the name alone may be right and the module wrong
        close = [c for c in candidates if c.rsplit(".", 1)[1] == name.lower()][:2]
    if close:
        bare = split_ref(ref, None)[0] is None
        shown = [c.rsplit(".", 1)[1] if bare and c.rsplit(".", 1)[0] == (module or "").lower() else c for c in close]
        return (f"Did you mean {' or '.join(f'`{c}`' for c in shown)}? (It names a `kind: Entity` document: "
                "`<module>.<entity>`, or a bare name of this module.)")
    return (f"Create the entity `{name}` (propose its file too), or write `<module>.<entity>` naming an "
            "existing one (check_naming_conflict and read_module_spec help find it).")


def _extends(a: str, b: str) -> bool:
    """Whether one entity name extends the other at a `_` (`booking_item` and `booking`)."""
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer != shorter and (longer.startswith(shorter + "_") or longer.endswith("_" + shorter))
